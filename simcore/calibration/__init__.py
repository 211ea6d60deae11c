"""Judge calibration statistics: rates, corrected failure rates and their intervals.

TPR/TNR with Wilson intervals, Rogan-Gladen with the naive and Lang-Reiczigel intervals,
their numba twins for the coverage study (statistics), the ``simcore calibrate`` report
(command) and the coverage check on real judges (real_check).
"""
