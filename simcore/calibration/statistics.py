"""Judge calibration statistics: TPR/TNR, corrected failure rates and their intervals.

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

Where the code lives: this module holds the vectorised NumPy interval functions;
:mod:`~simcore.calibration.correction` the corrected failure rate and its refusal rule;
:mod:`~simcore.engine.interval_twins` the ``@jit`` twins and :func:`coverage_trials`;
:mod:`~simcore.calibration.formulas` the input checks and formulas they share;
:mod:`~simcore.calibration.ppi` the prediction-powered estimators (:func:`ppi_mean`,
:func:`ppi_plus_plus`, :func:`stratified_ppi`, raw) and :mod:`~simcore.calibration.methods`
the per-method report (:class:`MethodRate`) that :func:`corrected_rates` returns. Every name in
``__all__`` (and the twins' ``corrected_bounds``) is importable from here.

References
----------
E. B. Wilson (1927), "Probable inference, the law of succession, and statistical inference",
J. Am. Stat. Assoc. 22:209-212.

W. J. Rogan and B. Gladen (1978), "Estimating prevalence from the results of a screening
test", Am. J. Epidemiol. 107:71-76.

Z. Lang and J. Reiczigel (2014), "Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity", Prev. Vet. Med. 113:13-22.
"""

import numpy as np

# Re-exported: callers import these names from simcore.calibration.statistics.
from simcore.calibration.correction import (  # noqa: F401
    DEFAULT_YOUDEN_FLOOR,
    CorrectedRate,
    corrected_failure_rate,
    corrected_rates,
)
from simcore.calibration.formulas import (
    JudgeRates,
    _broadcast,
    _check_at_most,
    _check_counts,
    _check_rates,
    _judge_rates,
    _lr,
    _naive,
    _out,
    _ratio,
    _rogan_gladen,
    _show,
    _wilson,
    _z_value,
)
from simcore.calibration.methods import METHODS, MethodRate  # noqa: F401
from simcore.calibration.ppi import ppi_mean, ppi_plus_plus, stratified_ppi  # noqa: F401
from simcore.engine.interval_twins import (  # noqa: F401
    COVERAGE_SLACK,
    TRIAL_CHUNK,
    corrected_bounds,
    coverage_trials,
    lr_bounds,
    naive_bounds,
    wilson_bounds,
)

__all__ = [
    "COVERAGE_SLACK",
    "DEFAULT_YOUDEN_FLOOR",
    "METHODS",
    "TRIAL_CHUNK",
    "CorrectedRate",
    "JudgeRates",
    "MethodRate",
    "corrected_failure_rate",
    "corrected_rates",
    "coverage_trials",
    "human_ceiling",
    "judge_rates",
    "lang_reiczigel_interval",
    "lr_bounds",
    "naive_bounds",
    "naive_corrected_interval",
    "ppi_mean",
    "ppi_plus_plus",
    "rogan_gladen",
    "stratified_ppi",
    "wilson_bounds",
    "wilson_interval",
    "youden_j",
]


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
    calibration set, which need not be those of production (docs/explanation/calibration.md).
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
    This interval ignores the sampling error of ``Se`` and ``Sp``; with a small calibration set it
    undercovers badly (the coverage study (docs/explanation/calibration.md) finds 13-46 % coverage
    on real judges). It is given for comparison with :func:`lang_reiczigel_interval`. The estimate
    always lies inside it, since RG is monotone and the Wilson interval contains ``q``.
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
    shift and the variance: the construction is "RG on the primed values", and RG is defined
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
    z = _z_value(confidence)
    x, n, x_se, n_se, x_sp, n_sp = _lr_counts(
        judge_fails, n_production, se_successes, n_se, sp_successes, n_sp
    )
    estimate = _rogan_gladen(_ratio(x, n), _ratio(x_se, n_se), _ratio(x_sp, n_sp))
    parts = _lr(x, n, x_se, n_se, x_sp, n_sp, z)
    return _out(estimate), _out(parts.low), _out(parts.high)


def _lr_counts(judge_fails, n_production, se_successes, n_se, sp_successes, n_sp):
    """Return the six counts of the LR interval as float64 arrays of one shape, checked."""
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
    return arrays


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
        ``c_k = r / sqrt(r + (1 - r) / k)`` (docs/explanation/ceilings.md): ``c_1 = r``, and
        ``c_k`` rises to ``sqrt(r)`` as ``k`` grows. NaN where ``r + (1 - r) / k <= 0`` (a negative
        ``r``).

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
