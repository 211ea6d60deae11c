"""The real-data coverage check's input: an expert's and each judge's binarised scores.

:func:`binarised_pairs` reads an ``alttest`` folder (SummEval), binarises every 1-5 score
(FAIL when ``score <= fail_at_most``) and pairs the expert's flags with each judge's on the
items both labelled; :func:`item_dimension` reads an item's dimension from its id.
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.realdata.annotation import DataError, got_text, unknown_names
from simcore.realdata.loaders import (
    HUMAN_FILE,
    JUDGE_FILE,
    alttest_folder,
    read_alttest_raters,
)

DEFAULT_EXPERT = "e0"
"""Expert whose labels are the truth."""

DEFAULT_FAIL_AT_MOST = 3
"""A score at most this is FAIL, above it PASS."""

DIMENSION_SEPARATOR = "__"
"""An item's dimension is the text after the last separator in its id."""

POOLED = "all"
"""Name of the pooled rows (every dimension together)."""


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
                    f"{source}: {rater}[{item!r}]: label must be a numeric score "
                    f"(got {got_text(text)})"
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
    folder = alttest_folder(path)
    problems = []
    threshold = _fail_threshold(fail_at_most, folder, problems)
    human_data, judge_data = read_alttest_raters(folder, problems)
    human_path, judge_path = folder / HUMAN_FILE, folder / JUDGE_FILE
    expert = str(expert)
    problems += unknown_names([expert], list(human_data), human_path, "expert", "human")
    if not judge_data:
        problems.append(f"{judge_path}: judges: the file holds no judge (got 0 judges)")
    human_scores = _scores({expert: human_data.get(expert, {})}, human_path, problems)
    judge_scores = _scores(judge_data, judge_path, problems)
    pairs = _pairs(
        human_scores[expert],
        judge_scores,
        threshold,
        expert,
        expert in human_data,
        judge_path,
        problems,
    )
    if problems:
        raise DataError(problems)
    return pairs


def _pairs(truth, judge_scores, threshold, expert, known_expert, judge_path, problems):
    """Return ``{judge: BinarisedPair}``; note a judge sharing no item with a known expert."""
    pairs = {}
    for judge, scores in judge_scores.items():
        items = sorted(set(truth) & set(scores))
        if known_expert and not items:
            problems.append(
                f"{judge_path}: {judge}: shares no item with expert {expert!r} (got 0 items)"
            )
            continue
        truth_fail = np.array([truth[item] <= threshold for item in items], dtype=bool)
        judge_fail = np.array([scores[item] <= threshold for item in items], dtype=bool)
        pairs[judge] = BinarisedPair(truth_fail, judge_fail, tuple(items))
    return pairs


def _fail_threshold(fail_at_most, source, problems):
    """Return ``fail_at_most`` as a float, appending a problem when it is not a number."""
    if isinstance(fail_at_most, bool) or not isinstance(fail_at_most, int | float):
        problems.append(f"{source}: fail_at_most: must be a number (got {got_text(fail_at_most)})")
        return math.nan
    if not math.isfinite(fail_at_most):
        problems.append(f"{source}: fail_at_most: must be finite (got {got_text(fail_at_most)})")
    return float(fail_at_most)
