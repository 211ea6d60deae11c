"""The corrected production failure rate: Rogan-Gladen with its intervals, or a refusal.

:func:`corrected_failure_rate` corrects the judge-flagged rate of a production stream for
the judge's errors measured on a calibration set, with the Lang-Reiczigel and naive
intervals, and refuses (reporting the observed rate, with the reason) where the correction is
not sound: no production rows, no human-fail or human-pass calibration rows, a Youden index
below the floor, or an add-2 adjusted Youden index that is not positive.
:func:`corrected_rates` reports the rate by any of :data:`METHODS` (Rogan-Gladen with the LR
or naive interval, or prediction-powered inference) side by side.
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.formulas import (
    JudgeRates,
    _checked_counts,
    _judge_rates,
    _lr,
    _naive,
    _out,
    _ratio,
    _refusal_sentence,
    _rogan_gladen,
    _wilson,
    _z_value,
)
from simcore.calibration.methods import (
    METHODS,
    PPI_METHODS,
    _checked_methods,
    _ppi_rate,
    _rogan_gladen_rate,
)

DEFAULT_YOUDEN_FLOOR = 0.15
"""Smallest Youden index ``J = Se + Sp - 1`` for which the failure rate is corrected."""


class CorrectedRate(NamedTuple):
    """A production failure rate, corrected for the judge's errors where that is sound.

    Attributes
    ----------
    observed, observed_low, observed_high : numpy.ndarray or numpy.float64
        The observed (judge-flagged) rate ``q = judge_fails / N`` and its Wilson interval.
    corrected : numpy.ndarray or bool
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
    return _refusal_sentence(reasons, n_production)


def corrected_failure_rate(  # noqa: PLR0913 (a value object is still to come)
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
    method="lr",
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
        Smallest Youden index ``J = TPR + TNR - 1`` (raw estimates) for which the rate is corrected;
        default 0.15 (docs/explanation/calibration.md). It applies to ``lr`` and ``naive`` only.
    method : {"lr", "naive", "ppi", "ppi++", "strat-ppi", "strat-wilson"}, optional
        ``"lr"`` (the default) returns the :class:`CorrectedRate` below; any other method
        returns that method's :class:`~simcore.calibration.methods.MethodRate` (estimate and
        interval clipped to [0, 1], or its refusal), as :func:`corrected_rates` does.

    Returns
    -------
    CorrectedRate or MethodRate
        For ``method="lr"``: the observed rate with its Wilson interval, the Rogan-Gladen
        estimate (from the raw counts, as in :func:`lang_reiczigel_interval`), the
        Lang-Reiczigel and naive intervals, ``J``, the judge's rates and the calibration
        set's share of the LR variance.

    Notes
    -----
    The correction is refused (``corrected`` False, ``refusal`` says why) where

    * ``N == 0`` (no observed rate);
    * there are no human-fail rows or no human-pass rows (``Se`` or ``Sp`` undefined);
    * ``J < youden_floor`` (a NaN ``J`` also refuses): dividing by a small ``J`` amplifies
      every error in ``q``, ``Se`` and ``Sp``;
    * ``J >= youden_floor`` but the add-2 adjusted ``J' = Se' + Sp' - 1 <= 0``, which only
      happens with a handful of calibration rows: the LR formulas then have no meaning.
      (This last rule is not Lang & Reiczigel's; it is added so that no interval is built on a
      sign-flipped correction.)

    Where refused, ``estimate`` is the observed rate and both intervals are the observed
    rate's Wilson interval: an honest statement about what the judge flagged, not about the
    true failure rate. Where not refused, ``estimate`` is RG from the raw counts, clipped to
    [0, 1]; the LR interval is the one to report, the naive interval is for comparison.
    """
    if method != "lr":
        (rate,) = corrected_rates(
            judge_fails,
            n_production,
            fail_caught,
            fail_missed,
            pass_flagged,
            pass_cleared,
            confidence,
            youden_floor,
            methods=(method,),
        )
        return rate
    z = _z_value(confidence)
    floor = _checked_floor(youden_floor)
    counts = _checked_counts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
    )
    return _corrected_rate(*counts, z, floor)


def corrected_rates(  # noqa: PLR0913 (a value object is still to come)
    judge_fails,
    n_production,
    fail_caught,
    fail_missed,
    pass_flagged,
    pass_cleared,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
    methods=METHODS,
):
    """Return the production failure rate by each of ``methods``, clipped to [0, 1] or refused.

    Parameters
    ----------
    judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
        As in :func:`corrected_failure_rate`.
    confidence : float, optional
        Two-sided confidence level of every interval.
    youden_floor : float, optional
        The Youden floor of ``lr`` and ``naive`` (the PPI methods do not divide by ``J``).
    methods : str or sequence of str, optional
        Any of ``"lr"``, ``"naive"``, ``"ppi"``, ``"ppi++"``, ``"strat-ppi"``,
        ``"strat-wilson"`` (default: all).

    Returns
    -------
    tuple of MethodRate
        One per method, in the order asked for.

    Notes
    -----
    ``lr`` is Rogan-Gladen with the Lang-Reiczigel interval and ``naive`` Rogan-Gladen with
    the naive interval, both with the refusals of :func:`corrected_failure_rate`. ``ppi``,
    ``ppi++`` and ``strat-ppi`` are :func:`~simcore.calibration.ppi.ppi_mean`,
    :func:`~simcore.calibration.ppi.ppi_plus_plus` and
    :func:`~simcore.calibration.ppi.stratified_ppi` (``strat-wilson``: its
    ``interval="wilson"``) with estimate and interval clipped to
    [0, 1] (clipping cannot change whether a rate in [0, 1] is covered). They refuse with
    ``N == 0`` or ``n == 0``; ``ppi`` and ``ppi++`` also with ``n < 2`` (no variance
    estimate), the stratified methods where a judge-label stratum present in production has no
    calibration rows. A refusal reports the observed rate and its Wilson interval.
    """
    names = _checked_methods(methods)
    z = _z_value(confidence)
    floor = _checked_floor(youden_floor)
    counts = _checked_counts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared
    )
    rogan_gladen = _corrected_rate(*counts, z, floor) if {"lr", "naive"} & set(names) else None
    return tuple(
        _ppi_rate(name, counts, z)
        if name in PPI_METHODS
        else _rogan_gladen_rate(name, rogan_gladen)
        for name in names
    )


def _checked_floor(youden_floor):
    """Return ``youden_floor`` as a float; raise ValueError for NaN."""
    floor = float(youden_floor)
    if math.isnan(floor):
        raise ValueError("youden_floor must be a number (got nan)")
    return floor


def _corrected_rate(x, n, caught, missed, flagged, cleared, z, floor):
    """Return the :class:`CorrectedRate` of checked count arrays (see corrected_failure_rate)."""
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

    return CorrectedRate(
        observed=_out(observed),
        observed_low=_out(observed_low),
        observed_high=_out(observed_high),
        corrected=_out(ok),
        refusal=_refusals(n, n_fail, n_pass, youden, parts.youden, floor),
        estimate=_out(np.where(ok, estimate, observed)),
        lr_low=_out(np.where(ok, parts.low, observed_low)),
        lr_high=_out(np.where(ok, parts.high, observed_high)),
        naive_low=_out(np.where(ok, naive_low, observed_low)),
        naive_high=_out(np.where(ok, naive_high, observed_high)),
        youden=_out(youden),
        rates=_judge_rates(caught, missed, flagged, cleared, z),
        calibration_share=_out(share),
    )


def _refusals(n_production, n_fail, n_pass, youden, youden_adjusted, floor):
    """Return the refusal text of every element: a ``str`` for 0-d arrays, else object array."""
    refusal = np.empty(n_production.shape, dtype=object)
    for index in np.ndindex(n_production.shape):
        refusal[index] = _refusal_text(
            n_production[index],
            n_fail[index],
            n_pass[index],
            youden[index],
            youden_adjusted[index],
            floor,
        )
    return refusal[()] if refusal.ndim == 0 else refusal
