"""Human ceilings of a multi-rater matrix: how well humans agree, what a judge can reach.

The ceilings with their bootstrap intervals (human_ceilings), the evidence each rests on
(evidence), where a judge lies against them (position), the ``simcore ceiling`` report
(report) and graded test matrices with a known reliability (shapes).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "CSV_FIELDS",
    "DEFAULT_BOOT",
    "DEFAULT_SEED",
    "PairwiseAgreement",
    "group_ceilings",
    "human_ceilings",
    "pairwise_agreement",
    "percentile_estimate",
    "statistic_name",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "human_ceilings": (
            "DEFAULT_BOOT",
            "DEFAULT_SEED",
            "PairwiseAgreement",
            "human_ceilings",
            "pairwise_agreement",
            "percentile_estimate",
        ),
        "report": (
            "CSV_FIELDS",
            "group_ceilings",
            "statistic_name",
        ),
    },
)
