"""Scoring the calibration of advise's risk: reliability bins, Brier scores and two baselines.

A *case* is one judge on one thinned matrix: the risk advise predicted (the probability that
the thinned verdict differs from the full-matrix verdict) beside whether it did. This module
turns arrays of cases into

- a reliability table (:func:`reliability_bins`): per bin of predicted risk, the mean
  prediction, the realised share wrong with its Wilson interval, the binomial SE of that share
  under the mean prediction and whether the share lies within two of them;
- Brier scores (:func:`brier_score`) of the risk and of two baselines: a constant risk fitted
  leave-one-matrix-out (:func:`leave_one_group_out_share`) and a normal approximation from the
  verdict's own comparison intervals
  (:func:`simcore.advisor.interval_risk.normal_approximation_risk`);
- a pooled check that fails on gross miscalibration (:func:`gross_miscalibration`).
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.statistics import wilson_interval

RISK_BINS = (0.0, 0.05, 0.10, 0.20, 0.30, 0.50, 1.0)
"""Edges of the reliability bins: ``[0, .05), [.05, .1), ..., [.5, 1]`` (the last is closed)."""

MIN_BIN_CASES = 30
"""A bin is held to the two-SE target only with at least this many cases."""


# --------------------------------------------------------------------------- reliability


class ReliabilityBin(NamedTuple):
    """One row of the reliability table."""

    low: float
    high: float
    n: int
    mean_predicted: float
    realised: float
    wilson_low: float
    wilson_high: float
    se: float
    within_2se: bool


def bin_index(predicted, edges=RISK_BINS):
    """Return each prediction's bin ``i``: ``edges[i] <= p < edges[i + 1]``, the last closed."""
    predicted = np.asarray(predicted, dtype=float)
    index = np.searchsorted(np.asarray(edges), predicted, side="right") - 1
    return np.clip(index, 0, len(edges) - 2)


def reliability_bins(predicted, wrong, edges=RISK_BINS, confidence=0.95):
    """Return one :class:`ReliabilityBin` per bin of predicted risk.

    In a bin of ``n`` cases with mean prediction ``pbar`` and ``x`` wrong verdicts, the
    realised share is ``x / n`` with its Wilson interval, and ``SE = sqrt(pbar (1 - pbar) /
    n)`` is the binomial SE of the share if the predictions were right; ``within_2se`` is
    ``|x / n - pbar| <= 2 SE``. An empty bin has NaN means and ``within_2se`` True.
    """
    predicted = np.asarray(predicted, dtype=float)
    wrong = np.asarray(wrong, dtype=bool)
    index = bin_index(predicted, edges)
    rows = []
    for number in range(len(edges) - 1):
        chosen = index == number
        n = int(chosen.sum())
        x = int(wrong[chosen].sum())
        low, high = wilson_interval(x, n, confidence)
        if n == 0:
            rows.append(
                ReliabilityBin(
                    edges[number],
                    edges[number + 1],
                    0,
                    *[math.nan] * 2,
                    float(low),
                    float(high),
                    math.nan,
                    True,
                )
            )
            continue
        mean = float(predicted[chosen].mean())
        se = math.sqrt(mean * (1 - mean) / n)
        realised = x / n
        within = abs(realised - mean) <= 2 * se + 1e-12
        rows.append(
            ReliabilityBin(
                edges[number],
                edges[number + 1],
                n,
                mean,
                realised,
                float(low),
                float(high),
                se,
                bool(within),
            )
        )
    return rows


# --------------------------------------------------------------------------- Brier


def brier_score(predicted, wrong):
    """Return the Brier score ``mean (p_i - y_i)^2`` of predictions ``p`` of outcomes ``y``."""
    predicted = np.asarray(predicted, dtype=float)
    outcome = np.asarray(wrong, dtype=float)
    return float(np.mean((predicted - outcome) ** 2))


def brier_difference(first, second, wrong):
    """Return ``(mean, SE)`` of the paired Brier difference ``first - second`` over the cases.

    ``delta_i = (p_i - y_i)^2 - (q_i - y_i)^2``; ``SE = sd(delta) / sqrt(n)`` (cases treated
    as independent, which replicates of one matrix are only roughly).
    """
    outcome = np.asarray(wrong, dtype=float)
    delta = (np.asarray(first) - outcome) ** 2 - (np.asarray(second) - outcome) ** 2
    if len(delta) < 2:
        return float(delta.mean()) if len(delta) else math.nan, math.nan
    return float(delta.mean()), float(delta.std(ddof=1) / math.sqrt(len(delta)))


def leave_one_group_out_share(groups, wrong):
    """Return per case the share wrong among the cases of every *other* group.

    The constant baseline: a risk that knows only how often thinned verdicts are wrong,
    estimated without the case's own matrix (so it is not fitted in-sample). Raises
    ValueError with fewer than two groups.
    """
    groups = np.asarray(groups)
    wrong = np.asarray(wrong, dtype=float)
    names = np.unique(groups)
    if len(names) < 2:
        raise ValueError(f"the constant baseline needs cases from 2 or more matrices (got {names})")
    total, count = wrong.sum(), len(wrong)
    share = np.empty(count)
    for name in names:
        own = groups == name
        share[own] = (total - wrong[own].sum()) / (count - own.sum())
    return share


# --------------------------------------------------------------------------- pooled check


def calibration_in_the_large(predicted, wrong):
    """Return ``(realised - predicted wrong count) / sqrt(sum p_i (1 - p_i))`` over the cases.

    Under calibrated, independent predictions this is about standard normal; it is the
    pooled counterpart of the reliability table (NaN when every prediction is 0 or 1).
    """
    predicted = np.asarray(predicted, dtype=float)
    variance = float((predicted * (1 - predicted)).sum())
    excess = float(np.sum(wrong) - predicted.sum())
    return excess / math.sqrt(variance) if variance > 0 else math.nan


def gross_miscalibration(predicted, wrong, groups, max_z=4.0):
    """Return the problems that show a grossly miscalibrated risk (an empty list if none).

    Three checks: the Brier score beats predicting 0.5 for every case (0.25); it is not
    worse than the leave-one-matrix-out constant by more than two paired SEs
    (:func:`brier_difference`); and the pooled count of wrong verdicts is within ``max_z``
    SEs of the predicted count (:func:`calibration_in_the_large`).
    """
    problems = []
    score = brier_score(predicted, wrong)
    if not score < 0.25:
        problems.append(f"Brier score {score:.4f} does not beat predicting 0.5 (0.25)")
    constant = leave_one_group_out_share(groups, wrong)
    difference, se = brier_difference(predicted, constant, wrong)
    if difference > 2 * se:
        problems.append(
            f"Brier score worse than the constant baseline by {difference:.4f} (SE {se:.4f})"
        )
    z = calibration_in_the_large(predicted, wrong)
    if not abs(z) <= max_z:
        problems.append(f"pooled wrong count {z:+.1f} SEs from the predicted count")
    return problems
