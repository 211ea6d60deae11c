"""The files ``simcore advise`` writes and the words of its plan.

``next_round.csv`` and ``report.md`` (files), ``report.png`` (figure) and the one
recommendation with the details behind it (plan).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "OUTPUT_FILES",
    "details_document",
    "figure_writer",
    "next_round_rows",
    "recommendation_text",
    "report_markdown",
    "report_plot",
    "rows_writer",
    "summary",
    "write_outputs",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "figure": (
            "figure_writer",
            "report_plot",
        ),
        "files": (
            "OUTPUT_FILES",
            "next_round_rows",
            "report_markdown",
            "rows_writer",
            "summary",
            "write_outputs",
        ),
        "plan": (
            "details_document",
            "recommendation_text",
        ),
    },
)
