"""The paper's real-data protocol (P section 4.2) as a study kind (``kind: real``).

The study object (study), its cells on the shared matrix and its thinning trials (cells,
with the judge-dependent panels of judge_panels), the alternative annotator test's
variant (alt_test), the rule's form (forms), the other scoring of a rating scale (scale,
scorings), and the tables and figures of its cubes beside P's numbers (tables, paper).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "composition_table",
    "scorings_table",
    "table2",
    "table3",
    "variants_report",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "paper": (
            "composition_table",
            "variants_report",
        ),
        "scorings": ("scorings_table",),
        "tables": (
            "table2",
            "table3",
        ),
    },
)
