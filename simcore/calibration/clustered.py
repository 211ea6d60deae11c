"""Cluster-robust intervals of the corrected failure rate, from per-cluster counts.

Calibration and production items often come in clusters (several responses to one prompt,
turns of one conversation) whose failures and judge errors are correlated; the intervals of
:mod:`simcore.calibration.statistics` and :mod:`simcore.calibration.ppi` treat every item as
independent and are then too narrow. Here each calibration cluster ``c`` brings its own 2 x 2
table (``caught_c, missed_c, flagged_c, cleared_c``) and each production cluster its judge
FAIL count ``x_c`` of ``N_c`` rows (or the production stream is two totals, taken as
independent rows). Every estimate is the one of the pooled counts; only the variances change.

**Cluster-level sums.** A ratio ``R = sum_c a_c / sum_c b_c`` (Se = caught / human FAILs,
Sp, the judge's FAIL share q, a stratum's human FAIL share, the mean rectifier) has the
linearised residuals ``e_c = (a_c - R b_c) / sum_c b_c`` and the sandwich (CR0) variance and
covariance

    ``V(R) = sum_c e_c^2``,    ``C(R, R') = sum_c e_c e'_c``.

With one item per cluster ``V(R) = R (1 - R) / sum_c b_c``, the binomial variance, so every
interval here equals its independent twin (to rounding) when every cluster holds one item.
Where some cluster holds more, the variances carry CR1's small-sample factor ``C / (C -
1)`` (``C`` occupied clusters; production's own ``C`` for ``V(q)``) and ``z`` is Student's
``t`` quantile with ``C - 1`` degrees of freedom (Cameron and Miller 2015): without them
the intervals ran 1.5 to 2 points under 95% at 40 to 80 clusters of 5. At least 2
calibration clusters are required.

**Per method** (``z`` the normal quantile):

* ``ppi``, ``ppi++`` (lambda as for independent items): ``theta = lambda q + mean(Y -
  lambda f)``, ``se^2 = lambda^2 V(q) + V(mean rectifier)``, the clustered PPI of
  Angelopoulos et al. (2023) for a mean; Wald.
* ``strat-ppi``: ``theta = q p1 + (1 - q) p0`` with ``se^2 = q^2 V(p1) + (1 - q)^2 V(p0) +
  2 q (1 - q) C(p1, p0) + (p1 - p0)^2 V(q)``: a cluster spans both judge labels, so the
  strata's shares covary. Wald.
* ``lr``, ``naive`` and ``strat-wilson`` keep their small-sample forms on **effective
  counts**: each ratio's rows divided by its design effect ``d = V(R) / (R (1 - R) / rows)``
  (Kish), at least 1, so clusters never narrow an interval. ``strat-wilson`` adds the
  strata's correlation ``rho = C(p1, p0) / sqrt(V(p1) V(p0))`` to MOVER (Zou 2008): ``low =
  theta - sqrt(sum_k w_k^2 (p_k - l_k)^2 + 2 rho w1 w0 (p1 - l1)(p0 - l0) + z^2 (p1 - p0)^2
  V(q))``, and alike above.

References
----------
L. Kish (1965), *Survey Sampling*, Wiley (design effects).

A. C. Cameron and D. L. Miller (2015), "A practitioner's guide to cluster-robust
inference", Journal of Human Resources 50:317-372 (CR1, t with C - 1 degrees of freedom).

G. Y. Zou (2008), "On the estimation of additive interaction by use of the four-by-two
table and beyond", American Journal of Epidemiology 168:212-224 (MOVER with correlated
parts).
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.correction import _checked_floor, _corrected_rate
from simcore.calibration.formulas import _wilson, _z_value
from simcore.calibration.methods import (
    PPI_METHODS,
    _checked_methods,
    _finished_rate,
    _rogan_gladen_rate,
)
from simcore.calibration.ppi import _power_tuning, _stratified

TABLE_NAMES = ("fail_caught", "fail_missed", "pass_flagged", "pass_cleared")
"""The calibration table's counts, one array each over the clusters."""

MIN_CLUSTERS = 2
"""A cluster-robust variance needs at least this many calibration clusters."""


class ClusteredRates(NamedTuple):
    """The rates by method with cluster-robust intervals, and what the clusters cost.

    ``rates`` are :class:`~simcore.calibration.methods.MethodRate` (as
    :func:`~simcore.calibration.statistics.corrected_rates` returns); ``clusters`` and
    ``production_clusters`` count the clusters (None: production taken as independent rows);
    ``design_effects`` maps ``se``, ``sp``, ``q`` and ``rectifier`` to ``V_cluster /
    V_independent`` (unclamped; NaN where the independent variance is 0);
    ``counts`` are the six pooled counts (as for independent items) and
    ``effective_counts`` the same (production FAILs and rows, caught,
    missed, flagged, cleared) with each ratio's rows divided by its design effect (at least
    1), on which the Wilson intervals of TPR, TNR and the observed rate are computed.
    """

    rates: tuple
    clusters: int
    production_clusters: int | None
    design_effects: dict
    counts: tuple
    effective_counts: tuple


def _residuals(numerator, denominator):
    """Return a ratio's linearised residuals ``(a_c - R b_c) / sum b`` and ``R``."""
    total = float(denominator.sum())
    if total <= 0.0:
        return np.zeros_like(numerator), float("nan")
    rate = float(numerator.sum()) / total
    return (numerator - rate * denominator) / total, rate


def _checked_clusters(production_fails, production_rows, table):
    """Return the per-cluster arrays as float64, checked; ValueError naming a bad one."""
    arrays = {}
    named = {
        "production_fails": production_fails,
        "production_rows": production_rows,
        **dict(zip(TABLE_NAMES, table, strict=True)),
    }
    for name, values in named.items():
        array = np.atleast_1d(np.asarray(values, dtype=np.float64))
        if array.ndim != 1 or np.any(~np.isfinite(array)) or np.any(array < 0):
            raise ValueError(f"{name} must be non-negative counts, one per cluster")
        arrays[name] = array
    sizes = {arrays[name].size for name in TABLE_NAMES}
    if len(sizes) != 1:
        raise ValueError("the calibration table's four counts must have one value per cluster")
    if arrays["production_fails"].size != arrays["production_rows"].size:
        raise ValueError("production_fails and production_rows must have one value per cluster")
    if np.any(arrays["production_fails"] > arrays["production_rows"]):
        raise ValueError("production_fails must be at most production_rows in every cluster")
    occupied = int(np.count_nonzero(sum(arrays[name] for name in TABLE_NAMES)))
    if occupied < MIN_CLUSTERS:
        raise ValueError(
            f"clusters: the calibration items fall in {occupied} cluster: a cluster-robust "
            f"interval needs at least {MIN_CLUSTERS}"
        )
    return arrays


class _Parts(NamedTuple):
    """The per-cluster arrays, the pooled counts, each ratio's residuals and estimate."""

    arrays: dict
    counts: tuple
    scale: float
    q: tuple
    var_q: float
    se: tuple
    sp: tuple
    fail_stratum: tuple
    pass_stratum: tuple


def small_sample_factor(rows):
    """Return CR1's ``C / (C - 1)`` over the ``C`` occupied clusters; 1 if none holds two rows.

    Clusters of one row each are independent rows: their variances are the binomial ones,
    exactly, with no factor (module docstring).
    """
    occupied = int(np.count_nonzero(rows))
    return occupied / (occupied - 1) if np.any(rows > 1) and occupied > 1 else 1.0


def _parts(arrays, independent_production):
    """Return the :class:`_Parts` of checked per-cluster arrays."""
    x, n_production = arrays["production_fails"], arrays["production_rows"]
    caught, missed = arrays["fail_caught"], arrays["fail_missed"]
    flagged, cleared = arrays["pass_flagged"], arrays["pass_cleared"]
    q_part = _residuals(x, n_production)
    q = q_part[1]
    total = float(n_production.sum())
    independent = q * (1.0 - q) / total if total > 0 else float("nan")
    clustered_q = float(q_part[0] @ q_part[0]) * small_sample_factor(n_production)
    var_q = independent if independent_production else clustered_q
    scale = math.sqrt(small_sample_factor(caught + missed + flagged + cleared))

    def scaled(numerator, denominator):
        residuals, rate = _residuals(numerator, denominator)
        return residuals * scale, rate, float(denominator.sum())

    counts = tuple(
        np.array(float(values.sum()))
        for values in (x, n_production, caught, missed, flagged, cleared)
    )
    return _Parts(
        arrays=arrays,
        counts=counts,
        scale=scale,
        q=(q_part[0], q, total),
        var_q=var_q,
        se=scaled(caught, caught + missed),
        sp=scaled(cleared, flagged + cleared),
        fail_stratum=scaled(caught, caught + flagged),
        pass_stratum=scaled(missed, missed + cleared),
    )


def _effect(variance, rate, rows):
    """Return a ratio's design effect for effective counts: at least 1, 1 where undefined."""
    independent = rate * (1.0 - rate) / rows if rows > 0 else 0.0
    return max(variance / independent, 1.0) if independent > 0 else 1.0


def clustered_rates(  # noqa: PLR0913 (a value object is still to come)
    production_fails,
    production_rows,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
    youden_floor=0.15,
    methods=("lr",),
    independent_production=False,
):
    """Return the corrected failure rate by each method with a cluster-robust interval.

    Parameters
    ----------
    production_fails, production_rows : array_like
        The judge's FAIL count and the rows of each production cluster (1-D, one value per
        cluster; with ``independent_production`` two totals whose rows are independent).
    fail_caught, fail_missed, pass_flagged, pass_cleared : array_like
        Each calibration cluster's 2 x 2 table (human label x judge label, positive =
        FAIL), one value per cluster.
    confidence : float, optional
        Two-sided confidence level.
    youden_floor : float, optional
        Rogan-Gladen's refusal floor on ``J`` (``lr``, ``naive``).
    methods : sequence of str, optional
        Any of :data:`~simcore.calibration.methods.METHODS`.
    independent_production : bool, optional
        Take the production rows as independent (binomial ``q (1 - q) / N``).

    Returns
    -------
    ClusteredRates
        One :class:`~simcore.calibration.methods.MethodRate` per method (estimate and
        interval clipped to [0, 1], or the refusal of the pooled counts), the cluster
        counts and the design effects (module docstring for every formula).

    Raises
    ------
    ValueError
        Counts that are negative or of unequal lengths, fewer than 2 occupied calibration
        clusters, an unknown method or a confidence outside (0, 1).
    """
    names = _checked_methods(methods)
    z = _z_value(confidence)
    floor = _checked_floor(youden_floor)
    table = (fail_caught, fail_missed, pass_flagged, pass_cleared)
    arrays = _checked_clusters(production_fails, production_rows, table)
    parts = _parts(arrays, independent_production)
    rows = sum(arrays[name] for name in TABLE_NAMES)
    if parts.scale > 1.0:
        from scipy import stats

        z = float(stats.t.ppf(0.5 + confidence / 2, int(np.count_nonzero(rows)) - 1))
    rates = tuple(
        _clustered_ppi(name, parts, z)
        if name in PPI_METHODS
        else _rogan_gladen_rate(name, _corrected_rate(*_effective_counts(parts), z, floor))
        for name in names
    )
    production = None if independent_production else int(arrays["production_rows"].size)
    return ClusteredRates(
        rates=rates,
        clusters=int(np.count_nonzero(rows)),
        production_clusters=production,
        design_effects=_design_effects(parts),
        counts=tuple(int(count) for count in parts.counts),
        effective_counts=tuple(float(count) for count in _effective_counts(parts)),
    )


def _design_effects(parts):
    """Return ``V_cluster / V_independent`` of Se, Sp, q and the rectifier (NaN if 0 / 0)."""

    def ratio(variance, rate, rows):
        independent = rate * (1.0 - rate) / rows if rows > 0 else 0.0
        return variance / independent if independent > 0 else float("nan")

    x, n_production, caught, missed, flagged, cleared = (float(c) for c in parts.counts)
    n = caught + missed + flagged + cleared
    residuals = _rectifier_residuals(parts, 1.0)[0]
    mean = (missed - flagged) / n
    rectifier = ((missed + flagged) / n - mean * mean) / n
    return {
        "se": ratio(float(parts.se[0] @ parts.se[0]), parts.se[1], parts.se[2]),
        "sp": ratio(float(parts.sp[0] @ parts.sp[0]), parts.sp[1], parts.sp[2]),
        "q": ratio(parts.var_q, parts.q[1], parts.q[2]),
        "rectifier": float(residuals @ residuals) / rectifier if rectifier > 0 else float("nan"),
    }


def _effective_counts(parts):
    """Return the six counts with each ratio's rows divided by its design effect."""
    x, n_production, caught, missed, flagged, cleared = parts.counts
    se_effect = _effect(float(parts.se[0] @ parts.se[0]), parts.se[1], parts.se[2])
    sp_effect = _effect(float(parts.sp[0] @ parts.sp[0]), parts.sp[1], parts.sp[2])
    q_effect = _effect(parts.var_q, parts.q[1], parts.q[2])
    return (
        x / q_effect,
        n_production / q_effect,
        caught / se_effect,
        missed / se_effect,
        flagged / sp_effect,
        cleared / sp_effect,
    )


def _rectifier_residuals(parts, lam):
    """Return the (CR1-scaled) residuals of the mean rectifier ``Y - lambda f`` and the mean."""
    arrays = parts.arrays
    caught, missed = arrays["fail_caught"], arrays["fail_missed"]
    flagged, cleared = arrays["pass_flagged"], arrays["pass_cleared"]
    sums = caught * (1.0 - lam) + missed - lam * flagged
    residuals, mean = _residuals(sums, caught + missed + flagged + cleared)
    return residuals * parts.scale, mean


def _clustered_ppi(method, parts, z):
    """Return a PPI method's :class:`MethodRate` with its cluster-robust interval."""
    counts = parts.counts
    if method in ("ppi", "ppi++"):
        lam = np.ones(()) if method == "ppi" else _power_tuning(*counts)
        residuals, mean_rectifier = _rectifier_residuals(parts, float(lam))
        estimate = float(lam) * parts.q[1] + mean_rectifier
        se = np.sqrt(float(lam) ** 2 * parts.var_q + float(residuals @ residuals))
        bounds = (np.array(estimate), np.array(estimate - z * se), np.array(estimate + z * se))
        return _finished_rate(method, counts, z, lam, bounds)
    bounds = (_stratified_wald if method == "strat-ppi" else _stratified_mover)(parts, z)
    return _finished_rate(method, counts, z, np.full((), np.nan), bounds)


def _strata(parts):
    """Return ``(w1, w0, p1, p0, V1, V0, C10, undefined)`` of the judge-label strata."""
    q = parts.q[1]
    e1, p1, rows1 = parts.fail_stratum
    e0, p0, rows0 = parts.pass_stratum
    present1, present0 = q > 0 and rows1 > 0, q < 1 and rows0 > 0
    undefined = bool(np.isnan(_stratified(*parts.counts, 1.0)[0]))
    variance1 = float(e1 @ e1) if present1 else 0.0
    variance0 = float(e0 @ e0) if present0 else 0.0
    covariance = float(e1 @ e0) if present1 and present0 else 0.0
    p1, p0 = (p1 if rows1 > 0 else 0.0), (p0 if rows0 > 0 else 0.0)
    return q, 1.0 - q, p1, p0, variance1, variance0, covariance, undefined


def _stratified_wald(parts, z):
    """Return stratified PPI's raw ``(estimate, low, high)`` with the sandwich variance."""
    w1, w0, p1, p0, variance1, variance0, covariance, undefined = _strata(parts)
    if undefined:
        return (np.full((), np.nan),) * 3
    estimate = w1 * p1 + w0 * p0
    variance = (
        w1 * w1 * variance1
        + w0 * w0 * variance0
        + 2.0 * w1 * w0 * covariance
        + (p1 - p0) ** 2 * (parts.var_q if 0 < w1 < 1 else 0.0)
    )
    se = np.sqrt(max(variance, 0.0))
    return np.array(estimate), np.array(estimate - z * se), np.array(estimate + z * se)


def _stratified_mover(parts, z):
    """Return stratified PPI's raw ``(estimate, low, high)`` by MOVER on effective counts."""
    w1, w0, p1, p0, variance1, variance0, covariance, undefined = _strata(parts)
    if undefined:
        return (np.full((), np.nan),) * 3
    reaches = []
    for weight, rate, variance, rows in (
        (w1, p1, variance1, parts.fail_stratum[2]),
        (w0, p0, variance0, parts.pass_stratum[2]),
    ):
        effective = rows / _effect(variance, rate, rows) if weight > 0 and rows > 0 else 0.0
        low, high = _wilson(np.array(rate * effective), np.array(effective), z)
        reaches.append((weight * (rate - float(low)), weight * (float(high) - rate)))
    (below1, above1), (below0, above0) = reaches
    rho = covariance / np.sqrt(variance1 * variance0) if variance1 * variance0 > 0 else 0.0
    shares = z * z * (p1 - p0) ** 2 * (parts.var_q if 0 < w1 < 1 else 0.0)
    estimate = w1 * p1 + w0 * p0
    down = below1**2 + below0**2 + 2.0 * rho * below1 * below0 + shares
    up = above1**2 + above0**2 + 2.0 * rho * above1 * above0 + shares
    low, high = estimate - np.sqrt(max(down, 0.0)), estimate + np.sqrt(max(up, 0.0))
    return np.array(estimate), np.array(low), np.array(high)
