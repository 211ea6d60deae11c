"""Sphinx configuration of the simcore docs (``make docs``; warnings are errors).

MyST Markdown pages, numpydoc docstrings rendered by autosummary, the command line rendered
from its parser (sphinx-argparse), the scenario keys and cube variables rendered from their
declarations (``docs/_ext``), and the PyData theme, as numpy and xarray build theirs.
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS / "_ext"))

from simcore import __version__  # noqa: E402

project = "simcore"
author = "the simcore developers"
copyright = "2026, the simcore developers"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
    "declared_options",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
nitpicky = False
suppress_warnings = []

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
smartquotes = False  # options keep their two hyphens

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = {"GL08"}  # every public name has a docstring
numpydoc_validation_exclude = {r"\.__init__$"}  # a dataclass documents its fields on the class

html_theme = "pydata_sphinx_theme"
html_title = f"simcore {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = []
