"""Scalar numba twins of the interval formulas and the simulated coverage trials.

:func:`wilson_bounds`, :func:`naive_bounds` and :func:`lr_bounds` compute the formulas of
:func:`~simcore.calibration.statistics.wilson_interval`,
:func:`~simcore.calibration.statistics.naive_corrected_interval` and
:func:`~simcore.calibration.statistics.lang_reiczigel_interval` on scalars, with the normal
quantile ``z`` given directly, for the Monte Carlo loop of :func:`coverage_trials`.

Each coverage trial draws from its own stream seeded by its key
(:func:`simcore.engine.rng.seed_state`), in this fixed order, with exact binomials
(:func:`simcore.engine.samplers.binomial`):

1. ``n_fail ~ Bin(n_cal, theta)``, the calibration set's human-fail rows;
2. ``fail_caught ~ Bin(n_fail, se)``;
3. ``pass_flagged ~ Bin(n_cal - n_fail, 1 - sp)``;
4. ``true_fails ~ Bin(N, theta)``, the production stream's failures;
5. ``judge_fails = Bin(true_fails, se) + Bin(N - true_fails, 1 - sp)``.

These are calibration's kernels, kept in the engine with every numba kernel:
:mod:`simcore.calibration.statistics` re-exports the scalar twins and :func:`coverage_trials`,
the coverage study (:mod:`simcore.studies.coverage.cells`) and ``calibrate --plan`` call
:func:`method_coverage_trials`, and the NumPy functions the docstrings below name
(:func:`wilson_interval`, :func:`corrected_failure_rate`, ...) are statistics'. The PPI twins
are :mod:`simcore.engine.ppi_twins`.
"""

import math

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.ppi_twins import PPI_METHODS, ppi_method_bounds
from simcore.engine.rng import seed_state
from simcore.engine.samplers import binomial, log_factorial_table

TRIAL_CHUNK = 64
"""Trials per parallel task of :func:`coverage_trials` (scratch is allocated per task)."""

INTERVAL_METHODS = ("naive", "lr", *PPI_METHODS)
"""The methods :func:`method_coverage_trials` checks, in the order of its method axis."""

N_METHODS = len(INTERVAL_METHODS)

COVERAGE_SLACK = 1e-12
"""Rounding slack of the coverage check ``low - slack <= truth <= high + slack``."""


@jit
def _clip_scalar(value):
    """Clip to [0, 1], letting NaN through."""
    if value < 0.0:
        return 0.0
    if value > 1.0:
        return 1.0
    return value


@jit
def _rogan_gladen_scalar(rate, se, sp):
    youden = se + sp - 1.0
    if youden == 0.0:
        return math.nan
    return _clip_scalar((rate + sp - 1.0) / youden)


@jit
def wilson_bounds(successes, trials, z):
    """Return the Wilson score interval ``(low, high)`` of ``successes`` out of ``trials``.

    Scalar numba twin of :func:`wilson_interval`, with the quantile ``z`` given directly:
    ``(x + z^2/2)/(n + z^2) -/+ z sqrt(x(n-x)/n + z^2/4)/(n + z^2)``, clipped to [0, 1];
    ``(0, 1)`` when ``trials <= 0``.
    """
    if trials <= 0:
        return 0.0, 1.0
    x = float(successes)
    n = float(trials)
    z2 = z * z
    denominator = n + z2
    centre = (x + z2 / 2.0) / denominator
    half = z * math.sqrt(x * (n - x) / n + z2 / 4.0) / denominator
    return _clip_scalar(centre - half), _clip_scalar(centre + half)


@jit
def naive_bounds(judge_fails, n_production, se, sp, z):
    """Return the naive corrected interval ``(low, high)`` (``se``, ``sp`` taken as exact).

    Scalar numba twin of :func:`naive_corrected_interval`: the Wilson interval of
    ``judge_fails / n_production`` mapped through Rogan-Gladen, sorted and clipped to [0, 1];
    NaN when ``se + sp - 1 == 0``.
    """
    low_q, high_q = wilson_bounds(judge_fails, n_production, z)
    first = _rogan_gladen_scalar(low_q, se, sp)
    second = _rogan_gladen_scalar(high_q, se, sp)
    if math.isnan(first) or math.isnan(second):
        return math.nan, math.nan
    if first <= second:
        return first, second
    return second, first


@jit
def _lr_scalar(judge_fails, n_production, se_successes, n_se, sp_successes, n_sp, z):
    """Return ``(low, high, var_q, var_cal, youden')`` of the Lang-Reiczigel interval."""
    z2 = z * z
    se_adj = (se_successes + 1.0) / (n_se + 2.0)
    n_se_adj = n_se + 2.0
    sp_adj = (sp_successes + 1.0) / (n_sp + 2.0)
    n_sp_adj = n_sp + 2.0
    n_q_adj = n_production + z2
    q_adj = (judge_fails + z2 / 2.0) / n_q_adj
    youden = se_adj + sp_adj - 1.0
    if youden == 0.0:
        return math.nan, math.nan, math.nan, math.nan, youden
    theta = (q_adj + sp_adj - 1.0) / youden
    var_q = q_adj * (1.0 - q_adj) / n_q_adj
    var_se = se_adj * (1.0 - se_adj) / n_se_adj
    var_sp = sp_adj * (1.0 - sp_adj) / n_sp_adj
    var_cal = theta * theta * var_se + (1.0 - theta) * (1.0 - theta) * var_sp
    variance = (var_q + var_cal) / (youden * youden)
    shift = 2.0 * z2 * (theta * var_se - (1.0 - theta) * var_sp)
    half = z * math.sqrt(variance)
    centre = theta + shift
    return _clip_scalar(centre - half), _clip_scalar(centre + half), var_q, var_cal, youden


@jit
def lr_bounds(judge_fails, n_production, se_successes, n_se, sp_successes, n_sp, z):
    """Return the Lang-Reiczigel interval ``(low, high)``.

    Scalar numba twin of :func:`lang_reiczigel_interval` (same formulas, ``theta'`` not
    clipped before the shift, ends clipped to [0, 1]), with the quantile ``z`` given
    directly; NaN when ``Se' + Sp' - 1 == 0``.
    """
    low, high, _, _, _ = _lr_scalar(
        judge_fails, n_production, se_successes, n_se, sp_successes, n_sp, z
    )
    return low, high


@jit
def corrected_bounds(
    judge_fails, n_production, fail_caught, n_fail, pass_cleared, n_pass, z, floor
):
    """Return ``(refused, naive_low, naive_high, lr_low, lr_high)`` for one calibrated judge.

    The refusal rule of :func:`corrected_failure_rate`; where refused both intervals are the
    observed rate's Wilson interval.
    """
    refused = n_production <= 0 or n_fail <= 0 or n_pass <= 0
    se = 0.0
    sp = 0.0
    if not refused:
        se = fail_caught / n_fail
        sp = pass_cleared / n_pass
        if not se + sp - 1.0 >= floor:
            refused = True
    lr_low = 0.0
    lr_high = 1.0
    if not refused:
        lr_low, lr_high, _, _, youden_adjusted = _lr_scalar(
            float(judge_fails),
            float(n_production),
            float(fail_caught),
            float(n_fail),
            float(pass_cleared),
            float(n_pass),
            z,
        )
        if not youden_adjusted > 0.0:
            refused = True
    if refused:
        low, high = wilson_bounds(judge_fails, n_production, z)
        return True, low, high, low, high
    naive_low, naive_high = naive_bounds(judge_fails, n_production, se, sp, z)
    return False, naive_low, naive_high, lr_low, lr_high


@jit
def _draw_trial(state, theta, se, sp, n_cal, n_production, table):
    """Return ``(n_fail, fail_caught, pass_flagged, true_fails, judge_fails)`` of one trial.

    The five draws, in the order of the module docstring, from the stream ``state``.
    """
    n_fail = binomial(state, n_cal, theta, table)
    fail_caught = binomial(state, n_fail, se, table)
    pass_flagged = binomial(state, n_cal - n_fail, 1.0 - sp, table)
    true_fails = binomial(state, n_production, theta, table)
    judge_fails = binomial(state, true_fails, se, table) + binomial(
        state, n_production - true_fails, 1.0 - sp, table
    )
    return n_fail, fail_caught, pass_flagged, true_fails, judge_fails


@jit(inline=True)
def _covers(low, high, value):
    """Whether ``[low, high]`` covers ``value``, with :data:`COVERAGE_SLACK` for rounding."""
    return low - COVERAGE_SLACK <= value and value <= high + COVERAGE_SLACK


@jit
def _coverage_trial(state, theta, se, sp, n_cal, n_production, z, youden_floor, table):
    """Return ``(refused, covered_naive, covered_lr, width_naive, width_lr)`` of one trial."""
    n_fail, fail_caught, pass_flagged, true_fails, judge_fails = _draw_trial(
        state, theta, se, sp, n_cal, n_production, table
    )
    n_pass = n_cal - n_fail
    truth = true_fails / n_production
    refused, naive_low, naive_high, lr_low, lr_high = corrected_bounds(
        judge_fails,
        n_production,
        fail_caught,
        n_fail,
        n_pass - pass_flagged,
        n_pass,
        z,
        youden_floor,
    )
    covered_naive = _covers(naive_low, naive_high, truth)
    covered_lr = _covers(lr_low, lr_high, truth)
    return refused, covered_naive, covered_lr, naive_high - naive_low, lr_high - lr_low


@jit(parallel=True)
def coverage_trials(trial_keys, theta, se, sp, n_cal, n_production, z, youden_floor):
    """Simulate calibrate-then-correct trials and check both intervals against the truth.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 keys, one per trial (e.g. ``SeedSequence(...).generate_state(T, np.uint64)``).
    theta : float
        True failure probability (human-fail prevalence) in calibration and production.
    se, sp : float
        The judge's true sensitivity and specificity.
    n_cal : int
        Calibration rows per trial (humans and judge both label them).
    n_production : int
        Production rows per trial (positive).
    z : float
        Two-sided normal quantile of the intervals.
    youden_floor : float
        Refuse to correct when ``Se_hat + Sp_hat - 1 < youden_floor``.

    Returns
    -------
    covered_naive, covered_lr : numpy.ndarray
        bool ``(T,)``: ``low - 1e-12 <= truth <= high + 1e-12`` for the naive and the LR
        interval, ``truth = true_fails / n_production`` (the stream's realised rate).
    width_naive, width_lr : numpy.ndarray
        float64 ``(T,)``: ``high - low``.
    refused : numpy.ndarray
        bool ``(T,)``: the correction was refused; both intervals are then the observed
        rate's Wilson interval.

    Notes
    -----
    Each trial draws from its own stream seeded by its key, with exact binomials, in the
    fixed order listed in the module docstring (:mod:`simcore.engine.interval_twins`).
    ``Se_hat = fail_caught / n_fail`` and ``Sp_hat = 1 - pass_flagged / (n_cal - n_fail)``
    are the raw estimates; the refusal rule is that of :func:`corrected_failure_rate` (a
    zero denominator, ``J < youden_floor``, or an adjusted ``J' <= 0``). Trials run in
    ``prange`` tasks of :data:`TRIAL_CHUNK`, each allocating its own state (the
    ``log_factorial_table(max(n_cal, N))`` is built once and shared read-only), so the
    results do not depend on the number of threads.
    """
    if n_cal < 0:
        raise ValueError("coverage_trials: n_cal must be non-negative")
    if n_production <= 0:
        raise ValueError("coverage_trials: n_production must be positive")
    n_trials = trial_keys.shape[0]
    covered_naive = np.zeros(n_trials, dtype=np.bool_)
    covered_lr = np.zeros(n_trials, dtype=np.bool_)
    width_naive = np.zeros(n_trials, dtype=np.float64)
    width_lr = np.zeros(n_trials, dtype=np.float64)
    refused = np.zeros(n_trials, dtype=np.bool_)
    table = log_factorial_table(max(n_cal, n_production))  # read-only, shared by the tasks
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            seed_state(trial_keys[t], state)
            refused[t], covered_naive[t], covered_lr[t], width_naive[t], width_lr[t] = (
                _coverage_trial(state, theta, se, sp, n_cal, n_production, z, youden_floor, table)
            )
    return covered_naive, covered_lr, width_naive, width_lr, refused


@jit
def _method_trial(state, theta, se, sp, n_cal, n_production, z, youden_floor, table, out):
    """Fill ``out[:, m]`` (refused, covered, width, covers theta) of one trial, every method.

    The draws and the naive/LR checks are those of :func:`_coverage_trial`; the PPI
    methods' intervals are clipped to [0, 1] before the check, and a refused method's
    covered and width are left 0.
    """
    n_fail, caught, flagged, true_fails, judge_fails = _draw_trial(
        state, theta, se, sp, n_cal, n_production, table
    )
    n_pass = n_cal - n_fail
    truth = true_fails / n_production
    refused, naive_low, naive_high, lr_low, lr_high = corrected_bounds(
        judge_fails, n_production, caught, n_fail, n_pass - flagged, n_pass, z, youden_floor
    )
    for m in range(N_METHODS):
        if m < 2:
            low, high = (naive_low, naive_high) if m == 0 else (lr_low, lr_high)
            declined = refused
        else:
            declined, _, low, high = ppi_method_bounds(
                m - 2,
                float(judge_fails),
                n_production,
                float(caught),
                float(n_fail - caught),
                float(flagged),
                float(n_pass - flagged),
                z,
            )
            low, high = _clip_scalar(low), _clip_scalar(high)
        out[0, m] = 1.0 if declined else 0.0
        if not declined:
            out[1, m] = 1.0 if _covers(low, high, truth) else 0.0
            out[2, m] = high - low
            out[3, m] = 1.0 if _covers(low, high, theta) else 0.0


@jit(parallel=True)
def method_coverage_trials(trial_keys, theta, se, sp, n_cal, n_production, z, youden_floor):
    """Simulate the trials of :func:`coverage_trials` and check every interval method.

    Same parameters, keys and draws as :func:`coverage_trials` (so the ``naive`` and ``lr``
    columns equal its results bit for bit); the methods are :data:`INTERVAL_METHODS`.

    Returns
    -------
    refused, covered : numpy.ndarray
        bool ``(T, M)``: the method refused (``naive``, ``lr``: the Youden floor rule of
        :func:`corrected_failure_rate`; the PPI methods: the refusals of
        :mod:`simcore.engine.ppi_twins`); its interval, clipped to [0, 1], covers the
        stream's realised rate (``low - 1e-12 <= truth <= high + 1e-12``). False where
        refused.
    width : numpy.ndarray
        float64 ``(T, M)``: ``high - low`` of the clipped interval, 0 where refused.
    covered_theta : numpy.ndarray
        bool ``(T, M)``: the clipped interval covers the population rate ``theta`` itself
        (what the PPI intervals target; their production term is the sampling variance of
        ``q`` around its mean, not of the stream's rate around ``theta``). False where refused.
    """
    if n_cal < 0:
        raise ValueError("method_coverage_trials: n_cal must be non-negative")
    if n_production <= 0:
        raise ValueError("method_coverage_trials: n_production must be positive")
    n_trials = trial_keys.shape[0]
    results = np.zeros((n_trials, 4, N_METHODS), dtype=np.float64)
    table = log_factorial_table(max(n_cal, n_production))  # read-only, shared by the tasks
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            seed_state(trial_keys[t], state)
            _method_trial(
                state, theta, se, sp, n_cal, n_production, z, youden_floor, table, results[t]
            )
    covered_theta = results[:, 3] > 0.5
    return results[:, 0] > 0.5, results[:, 1] > 0.5, results[:, 2].copy(), covered_theta
