"""Judge calibration statistics: TPR/TNR, corrected failure rates and their intervals (SPEC §9).

The positive class is FAIL: the judge exists to catch bad outputs. A calibration set holds
rows labelled by a human and by the judge; its 2 x 2 table gives

=================  ===================  ======================
human label        judge says FAIL      judge says PASS
=================  ===================  ======================
human says FAIL    ``fail_caught``      ``fail_missed``
human says PASS    ``pass_flagged``     ``pass_cleared``
=================  ===================  ======================

so sensitivity ``Se = TPR = fail_caught / n_fail`` and specificity
``Sp = TNR = pass_cleared / n_pass``. On a production stream of ``N`` rows the judge flags
``judge_fails``; the observed rate ``q = judge_fails / N`` is biased whenever the judge errs,
and the Rogan-Gladen estimator corrects it. Two intervals for the corrected rate are given:

* the *naive* interval pushes the observed rate's Wilson interval through Rogan-Gladen as if
  ``Se`` and ``Sp`` were known exactly (it ignores the calibration set's sampling error and
  undercovers badly when that set is small);
* the *Lang-Reiczigel* (LR) interval, an add-2 adjusted Wald interval with a shift, carries
  the calibration set's uncertainty.

A judge whose Youden index ``J = Se + Sp - 1`` is below a floor (0.15 by default) is not
corrected at all: :func:`corrected_failure_rate` reports the observed rate, labelled
uncorrected, with the reason.

Conventions shared by the NumPy functions:

* counts may be scalars or arrays; they are broadcast together and computed in float64;
* scalars in give NumPy scalars out, arrays in give arrays of the broadcast shape out (as
  NumPy's ufuncs do);
* a rate whose denominator is 0 is NaN, and the Wilson interval of an empty sample is
  ``(0, 1)``;
* ``z = Phi^-1(1 - (1 - confidence) / 2)`` (two-sided, :func:`scipy.stats.norm.ppf`).

The ``@jit`` scalar twins (:func:`wilson_bounds`, :func:`naive_bounds`, :func:`lr_bounds`) take
``z`` directly and compute the same formulas for the Monte Carlo loop of
:func:`coverage_trials`.

References
----------
E. B. Wilson (1927), "Probable inference, the law of succession, and statistical inference",
J. Am. Stat. Assoc. 22:209-212.

W. J. Rogan and B. Gladen (1978), "Estimating prevalence from the results of a screening
test", Am. J. Epidemiol. 107:71-76.

Z. Lang and J. Reiczigel (2014), "Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity", Prev. Vet. Med. 113:13-22.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import prange
from scipy.stats import norm

from simcore.engine._jit import jit
from simcore.engine.rng import seed_state
from simcore.engine.samplers import binomial, log_factorial_table

__all__ = [
    "COVERAGE_SLACK",
    "DEFAULT_YOUDEN_FLOOR",
    "TRIAL_CHUNK",
    "CorrectedRate",
    "JudgeRates",
    "corrected_failure_rate",
    "coverage_trials",
    "human_ceiling",
    "judge_rates",
    "lang_reiczigel_interval",
    "lr_bounds",
    "naive_bounds",
    "naive_corrected_interval",
    "rogan_gladen",
    "wilson_bounds",
    "wilson_interval",
    "youden_j",
]

DEFAULT_YOUDEN_FLOOR = 0.15
"""Smallest Youden index ``J = Se + Sp - 1`` for which the failure rate is corrected."""

TRIAL_CHUNK = 64
"""Trials per parallel task of :func:`coverage_trials` (scratch is allocated per task)."""

COVERAGE_SLACK = 1e-12
"""Rounding slack of the coverage check ``low - slack <= truth <= high + slack``."""


class JudgeRates(NamedTuple):
    """The judge's TPR and TNR on a calibration set, each with its Wilson interval.

    Attributes
    ----------
    tpr, tpr_low, tpr_high : numpy.ndarray or numpy.float64
        Sensitivity ``fail_caught / n_fail`` (NaN when ``n_fail == 0``) and its Wilson
        interval (``(0, 1)`` when ``n_fail == 0``).
    tnr, tnr_low, tnr_high : numpy.ndarray or numpy.float64
        Specificity ``pass_cleared / n_pass`` (NaN when ``n_pass == 0``) and its Wilson
        interval (``(0, 1)`` when ``n_pass == 0``).
    n_fail, n_pass : numpy.ndarray or numpy.float64
        Human-fail rows ``fail_caught + fail_missed`` and human-pass rows
        ``pass_flagged + pass_cleared``.
    """

    tpr: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    tnr: np.ndarray
    tnr_low: np.ndarray
    tnr_high: np.ndarray
    n_fail: np.ndarray
    n_pass: np.ndarray


class CorrectedRate(NamedTuple):
    """A production failure rate, corrected for the judge's errors where that is sound.

    Attributes
    ----------
    observed, observed_low, observed_high : numpy.ndarray or numpy.float64
        The observed (judge-flagged) rate ``q = judge_fails / N`` and its Wilson interval.
    corrected : numpy.ndarray or numpy.bool_
        False where the correction was refused (see ``refusal``).
    refusal : str or numpy.ndarray
        Why the correction was refused; ``""`` where it was not. An object array of ``str``
        for array input, a ``str`` for scalar input.
    estimate : numpy.ndarray or numpy.float64
        The Rogan-Gladen estimate from the raw counts (clipped to [0, 1]); ``observed``
        where refused.
    lr_low, lr_high : numpy.ndarray or numpy.float64
        The Lang-Reiczigel interval; the observed Wilson interval where refused.
    naive_low, naive_high : numpy.ndarray or numpy.float64
        The naive interval (Wilson interval of ``q`` through Rogan-Gladen with ``Se``, ``Sp``
        treated as exact); the observed Wilson interval where refused.
    youden : numpy.ndarray or numpy.float64
        ``J = TPR + TNR - 1`` from the raw estimates (NaN if either is undefined).
    rates : JudgeRates
        The calibration set's TPR and TNR with their Wilson intervals.
    calibration_share : numpy.ndarray or numpy.float64
        Share of the LR variance bracket that comes from the calibration set,
        ``(theta'^2 Se'(1-Se')/n_se' + (1-theta')^2 Sp'(1-Sp')/n_sp') / bracket``; near 1 means
        more calibration rows, not more production rows, would narrow the interval. NaN
        where refused.
    """

    observed: np.ndarray
    observed_low: np.ndarray
    observed_high: np.ndarray
    corrected: np.ndarray
    refusal: object
    estimate: np.ndarray
    lr_low: np.ndarray
    lr_high: np.ndarray
    naive_low: np.ndarray
    naive_high: np.ndarray
    youden: np.ndarray
    rates: JudgeRates
    calibration_share: np.ndarray


# --------------------------------------------------------------------------- input handling


def _z_value(confidence):
    """Return the two-sided normal quantile ``Phi^-1(1 - (1 - confidence) / 2)``."""
    level = float(confidence)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1 (got {confidence!r})")
    return float(norm.ppf(1.0 - (1.0 - level) / 2.0))


def _broadcast(named):
    """Broadcast ``(name, value)`` pairs to float64 arrays of one shape (writable copies)."""
    names = [name for name, _ in named]
    try:
        arrays = np.broadcast_arrays(*[np.asarray(value, dtype=np.float64) for _, value in named])
    except ValueError as error:
        raise ValueError(f"{', '.join(names)} cannot be broadcast together: {error}") from None
    return [np.array(array) for array in arrays]


def _check_counts(named, arrays):
    """Raise ValueError listing every count that is not a finite non-negative number."""
    problems = []
    for (name, _), array in zip(named, arrays, strict=True):
        if not np.all(np.isfinite(array)) or np.any(array < 0.0):
            problems.append(f"{name} must be finite and non-negative (got {_show(array)})")
    if problems:
        raise ValueError("; ".join(problems))


def _check_at_most(part_name, part, whole_name, whole):
    if np.any(part > whole):
        raise ValueError(f"{part_name} exceeds {whole_name} (got {_show(part)} > {_show(whole)})")


def _check_rates(named, arrays):
    """Raise ValueError for a rate outside [0, 1] (NaN passes through as undefined)."""
    problems = []
    for (name, _), array in zip(named, arrays, strict=True):
        if np.any(np.isinf(array)) or np.any((array < 0.0) | (array > 1.0)):
            problems.append(f"{name} must lie in [0, 1] (got {_show(array)})")
    if problems:
        raise ValueError("; ".join(problems))


def _show(array):
    flat = np.ravel(array)
    return repr(float(flat[0])) if flat.size == 1 else np.array2string(flat, threshold=6)


def _out(array):
    """Return a NumPy scalar for a 0-d array and the array itself otherwise."""
    return array[()] if array.ndim == 0 else array


# --------------------------------------------------------------------------- NumPy formulas


def _clip01(values):
    return np.clip(values, 0.0, 1.0)


def _ratio(numerator, denominator):
    """Return ``numerator / denominator``, NaN where the denominator is 0."""
    safe = np.where(denominator > 0.0, denominator, 1.0)
    return np.where(denominator > 0.0, numerator / safe, np.nan)


def _wilson(successes, trials, z):
    z2 = z * z
    safe = np.where(trials > 0.0, trials, 1.0)
    denominator = safe + z2
    centre = (successes + z2 / 2.0) / denominator
    half = z * np.sqrt(successes * (safe - successes) / safe + z2 / 4.0) / denominator
    low = np.where(trials > 0.0, _clip01(centre - half), 0.0)
    high = np.where(trials > 0.0, _clip01(centre + half), 1.0)
    return low, high


def _rogan_gladen(rate, se, sp):
    youden = se + sp - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = (rate + sp - 1.0) / youden
    return _clip01(np.where(youden == 0.0, np.nan, theta))


def _naive(judge_fails, n_production, se, sp, z):
    low_q, high_q = _wilson(judge_fails, n_production, z)
    first = _rogan_gladen(low_q, se, sp)
    second = _rogan_gladen(high_q, se, sp)
    return np.minimum(first, second), np.maximum(first, second)


class _LRParts(NamedTuple):
    theta: np.ndarray  # theta' (not clipped)
    youden: np.ndarray  # Se' + Sp' - 1
    var_q: np.ndarray  # q'(1-q')/n_q'
    var_cal: np.ndarray  # theta'^2 Se'(1-Se')/n_se' + (1-theta')^2 Sp'(1-Sp')/n_sp'
    low: np.ndarray
    high: np.ndarray


def _lr(judge_fails, n_production, se_successes, n_se, sp_successes, n_sp, z):
    z2 = z * z
    se_adj = (se_successes + 1.0) / (n_se + 2.0)
    n_se_adj = n_se + 2.0
    sp_adj = (sp_successes + 1.0) / (n_sp + 2.0)
    n_sp_adj = n_sp + 2.0
    n_q_adj = n_production + z2
    q_adj = (judge_fails + z2 / 2.0) / n_q_adj
    youden = se_adj + sp_adj - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(youden == 0.0, np.nan, (q_adj + sp_adj - 1.0) / youden)
        var_q = q_adj * (1.0 - q_adj) / n_q_adj
        var_se = se_adj * (1.0 - se_adj) / n_se_adj
        var_sp = sp_adj * (1.0 - sp_adj) / n_sp_adj
        var_cal = theta * theta * var_se + (1.0 - theta) * (1.0 - theta) * var_sp
        variance = (var_q + var_cal) / (youden * youden)
        shift = 2.0 * z2 * (theta * var_se - (1.0 - theta) * var_sp)
        half = z * np.sqrt(variance)
    centre = theta + shift
    return _LRParts(theta, youden, var_q, var_cal, _clip01(centre - half), _clip01(centre + half))


# --------------------------------------------------------------------------- public NumPy API


def wilson_interval(successes, trials, confidence=0.95):
    """Return the Wilson score interval of a binomial proportion.

    Parameters
    ----------
    successes, trials : int or array_like
        Counts ``x <= n`` (broadcast together).
    confidence : float, optional
        Two-sided confidence level, strictly between 0 and 1.

    Returns
    -------
    low, high : numpy.ndarray or numpy.float64
        The interval's ends, clipped to [0, 1]; ``(0, 1)`` where ``trials == 0``.

    Notes
    -----
    With ``z = Phi^-1(1 - (1 - confidence) / 2)`` (Wilson 1927)::

        centre = (x + z^2/2) / (n + z^2)
        half   = z sqrt(x (n - x) / n + z^2/4) / (n + z^2)
        (low, high) = (centre - half, centre + half)

    The interval always contains ``x / n``.
    """
    z = _z_value(confidence)
    named = [("successes", successes), ("trials", trials)]
    x, n = _broadcast(named)
    _check_counts(named, (x, n))
    _check_at_most("successes", x, "trials", n)
    low, high = _wilson(x, n, z)
    return _out(low), _out(high)


def judge_rates(fail_caught, fail_missed, pass_flagged, pass_cleared, confidence=0.95):
    """Return the judge's TPR and TNR on a calibration set, with Wilson intervals.

    Parameters
    ----------
    fail_caught, fail_missed : int or array_like
        Human-fail rows the judge flagged as FAIL / cleared as PASS.
    pass_flagged, pass_cleared : int or array_like
        Human-pass rows the judge flagged as FAIL / cleared as PASS.
    confidence : float, optional
        Two-sided confidence level of the Wilson intervals.

    Returns
    -------
    JudgeRates
        ``tpr = fail_caught / (fail_caught + fail_missed)`` (sensitivity, positive class
        FAIL) and ``tnr = pass_cleared / (pass_flagged + pass_cleared)`` (specificity), each
        with its Wilson interval (:func:`wilson_interval`); a rate with no rows is NaN and
        its interval is ``(0, 1)``.

    Notes
    -----
    Report both rates, never accuracy alone: accuracy mixes them in the proportions of the
    calibration set, which need not be those of production (SPEC §9).
    """
    z = _z_value(confidence)
    named = [
        ("fail_caught", fail_caught),
        ("fail_missed", fail_missed),
        ("pass_flagged", pass_flagged),
        ("pass_cleared", pass_cleared),
    ]
    arrays = _broadcast(named)
    _check_counts(named, arrays)
    return _judge_rates(*arrays, z)


def _judge_rates(fail_caught, fail_missed, pass_flagged, pass_cleared, z):
    n_fail = fail_caught + fail_missed
    n_pass = pass_flagged + pass_cleared
    tpr_low, tpr_high = _wilson(fail_caught, n_fail, z)
    tnr_low, tnr_high = _wilson(pass_cleared, n_pass, z)
    return JudgeRates(
        tpr=_out(_ratio(fail_caught, n_fail)),
        tpr_low=_out(tpr_low),
        tpr_high=_out(tpr_high),
        tnr=_out(_ratio(pass_cleared, n_pass)),
        tnr_low=_out(tnr_low),
        tnr_high=_out(tnr_high),
        n_fail=_out(n_fail),
        n_pass=_out(n_pass),
    )


def youden_j(se, sp):
    """Return Youden's index ``J = se + sp - 1``.

    Parameters
    ----------
    se, sp : float or array_like
        Sensitivity (TPR) and specificity (TNR).

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``se + sp - 1``: 0 for a judge no better than chance, 1 for a perfect judge. It is
        also the denominator of the Rogan-Gladen correction.
    """
    se, sp = _broadcast([("se", se), ("sp", sp)])
    return _out(se + sp - 1.0)


def rogan_gladen(observed_rate, se, sp):
    """Return the Rogan-Gladen corrected rate, clipped to [0, 1].

    Parameters
    ----------
    observed_rate : float or array_like
        The judge-flagged rate ``q``.
    se, sp : float or array_like
        The judge's sensitivity and specificity.

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``theta = (q + sp - 1) / (se + sp - 1)`` (Rogan & Gladen 1978), clipped to [0, 1];
        NaN where ``se + sp - 1 == 0`` (and where an input is NaN).

    Notes
    -----
    It inverts ``E[q] = theta se + (1 - theta)(1 - sp)``.
    """
    named = [("observed_rate", observed_rate), ("se", se), ("sp", sp)]
    arrays = _broadcast(named)
    _check_rates(named, arrays)
    return _out(_rogan_gladen(*arrays))


def naive_corrected_interval(judge_fails, n_production, se, sp, confidence=0.95):
    """Return the Rogan-Gladen estimate with the naive interval (``Se``, ``Sp`` taken as exact).

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL among ``N`` production rows.
    se, sp : float or array_like
        The judge's sensitivity and specificity, treated as known exactly.
    confidence : float, optional
        Two-sided confidence level.

    Returns
    -------
    estimate, low, high : numpy.ndarray or numpy.float64
        ``estimate = RG(q)`` with ``q = judge_fails / N`` (NaN when ``N == 0``), and the
        interval ``sort(RG(q_low), RG(q_high))``, clipped to [0, 1], where
        ``(q_low, q_high)`` is the **Wilson** interval of ``q`` (:func:`wilson_interval`) and
        ``RG(r) = (r + sp - 1) / (se + sp - 1)`` (:func:`rogan_gladen`). NaN where
        ``se + sp - 1 == 0``.

    Notes
    -----
    This interval ignores the sampling error of ``Se`` and ``Sp``; with a small calibration
    set it undercovers badly (SPEC §9 reports 13-46 % coverage on real judges). It is given
    for comparison with :func:`lang_reiczigel_interval`. The estimate always lies inside it,
    since RG is monotone and the Wilson interval contains ``q``.
    """
    z = _z_value(confidence)
    counts = [("judge_fails", judge_fails), ("n_production", n_production)]
    rates = [("se", se), ("sp", sp)]
    x, n, se, sp = _broadcast(counts + rates)
    _check_counts(counts, (x, n))
    _check_at_most("judge_fails", x, "n_production", n)
    _check_rates(rates, (se, sp))
    estimate = _rogan_gladen(_ratio(x, n), se, sp)
    low, high = _naive(x, n, se, sp, z)
    return _out(estimate), _out(low), _out(high)


def lang_reiczigel_interval(
    judge_fails, n_production, se_successes, n_se, sp_successes, n_sp, confidence=0.95
):
    """Return the Rogan-Gladen estimate with the Lang-Reiczigel interval.

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL among ``N`` production rows.
    se_successes, n_se : int or array_like
        Human-fail calibration rows the judge caught, out of ``n_se``.
    sp_successes, n_sp : int or array_like
        Human-pass calibration rows the judge cleared, out of ``n_sp``.
    confidence : float, optional
        Two-sided confidence level.

    Returns
    -------
    estimate : numpy.ndarray or numpy.float64
        The Rogan-Gladen estimate from the **raw** counts,
        ``RG(judge_fails / N, se_successes / n_se, sp_successes / n_sp)`` clipped to [0, 1]
        (NaN where a denominator is 0). It is not the interval's centre.
    low, high : numpy.ndarray or numpy.float64
        The LR interval, clipped to [0, 1]; NaN where ``Se' + Sp' - 1 == 0``.

    Notes
    -----
    Lang & Reiczigel (2014), eqs. 4, 6, 7, 16, 17. With ``z = Phi^-1(1 - (1 - confidence)/2)``
    the counts are adjusted (add 2 for Se and Sp, add ``z^2`` for q)::

        Se' = (se_successes + 1) / (n_se + 2),   n_se' = n_se + 2
        Sp' = (sp_successes + 1) / (n_sp + 2),   n_sp' = n_sp + 2
        q'  = (judge_fails + z^2/2) / (N + z^2), n_q' = N + z^2
        theta' = (q' + Sp' - 1) / (Se' + Sp' - 1)
        Var = [q'(1-q')/n_q' + theta'^2 Se'(1-Se')/n_se' + (1-theta')^2 Sp'(1-Sp')/n_sp']
              / (Se' + Sp' - 1)^2
        dP  = 2 z^2 [theta' Se'(1-Se')/n_se' - (1-theta') Sp'(1-Sp')/n_sp']
        (low, high) = (theta' + dP - z sqrt(Var), theta' + dP + z sqrt(Var))

    and only the two ends are clipped to [0, 1]. ``theta'`` is **not** clipped before the
    shift and the variance: SPEC §9 calls it "RG on the primed values", and RG is defined
    there with the clip, but clipping the centre would move it off the continuous
    formula the interval's coverage rests on; the authors' reference R script
    (``CI4TruePrevalence``) clips the final limits only, which is what is done here.

    The estimate lies inside the interval in ordinary cases (tested on a grid of calibration
    sets of 20-400 rows and rates 0.05-0.6). It can fall outside in edge cases: with very
    few calibration rows and an extreme raw ``Se`` or ``Sp`` (e.g. all of 3 fail rows
    caught) the add-2 adjustment moves ``theta'`` far from the raw estimate, and a huge
    production stream makes the interval narrow around ``theta' + dP``.
    """
    z = _z_value(confidence)
    named = [
        ("judge_fails", judge_fails),
        ("n_production", n_production),
        ("se_successes", se_successes),
        ("n_se", n_se),
        ("sp_successes", sp_successes),
        ("n_sp", n_sp),
    ]
    x, n, x_se, n_se, x_sp, n_sp = arrays = _broadcast(named)
    _check_counts(named, arrays)
    _check_at_most("judge_fails", x, "n_production", n)
    _check_at_most("se_successes", x_se, "n_se", n_se)
    _check_at_most("sp_successes", x_sp, "n_sp", n_sp)
    estimate = _rogan_gladen(_ratio(x, n), _ratio(x_se, n_se), _ratio(x_sp, n_sp))
    parts = _lr(x, n, x_se, n_se, x_sp, n_sp, z)
    return _out(estimate), _out(parts.low), _out(parts.high)


def _format_youden(value, floor):
    """Format J with enough decimals that it does not print as >= the floor it is below."""
    text = f"{value:.2f}"
    for digits in range(3, 10):
        if float(text) < floor:
            break
        text = f"{value:.{digits}f}"
    return text


def _refusal_text(n_production, n_fail, n_pass, youden, youden_adjusted, floor):
    reasons = []
    if n_production <= 0:
        reasons.append("no production rows: the observed rate is undefined")
    if n_fail <= 0:
        reasons.append(
            "no human-fail rows in the calibration set: the judge's TPR (sensitivity) "
            "cannot be estimated"
        )
    if n_pass <= 0:
        reasons.append(
            "no human-pass rows in the calibration set: the judge's TNR (specificity) "
            "cannot be estimated"
        )
    if n_fail > 0 and n_pass > 0:
        if not youden >= floor:
            reasons.append(
                f"Youden J = {_format_youden(youden, floor)} < {floor:g}: the judge separates "
                "fail from pass too weakly to correct"
            )
        elif not youden_adjusted > 0.0:
            reasons.append(
                f"the add-2 adjusted Youden J' = {youden_adjusted:.3f} <= 0: too few "
                "calibration rows for the Lang-Reiczigel interval"
            )
    if not reasons:
        return ""
    text = "; ".join(reasons)
    if n_production > 0:
        text += "; the observed rate is reported uncorrected"
    return text


def corrected_failure_rate(
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Return the production failure rate corrected for the judge's errors, or refuse.

    Parameters
    ----------
    judge_fails, n_production : int or array_like
        Rows the judge flagged as FAIL among ``N`` production rows.
    fail_caught, fail_missed, pass_flagged, pass_cleared : int or array_like
        The calibration set's 2 x 2 table (human label x judge label, positive = FAIL);
        see :func:`judge_rates`.
    confidence : float, optional
        Two-sided confidence level of every interval.
    youden_floor : float, optional
        Smallest Youden index ``J = TPR + TNR - 1`` (raw estimates) for which the rate is
        corrected; default 0.15 (SPEC §9).

    Returns
    -------
    CorrectedRate
        The observed rate with its Wilson interval, the Rogan-Gladen estimate (from the raw
        counts, as in :func:`lang_reiczigel_interval`), the Lang-Reiczigel and naive
        intervals, ``J``, the judge's rates and the calibration set's share of the LR
        variance.

    Notes
    -----
    The correction is refused (``corrected`` False, ``refusal`` says why) where

    * ``N == 0`` (no observed rate);
    * there are no human-fail rows or no human-pass rows (``Se`` or ``Sp`` undefined);
    * ``J < youden_floor`` (a NaN ``J`` also refuses): dividing by a small ``J`` amplifies
      every error in ``q``, ``Se`` and ``Sp``;
    * ``J >= youden_floor`` but the add-2 adjusted ``J' = Se' + Sp' - 1 <= 0``, which only
      happens with a handful of calibration rows: the LR formulas then have no meaning.
      (This last rule is not in SPEC §9; it is added so that no interval is built on a
      sign-flipped correction.)

    Where refused, ``estimate`` is the observed rate and both intervals are the observed
    rate's Wilson interval: an honest statement about what the judge flagged, not about the
    true failure rate. Where not refused, ``estimate`` is RG from the raw counts, clipped to
    [0, 1]; the LR interval is the one to report, the naive interval is for comparison.
    """
    z = _z_value(confidence)
    floor = float(youden_floor)
    if math.isnan(floor):
        raise ValueError("youden_floor must be a number (got nan)")
    named = [
        ("judge_fails", judge_fails),
        ("n_production", n_production),
        ("fail_caught", fail_caught),
        ("fail_missed", fail_missed),
        ("pass_flagged", pass_flagged),
        ("pass_cleared", pass_cleared),
    ]
    arrays = _broadcast(named)
    _check_counts(named, arrays)
    x, n, caught, missed, flagged, cleared = arrays
    _check_at_most("judge_fails", x, "n_production", n)

    n_fail = caught + missed
    n_pass = flagged + cleared
    tpr = _ratio(caught, n_fail)
    tnr = _ratio(cleared, n_pass)
    youden = tpr + tnr - 1.0
    observed = _ratio(x, n)
    observed_low, observed_high = _wilson(x, n, z)
    parts = _lr(x, n, caught, n_fail, cleared, n_pass, z)
    naive_low, naive_high = _naive(x, n, tpr, tnr, z)
    estimate = _rogan_gladen(observed, tpr, tnr)

    with np.errstate(invalid="ignore"):
        ok = (n > 0.0) & (n_fail > 0.0) & (n_pass > 0.0) & (youden >= floor) & (parts.youden > 0.0)
        share = np.where(ok, parts.var_cal / (parts.var_q + parts.var_cal), np.nan)

    refusal = np.empty(x.shape, dtype=object)
    for index in np.ndindex(x.shape):
        refusal[index] = _refusal_text(
            n[index], n_fail[index], n_pass[index], youden[index], parts.youden[index], floor
        )

    return CorrectedRate(
        observed=_out(observed),
        observed_low=_out(observed_low),
        observed_high=_out(observed_high),
        corrected=_out(ok),
        refusal=refusal[()] if refusal.ndim == 0 else refusal,
        estimate=_out(np.where(ok, estimate, observed)),
        lr_low=_out(np.where(ok, parts.low, observed_low)),
        lr_high=_out(np.where(ok, parts.high, observed_high)),
        naive_low=_out(np.where(ok, naive_low, observed_low)),
        naive_high=_out(np.where(ok, naive_high, observed_high)),
        youden=_out(youden),
        rates=_judge_rates(caught, missed, flagged, cleared, z),
        calibration_share=_out(share),
    )


def human_ceiling(reliability, k):
    """Return the ceiling on a judge's correlation with the mean of ``k`` human raters.

    Parameters
    ----------
    reliability : float or array_like
        Single-rater reliability ``r`` (the correlation between two raters), at most 1.
    k : int or array_like
        Number of raters averaged, positive.

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``c_k = r / sqrt(r + (1 - r) / k)`` (SPEC §9): ``c_1 = r``, and ``c_k`` rises to
        ``sqrt(r)`` as ``k`` grows. NaN where ``r + (1 - r) / k <= 0`` (a negative ``r``).

    Notes
    -----
    If every rater, and the judge, is the true score plus independent noise, so that any
    two of them correlate at ``r``, then the judge's covariance with the mean of ``k``
    raters is ``r`` and that mean's variance is ``r + (1 - r) / k``: a judge exactly as good
    as one more human correlates ``c_k`` with the ``k``-rater mean. A judge scoring at
    ``c_k`` is at the human ceiling; higher is not expected without better humans.
    """
    r, raters = _broadcast([("reliability", reliability), ("k", k)])
    if np.any(r > 1.0) or not np.all(np.isfinite(r)):
        raise ValueError(f"reliability must be finite and at most 1 (got {_show(r)})")
    if not np.all(raters > 0.0):
        raise ValueError(f"k must be positive (got {_show(raters)})")
    radicand = r + (1.0 - r) / raters
    with np.errstate(invalid="ignore", divide="ignore"):
        ceiling = np.where(radicand > 0.0, r / np.sqrt(np.where(radicand > 0, radicand, 1)), np.nan)
    return _out(ceiling)


# --------------------------------------------------------------------------- numba twins


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
def _corrected_bounds(
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
    Each trial draws from its own stream seeded by its key (:func:`simcore.engine.rng.seed_state`),
    in this fixed order, with exact binomials (:func:`simcore.engine.samplers.binomial`):

    1. ``n_fail ~ Bin(n_cal, theta)``, the calibration set's human-fail rows;
    2. ``fail_caught ~ Bin(n_fail, se)``;
    3. ``pass_flagged ~ Bin(n_cal - n_fail, 1 - sp)``;
    4. ``true_fails ~ Bin(N, theta)``, the production stream's failures;
    5. ``judge_fails = Bin(true_fails, se) + Bin(N - true_fails, 1 - sp)``.

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
            n_fail = binomial(state, n_cal, theta, table)
            fail_caught = binomial(state, n_fail, se, table)
            n_pass = n_cal - n_fail
            pass_flagged = binomial(state, n_pass, 1.0 - sp, table)
            true_fails = binomial(state, n_production, theta, table)
            judge_fails = binomial(state, true_fails, se, table) + binomial(
                state, n_production - true_fails, 1.0 - sp, table
            )
            truth = true_fails / n_production
            was_refused, naive_low, naive_high, lr_low, lr_high = _corrected_bounds(
                judge_fails,
                n_production,
                fail_caught,
                n_fail,
                n_pass - pass_flagged,
                n_pass,
                z,
                youden_floor,
            )
            refused[t] = was_refused
            covered_naive[t] = (
                naive_low - COVERAGE_SLACK <= truth and truth <= naive_high + COVERAGE_SLACK
            )
            covered_lr[t] = lr_low - COVERAGE_SLACK <= truth and truth <= lr_high + COVERAGE_SLACK
            width_naive[t] = naive_high - naive_low
            width_lr[t] = lr_high - lr_low
    return covered_naive, covered_lr, width_naive, width_lr, refused
