"""Judge calibration statistics: rates, corrected failure rates and their intervals.

TPR/TNR with Wilson intervals, Rogan-Gladen with the naive and Lang-Reiczigel intervals
(statistics, on the checks and formulas of formulas), the corrected rate and its refusal
rule (correction), their numba twins for the coverage study (twins), the ``simcore
calibrate`` report (command) and the real-data coverage check's pairs and splits
(real_pairs, real_splits, which :mod:`simcore.experiments.real_check` runs); the human
ceilings of a multi-rater matrix (ceiling, on the grouped Spearman/kappa scores of
grouped_scores).
"""
