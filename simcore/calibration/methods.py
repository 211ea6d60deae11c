"""One reported failure rate per method: Rogan-Gladen (LR, naive) or PPI, clipped or refused.

:class:`MethodRate` is what :func:`simcore.calibration.statistics.corrected_rates` returns
for each method in :data:`METHODS`; the functions here build it from the Rogan-Gladen
:class:`~simcore.calibration.correction.CorrectedRate` (``lr``, ``naive``) or from the raw
PPI formulas of :mod:`simcore.calibration.ppi` (``ppi``, ``ppi++``, ``strat-ppi`` and
``strat-wilson``, stratified PPI with its MOVER-Wilson interval), with the PPI methods'
refusal rule.
"""

from typing import NamedTuple

import numpy as np

from simcore.calibration.formulas import _clip01, _out, _ratio, _refusal_sentence, _wilson
from simcore.calibration.ppi import (
    _power_tuning,
    _ppi,
    _ppi_lambda,
    _stratified,
    _stratified_wilson,
)

METHODS = ("lr", "naive", "ppi", "ppi++", "strat-ppi", "strat-wilson")
"""The methods of :func:`~simcore.calibration.statistics.corrected_rates`, in report order."""

PPI_METHODS = ("ppi", "ppi++", "strat-ppi", "strat-wilson")

STRATIFIED_METHODS = ("strat-ppi", "strat-wilson")
"""The methods that estimate within the judge's labels (valid on a sample stratified by it)."""


class MethodRate(NamedTuple):
    """A production failure rate by one method, clipped to [0, 1], or its refusal.

    Attributes
    ----------
    method : str
        One of :data:`METHODS`.
    estimate, low, high : numpy.ndarray or numpy.float64
        The estimate and its interval, clipped to [0, 1]; the observed rate and its Wilson
        interval where the method refused.
    corrected : numpy.ndarray or bool
        False where the method refused (see ``refusal``).
    refusal : str or numpy.ndarray
        Why the method refused; ``""`` where it did not (an object array for array input).
    lam : numpy.ndarray or numpy.float64
        PPI's ``lambda``: 1 for ``ppi``, the estimated value for ``ppi++`` (NaN where
        refused), NaN for the other methods.
    observed, observed_low, observed_high : numpy.ndarray or numpy.float64
        The judge-flagged rate ``q = judge_fails / N`` and its Wilson interval.
    """

    method: str
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    corrected: np.ndarray
    refusal: object
    lam: np.ndarray
    observed: np.ndarray
    observed_low: np.ndarray
    observed_high: np.ndarray


def _checked_methods(methods):
    """Return ``methods`` as a tuple of names; ValueError naming any unknown one."""
    names = (methods,) if isinstance(methods, str) else tuple(methods)
    unknown = [name for name in names if name not in METHODS]
    if unknown or not names:
        raise ValueError(
            f"method must be one of {', '.join(METHODS)} (got {', '.join(map(repr, unknown))})"
            if unknown
            else "methods: at least one method is needed"
        )
    return names


def _rogan_gladen_rate(method, result):
    """Return the :class:`MethodRate` of ``lr`` or ``naive`` from a ``CorrectedRate``."""
    low, high = (
        (result.lr_low, result.lr_high) if method == "lr" else (result.naive_low, result.naive_high)
    )
    return MethodRate(
        method=method,
        estimate=result.estimate,
        low=low,
        high=high,
        corrected=result.corrected,
        refusal=result.refusal,
        lam=_out(np.full(np.shape(result.observed), np.nan)),
        observed=result.observed,
        observed_low=result.observed_low,
        observed_high=result.observed_high,
    )


def _ppi_rate(method, counts, z):
    """Return the :class:`MethodRate` of a PPI method from checked count arrays.

    The raw estimate and interval are clipped to [0, 1]; where the method refuses
    (:func:`_ppi_refusal_text`) they are the observed rate and its Wilson interval.
    """
    x = counts[0]
    if method == "ppi":
        lam = np.ones_like(x)
        estimate, low, high = _ppi(*counts, z)
    elif method == "ppi++":
        lam = _power_tuning(*counts)
        estimate, low, high = _ppi_lambda(*counts, lam, z)
    else:
        lam = np.full_like(x, np.nan)
        compute = _stratified if method == "strat-ppi" else _stratified_wilson
        estimate, low, high = compute(*counts, z)
    return _finished_rate(method, counts, z, lam, (estimate, low, high))


def _finished_rate(method, counts, z, lam, bounds):
    """Return the :class:`MethodRate` of a PPI method's raw ``bounds``: clipped, or refused.

    Where the method refuses (:func:`_ppi_refusal_text`, on the counts) the rate is the
    observed one with its Wilson interval; the clustered intervals
    (:mod:`simcore.calibration.clustered`) finish here too.
    """
    x, n_production, caught, missed, flagged, cleared = counts
    estimate, low, high = bounds
    n = caught + missed + flagged + cleared
    fail_stratum = caught + flagged
    pass_stratum = missed + cleared
    refusal = np.empty(x.shape, dtype=object)
    for index in np.ndindex(x.shape):
        refusal[index] = _ppi_refusal_text(
            method,
            x[index],
            n_production[index],
            n[index],
            fail_stratum[index],
            pass_stratum[index],
        )
    ok = refusal == ""
    observed = _ratio(x, n_production)
    observed_low, observed_high = _wilson(x, n_production, z)
    return MethodRate(
        method=method,
        estimate=_out(np.where(ok, _clip01(estimate), observed)),
        low=_out(np.where(ok, _clip01(low), observed_low)),
        high=_out(np.where(ok, _clip01(high), observed_high)),
        corrected=_out(ok),
        refusal=refusal[()] if refusal.ndim == 0 else refusal,
        lam=_out(np.where(ok, lam, np.nan)),
        observed=_out(observed),
        observed_low=_out(observed_low),
        observed_high=_out(observed_high),
    )


def _ppi_refusal_text(method, judge_fails, n_production, n, fail_stratum, pass_stratum):
    """Return why a PPI method refuses one set of counts, or ``""``.

    Every method refuses with no production rows or no calibration rows; ``ppi`` and
    ``ppi++`` with a single calibration row (no variance estimate); the stratified methods
    where a judge-label stratum present in production has no calibration rows.
    """
    reasons = []
    if n_production <= 0:
        reasons.append("no production rows: the observed rate is undefined")
    if n <= 0:
        reasons.append("no calibration rows: the judge's errors cannot be measured")
    elif method not in STRATIFIED_METHODS and n < 2:
        reasons.append(
            f"{n:.0f} calibration row: {method} needs at least 2 to estimate the variance "
            "of the human-minus-judge rectifier"
        )
    elif method in STRATIFIED_METHODS and n_production > 0:
        if judge_fails > 0 and fail_stratum <= 0:
            reasons.append(
                f"no calibration rows the judge failed, yet it failed {judge_fails:.0f} "
                "production rows: the human FAIL share among judge-FAIL rows (PPV) cannot "
                "be estimated"
            )
        if judge_fails < n_production and pass_stratum <= 0:
            reasons.append(
                f"no calibration rows the judge passed, yet it passed "
                f"{n_production - judge_fails:.0f} production rows: the human FAIL share "
                "among judge-PASS rows (1 - NPV) cannot be estimated"
            )
    return _refusal_sentence(reasons, n_production)
