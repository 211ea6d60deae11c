"""Scalar numba twins of the prediction-powered intervals of a judge-corrected FAIL share.

The team's formulas (classical PPI, power-tuned PPI++ and PPI stratified by the judge's
label), as functions of the counts the coverage Monte Carlo draws: the production stream's
``x`` judge FAILs out of ``N`` and the calibration table ``caught`` (human FAIL, judge FAIL),
``missed`` (human FAIL, judge PASS), ``flagged`` (human PASS, judge FAIL) and ``cleared``
(human PASS, judge PASS), ``n`` their sum, ``q = x / N``. Every function returns
``(refused, estimate, low, high)`` with the raw (unclipped) interval ``estimate -/+ z se``;
where ``refused`` is True the other three are NaN (the caller reports the observed rate).

Refusals: every method refuses ``N <= 0`` or ``n <= 0``; ``ppi`` and ``ppi++`` refuse
``n < 2`` (no variance estimate); ``strat-ppi`` refuses where a stratum present in
production (``w_k > 0``) has no calibration rows (``n_k = 0``).

Kept in the engine with every numba kernel; the NumPy estimators they twin are
:mod:`simcore.calibration.ppi`'s, and the coverage kernels of
:mod:`simcore.engine.interval_twins` and the real-data check's PPI intervals
(:mod:`simcore.calibration.real.ppi`) call them.
"""

import math

import numpy as np

from simcore.engine._jit import jit

PPI_METHODS = ("ppi", "ppi++", "strat-ppi")
"""The prediction-powered methods, in the order of :func:`ppi_method_bounds`'s index."""


@jit
def ppi_bounds(x, n_production, caught, missed, flagged, cleared, z):
    """Return classical PPI's ``(refused, estimate, low, high)`` (lambda = 1).

    ``theta_hat = q + (missed - flagged)/n``; the rectifier ``Y - f`` is +1 on missed, -1 on
    flagged and 0 elsewhere, ``var_r = (missed + flagged)/n - ((missed - flagged)/n)^2``
    (ddof 0); ``se^2 = q(1 - q)/N + var_r/n``; interval ``theta_hat -/+ z se``, not clipped.
    Refuses ``N <= 0`` or ``n < 2``.
    """
    n = float(caught + missed + flagged + cleared)
    if n_production <= 0 or n < 2.0:
        return True, math.nan, math.nan, math.nan
    q = x / float(n_production)
    shift = (missed - flagged) / n
    var_r = (missed + flagged) / n - shift * shift
    estimate = q + shift
    half = z * math.sqrt(q * (1.0 - q) / n_production + var_r / n)
    return False, estimate, estimate - half, estimate + half


@jit
def ppi_plus_plus_lambda(x, n_production, caught, missed, flagged, cleared):
    """Return PPI++'s power-tuned ``lambda``, clipped to [0, 1].

    ``cov_n = caught/n - mean_Y mean_f`` (ddof 0), ``var_pool = (s - s^2/M)/(M - 1)`` over the
    ``M = n + N`` pooled predictions of which ``s = caught + flagged + x`` are ones (ddof 1),
    ``lambda = clip(cov_n / ((1 + n/N) var_pool), 0, 1)``; 0 where ``var_pool == 0`` (every
    prediction equal: ppi-python gives NaN there, simcore the classical mean of Y).
    """
    n = float(caught + missed + flagged + cleared)
    mean_y = (caught + missed) / n
    mean_f = (caught + flagged) / n
    cov_n = caught / n - mean_y * mean_f
    pooled = n + n_production
    ones = float(caught + flagged + x)
    var_pool = (ones - ones * ones / pooled) / (pooled - 1.0)
    if var_pool == 0.0:
        return 0.0
    lam = cov_n / ((1.0 + n / n_production) * var_pool)
    if lam < 0.0:
        return 0.0
    if lam > 1.0:
        return 1.0
    return lam


@jit
def ppi_plus_plus_bounds(x, n_production, caught, missed, flagged, cleared, z):
    """Return PPI++'s ``(refused, estimate, low, high)`` at the power-tuned ``lambda``.

    ``theta_hat = lambda q + (caught (1 - lambda) + missed - lambda flagged)/n``; the values
    of ``Y - lambda f`` are ``1 - lambda`` (caught), 1 (missed), ``-lambda`` (flagged), 0
    (cleared), ``var_r`` their mean of squares minus squared mean (ddof 0);
    ``se^2 = lambda^2 q(1 - q)/N + var_r/n``; interval ``theta_hat -/+ z se``, not clipped.
    Refuses ``N <= 0`` or ``n < 2``; ``lambda`` from :func:`ppi_plus_plus_lambda`.
    """
    n = float(caught + missed + flagged + cleared)
    if n_production <= 0 or n < 2.0:
        return True, math.nan, math.nan, math.nan
    lam = ppi_plus_plus_lambda(x, n_production, caught, missed, flagged, cleared)
    q = x / float(n_production)
    mean_r = (caught * (1.0 - lam) + missed - lam * flagged) / n
    square_r = (caught * (1.0 - lam) ** 2 + missed + lam * lam * flagged) / n
    var_r = square_r - mean_r * mean_r
    estimate = lam * q + mean_r
    half = z * math.sqrt(lam * lam * q * (1.0 - q) / n_production + var_r / n)
    return False, estimate, estimate - half, estimate + half


@jit
def stratified_ppi_bounds(x, n_production, caught, missed, flagged, cleared, z):
    """Return PPI stratified by the judge's label: ``(refused, estimate, low, high)``.

    ``w1 = q``, ``w0 = 1 - q``; ``p1 = caught/(caught + flagged)`` (PPV),
    ``p0 = missed/(missed + cleared)`` (1 - NPV); ``theta_hat = w1 p1 + w0 p0``;
    ``se^2 = w1^2 p1(1 - p1)/n1 + w0^2 p0(1 - p0)/n0 + (p1 - p0)^2 q(1 - q)/N``; interval
    ``theta_hat -/+ z se``, not clipped. Refuses ``N <= 0``, ``n <= 0``, or a stratum with
    ``w_k > 0`` and ``n_k = 0`` (an empty stratum with ``w_k = 0`` contributes nothing).
    """
    n1 = float(caught + flagged)
    n0 = float(missed + cleared)
    if n_production <= 0 or n1 + n0 <= 0.0:
        return True, math.nan, math.nan, math.nan
    w1 = x / float(n_production)
    w0 = 1.0 - w1
    if (w1 > 0.0 and n1 == 0.0) or (w0 > 0.0 and n0 == 0.0):
        return True, math.nan, math.nan, math.nan
    p1 = caught / n1 if n1 > 0.0 else 0.0
    p0 = missed / n0 if n0 > 0.0 else 0.0
    estimate = w1 * p1 + w0 * p0
    variance = (p1 - p0) ** 2 * w1 * w0 / n_production
    if n1 > 0.0:
        variance += w1 * w1 * p1 * (1.0 - p1) / n1
    if n0 > 0.0:
        variance += w0 * w0 * p0 * (1.0 - p0) / n0
    half = z * math.sqrt(variance)
    return False, estimate, estimate - half, estimate + half


@jit
def ppi_method_bounds(method, x, n_production, caught, missed, flagged, cleared, z):
    """Return ``(refused, estimate, low, high)`` of ``PPI_METHODS[method]`` (0, 1 or 2)."""
    if method == 0:
        return ppi_bounds(x, n_production, caught, missed, flagged, cleared, z)
    if method == 1:
        return ppi_plus_plus_bounds(x, n_production, caught, missed, flagged, cleared, z)
    return stratified_ppi_bounds(x, n_production, caught, missed, flagged, cleared, z)


@jit
def ppi_method_intervals(method, x, n_production, caught, missed, flagged, cleared, z):
    """Return :func:`ppi_method_bounds` over arrays of counts (one entry per table).

    ``x``, ``caught``, ``missed``, ``flagged``, ``cleared`` are float64 ``(m,)`` arrays and
    ``n_production`` a float64 ``(m,)`` array; returns ``refused`` (bool) and ``estimate``,
    ``low``, ``high`` (float64, raw, NaN where refused), each ``(m,)``.
    """
    m = x.shape[0]
    refused = np.zeros(m, dtype=np.bool_)
    estimate = np.empty(m)
    low = np.empty(m)
    high = np.empty(m)
    for i in range(m):
        refused[i], estimate[i], low[i], high[i] = ppi_method_bounds(
            method, x[i], n_production[i], caught[i], missed[i], flagged[i], cleared[i], z
        )
    return refused, estimate, low, high
