"""The numerical engine: numba kernels on arrays, nothing above them.

Counter-based random streams (rng), exact discrete samplers (samplers), the agreement
coefficients (coefficients), the codes and array layouts the kernels share (layout), the
items engine (kernels, which draws each trial through draws), the rules that decide a
trial (point_rule, alt_test, interval, the point rule with a weighted coefficient in
weighted_rule scoring by weighted_scores, and decide, which the items and counts engines
call), the counts engine (counts), the bitset engine (bitset/: its trials drawing through draws
and words, counting through margins, deciding through verdicts, clusters), which engine
runs a cell (choice: each engine's reach and ``engine: auto``), whether an engine is
compiled yet (warm),
the statistics kernels of the original test (stats_kernels), and the
calibration statistics' scalar twins and coverage trials (interval_twins, ppi_twins). Arrays
and scalars in, arrays out; no configuration, scheduling or storage. numba is imported
nowhere else: the layers above set and read its threads and version through threads.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "BITSET_STREAMS",
    "COEFFICIENTS",
    "COVERAGE_SLACK",
    "CellShape",
    "ENGINES",
    "INTERVAL_METHODS",
    "PPI_METHODS",
    "REACH",
    "RULE_SKIP",
    "SCORE_TOLERANCE",
    "SKIP_AGREEMENT",
    "SKIP_OVERLAP",
    "SKIP_RANKING",
    "TIE_TOLERANCE",
    "alt_test_masks",
    "choose_engine",
    "coefficient_code",
    "corrected_bounds",
    "coverage_trials",
    "first_use_note",
    "kernel_variant",
    "kernels",
    "label_draws",
    "leave_one_out_differences",
    "lr_bounds",
    "margins_bytes",
    "method_coverage_trials",
    "naive_bounds",
    "numba_version",
    "planes_model",
    "ppi_method_intervals",
    "score_table",
    "set_threads",
    "simulate_bitset",
    "simulate_counts",
    "stable_key",
    "symmetric_accuracies",
    "thread_count",
    "trial_keys",
    "wilson_bounds",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "alt_test": ("alt_test_masks",),
        "choice": ("ENGINES", "REACH", "CellShape", "choose_engine", "kernel_variant"),
        "bitset.trials": ("BITSET_STREAMS", "simulate_bitset"),
        "bitset.draws": ("planes_model", "symmetric_accuracies"),
        "coefficients": ("COEFFICIENTS", "coefficient_code", "score_table"),
        "counts": ("simulate_counts",),
        "interval_twins": (
            "COVERAGE_SLACK",
            "INTERVAL_METHODS",
            "corrected_bounds",
            "coverage_trials",
            "first_use_note",
            "lr_bounds",
            "method_coverage_trials",
            "naive_bounds",
            "wilson_bounds",
        ),
        "kernels": ("kernels",),
        "label_draws": ("label_draws",),
        "layout": (
            "RULE_SKIP",
            "SCORE_TOLERANCE",
            "SKIP_AGREEMENT",
            "SKIP_OVERLAP",
            "SKIP_RANKING",
            "TIE_TOLERANCE",
        ),
        "margins": ("leave_one_out_differences",),
        "point_rule": ("margins_bytes",),
        "ppi_twins": ("PPI_METHODS", "ppi_method_intervals"),
        "rng": ("stable_key", "trial_keys"),
        "threads": ("numba_version", "set_threads", "thread_count"),
        "warm": ("first_use_note",),
    },
)
