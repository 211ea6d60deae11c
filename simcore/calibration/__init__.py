"""Judge calibration statistics: rates, corrected failure rates and their intervals.

The judge's 2 x 2 calibration table as a validated value object (table), its sensitivity,
specificity and failure rate as another (judge_profile), TPR/TNR with
Wilson intervals, Rogan-Gladen with the naive and Lang-Reiczigel intervals
(statistics, on the checks and formulas of formulas), the corrected rate and its refusal
rule (correction), the prediction-powered family (ppi, methods, method_report), their
cluster-robust intervals (clustered, clustered_report, item_csv), the monitor's
anytime-valid confidence sequence (confidence_sequence), drift alarm (drift_alarm) and
e-value multiple testing (e_values), the
``simcore calibrate`` report (command) and the real-data coverage check's pairs and splits
(real_pairs, real_splits, real_ppi, which ``experiments/real_check.py`` runs). Their
numba twins for the coverage study are engine kernels (:mod:`simcore.engine.interval_twins`,
:mod:`simcore.engine.ppi_twins`), re-exported by statistics. Statistics only: the judge as
an instrument (cards, ceilings, transport, well-posedness) is :mod:`simcore.instrument`,
above this package.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "BinarisedPair",
    "CalibrationInputError",
    "CalibrationTable",
    "DEFAULT_EXPERT",
    "DEFAULT_FAIL_AT_MOST",
    "DEFAULT_N_CALS",
    "DEFAULT_SEED",
    "DEFAULT_SPLITS",
    "DEFAULT_YOUDEN_FLOOR",
    "DIMENSION_SEPARATOR",
    "JudgeProfile",
    "POOLED",
    "betting_confidence_sequence",
    "binarised_pairs",
    "clustered_rates",
    "corrected_failure_rate",
    "coverage_splits",
    "coverage_trials",
    "csv_rows",
    "draw_splits",
    "drift_alarm",
    "e_benjamini_hochberg",
    "failure_rate_sequence",
    "format_method_report",
    "format_report",
    "full_rates",
    "hedged_log_capital",
    "human_ceiling",
    "item_dimension",
    "judge_rates",
    "lang_reiczigel_interval",
    "mixture_detector",
    "mixture_e_process",
    "naive_corrected_interval",
    "normal_mixture_radius",
    "ppi_table_lines",
    "read_confusion_csv",
    "real_coverage_table",
    "rogan_gladen",
    "share_with_se",
    "split_counts",
    "split_results",
    "wilson_interval",
    "youden_j",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "clustered": ("clustered_rates",),
        "command": ("csv_rows", "format_report", "read_confusion_csv"),
        "confidence_sequence": (
            "betting_confidence_sequence",
            "failure_rate_sequence",
            "hedged_log_capital",
            "normal_mixture_radius",
        ),
        "drift_alarm": ("drift_alarm", "mixture_detector", "mixture_e_process"),
        "e_values": ("e_benjamini_hochberg",),
        "errors": ("CalibrationInputError",),
        "judge_profile": ("JudgeProfile",),
        "method_report": ("format_method_report",),
        "real.pairs": (
            "BinarisedPair",
            "DEFAULT_EXPERT",
            "DEFAULT_FAIL_AT_MOST",
            "DIMENSION_SEPARATOR",
            "POOLED",
            "binarised_pairs",
            "item_dimension",
        ),
        "real.ppi": ("ppi_table_lines",),
        "real.splits": (
            "DEFAULT_N_CALS",
            "DEFAULT_SEED",
            "DEFAULT_SPLITS",
            "coverage_splits",
            "draw_splits",
            "full_rates",
            "real_coverage_table",
            "share_with_se",
            "split_counts",
            "split_results",
        ),
        "statistics": (
            "DEFAULT_YOUDEN_FLOOR",
            "corrected_failure_rate",
            "coverage_trials",
            "human_ceiling",
            "judge_rates",
            "lang_reiczigel_interval",
            "naive_corrected_interval",
            "rogan_gladen",
            "wilson_interval",
            "youden_j",
        ),
        "table": ("CalibrationTable",),
    },
)
