"""Random calibration / stream splits and the coverage rows of the real-data check.

:func:`draw_splits` draws the splits; :func:`coverage_splits` counts each split's 2 x 2
calibration table and stream, builds the corrected failure rate's intervals and checks them
against the expert's fail rate on the stream; :func:`real_coverage_table` does this for every
judge and calibration size (and, if asked, every dimension), one row each, seeded as the
module docstring of ``experiments/real_check.py`` says. The steps in between
(:func:`split_counts`, :func:`split_results`, :func:`share_with_se`, :func:`full_rates`) are
public because the transport check (:mod:`simcore.instrument.transport`) and the
well-posedness study reuse them.
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.real.pairs import (
    DEFAULT_EXPERT,
    DEFAULT_FAIL_AT_MOST,
    POOLED,
    binarised_pairs,
    item_dimension,
)
from simcore.calibration.real.ppi import ppi_row_fields, ppi_split_results
from simcore.calibration.statistics import (
    COVERAGE_SLACK,
    DEFAULT_YOUDEN_FLOOR,
    corrected_failure_rate,
    judge_rates,
    youden_j,
)

DEFAULT_N_CALS = (25, 50, 100, 200)
"""Calibration-set sizes of the default run."""

DEFAULT_SPLITS = 300
"""Random calibration / stream splits per (judge, n_cal)."""

DEFAULT_SEED = 2029
"""First entry of every split's SeedSequence."""


# --------------------------------------------------------------------------- splits


def _whole(value, name, low):
    """Return ``value`` as an int ``>= low`` or raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an integer >= {low} (got {value!r})")
    return int(value)


def draw_splits(n_items, n_cal, n_splits, rng):
    """Draw random calibration / stream splits of ``n_items`` items.

    Parameters
    ----------
    n_items : int
        Number of items ``n``.
    n_cal : int
        Calibration-set size, ``1 <= n_cal < n``.
    n_splits : int
        Number of splits, at least 1.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    calibration : numpy.ndarray
        int32 ``(n_splits, n_cal)``: the calibration items of each split.
    stream : numpy.ndarray
        int32 ``(n_splits, n - n_cal)``: the other items, the production stream.

    Notes
    -----
    Row ``s`` is one uniform random permutation of ``0 .. n - 1``
    (``rng.permuted(..., axis=1)``); its first ``n_cal`` entries are the calibration set,
    so the calibration set is a uniform draw without replacement and the two parts of a
    split are disjoint and together hold every item once.
    """
    n_items = _whole(n_items, "n_items", 2)
    n_cal = _whole(n_cal, "n_cal", 1)
    n_splits = _whole(n_splits, "n_splits", 1)
    if n_cal >= n_items:
        raise ValueError(f"n_cal must be below the number of items {n_items} (got {n_cal})")
    base = np.broadcast_to(np.arange(n_items, dtype=np.int32), (n_splits, n_items))
    order = rng.permuted(base, axis=1)
    return order[:, :n_cal], order[:, n_cal:]


def _flags(values, name):
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (got shape {array.shape})")
    if array.dtype != bool:
        if array.size and not np.all((array == 0) | (array == 1)):
            raise ValueError(f"{name} must hold booleans or 0/1 values")
        array = array.astype(bool)
    return array


def coverage_splits(
    truth_fail,
    judge_fail,
    n_cal,
    n_splits,
    rng,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Check the LR and naive intervals against the truth on random calibration splits.

    Parameters
    ----------
    truth_fail, judge_fail : array_like of bool
        ``(n,)`` FAIL flags of the truth (expert) and of the judge on the same items.
    n_cal : int
        Calibration-set size, ``1 <= n_cal < n``; the stream is the other ``n - n_cal``.
    n_splits : int
        Number of random splits (:func:`draw_splits`).
    rng : numpy.random.Generator or int or numpy.random.SeedSequence
        Source of the splits (anything :func:`numpy.random.default_rng` accepts).
    confidence : float, optional
        Two-sided confidence level of both intervals.
    youden_floor : float, optional
        Refuse to correct when the calibration set's ``J = TPR + TNR - 1`` is below this.

    Returns
    -------
    dict of str to numpy.ndarray
        Per-split ``(n_splits,)`` arrays: ``covered_lr``, ``covered_naive`` (bool: the
        interval holds the stream's true fail rate), ``width_lr``, ``width_naive``,
        ``refused`` (bool: the correction was refused; both intervals are then the observed
        rate's Wilson interval), ``truth_rate`` (the truth's fail rate on the stream),
        ``estimate``, ``lr_low``, ``lr_high``, ``naive_low``, ``naive_high``, the
        calibration counts ``fail_caught``, ``fail_missed``, ``pass_flagged``,
        ``pass_cleared`` and the stream's ``judge_fails`` and ``n_production``.

    Raises
    ------
    ValueError
        When the flags are not 1-D boolean arrays of one length or a size is out of range.
    """
    truth, judge = _flag_pair(truth_fail, judge_fail)
    calibration, _ = draw_splits(truth.size, n_cal, n_splits, np.random.default_rng(rng))
    counts = split_counts(truth, judge, calibration)
    return split_results(counts, calibration.shape[0], confidence, youden_floor)


def _flag_pair(truth_fail, judge_fail):
    """Return the truth's and the judge's flags as 1-D bool arrays of one length."""
    truth = _flags(truth_fail, "truth_fail")
    judge = _flags(judge_fail, "judge_fail")
    if truth.shape != judge.shape:
        raise ValueError(
            f"truth_fail and judge_fail must have one length (got {truth.size} and {judge.size})"
        )
    return truth, judge


class SplitCounts(NamedTuple):
    """Per-split ``(n_splits,)`` counts of the calibration table and the stream."""

    judge_fails: np.ndarray
    n_production: int
    fail_caught: np.ndarray
    fail_missed: np.ndarray
    pass_flagged: np.ndarray
    pass_cleared: np.ndarray
    truth_rate: np.ndarray


def split_counts(truth, judge, calibration):
    """Return the :class:`SplitCounts` of the splits whose calibration items are given.

    ``truth`` and ``judge`` are the items' bool FAIL flags, ``calibration`` the
    ``(n_splits, n_cal)`` item indices of each split's calibration set; the stream is the
    rest.
    """
    n_cal = calibration.shape[1]
    cal_truth = truth[calibration]
    cal_judge = judge[calibration]
    fail_caught = np.count_nonzero(cal_truth & cal_judge, axis=1)
    fail_missed = np.count_nonzero(cal_truth & ~cal_judge, axis=1)
    pass_flagged = np.count_nonzero(~cal_truth & cal_judge, axis=1)
    pass_cleared = n_cal - fail_caught - fail_missed - pass_flagged
    n_production = truth.size - n_cal
    # The stream is the complement of the calibration set, so its counts are totals minus
    # the calibration counts.
    judge_fails = np.count_nonzero(judge) - (fail_caught + pass_flagged)
    truth_rate = (np.count_nonzero(truth) - (fail_caught + fail_missed)) / n_production
    return SplitCounts(
        judge_fails, n_production, fail_caught, fail_missed, pass_flagged, pass_cleared, truth_rate
    )


def split_results(counts, n_splits, confidence, youden_floor):
    """Return the per-split arrays of :func:`coverage_splits` from the splits' counts.

    ``counts`` is a :class:`SplitCounts` (from :func:`split_counts`, or a card's counts moved
    onto another group's stream); the intervals are those of
    :func:`~simcore.calibration.statistics.corrected_failure_rate`.
    """
    rate = corrected_failure_rate(
        counts.judge_fails,
        counts.n_production,
        counts.fail_caught,
        counts.fail_missed,
        counts.pass_flagged,
        counts.pass_cleared,
        confidence=confidence,
        youden_floor=youden_floor,
    )
    truth_rate = counts.truth_rate
    lr_low, lr_high = np.asarray(rate.lr_low), np.asarray(rate.lr_high)
    naive_low, naive_high = np.asarray(rate.naive_low), np.asarray(rate.naive_high)
    return {
        "covered_lr": (lr_low - COVERAGE_SLACK <= truth_rate)
        & (truth_rate <= lr_high + COVERAGE_SLACK),
        "covered_naive": (naive_low - COVERAGE_SLACK <= truth_rate)
        & (truth_rate <= naive_high + COVERAGE_SLACK),
        "width_lr": lr_high - lr_low,
        "width_naive": naive_high - naive_low,
        "refused": ~np.asarray(rate.corrected, dtype=bool),
        "truth_rate": truth_rate,
        "estimate": np.asarray(rate.estimate),
        "lr_low": lr_low,
        "lr_high": lr_high,
        "naive_low": naive_low,
        "naive_high": naive_high,
        "fail_caught": counts.fail_caught,
        "fail_missed": counts.fail_missed,
        "pass_flagged": counts.pass_flagged,
        "pass_cleared": counts.pass_cleared,
        "judge_fails": counts.judge_fails,
        "n_production": np.full(n_splits, counts.n_production),
        **ppi_split_results(counts, n_splits, confidence),
    }


# --------------------------------------------------------------------------- table


def share_with_se(flags):
    """Return the share of True in ``flags`` and its binomial SE (NaN, NaN when empty)."""
    m = flags.size
    if m == 0:
        return math.nan, math.nan
    share = float(np.count_nonzero(flags)) / m
    return share, math.sqrt(share * (1.0 - share) / m)


def full_rates(truth, judge):
    """Return ``(tpr, tnr, youden)`` of the judge against the truth on all items (floats)."""
    rates = judge_rates(
        np.count_nonzero(truth & judge),
        np.count_nonzero(truth & ~judge),
        np.count_nonzero(~truth & judge),
        np.count_nonzero(~truth & ~judge),
    )
    tpr, tnr = float(rates.tpr), float(rates.tnr)
    return tpr, tnr, float(youden_j(tpr, tnr))


def _row(judge, dimension, truth, judge_fail, n_cal, n_splits, key, confidence, youden_floor):  # noqa: PLR0913 (a value object is still to come)
    rng = np.random.default_rng(np.random.SeedSequence(key))
    split = coverage_splits(
        truth, judge_fail, n_cal, n_splits, rng, confidence=confidence, youden_floor=youden_floor
    )
    corrected = ~split["refused"]
    lr, lr_se = share_with_se(split["covered_lr"][corrected])
    naive, naive_se = share_with_se(split["covered_naive"][corrected])
    tpr, tnr, youden = full_rates(truth, judge_fail)
    any_corrected = bool(corrected.any())
    return {
        "judge": judge,
        "dimension": dimension,
        "n_items": int(truth.size),
        "tpr": tpr,
        "tnr": tnr,
        "youden": youden,
        "n_cal": int(n_cal),
        "n_production": int(truth.size - n_cal),
        "n_splits": int(n_splits),
        "n_corrected": int(np.count_nonzero(corrected)),
        "refused": float(np.mean(split["refused"])),
        "lr_coverage": lr,
        "lr_se": lr_se,
        "naive_coverage": naive,
        "naive_se": naive_se,
        "lr_width": float(np.mean(split["width_lr"][corrected])) if any_corrected else math.nan,
        "naive_width": (
            float(np.mean(split["width_naive"][corrected])) if any_corrected else math.nan
        ),
        "true_fail_rate": float(np.mean(split["truth_rate"])),
        "seed_key": tuple(int(k) for k in key),
        **ppi_row_fields(split),
    }


def real_coverage_table(  # noqa: PLR0913 (a value object is still to come)
    path,
    expert=DEFAULT_EXPERT,
    n_cals=DEFAULT_N_CALS,
    n_splits=DEFAULT_SPLITS,
    seed=DEFAULT_SEED,
    fail_at_most=DEFAULT_FAIL_AT_MOST,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
    by_dimension=False,
):
    """Run the coverage check for every judge and calibration size.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``alttest`` folder (see :func:`binarised_pairs`).
    expert : str, optional
        Human whose labels are the truth.
    n_cals : sequence of int, optional
        Calibration-set sizes; each must be below the number of co-labelled items.
    n_splits : int, optional
        Random splits per (judge, n_cal).
    seed : int, optional
        Non-negative first entry of each row's SeedSequence (module docstring).
    fail_at_most : float, optional
        A score at most this is FAIL.
    confidence : float, optional
        Two-sided confidence level of the intervals.
    youden_floor : float, optional
        Youden floor of the correction.
    by_dimension : bool, optional
        Also run each dimension (item-id suffix after ``"__"``) on its own; those rows
        follow the pooled ones.

    Returns
    -------
    list of dict
        One row per (dimension, judge, n_cal): ``judge``, ``dimension`` (:data:`POOLED` for
        all items), ``n_items``, the judge's full-data ``tpr``, ``tnr``, ``youden``,
        ``n_cal``, ``n_production``, ``n_splits``, ``n_corrected``, ``refused`` (share of
        splits), ``lr_coverage``, ``lr_se``, ``naive_coverage``, ``naive_se`` (over the
        corrected splits; NaN when none), mean ``lr_width`` and ``naive_width`` over the
        corrected splits, ``true_fail_rate`` (the expert's fail rate on the streams, mean
        over all splits) and ``seed_key``.

    Raises
    ------
    DataError
        For bad data (see :func:`binarised_pairs`).
    ValueError
        For a bad size, seed or level.
    """
    n_splits, seed, n_cals = _checked_sizes(n_splits, seed, n_cals)
    pairs = binarised_pairs(path, expert=expert, fail_at_most=fail_at_most)
    _check_n_cals_fit(pairs, n_cals, expert)
    rows = _pooled_rows(pairs, n_cals, n_splits, seed, confidence, youden_floor)
    if by_dimension:
        rows += _dimension_rows(pairs, n_cals, n_splits, seed, confidence, youden_floor)
    return rows


def _checked_sizes(n_splits, seed, n_cals):
    """Return ``(n_splits, seed, n_cals)`` as ints (n_cals a list); ValueError when bad."""
    n_splits = _whole(n_splits, "n_splits", 1)
    seed = _whole(seed, "seed", 0)
    n_cals = [_whole(n_cal, "n_cal", 1) for n_cal in n_cals]
    if not n_cals:
        raise ValueError("n_cals must hold at least one calibration size (got none)")
    return n_splits, seed, n_cals


def _check_n_cals_fit(pairs, n_cals, expert):
    """Raise ValueError when a calibration size is not below a judge's co-labelled items."""
    for judge, pair in pairs.items():
        too_big = [n_cal for n_cal in n_cals if n_cal >= pair.truth_fail.size]
        if too_big:
            raise ValueError(
                f"n_cal must be below the {pair.truth_fail.size} items judge {judge!r} shares "
                f"with expert {expert!r} (got {too_big})"
            )


def _pooled_rows(pairs, n_cals, n_splits, seed, confidence, youden_floor):
    """Return the rows of every judge and calibration size on all items pooled."""
    rows = []
    for index, (judge, pair) in enumerate(pairs.items()):
        for n_cal in n_cals:
            rows.append(
                _row(
                    judge,
                    POOLED,
                    pair.truth_fail,
                    pair.judge_fail,
                    n_cal,
                    n_splits,
                    [seed, index, n_cal],
                    confidence,
                    youden_floor,
                )
            )
    return rows


def _dimension_rows(pairs, n_cals, n_splits, seed, confidence, youden_floor):
    dimensions = sorted(
        {item_dimension(item) for pair in pairs.values() for item in pair.items} - {POOLED}
    )
    rows = []
    for position, dimension in enumerate(dimensions, start=1):
        for index, (judge, pair) in enumerate(pairs.items()):
            keep = np.array([item_dimension(item) == dimension for item in pair.items])
            truth, judge_fail = pair.truth_fail[keep], pair.judge_fail[keep]
            for n_cal in n_cals:
                if n_cal >= truth.size:
                    continue
                rows.append(
                    _row(
                        judge,
                        dimension,
                        truth,
                        judge_fail,
                        n_cal,
                        n_splits,
                        [seed, index, n_cal, position],
                        confidence,
                        youden_floor,
                    )
                )
    return rows
