"""Judge calibration statistics: rates, corrected failure rates and their intervals.

TPR/TNR with Wilson intervals, Rogan-Gladen with the naive and Lang-Reiczigel intervals
(statistics, on the checks and formulas of formulas), the corrected rate and its refusal
rule (correction), their numba twins for the coverage study (twins), the ``simcore
calibrate`` report (command) and the coverage check on real judges (real_check, with
real_pairs, real_splits and real_report); the human ceilings of a multi-rater matrix
(ceiling, on the grouped Spearman/kappa scores of grouped_scores).
"""
