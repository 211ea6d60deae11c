"""The judge as a measured instrument: its card, the human ceiling, transport, well-posedness.

A judge card records a judge's TPR and TNR on one criterion of one population with an expiry
(card, written and read by card_file, checked against new data by card_check, with the
criterion's human ceiling of card_ceiling); what FAIL means on a criterion
(fail_definitions); the human ceilings of a multi-rater matrix (ceiling, on the grouped
Spearman/kappa scores of grouped_scores, weighted by the evidence of ceiling_evidence, with
judges placed against them by ceiling_position and graded test matrices in ceiling_shapes)
and the ``simcore ceiling`` report (ceiling_report); what transporting a card to another
population costs (transport); and whether a criterion is well posed, from the judges'
agreement on unlabelled items (wellposed, wellposed_data, wellposed_report). It uses the
statistics of :mod:`simcore.calibration` and the matrices of :mod:`simcore.realdata`;
calibration never imports it.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "DEFAULT_BOOT",
    "DEFAULT_N_CALS",
    "DEFAULT_SPLITS",
    "FailDefinition",
    "MIN_STREAM",
    "SHIPPED_CARD_SPECS",
    "agreement_lines",
    "agreement_rows",
    "binary_truth",
    "card_calibration_table",
    "card_definition",
    "card_text",
    "cohen_kappa",
    "count_outcomes",
    "criterion_matrix",
    "group_agreements",
    "human_label_set",
    "interval_text",
    "is_graded",
    "judge_agreement",
    "judge_outcomes",
    "label_fail_flags",
    "load_criterion",
    "load_judge_table",
    "measure_card",
    "pairwise_agreement",
    "population_ceiling",
    "read_card",
    "transport_check",
    "transport_table",
    "usability",
    "write_card",
    "write_csv",
    "write_study",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "card.measure": (
            "card_text",
            "cohen_kappa",
            "count_outcomes",
            "human_label_set",
            "interval_text",
            "judge_outcomes",
            "load_criterion",
            "measure_card",
            "usability",
        ),
        "card.ceiling": ("population_ceiling",),
        "card.check": ("transport_check",),
        "card.file": ("card_calibration_table", "card_definition", "read_card", "write_card"),
        "ceiling.human_ceilings": ("is_graded", "pairwise_agreement"),
        "fail_definitions": (
            "FailDefinition",
            "SHIPPED_CARD_SPECS",
            "binary_truth",
            "criterion_matrix",
            "label_fail_flags",
        ),
        "transport": ("DEFAULT_N_CALS", "DEFAULT_SPLITS", "MIN_STREAM", "transport_table"),
        "wellposed.agreement": ("DEFAULT_BOOT", "group_agreements", "judge_agreement"),
        "wellposed.data": ("load_judge_table",),
        "wellposed.report": ("agreement_lines", "agreement_rows", "write_csv", "write_study"),
    },
)
