"""Is a criterion well posed? Agreement among judges on unlabelled items.

The judges' agreement with bootstrap bands (agreement), their labels read from any input
with humans ignored (data), and the table of ``simcore wellposed`` (report).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "agreement_lines",
    "agreement_rows",
    "group_agreements",
    "load_judge_table",
    "pair_table_size",
    "write_csv",
    "write_study",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "agreement": (
            "group_agreements",
            "pair_table_size",
        ),
        "data": ("load_judge_table",),
        "report": (
            "agreement_lines",
            "agreement_rows",
            "write_csv",
            "write_study",
        ),
    },
)
