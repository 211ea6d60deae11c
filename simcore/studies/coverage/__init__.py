"""The coverage study (``kind: coverage``): whether intervals cover.

The study object (study), its cells (cells), its table and figure (report), which interval
to use per region of the grid (advice), and the clustered scenarios against
cluster-robust intervals (clustered).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "ClusteredScenario",
    "scenario_coverage",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "clustered": (
            "ClusteredScenario",
            "scenario_coverage",
        ),
    },
)
