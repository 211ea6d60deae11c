"""simcore: how far to trust an LLM judge validated on sparse, partly overlapping labels.

Public API: :func:`run` a scenario into a cube, :func:`load_scenario` to read and validate
a scenario file, and :mod:`simcore.testing` for assertion helpers on cubes.
"""

from simcore._version import __version__
from simcore.api import load_any as load_scenario  # noqa: E402  (synthetic or real-data)
from simcore.api import run  # noqa: E402
from simcore.studies.config import ScenarioError  # noqa: E402

__all__ = ["ScenarioError", "__version__", "load_scenario", "run"]
