"""Coverage of the corrected failure rate's intervals on real judges (SPEC §9 coverage study).

The simulated coverage study (:func:`simcore.calibration.statistics.coverage_trials`) draws
judges from
a model. This module runs the same check on real LLM judges, using the SummEval data of the
alternative annotator test (an ``alttest`` folder, see :mod:`simcore.realdata.matrix`):

1. Binarise every 1-5 score: FAIL when ``score <= fail_at_most`` (3 by default), PASS
   otherwise. The positive class is FAIL, as in :mod:`simcore.calibration.statistics`.
2. Take one expert's labels as the truth (``e0`` by default) and each LLM judge in turn as
   the instrument, on the items both labelled (all four dimensions pooled unless asked
   otherwise).
3. For each judge and calibration size ``n_cal``, draw ``n_splits`` random splits of those
   ``n`` items: a calibration set of ``n_cal`` items drawn uniformly without replacement,
   and a production stream of the other ``N = n - n_cal`` items.
4. From the calibration set count the 2 x 2 table (expert x judge); on the stream count the
   judge's fails. Build the Lang-Reiczigel (LR) and naive intervals with
   :func:`simcore.calibration.statistics.corrected_failure_rate` (vectorised over the splits).
5. The quantity to cover is the expert's fail rate on that split's stream. An interval
   covers when ``low - COVERAGE_SLACK <= truth <= high + COVERAGE_SLACK``.

Coverage is reported over the *corrected* splits only (those where the correction was not
refused: refused splits carry the observed rate's Wilson interval, which makes no claim
about the true rate), with the binomial standard error ``sqrt(c (1 - c) / m)``, ``m`` the
number of corrected splits. Widths are means over the corrected splits.

Seeding. The splits of judge ``j`` (its position in ``llm_annotations.json``, from 0) at
calibration size ``n_cal`` use ``numpy.random.default_rng(SeedSequence([seed, j, n_cal]))``;
per-dimension rows add the dimension's position (from 1, in sorted order) as a fourth
entry. A row can thus be reproduced alone, whatever other rows are run.

Run it as ``python -m simcore.calibration.real_check --data PATH --out REPORT.md``.
"""

import argparse
import math
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from simcore.calibration.statistics import (
    COVERAGE_SLACK,
    DEFAULT_YOUDEN_FLOOR,
    corrected_failure_rate,
    judge_rates,
    youden_j,
)
from simcore.realdata.matrix import HUMAN_FILE, JUDGE_FILE, DataError, _got, _read_json_raters

__all__ = [
    "DEFAULT_EXPERT",
    "DEFAULT_FAIL_AT_MOST",
    "DEFAULT_N_CALS",
    "DEFAULT_SEED",
    "DEFAULT_SPLITS",
    "DIMENSION_SEPARATOR",
    "POOLED",
    "BinarisedPair",
    "binarised_pairs",
    "coverage_markdown",
    "coverage_splits",
    "draw_splits",
    "item_dimension",
    "main",
    "real_coverage_table",
    "write_coverage_real",
]

DEFAULT_EXPERT = "e0"
"""Expert whose labels are the truth."""

DEFAULT_FAIL_AT_MOST = 3
"""A score at most this is FAIL, above it PASS."""

DEFAULT_N_CALS = (25, 50, 100, 200)
"""Calibration-set sizes of the default run."""

DEFAULT_SPLITS = 300
"""Random calibration / stream splits per (judge, n_cal)."""

DEFAULT_SEED = 2029
"""First entry of every split's SeedSequence."""

DIMENSION_SEPARATOR = "__"
"""An item's dimension is the text after the last separator in its id."""

POOLED = "all"
"""Name of the pooled rows (every dimension together)."""

DIMENSION_SEED_NOTE = " (per dimension: a fourth entry, the dimension's sorted position from 1)"
"""Seed note of the report when it has per-dimension rows."""

TABLE_HEADER = (
    "| judge | TPR | TNR | J | n_cal | refused % | LR coverage % ± SE "
    "| naive coverage % ± SE | LR width | naive width |"
)
"""Header row of the Markdown table (a leading ``dimension`` column is added per dimension)."""


class BinarisedPair(NamedTuple):
    """One judge's binarised labels next to the expert's, on the items both labelled.

    Attributes
    ----------
    truth_fail : numpy.ndarray
        bool ``(n,)``: the expert says FAIL.
    judge_fail : numpy.ndarray
        bool ``(n,)``: the judge says FAIL.
    items : tuple of str
        The ``n`` item ids, sorted.
    """

    truth_fail: np.ndarray
    judge_fail: np.ndarray
    items: tuple


def item_dimension(item):
    """Return an item's dimension: the text after the last ``"__"`` in its id.

    Parameters
    ----------
    item : str
        Item id such as ``"cnn-test-...__M0__coherence"``.

    Returns
    -------
    str
        ``"coherence"`` for the example; :data:`POOLED` when the id has no separator.
    """
    head, separator, tail = str(item).rpartition(DIMENSION_SEPARATOR)
    return tail if separator and head else POOLED


# --------------------------------------------------------------------------- data


def _scores(data, source, problems):
    """Return ``{rater: {item: float score}}``, appending a problem per non-numeric label."""
    scores = {}
    for rater, labels in data.items():
        numbers = {}
        for item, text in labels.items():
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                problems.append(
                    f"{source}: {rater}[{item!r}]: label must be a numeric score (got {_got(text)})"
                )
                continue
            numbers[item] = value
        scores[rater] = numbers
    return scores


def binarised_pairs(path, expert=DEFAULT_EXPERT, fail_at_most=DEFAULT_FAIL_AT_MOST):
    """Binarise an expert's and every judge's scores on the items both labelled.

    Parameters
    ----------
    path : str or pathlib.Path
        An ``alttest`` folder holding ``human_annotations.json`` (``{human: {item: score}}``)
        and ``llm_annotations.json`` (``{judge: {item: score}}``); read in place.
    expert : str, optional
        Human whose labels are the truth.
    fail_at_most : float, optional
        A score ``<= fail_at_most`` is FAIL, a higher one PASS.

    Returns
    -------
    dict of str to BinarisedPair
        For each judge, in file order, the expert's and the judge's FAIL flags on the
        items that both labelled (sorted by id).

    Raises
    ------
    DataError
        Listing every problem: a missing folder or file, a file that is not
        ``{rater: {item: label}}`` JSON, a non-numeric label, an unknown expert, no judges,
        a judge sharing no item with the expert, a non-numeric ``fail_at_most``.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise DataError(
            [
                f"{folder}: path: must be a folder holding {HUMAN_FILE} and {JUDGE_FILE} "
                f"(got {_got(str(path))})"
            ]
        )
    problems = []
    threshold = _fail_threshold(fail_at_most, folder, problems)
    human_path, judge_path = folder / HUMAN_FILE, folder / JUDGE_FILE
    human_data = _read_json_raters(human_path, "human", problems)
    judge_data = _read_json_raters(judge_path, "judge", problems)
    if human_data is None or judge_data is None:
        raise DataError(problems)
    expert = str(expert)
    if expert not in human_data:
        problems.append(
            f"{human_path}: expert: unknown human, not in the file "
            f"(humans in the file: {', '.join(human_data)}) (got {_got(expert)})"
        )
    if not judge_data:
        problems.append(f"{judge_path}: judges: the file holds no judge (got 0 judges)")
    human_scores = _scores({expert: human_data.get(expert, {})}, human_path, problems)
    judge_scores = _scores(judge_data, judge_path, problems)
    truth = human_scores[expert]
    pairs = {}
    for judge, scores in judge_scores.items():
        items = sorted(set(truth) & set(scores))
        if expert in human_data and not items:
            problems.append(
                f"{judge_path}: {judge}: shares no item with expert {expert!r} (got 0 items)"
            )
            continue
        truth_fail = np.array([truth[item] <= threshold for item in items], dtype=bool)
        judge_fail = np.array([scores[item] <= threshold for item in items], dtype=bool)
        pairs[judge] = BinarisedPair(truth_fail, judge_fail, tuple(items))
    if problems:
        raise DataError(problems)
    return pairs


def _fail_threshold(fail_at_most, source, problems):
    """Return ``fail_at_most`` as a float, appending a problem when it is not a number."""
    if isinstance(fail_at_most, bool) or not isinstance(fail_at_most, int | float):
        problems.append(f"{source}: fail_at_most: must be a number (got {_got(fail_at_most)})")
        return math.nan
    if not math.isfinite(fail_at_most):
        problems.append(f"{source}: fail_at_most: must be finite (got {_got(fail_at_most)})")
    return float(fail_at_most)


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
    truth = _flags(truth_fail, "truth_fail")
    judge = _flags(judge_fail, "judge_fail")
    if truth.shape != judge.shape:
        raise ValueError(
            f"truth_fail and judge_fail must have one length (got {truth.size} and {judge.size})"
        )
    rng = np.random.default_rng(rng)
    calibration, _ = draw_splits(truth.size, n_cal, n_splits, rng)
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

    rate = corrected_failure_rate(
        judge_fails,
        n_production,
        fail_caught,
        fail_missed,
        pass_flagged,
        pass_cleared,
        confidence=confidence,
        youden_floor=youden_floor,
    )
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
        "fail_caught": fail_caught,
        "fail_missed": fail_missed,
        "pass_flagged": pass_flagged,
        "pass_cleared": pass_cleared,
        "judge_fails": judge_fails,
        "n_production": np.full(calibration.shape[0], n_production),
    }


# --------------------------------------------------------------------------- table


def _share(flags):
    """Return the share of True in ``flags`` and its binomial SE (NaN, NaN when empty)."""
    m = flags.size
    if m == 0:
        return math.nan, math.nan
    share = float(np.count_nonzero(flags)) / m
    return share, math.sqrt(share * (1.0 - share) / m)


def _full_rates(truth, judge):
    """TPR, TNR and Youden's J of the judge against the truth on all items."""
    rates = judge_rates(
        np.count_nonzero(truth & judge),
        np.count_nonzero(truth & ~judge),
        np.count_nonzero(~truth & judge),
        np.count_nonzero(~truth & ~judge),
    )
    tpr, tnr = float(rates.tpr), float(rates.tnr)
    return tpr, tnr, float(youden_j(tpr, tnr))


def _row(judge, dimension, truth, judge_fail, n_cal, n_splits, key, confidence, youden_floor):
    rng = np.random.default_rng(np.random.SeedSequence(key))
    split = coverage_splits(
        truth, judge_fail, n_cal, n_splits, rng, confidence=confidence, youden_floor=youden_floor
    )
    corrected = ~split["refused"]
    lr, lr_se = _share(split["covered_lr"][corrected])
    naive, naive_se = _share(split["covered_naive"][corrected])
    tpr, tnr, youden = _full_rates(truth, judge_fail)
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
    }


def real_coverage_table(
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
    n_splits = _whole(n_splits, "n_splits", 1)
    seed = _whole(seed, "seed", 0)
    n_cals = [_whole(n_cal, "n_cal", 1) for n_cal in n_cals]
    if not n_cals:
        raise ValueError("n_cals must hold at least one calibration size (got none)")
    pairs = binarised_pairs(path, expert=expert, fail_at_most=fail_at_most)
    for judge, pair in pairs.items():
        too_big = [n_cal for n_cal in n_cals if n_cal >= pair.truth_fail.size]
        if too_big:
            raise ValueError(
                f"n_cal must be below the {pair.truth_fail.size} items judge {judge!r} shares "
                f"with expert {expert!r} (got {too_big})"
            )
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
    if by_dimension:
        rows += _dimension_rows(pairs, n_cals, n_splits, seed, confidence, youden_floor)
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


# --------------------------------------------------------------------------- report


def _percent(value, se):
    if math.isnan(value):
        return "n/a"
    return f"{100.0 * value:.1f} ± {100.0 * se:.1f}"


def _number(value, digits=3):
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _under_covers(value, se, target):
    return not math.isnan(value) and value + 2.0 * se < target


def _namer(per_dimension):
    def name(row):
        prefix = f"{row['dimension']}/" if per_dimension else ""
        return f"{prefix}{row['judge']} n_cal={row['n_cal']}"

    return name


def coverage_markdown(
    rows,
    path,
    expert,
    n_splits,
    seed,
    fail_at_most,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Return the Markdown report of :func:`real_coverage_table` rows.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`real_coverage_table`.
    path : str or pathlib.Path
        The data folder, as named in the report.
    expert : str
        The truth expert.
    n_splits, seed : int
        The splits per row and the seed used.
    fail_at_most : float
        The binarisation threshold.
    confidence : float, optional
        The intervals' level, also the coverage target.
    youden_floor : float, optional
        The Youden floor used.

    Returns
    -------
    str
        A header stating what was done, the table, and a line on where the LR interval
        under-covers (``coverage + 2 SE < confidence``).
    """
    per_dimension = any(row["dimension"] != POOLED for row in rows)
    target = 100.0 * confidence
    n_items = sorted({row["n_items"] for row in rows if row["dimension"] == POOLED})
    stream_rates = [row["true_fail_rate"] for row in rows if row["dimension"] == POOLED]
    n_cals = sorted({row["n_cal"] for row in rows})
    lines = [
        "# Coverage of the corrected failure rate's intervals on real judges (SummEval)",
        "",
        f"- Data: `{path}` ({HUMAN_FILE}, {JUDGE_FILE}), read in place.",
        f"- Binarisation: FAIL when score <= {fail_at_most:g}, PASS otherwise; positive class "
        "FAIL.",
        f"- Truth: expert `{expert}`'s labels. Instrument: each LLM judge, on the items both "
        f"labelled, all dimensions pooled (n = {', '.join(map(str, n_items))} items"
        + (", and each dimension on its own" if per_dimension else "")
        + ").",
        f"- Splits: for each judge and n_cal in {', '.join(map(str, n_cals))}, {n_splits} "
        "random splits: a calibration set of n_cal items drawn uniformly without replacement "
        "and a production stream of all the other items (N = n - n_cal).",
        f"- Seed: splits of judge j (file position from 0) at n_cal use "
        f"`numpy.random.default_rng(SeedSequence([{seed}, j, n_cal]))`"
        + (DIMENSION_SEED_NOTE if per_dimension else "")
        + ".",
        "- Intervals: `simcore.calibration.statistics.corrected_failure_rate` at "
        f"{target:g}% confidence, Youden floor {youden_floor:g}: the Lang-Reiczigel (LR) "
        "interval, which carries the calibration set's uncertainty, and the naive interval "
        "(the stream's Wilson interval pushed through Rogan-Gladen with the calibration "
        "TPR/TNR taken as exact).",
        "- Coverage: share of the corrected (not refused) splits whose interval contains the "
        "expert's fail rate on that split's stream, ± one binomial SE sqrt(c(1 - c)/m), m = "
        "corrected splits. Widths: mean over the corrected splits. Refused %: share of all "
        "splits where the correction was refused (calibration J below the floor, or no "
        "expert-fail / expert-pass calibration item). TPR, TNR, J: judge against the expert "
        "on all co-labelled items.",
    ]
    if stream_rates:
        lines.append(
            f"- The expert's fail rate on the streams averages {np.mean(stream_rates):.3f} "
            f"(row means {min(stream_rates):.4f} to {max(stream_rates):.4f})."
        )
    header = TABLE_HEADER
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if per_dimension:
        header = "| dimension " + header
        rule = "|---" + rule
    lines += ["", header, rule]
    for row in rows:
        cells = [
            row["judge"],
            _number(row["tpr"]),
            _number(row["tnr"]),
            _number(row["youden"]),
            str(row["n_cal"]),
            f"{100.0 * row['refused']:.1f}",
            _percent(row["lr_coverage"], row["lr_se"]),
            _percent(row["naive_coverage"], row["naive_se"]),
            _number(row["lr_width"]),
            _number(row["naive_width"]),
        ]
        if per_dimension:
            cells.insert(0, row["dimension"])
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    name = _namer(per_dimension)
    lr_under = [
        f"{name(row)} ({_percent(row['lr_coverage'], row['lr_se'])})"
        for row in rows
        if _under_covers(row["lr_coverage"], row["lr_se"], confidence)
    ]
    if lr_under:
        lines.append(
            f"The LR interval under-covers (coverage + 2 SE < {target:g}%) at: "
            + "; ".join(lr_under)
            + "."
        )
    else:
        lines.append(
            f"The LR interval does not under-cover anywhere (coverage + 2 SE >= {target:g}% "
            "in every row with a corrected split)."
        )
    naive_under = sum(_under_covers(r["naive_coverage"], r["naive_se"], confidence) for r in rows)
    with_coverage = sum(not math.isnan(row["naive_coverage"]) for row in rows)
    lines.append("")
    lines.append(
        f"The naive interval under-covers (coverage + 2 SE < {target:g}%) in {naive_under} of "
        f"{with_coverage} rows with a corrected split."
    )
    empty = [name(row) for row in rows if row["n_corrected"] == 0]
    if empty:
        lines.append("")
        lines.append(
            "No corrected split, so no coverage (the correction was refused every time): "
            + "; ".join(empty)
            + "."
        )
    weak = {}
    for row in rows:
        label = f"{row['dimension']}/{row['judge']}" if per_dimension else row["judge"]
        if row["youden"] < youden_floor:
            weak.setdefault(label, f"{label} (J = {row['youden']:.4f})")
    if weak:
        lines.append("")
        lines.append(
            f"Full-data J below the Youden floor {youden_floor:g}: "
            f"{', '.join(weak.values())}. Their corrected splits are those whose "
            "calibration set cleared the floor by chance, a selected subset on which neither "
            "interval's coverage claim holds."
        )
    few = [
        f"{name(row)} ({row['n_corrected']})"
        for row in rows
        if 0 < row["n_corrected"] < min(30, row["n_splits"])
    ]
    if few:
        lines.append("")
        lines.append(
            "Fewer than 30 corrected splits (coverage rests on few splits): " + "; ".join(few) + "."
        )
    return "\n".join(lines) + "\n"


def write_coverage_real(path, out_markdown, **kwargs):
    """Run the real-data coverage check and write its Markdown report.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``alttest`` folder (see :func:`binarised_pairs`).
    out_markdown : str or pathlib.Path
        File to write; its folder is created when missing.
    **kwargs
        Passed to :func:`real_coverage_table` (``expert``, ``n_cals``, ``n_splits``,
        ``seed``, ``fail_at_most``, ``confidence``, ``youden_floor``, ``by_dimension``).

    Returns
    -------
    list of dict
        The rows of :func:`real_coverage_table`.
    """
    rows = real_coverage_table(path, **kwargs)
    text = coverage_markdown(
        rows,
        path,
        expert=kwargs.get("expert", DEFAULT_EXPERT),
        n_splits=kwargs.get("n_splits", DEFAULT_SPLITS),
        seed=kwargs.get("seed", DEFAULT_SEED),
        fail_at_most=kwargs.get("fail_at_most", DEFAULT_FAIL_AT_MOST),
        confidence=kwargs.get("confidence", 0.95),
        youden_floor=kwargs.get("youden_floor", DEFAULT_YOUDEN_FLOOR),
    )
    out = Path(out_markdown)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return rows


# --------------------------------------------------------------------------- command line


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {text})")
    return value


def _non_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative (got {text})")
    return value


def main(argv=None):
    """Run the real-data coverage check from the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for bad input data or settings (the message, naming the path, goes
        to stderr), 1 when the report cannot be written.
    """
    parser = argparse.ArgumentParser(
        prog="python -m simcore.calibration.real_check",
        description="Coverage of the LR and naive corrected-failure-rate intervals on real "
        "LLM judges (SummEval, an expert's labels as truth).",
    )
    parser.add_argument("--data", required=True, help="alttest folder (SummEval)")
    parser.add_argument("--out", required=True, help="Markdown report to write")
    parser.add_argument("--expert", default=DEFAULT_EXPERT, help="truth expert (default e0)")
    parser.add_argument(
        "--splits", type=_positive, default=DEFAULT_SPLITS, help="splits per (judge, n_cal)"
    )
    parser.add_argument("--seed", type=_non_negative, default=DEFAULT_SEED, help="seed")
    parser.add_argument(
        "--fail-at-most", type=float, default=DEFAULT_FAIL_AT_MOST, help="FAIL when score <= this"
    )
    parser.add_argument(
        "--by-dimension", action="store_true", help="also report each dimension on its own"
    )
    args = parser.parse_args(argv)
    try:
        rows = write_coverage_real(
            args.data,
            args.out,
            expert=args.expert,
            n_splits=args.splits,
            seed=args.seed,
            fail_at_most=args.fail_at_most,
            by_dimension=args.by_dimension,
        )
    except ValueError as error:  # DataError is a ValueError
        print(f"simcore.calibration.real_check: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"simcore.calibration.real_check: cannot write {args.out}: {error}", file=sys.stderr)
        return 1
    print(f"simcore.calibration.real_check: wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
