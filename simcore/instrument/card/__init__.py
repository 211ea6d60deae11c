"""Judge cards: a judge's TPR and TNR on one criterion of one population, with an expiry.

Measuring a card (measure), its file written and read back with every key checked (file),
the population's human ceiling it reports (ceiling), and ``simcore card --check`` on a new
population (check).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "CEILING_BOOT",
    "ON_ALARM",
    "card_argument",
    "card_calibration_table",
    "card_definition",
    "card_text",
    "count_outcomes",
    "human_label_set",
    "judge_outcomes",
    "load_criterion",
    "measure_card",
    "read_card",
    "transport_check",
    "write_card",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "ceiling": ("CEILING_BOOT",),
        "check": ("transport_check",),
        "file": (
            "card_argument",
            "card_calibration_table",
            "card_definition",
            "read_card",
            "write_card",
        ),
        "measure": (
            "ON_ALARM",
            "card_text",
            "count_outcomes",
            "human_label_set",
            "judge_outcomes",
            "load_criterion",
            "measure_card",
        ),
    },
)
