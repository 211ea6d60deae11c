"""Judge calibration statistics: rates, corrected failure rates and their intervals.

TPR/TNR with Wilson intervals, Rogan-Gladen with the naive and Lang-Reiczigel intervals
(statistics, on the checks and formulas of formulas), the corrected rate and its refusal
rule (correction), the prediction-powered family (ppi, methods, method_report), the
``simcore calibrate`` report (command) and the real-data coverage check's pairs and splits
(real_pairs, real_splits, real_ppi, which :mod:`simcore.experiments.real_check` runs). Their
numba twins for the coverage study are engine kernels (:mod:`simcore.engine.interval_twins`,
:mod:`simcore.engine.ppi_twins`), re-exported by statistics. Statistics only: the judge as
an instrument (cards, ceilings, transport, well-posedness) is :mod:`simcore.instrument`,
above this package.
"""
