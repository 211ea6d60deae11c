"""Anytime-valid confidence sequences for a bounded mean and for the production FAIL share.

A (1 - alpha) confidence sequence (CS) is a sequence of intervals ``C_t`` with
``P(theta in C_t for every t) >= 1 - alpha``: it may be read after every audit and stopped
at any time. Each CS here inverts a nonnegative (super)martingale ``M_t``, ``M_0 = 1``
under the true parameter, by Ville's inequality ``P(sup_t M_t >= 1/alpha) <= alpha``.

**Betting CS for a mean in [0, 1]** (Waudby-Smith & Ramdas 2024: the hedged capital
process with weights 1/2 and predictable plug-in bets). For a candidate mean ``m``::

    mu_hat_t     = (1/2 + sum_{i<=t} x_i) / (t + 1)
    sigma2_t     = (1/4 + sum_{i<=t} (x_i - mu_hat_i)^2) / (t + 1)       (sigma2_0 = 1/4)
    lambda_t     = sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t)))
    lambda+_t(m) = min(lambda_t, c / m),  lambda-_t(m) = min(lambda_t, c / (1 - m)),  c = 1/2
    K+-_t(m)     = prod_{i<=t} (1 +- lambda+-_i(m) (x_i - m))
    K_t(m)       = max(K+_t(m) / 2, K-_t(m) / 2),     C_t = {m : K_t(m) < 1/alpha}

``K_t(m) <= (K+_t(m) + K-_t(m)) / 2``, a nonnegative martingale with initial value 1 at
``m = mu``. Every factor of ``K+`` is non-increasing in ``m`` (of ``K-`` non-decreasing),
so ``C_t`` is an interval ``(l_t, u_t)``, ``l_t`` where ``K+`` falls below ``2/alpha`` and
``u_t`` where ``K-`` does. On a grid of step ``h`` the first point with ``K+ < 2/alpha``,
minus ``h``, is at most ``l_t``, and the last with ``K- < 2/alpha``, plus ``h``, at least
``u_t``: the band contains ``C_t`` whatever the grid. The running intersection over ``t``
keeps the guarantee and nests the bands; by the monotonicity, grid points below ``low + h``
or above ``high - h`` can no longer tighten it, and are dropped.

**Normal-mixture CS for the mean of sigma-sub-Gaussian observations** (Robbins 1970;
Howard et al. 2021). With ``S_t = sum_{i<=t} (x_i - q)`` and ``V_t = sigma^2 t``
(``sigma = 1/2`` for values in [0, 1]), mixing ``exp(lambda S_t - lambda^2 V_t / 2)`` over
``lambda ~ N(0, 1/rho)`` gives the martingale ``sqrt(rho / (V_t + rho)) exp(S_t^2 / (2 (V_t
+ rho)))``, which stays below ``1/alpha`` iff (two-sided at level alpha, no alpha/2)::

    |S_t| < sqrt((V_t + rho) log((V_t + rho) / (rho alpha^2)))

Divided by ``t`` it is the radius of the mean. At ``V = sigma^2 n*`` it is smallest for
``rho = sigma^2 n* / (u - 1)``, ``u > 1`` the root of ``u - 1 - log u = 2 log(1/alpha)``,
i.e. ``u = -W_{-1}(-alpha^2 / e)`` (Lambert W; ``u - 1 ~ 2L + log(1 + 2L)``, ``L = log(1/alpha)``).

**Prediction-powered CS of the FAIL share** ``theta = P(Y = 1) = q + Delta``, ``q = E[f]``
the judge's FAIL share on production and ``Delta = E[Y - f]`` the rectifier's mean on the
audited rows (Angelopoulos et al. 2023). A normal-mixture CS for ``q`` at ``alpha_q`` and a
betting CS for ``(Delta + 1) / 2`` at ``alpha - alpha_q`` combine by the union bound:
``[q_low + Delta_low, q_high + Delta_high]`` holds at every look with probability
``>= 1 - alpha``. It assumes the judge's production labels and the audited rectifiers are
i.i.d. over the horizon: a stationary FAIL rate and a stationary judge error profile
(:mod:`simcore.calibration.drift_alarm` watches the latter).

References
----------
I. Waudby-Smith and A. Ramdas (2024), "Estimating means of bounded random variables by
betting", Journal of the Royal Statistical Society B 86(1):1-27.

S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon (2021), "Time-uniform, nonparametric,
nonasymptotic confidence sequences", Annals of Statistics 49(2):1055-1080.

H. Robbins (1970), "Statistical methods related to the law of the iterated logarithm",
Annals of Mathematical Statistics 41(5):1397-1409.

A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic (2023),
"Prediction-powered inference", Science 382:669-674.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import lambertw

from simcore.calibration.formulas import _checked_level, _out, _show

BET_CAP = 0.5
"""Waudby-Smith & Ramdas's ``c``: bets are capped at ``c / m`` (up) and ``c / (1 - m)``."""

CHUNK_CELLS = 500_000
"""Most time x grid cells per chunk of :func:`betting_confidence_sequence` (4 MB an array)."""

CHUNK_ROWS = 128
"""Most observations per chunk; the grid is pruned to the running band between chunks."""


class SequenceCoverage(NamedTuple):
    """Monte Carlo coverage of :func:`failure_rate_sequence`, from :func:`sequence_coverage`.

    Attributes
    ----------
    anytime, anytime_se : float
        Share of trials covering ``theta`` at every look, and its Monte Carlo SE.
    final, mean_half_width : float
        Share covering ``theta`` at the last look, and the mean last ``(high - low) / 2``.
    """

    anytime: float
    anytime_se: float
    final: float
    mean_half_width: float


def betting_confidence_sequence(values, alpha, grid_size=1000):
    """Return the hedged-betting ``(1 - alpha)`` confidence sequence of a mean in [0, 1].

    Parameters
    ----------
    values : array_like
        1-D observations in [0, 1], in time order, i.i.d. with unknown mean ``mu``.
    alpha : float
        Miscoverage over the whole sequence, in (0, 1).
    grid_size : int, optional
        Candidate means ``m`` on ``linspace(0, 1, grid_size)``, at least 2.

    Returns
    -------
    low, high : numpy.ndarray
        ``P(low_t <= mu <= high_t for every t) >= 1 - alpha``; ``low`` non-decreasing,
        ``high`` non-increasing. ``low_t > high_t`` would mean that no mean fits the data.

    Notes
    -----
    ``C_t = {m : max(K+_t(m), K-_t(m)) / 2 < 1/alpha}`` (module docstring), bracketed on
    the grid by ``min{m : K+_t(m) < 2/alpha} - h`` and ``max{m : K-_t(m) < 2/alpha} + h``
    (``h`` the grid step; clipped to [0, 1]), then ``low = running max``, ``high = running
    min``. The log capital (sums of ``log1p``) is carried over chunks of at most
    :data:`CHUNK_ROWS` observations and :data:`CHUNK_CELLS` cells: a few MB at any length.
    """
    x = _checked_series("values", values, 0.0, 1.0)
    level = _checked_level("alpha", alpha)
    if int(grid_size) != grid_size or grid_size < 2:
        raise ValueError(f"grid_size must be an integer >= 2 (got {grid_size!r})")
    grid = np.linspace(0.0, 1.0, int(grid_size))
    bets = _plug_in_bets(x, level)
    threshold = math.log(2.0 / level)
    low, high = np.zeros(x.size), np.ones(x.size)
    carry_up, carry_down = np.zeros(grid.size), np.zeros(grid.size)
    first_index, last_index, start, step = 0, grid.size - 1, 0, grid[1]
    while start < x.size:
        window = slice(first_index, last_index + 1)
        width = last_index + 1 - first_index
        span = slice(start, min(start + max(1, min(CHUNK_ROWS, CHUNK_CELLS // width)), x.size))
        log_up, log_down = _log_capital(
            x[span], bets[span], grid[window], (carry_up[window], carry_down[window])
        )
        carry_up[window], carry_down[window] = log_up[-1], log_down[-1]
        below_up, below_down = log_up < threshold, log_down < threshold
        first = np.where(below_up.any(axis=1), np.argmax(below_up, axis=1), width)
        last = width - 1 - np.argmax(below_down[:, ::-1], axis=1)
        last = np.where(below_down.any(axis=1), last, -1)
        chunk_low = grid[np.clip(first_index + first - 1, 0, grid.size - 1)]
        chunk_high = grid[np.clip(first_index + last + 1, 0, grid.size - 1)]
        low[span] = np.maximum.accumulate(np.maximum(chunk_low, low[start - 1] if start else 0))
        high[span] = np.minimum.accumulate(np.minimum(chunk_high, high[start - 1] if start else 1))
        candidate = (round(low[span.stop - 1] / step) + 1, round(high[span.stop - 1] / step) - 1)
        if candidate[0] <= candidate[1]:
            first_index, last_index = candidate
        start = span.stop
    return low, high


def betting_log_capital(values, alpha, means):
    """Return ``log K+_t(m)`` and ``log K-_t(m)`` of the hedged bets, for inspection.

    Parameters
    ----------
    values, means : array_like
        1-D observations in [0, 1] in time order, and 1-D candidate means ``m`` in [0, 1].
    alpha : float
        The level the bets are tuned for, in (0, 1).

    Returns
    -------
    log_up, log_down : numpy.ndarray
        Shape ``(len(values), len(means))``: ``sum_{i<=t} log(1 +- lambda+-_i(m) (x_i -
        m))`` with the bets of the module docstring. Not chunked: for small inputs.
    """
    x = _checked_series("values", values, 0.0, 1.0)
    grid = _checked_series("means", means, 0.0, 1.0)
    bets = _plug_in_bets(x, _checked_level("alpha", alpha))
    return _log_capital(x, bets, grid, (np.zeros(grid.size), np.zeros(grid.size)))


def hedged_log_capital(values, alpha, mean, present=None):
    """Return ``log K+_t(m)`` and ``log K-_t(m)`` at one mean, over many sequences at once.

    The hedged capital of the module docstring at the single candidate mean ``m``, for
    every sequence along the last axis of ``values`` (leading axes are independent
    sequences, e.g. simulation trials), in O(n) per sequence. Where ``present`` is False
    the sequence has no observation: the capital, the count ``t`` and the plug-in mean and
    variance stand still, so a row with gaps gives the capital of its present values alone.
    ``K+`` is a nonnegative supermartingale whenever the true mean is at most ``m`` (every
    bet is a nonnegative multiple of ``x_t - m``), ``K-`` whenever it is at least ``m``:
    each is an e-process for its one-sided null, and ``P(sup_t K+-_t >= 1/a) <= a`` under
    it (Ville's inequality).

    Parameters
    ----------
    values : array_like
        Observations in [0, 1], time along the last axis (any value where not ``present``).
    alpha : float
        The level the bets are tuned for, in (0, 1) (``lambda_t`` of the module docstring).
    mean : float
        The candidate mean ``m``, in (0, 1).
    present : array_like of bool, optional
        Same shape as ``values``; default every observation present.

    Returns
    -------
    log_up, log_down : numpy.ndarray
        The shape of ``values``: ``sum_{i<=t, present} log(1 +- min(lambda_i, c / m or
        c / (1 - m)) (x_i - m))``; equal to :func:`betting_log_capital` at ``means = [m]``
        when every observation is present.
    """
    level = _checked_level("alpha", alpha)
    if not (isinstance(mean, int | float | np.number) and 0.0 < mean < 1.0):
        raise ValueError(f"mean must lie strictly between 0 and 1 (got {mean!r})")
    x = np.asarray(values, dtype=np.float64)
    here = np.ones(x.shape, dtype=bool) if present is None else np.asarray(present, dtype=bool)
    if here.shape != x.shape:
        raise ValueError(f"present must have the shape of values {x.shape} (got {here.shape})")
    x = np.where(here, x, 0.5)
    if np.any(~np.isfinite(x)) or np.any((x < 0.0) | (x > 1.0)):
        raise ValueError("values must lie in [0, 1] where present")
    weight = here.astype(np.float64)
    t = np.cumsum(weight, axis=-1)
    mean_hat = (0.5 + np.cumsum(weight * x, axis=-1)) / (t + 1.0)
    squares = weight * (x - mean_hat) ** 2
    previous = (0.25 + np.cumsum(squares, axis=-1) - squares) / np.maximum(t, 1.0)
    steps = np.maximum(t, 1.0)
    bets = np.sqrt(2.0 * math.log(2.0 / level) / (previous * steps * np.log1p(steps)))
    centred = weight * (x - mean)
    log_up = np.cumsum(np.log1p(np.minimum(bets, BET_CAP / mean) * centred), axis=-1)
    log_down = np.cumsum(np.log1p(-np.minimum(bets, BET_CAP / (1.0 - mean)) * centred), axis=-1)
    return log_up, log_down


def optimal_mixture_rho(n_target, alpha, sigma=0.5):
    """Return the ``rho`` minimising the normal-mixture radius at ``n_target`` observations.

    Parameters
    ----------
    n_target : float
        The count where the width is optimised (> 0), e.g. the final production count.
    alpha, sigma : float
        Miscoverage in (0, 1); sub-Gaussian scale of one observation (1/2 for [0, 1] values).

    Returns
    -------
    float
        ``rho = sigma^2 n_target / (u - 1)`` with ``u = -W_{-1}(-alpha^2 / e)``, the root
        ``u > 1`` of ``u - 1 - log u = 2 log(1/alpha)`` (module docstring).
    """
    level = _checked_level("alpha", alpha)
    _check_positive("n_target", n_target)
    _check_positive("sigma", sigma)
    u = -lambertw(-level * level / math.e, k=-1).real
    return sigma * sigma * n_target / (u - 1.0)


def normal_mixture_radius(n, alpha, sigma=0.5, rho=None):
    """Return the two-sided normal-mixture radius of the mean after ``n`` observations.

    Parameters
    ----------
    n : int or array_like
        Observation counts (finite, non-negative).
    alpha, sigma : float
        Miscoverage over all ``n`` at once, in (0, 1); sub-Gaussian scale (1/2 for [0, 1]).
    rho : float, optional
        Mixture precision (> 0); default :func:`optimal_mixture_rho` at ``max(n, 1)``.

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``sqrt((sigma^2 n + rho) log((sigma^2 n + rho) / (rho alpha^2))) / n``; ``inf`` at
        ``n = 0``. ``|mean_n - q| < radius`` at every ``n`` with probability ``>= 1 - alpha``.
    """
    level = _checked_level("alpha", alpha)
    counts = np.asarray(n, dtype=np.float64)
    if not np.all(np.isfinite(counts) & (counts >= 0.0)):
        raise ValueError(f"n must be finite and non-negative (got {_show(counts)})")
    if rho is None:
        rho = optimal_mixture_rho(max(float(np.max(counts, initial=1.0)), 1.0), level, sigma)
    _check_positive("rho", rho)
    _check_positive("sigma", sigma)
    intrinsic = sigma * sigma * counts + rho
    boundary = np.sqrt(intrinsic * np.log(intrinsic / (rho * level * level)))
    return _out(np.where(counts > 0.0, boundary / np.where(counts > 0.0, counts, 1.0), np.inf))


def failure_rate_sequence(
    rectifiers, production_fails, production_rows, audits_at_look, alpha, production_alpha_share=0.1
):
    """Return the prediction-powered confidence sequence of the production FAIL share.

    Parameters
    ----------
    rectifiers : array_like
        1-D ``r_i = Y_i - f_i`` in [-1, 1] of the audited rows, in time order.
    production_fails, production_rows : array_like
        Per look, the production stream's cumulative judge-FAIL count ``x_k`` and row count
        ``N_k`` (non-decreasing, ``x_k <= N_k``).
    audits_at_look : array_like
        Per look, the cumulative number ``n_k`` of audited rows (non-decreasing, ending at
        ``len(rectifiers)``).
    alpha : float
        Miscoverage over all looks at once, in (0, 1).
    production_alpha_share : float, optional
        Share of ``alpha`` spent on the production CS, in (0, 1).

    Returns
    -------
    estimate, low, high : numpy.ndarray
        Per look, in [0, 1]: ``estimate = clip(x_k / N_k + mean(r_1..r_{n_k}))`` (NaN
        before the first audit or production row) and ``clip([q_low + Delta_low, q_high +
        Delta_high])``, covering ``theta`` at every look with probability ``>= 1 - alpha``.

    Notes
    -----
    ``q``: :func:`normal_mixture_radius` at ``alpha_q = production_alpha_share * alpha``
    (``rho`` optimised at ``N_K``: set by the row counts, not the labels), running
    intersection. ``Delta = 2 mu - 1``: :func:`betting_confidence_sequence` of ``(r + 1) /
    2`` at ``alpha - alpha_q`` read at the ``n_k``-th audit; ``[-1, 1]`` before any audit.
    Assumes a stationary FAIL rate and judge error profile.
    """
    level = _checked_level("alpha", alpha)
    share = _checked_level("production_alpha_share", production_alpha_share)
    r = _checked_series("rectifiers", rectifiers, -1.0, 1.0)
    fails = _checked_series("production_fails", production_fails, 0.0, cumulative=True)
    rows = _checked_series("production_rows", production_rows, 0.0, cumulative=True)
    audits = _checked_series("audits_at_look", audits_at_look, 0.0, cumulative=True)
    if not fails.size == rows.size == audits.size > 0:
        sizes = f"{fails.size}, {rows.size}, {audits.size}"
        raise ValueError(f"the per-look counts must share one non-zero length (got {sizes})")
    if np.any(fails > rows):
        raise ValueError(f"production_fails exceeds production_rows (got {_show(fails)})")
    if audits[-1] != r.size:
        raise ValueError(f"audits_at_look must end at {r.size} rectifiers (got {audits[-1]:g})")
    alpha_q = share * level
    seen, audited = rows > 0.0, audits > 0.0
    q_hat = fails / np.where(seen, rows, 1.0)
    radius = normal_mixture_radius(rows, alpha_q, 0.5, optimal_mixture_rho(rows[-1] or 1, alpha_q))
    q_low = np.maximum.accumulate(np.where(seen, np.clip(q_hat - radius, 0.0, 1.0), 0.0))
    q_high = np.minimum.accumulate(np.where(seen, np.clip(q_hat + radius, 0.0, 1.0), 1.0))
    delta_low, delta_high, mean_r = -np.ones(audits.size), np.ones(audits.size), 0.0
    if r.size:
        index = np.maximum(audits.astype(np.int64) - 1, 0)
        mu_low, mu_high = betting_confidence_sequence((r + 1.0) / 2.0, level - alpha_q)
        delta_low = np.where(audited, 2.0 * mu_low[index] - 1.0, -1.0)
        delta_high = np.where(audited, 2.0 * mu_high[index] - 1.0, 1.0)
        mean_r = np.cumsum(r)[index] / np.where(audited, audits, 1.0)
    estimate = np.where(audited & seen, np.clip(q_hat + mean_r, 0.0, 1.0), np.nan)
    return estimate, np.clip(q_low + delta_low, 0.0, 1.0), np.clip(q_high + delta_high, 0.0, 1.0)


def sequence_coverage(  # noqa: PLR0913 (a value object is still to come)
    theta, se, sp, n_production_per_look, audits_per_look, looks, alpha, trials, seed
):
    """Return the simulated coverage of :func:`failure_rate_sequence` over all looks.

    Parameters
    ----------
    theta, se, sp : float
        True FAIL share, judge TPR and TNR, in [0, 1].
    n_production_per_look, audits_per_look, looks, trials : int
        Production rows and audited rows added per look, looks, simulated streams (>= 1).
    alpha : float
        Miscoverage of the CS, in (0, 1).
    seed : int
        Seed of ``np.random.default_rng(np.random.SeedSequence(seed))``.

    Returns
    -------
    SequenceCoverage
        Anytime coverage, its Monte Carlo SE ``sqrt(p (1 - p) / trials)``, final-look
        coverage and mean final half-width. Per look ``x ~ Binomial(n_production_per_look,
        q)``, ``q = theta se + (1 - theta)(1 - sp)``; per audited row ``Y ~ Bernoulli(theta)``
        and ``f ~ Bernoulli(se)`` if ``Y = 1``, ``f ~ Bernoulli(1 - sp)`` if ``Y = 0``.
    """
    counts = {"n_production_per_look": n_production_per_look, "audits_per_look": audits_per_look}
    _check_design({"theta": theta, "se": se, "sp": sp}, counts | {"looks": looks, "trials": trials})
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    q = theta * se + (1.0 - theta) * (1.0 - sp)
    steps = np.arange(1, looks + 1)
    rows, audits = n_production_per_look * steps, audits_per_look * steps
    every, final, half_width = np.zeros(trials, bool), np.zeros(trials, bool), np.zeros(trials)
    for trial in range(trials):
        fails = np.cumsum(rng.binomial(n_production_per_look, q, size=looks))
        human = rng.random(audits[-1]) < theta
        judge = np.where(human, rng.random(audits[-1]) < se, rng.random(audits[-1]) >= sp)
        rectifiers = human.astype(np.float64) - judge
        _, low, high = failure_rate_sequence(rectifiers, fails, rows, audits, alpha)
        inside = (low <= theta) & (theta <= high)
        every[trial], final[trial] = inside.all(), inside[-1]
        half_width[trial] = (high[-1] - low[-1]) / 2.0
    anytime = float(every.mean())
    anytime_se = math.sqrt(anytime * (1.0 - anytime) / trials)
    return SequenceCoverage(anytime, anytime_se, float(final.mean()), float(half_width.mean()))


def _plug_in_bets(x, alpha):
    """Return ``lambda_t = sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t)))``, t = 1..n."""
    t = np.arange(1.0, x.size + 1.0)
    mean_hat = (0.5 + np.cumsum(x)) / (t + 1.0)
    variance_hat = (0.25 + np.cumsum((x - mean_hat) ** 2)) / (t + 1.0)
    previous = np.concatenate(([0.25], variance_hat[:-1]))
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (previous * t * np.log1p(t)))


def _log_capital(x, bets, grid, carry):
    """Return ``carry + cumsum_t log(1 +- min(lambda_t, c / m or c / (1 - m)) (x_t - m))``."""
    cap_up, cap_down = np.full(grid.size, np.inf), np.full(grid.size, np.inf)
    np.divide(BET_CAP, grid, out=cap_up, where=grid > 0.0)
    np.divide(BET_CAP, 1.0 - grid, out=cap_down, where=grid < 1.0)
    centred = x[:, None] - grid[None, :]
    log_up = np.cumsum(np.log1p(np.minimum(bets[:, None], cap_up) * centred), axis=0)
    log_down = np.cumsum(np.log1p(-np.minimum(bets[:, None], cap_down) * centred), axis=0)
    return log_up + carry[0], log_down + carry[1]


def _check_positive(name, value):
    """Raise ValueError unless ``value`` is a finite positive number."""
    if not (isinstance(value, int | float | np.number) and 0.0 < value < math.inf):
        raise ValueError(f"{name} must be a finite positive number (got {value!r})")


def _checked_series(name, values, low=-math.inf, high=math.inf, cumulative=False):
    """Return finite 1-D float64 values in ``[low, high]``, non-decreasing if ``cumulative``."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D (got shape {array.shape})")
    outside = ~np.isfinite(array) | (array < low) | (array > high)
    if np.any(outside):
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}] (got {_show(array[outside])})")
    drops = np.flatnonzero(np.diff(array) < 0.0) if cumulative else []
    if len(drops):
        k = int(drops[0])
        raise ValueError(
            f"{name} must be non-decreasing (got {array[k]:g} then {array[k + 1]:g} at {k + 1})"
        )
    return array


def _check_design(rates, counts):
    """Raise ValueError for a rate outside [0, 1] or a count that is not a positive integer."""
    for name, rate in rates.items():
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1] (got {rate!r})")
    for name, count in counts.items():
        if int(count) != count or count < 1:
            raise ValueError(f"{name} must be a positive integer (got {count!r})")
