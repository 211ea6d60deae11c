"""Multiple testing with e-values: the e-Benjamini-Hochberg procedure.

An e-value ``E`` for a null hypothesis is a nonnegative statistic with ``E[E] <= 1`` under
it; the capital of a betting test stopped at any time is one (Ville's inequality), so
e-values stay valid under optional stopping where p-values of fixed-size tests do not.
For ``K`` hypotheses with e-values ``e_1 .. e_K`` and level ``q``, e-BH (Wang & Ramdas 2022)
rejects the ``k*`` largest, where, with ``e_(1) >= e_(2) >= ... >= e_(K)``::

    k* = max{k : e_(k) >= K / (k q)}    (0 when no k qualifies)

Its false discovery rate is at most ``q K_0 / K <= q`` (``K_0`` true nulls) under any
dependence between the e-values. The rejected set is ``{j : e_j >= K / (k* q)}``, of size
exactly ``k*``: a larger set ``m > k*`` would satisfy ``e_(m) >= K / (k* q) >= K / (m q)``.

Reference: R. Wang and A. Ramdas (2022), "False discovery rate control with e-values",
Journal of the Royal Statistical Society B 84(3):822-852.
"""

import numpy as np

from simcore.calibration.formulas import _checked_level


def e_benjamini_hochberg(e_values, level):
    """Return which hypotheses e-BH rejects at ``level``.

    Parameters
    ----------
    e_values : array_like
        1-D nonnegative e-values, one per hypothesis (``inf`` allowed; NaN not).
    level : float
        Target false discovery rate ``q``, strictly between 0 and 1.

    Returns
    -------
    numpy.ndarray
        Boolean, ``True`` where the hypothesis is rejected: ``e_j >= K / (k* q)`` with
        ``k* = max{k : e_(k) >= K / (k q)}`` (module docstring); all False when ``k* = 0``.
    """
    values = np.asarray(e_values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"e_values must be one-dimensional (got shape {values.shape})")
    if np.any(np.isnan(values)) or np.any(values < 0.0):
        raise ValueError("e_values must be nonnegative numbers (got a negative value or NaN)")
    rate = _checked_level("level", level)
    count = values.size
    if count == 0:
        return np.zeros(0, dtype=bool)
    ordered = np.sort(values)[::-1]
    ranks = np.arange(1, count + 1)
    qualifies = ordered >= count / (ranks * rate)
    if not qualifies.any():
        return np.zeros(count, dtype=bool)
    largest = int(ranks[qualifies].max())
    return values >= count / (largest * rate)
