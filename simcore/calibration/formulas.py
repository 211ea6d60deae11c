"""NumPy building blocks of the calibration statistics: input checks and the interval formulas.

The public functions of :mod:`simcore.calibration.statistics` and
:mod:`simcore.calibration.correction` check their inputs here (``z`` from the confidence,
broadcasting to float64, finite non-negative counts, rates in [0, 1]) and compute with the
private formulas below on broadcast float64 arrays: the Wilson interval, Rogan-Gladen, the
naive interval, the Lang-Reiczigel interval's parts, and the judge's rates
(:class:`JudgeRates`).
"""

from typing import NamedTuple

import numpy as np
from scipy.stats import norm


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
    except OverflowError:
        raise ValueError(f"{', '.join(names)} must be finite (got a number too large)") from None
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


def _checked_counts(
    judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
):
    """Return the six counts as float64 arrays of one shape, checked; ValueError if bad."""
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
    _check_at_most("judge_fails", arrays[0], "n_production", arrays[1])
    return arrays


def _check_rates(named, arrays):
    """Raise ValueError for a rate outside [0, 1] (NaN passes through as undefined)."""
    problems = []
    for (name, _), array in zip(named, arrays, strict=True):
        if np.any(np.isinf(array)) or np.any((array < 0.0) | (array > 1.0)):
            problems.append(f"{name} must lie in [0, 1] (got {_show(array)})")
    if problems:
        raise ValueError("; ".join(problems))


def _checked_level(name, value):
    """Return ``value`` as a float; ValueError unless it lies strictly in (0, 1).

    The check of every miscoverage, level or share the sequential statistics take.
    """
    if not isinstance(value, int | float | np.number) or not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1 (got {value!r})")
    return float(value)


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


def _refusal_sentence(reasons, n_production):
    """Join a refusal's ``reasons`` into one sentence (``""`` for none).

    With production rows the observed rate is still reported, and the sentence says so.
    """
    if not reasons:
        return ""
    text = "; ".join(reasons)
    if n_production > 0:
        text += "; the observed rate is reported uncorrected"
    return text
