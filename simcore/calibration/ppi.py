"""Prediction-powered inference (PPI) of the production FAIL share, from counts.

The calibration set's 2 x 2 table (human label ``Y`` x judge label ``f``, positive = FAIL;
see :mod:`simcore.calibration.statistics`) and the production stream's judge count ``x`` of
``N`` rows determine every PPI estimator of ``theta = P(Y = 1)`` in production, so the
functions here take the six counts, broadcast them like the other calibration statistics
(scalars in give NumPy scalars out) and return the **raw** estimate and interval: not
clipped to [0, 1], NaN where a denominator is 0. They agree with ppi-python 0.2.3
(``ppi_py.ppi_mean_ci``, ``ppi_py.ppi_mean_pointestimate``) on the 0/1 arrays the counts
expand to. :func:`simcore.calibration.statistics.corrected_failure_rate` with ``method=``
``"ppi"``, ``"ppi++"`` or ``"strat-ppi"`` clips them and refuses where they are unsound.

:func:`stratified_ppi` also offers a MOVER-Wilson interval (``interval="wilson"``, the
``strat-wilson`` method), which keeps its coverage where a stratum's FAILs are rare.

Notation: ``n = caught + missed + flagged + cleared``, ``q = x / N``, ``z`` the two-sided
normal quantile of the confidence. Variances are ddof 0 (``np.std``, as ppi-python), except
the pooled prediction variance of the power tuning, which is ddof 1 (``np.cov``).

References
----------
A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic (2023),
"Prediction-powered inference", Science 382:669-674.

A. N. Angelopoulos, J. C. Duchi and T. Zrnic (2023), "PPI++: Efficient prediction-powered
inference", arXiv:2311.01453.

G. Y. Zou and A. Donner (2008), "Construction of confidence limits about effect measures: a
general approach", Statistics in Medicine 27:1693-1702 (MOVER).
"""

import numpy as np

from simcore.calibration.formulas import _checked_counts, _out, _ratio, _wilson, _z_value

STRATIFIED_INTERVALS = ("wald", "wilson")
"""The intervals of :func:`stratified_ppi`: the normal one, and MOVER with Wilson limits."""


def ppi_mean(
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
):
    """Return the classical PPI estimate (``lambda = 1``) of the FAIL share, with its interval.

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL (``x``) among ``N`` production rows.
    fail_caught, fail_missed, pass_flagged, pass_cleared : int or array_like
        The calibration set's 2 x 2 table (human label x judge label, positive = FAIL).
    confidence : float, optional
        Two-sided confidence level.

    Returns
    -------
    estimate, low, high : numpy.ndarray or numpy.float64
        Raw (unclipped); NaN where ``n == 0`` or ``N == 0``.

    Notes
    -----
    The rectifier ``r_i = Y_i - f_i`` is +1 on a missed row, -1 on a flagged row, else 0::

        theta = q + (missed - flagged) / n
        var_r = (missed + flagged) / n - ((missed - flagged) / n)^2
        se^2  = q (1 - q) / N + var_r / n
        (low, high) = theta -/+ z se

    Where the judge agrees with every calibration row, ``var_r = 0`` and the interval only
    carries the production count's variance: it can be narrow at a small ``n``.
    """
    z = _z_value(confidence)
    counts = _checked_counts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
    )
    return tuple(_out(part) for part in _ppi(*counts, z))


def ppi_plus_plus(
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
):
    """Return the PPI++ estimate (power-tuned ``lambda``) of the FAIL share, with its interval.

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL (``x``) among ``N`` production rows.
    fail_caught, fail_missed, pass_flagged, pass_cleared : int or array_like
        The calibration set's 2 x 2 table (human label x judge label, positive = FAIL).
    confidence : float, optional
        Two-sided confidence level.

    Returns
    -------
    estimate, low, high : numpy.ndarray or numpy.float64
        Raw (unclipped); NaN where ``n == 0`` or ``N == 0``.
    lam : numpy.ndarray or numpy.float64
        The estimated ``lambda`` in [0, 1]; NaN where ``n == 0`` or ``N == 0``.

    Notes
    -----
    With ``M = n + N`` pooled predictions of which ``s = caught + flagged + x`` are FAIL::

        cov_n    = caught / n - (caught + missed) / n * (caught + flagged) / n
        var_pool = s (M - s) / (M (M - 1))
        lambda   = clip(cov_n / ((1 + n / N) var_pool), 0, 1)
        theta    = lambda q + (caught (1 - lambda) + missed - lambda flagged) / n
        var_r    = mean of squares - square of mean of the rectifier ``Y - lambda f``
                   (caught 1 - lambda, missed 1, flagged -lambda, cleared 0)
        se^2     = lambda^2 q (1 - q) / N + var_r / n
        (low, high) = theta -/+ z se

    This is ppi-python's ``lam=None`` (its ``_calc_lam_glm``: the factors 2 cancel, and the
    centring removes the ``lambda = 1`` point estimate it subtracts from the gradients).
    Where every pooled prediction is equal (``var_pool = 0``) ``lambda`` is undefined
    (ppi-python gives NaN); here it is 0 there, the classical mean of the calibration labels.
    """
    z = _z_value(confidence)
    counts = _checked_counts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
    )
    lam = _power_tuning(*counts)
    return tuple(_out(part) for part in _ppi_lambda(*counts, lam, z)) + (_out(lam),)


def stratified_ppi(
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
    interval="wald",
):
    """Return the stratified PPI estimate (strata = the judge's label), with its interval.

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL (``x``) among ``N`` production rows.
    fail_caught, fail_missed, pass_flagged, pass_cleared : int or array_like
        The calibration set's 2 x 2 table (human label x judge label, positive = FAIL).
    confidence : float, optional
        Two-sided confidence level.
    interval : {"wald", "wilson"}, optional
        ``"wald"`` (the ``strat-ppi`` method): ``theta -/+ z se``; ``"wilson"`` (the
        ``strat-wilson`` method): MOVER on the strata's Wilson limits (Notes).

    Returns
    -------
    estimate, low, high : numpy.ndarray or numpy.float64
        Raw (unclipped); NaN where ``n == 0``, ``N == 0``, or a stratum present in
        production (``w_k > 0``) has no calibration rows (``n_k == 0``).

    Notes
    -----
    Within a stratum the prediction is constant, so PPI reduces to the stratum's human FAIL
    share; the strata are weighted by their production shares, estimated from the ``N``
    production rows (their variance enters by the delta method)::

        w1 = q, n1 = caught + flagged, p1 = caught / n1      (PPV)
        w0 = 1 - q, n0 = missed + cleared, p0 = missed / n0  (1 - NPV)
        theta = w1 p1 + w0 p0
        se^2  = w1^2 p1 (1 - p1) / n1 + w0^2 p0 (1 - p0) / n0 + (p1 - p0)^2 q (1 - q) / N
        (low, high) = theta -/+ z se

    A stratum absent from production (``w_k = 0``) contributes nothing, whatever its
    calibration rows.

    The Wald interval covers less than it says where a stratum holds few human FAILs (a
    judge-PASS stratum of rare misses, the usual case): ``p0 (1 - p0) / n0`` is then small
    and noisy. MOVER (Zou & Donner 2008) recovers the variance of the sum from each part's
    own interval: with ``(l_k, u_k)`` the Wilson limits of ``p_k`` and ``v_s = (p1 - p0)^2
    q (1 - q) / N`` the shares' term,

        low  = theta - sqrt(sum_k w_k^2 (p_k - l_k)^2 + z^2 v_s)
        high = theta + sqrt(sum_k w_k^2 (u_k - p_k)^2 + z^2 v_s)

    Its limits are asymmetric where a ``p_k`` is near 0 or 1, and its coverage stays near
    the level at a handful of FAILs per stratum (docs/explanation/calibration.md, "Where to
    spend the labels").
    """
    z = _z_value(confidence)
    if interval not in STRATIFIED_INTERVALS:
        raise ValueError(
            f"interval must be one of {', '.join(STRATIFIED_INTERVALS)} (got {interval!r})"
        )
    counts = _checked_counts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
    )
    compute = _stratified if interval == "wald" else _stratified_wilson
    return tuple(_out(part) for part in compute(*counts, z))


def _ppi(x, n_production, caught, missed, flagged, cleared, z):
    """Return the raw classical PPI ``(estimate, low, high)`` of checked count arrays."""
    lam = np.ones_like(x)
    return _ppi_lambda(x, n_production, caught, missed, flagged, cleared, lam, z)


def _ppi_lambda(x, n_production, caught, missed, flagged, cleared, lam, z):
    """Return the raw PPI ``(estimate, low, high)`` with a given ``lambda`` (array)."""
    n = caught + missed + flagged + cleared
    q = _ratio(x, n_production)
    mean_r = _ratio(caught * (1.0 - lam) + missed - lam * flagged, n)
    mean_square = _ratio(caught * (1.0 - lam) ** 2 + missed + lam * lam * flagged, n)
    var_r = np.maximum(mean_square - mean_r * mean_r, 0.0)
    estimate = lam * q + mean_r
    se = np.sqrt(lam * lam * _ratio(q * (1.0 - q), n_production) + _ratio(var_r, n))
    return estimate, estimate - z * se, estimate + z * se


def _power_tuning(x, n_production, caught, missed, flagged, cleared):
    """Return PPI++'s ``lambda`` in [0, 1] (0 where ``var_pool == 0``; NaN if n or N is 0)."""
    n = caught + missed + flagged + cleared
    cov_n = _ratio(caught, n) - _ratio(caught + missed, n) * _ratio(caught + flagged, n)
    pooled = n + n_production
    fails = caught + flagged + x
    var_pool = _ratio(fails * (pooled - fails), pooled * (pooled - 1.0))
    denominator = (1.0 + _ratio(n, n_production)) * var_pool
    tuned = np.clip(_ratio(cov_n, denominator), 0.0, 1.0)
    defined = (n > 0.0) & (n_production > 0.0)
    return np.where(defined, np.where(var_pool > 0.0, tuned, 0.0), np.nan)


def _stratified(x, n_production, caught, missed, flagged, cleared, z):
    """Return the raw stratified PPI ``(estimate, low, high)`` of checked count arrays."""
    q = _ratio(x, n_production)
    strata = []
    for share, human_fails, rows in (
        (q, caught, caught + flagged),
        (1.0 - q, missed, missed + cleared),
    ):
        present = share > 0.0
        rate = _ratio(human_fails, rows)
        part = np.where(present, share * rate, 0.0)
        variance = np.where(present, share * share * _ratio(rate * (1.0 - rate), rows), 0.0)
        strata.append((rate, part, variance, present & (rows == 0.0)))
    (p1, part1, var1, empty1), (p0, part0, var0, empty0) = strata
    both = (q > 0.0) & (q < 1.0)
    var_shares = np.where(both, (p1 - p0) ** 2 * _ratio(q * (1.0 - q), n_production), 0.0)
    n = caught + missed + flagged + cleared
    undefined = (n == 0.0) | (n_production == 0.0) | empty1 | empty0
    estimate = np.where(undefined, np.nan, part1 + part0)
    se = np.where(undefined, np.nan, np.sqrt(var1 + var0 + var_shares))
    return estimate, estimate - z * se, estimate + z * se


def _stratified_wilson(x, n_production, caught, missed, flagged, cleared, z):
    """Return the raw stratified PPI ``(estimate, low, high)`` with the MOVER-Wilson interval."""
    estimate, wald_low, _ = _stratified(x, n_production, caught, missed, flagged, cleared, z)
    q = _ratio(x, n_production)
    below = np.zeros_like(q)
    above = np.zeros_like(q)
    rates = []
    for share, human_fails, rows in (
        (q, caught, caught + flagged),
        (1.0 - q, missed, missed + cleared),
    ):
        rate = _ratio(human_fails, rows)
        low, high = _wilson(human_fails, rows, z)
        present = (share > 0.0) & (rows > 0.0)
        below += np.where(present, (share * (rate - low)) ** 2, 0.0)
        above += np.where(present, (share * (high - rate)) ** 2, 0.0)
        rates.append(np.where(rows > 0.0, rate, 0.0))
    both = (q > 0.0) & (q < 1.0)
    shares = np.where(
        both, z * z * (rates[0] - rates[1]) ** 2 * _ratio(q * (1.0 - q), n_production), 0.0
    )
    undefined = np.isnan(wald_low)
    low = np.where(undefined, np.nan, estimate - np.sqrt(below + shares))
    high = np.where(undefined, np.nan, estimate + np.sqrt(above + shares))
    return estimate, low, high
