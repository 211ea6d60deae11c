"""Synthetic annotation matrices with the shapes real data comes in.

Real annotation matrices differ less in their statistics than in their shape: free-text
labels by the thousand, crowds of hundreds of raters who each label a few percent of the
items, a dozen humans at partial density, a handful of humans on a long corpus. The
functions here draw such matrices from the symmetric-channel model (truth uniform over
``L`` labels; each rater reports the truth with its accuracy, else a uniformly chosen other
label) and write them in the formats simcore reads, so that loading, running and advising
can be measured and tested at realistic sizes without shipping anyone's data.

:data:`SHAPES` names the sizes docs/benchmarks.md quotes.
"""

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np

SHAPES = {
    "label_space": dict(
        n_items=1000, n_humans=50, n_judges=4, n_labels=20000, density=0.1, human_accuracy=0.6
    ),
    "crowd": dict(n_items=1000, n_humans=283, n_judges=3, n_labels=5, density=0.02),
    "partial": dict(n_items=1698, n_humans=13, n_judges=6, n_labels=5, density=0.17),
    "long": dict(n_items=2552, n_humans=4, n_judges=3, n_labels=3, density=1.0),
}
"""Shapes of public matrices simcore was tried on: name -> :func:`draw_matrix` arguments.

``label_space`` draws from 20,000 labels at accuracy 0.6, so that about 4,200 distinct labels
are observed, as in a reference game with free-text answers.
"""


def symmetric_codes(rng, truth, accuracy, n_labels):
    """Return reports of ``truth`` through the symmetric channel, an array of its shape.

    Each report is the truth with probability ``accuracy`` (broadcast against ``truth``),
    else ``(truth + u) mod L`` with ``u`` uniform on ``1 .. L - 1``: every other label
    equally likely. Draws ``rng.random`` then ``rng.integers``, one of each per report.
    """
    truth = np.asarray(truth)
    wrong = rng.random(truth.shape) >= accuracy
    other = (truth + rng.integers(1, max(n_labels, 2), size=truth.shape)) % n_labels
    return np.where(wrong, other, truth)


def draw_matrix(  # noqa: PLR0913 (a value object is still to come)
    n_items,
    n_humans,
    n_judges,
    n_labels,
    density,
    human_accuracy=0.8,
    judge_accuracies=None,
    seed=0,
    labelled=None,
):
    """Draw a sparse annotation matrix from the symmetric-channel model.

    Truth ``y_i ~ Uniform{0..L-1}``; rater r reports ``y_i`` with probability ``p_r`` and
    each other label with ``(1 - p_r) / (L - 1)``. Each human labels each item with
    probability ``density``; every item gets at least two human labels (the two drawn
    from the humans at random when fewer were drawn). Judges label every item.

    Parameters
    ----------
    n_items, n_humans, n_judges, n_labels : int
        n, K, J and L.
    density : float
        Each human's chance to label an item, in (0, 1].
    human_accuracy : float, optional
        ``p_r`` of every human.
    judge_accuracies : sequence of float, optional
        ``p_r`` of each judge; default evenly from ``human_accuracy - 0.15`` to
        ``human_accuracy + 0.05``.
    seed : int, optional
        Seed of :func:`numpy.random.default_rng`.
    labelled : numpy.ndarray, optional
        ``(n_items, n_humans)`` bool: who labels what, instead of drawing it at ``density``.

    Returns
    -------
    humans, judges : dict
        ``{rater name: {item id: label text}}``, humans ``h000 ...`` and judges
        ``judge0 ...``; items ``item00000 ...``; labels ``l0000 ...``.
    """
    rng = np.random.default_rng(seed)
    if judge_accuracies is None:
        judge_accuracies = np.linspace(human_accuracy - 0.15, human_accuracy + 0.05, n_judges)
    truth = rng.integers(n_labels, size=n_items)
    if labelled is None:
        labelled = rng.random((n_items, n_humans)) < density
        for i in np.flatnonzero(labelled.sum(axis=1) < 2):
            labelled[i, rng.choice(n_humans, size=2, replace=False)] = True
    width = len(str(n_labels - 1))
    items = [f"item{i:05d}" for i in range(n_items)]

    def reports(accuracy, rows):
        codes = symmetric_codes(rng, truth[rows], accuracy, n_labels)
        return {items[i]: f"l{code:0{width}d}" for i, code in zip(rows, codes, strict=True)}

    humans = {
        f"h{r:03d}": reports(human_accuracy, np.flatnonzero(labelled[:, r]))
        for r in range(n_humans)
    }
    every = np.arange(n_items)
    judges = {f"judge{j}": reports(p, every) for j, p in enumerate(judge_accuracies)}
    return humans, judges


def long_rows(humans, judges):
    """Yield ``(item, rater, label)`` of every label of ``humans`` then ``judges``.

    Both are ``{rater: {item: label}}`` as :func:`draw_matrix` returns them.
    """
    for raters in (humans, judges):
        for rater, given in raters.items():
            for item, label in given.items():
                yield item, rater, label


def long_frame(humans, judges):
    """Return the raters as the long ``item, rater, label`` DataFrame the Python API takes."""
    import pandas as pd

    return pd.DataFrame(list(long_rows(humans, judges)), columns=["item", "rater", "label"])


def write_long_csv(humans, judges, path, groups=None, overwrite=False):
    """Write raters as a long ``item,rater,label[,group]`` CSV (gzip when ``path`` ends .gz).

    ``groups`` maps item id to group name; with it, the file has a ``group`` column. The
    file is written atomically; an existing file (it may be the user's data) is replaced
    only with ``overwrite``, and never through a symbolic link.
    """
    from simcore.output_files import check_output_file, write_atomically

    path = Path(path)
    check_output_file(path, "path", "data", overwrite=overwrite, remedy="overwrite=True")

    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(["item", "rater", "label"] + (["group"] if groups else []))
    for item, rater, label in long_rows(humans, judges):
        writer.writerow([item, rater, label] + ([groups[item]] if groups else []))
    data = text.getvalue().encode("utf-8")
    data = gzip.compress(data, mtime=0) if path.suffix == ".gz" else data

    return write_atomically(path, lambda stream: stream.write(data), binary=True)


def write_alttest_folder(humans, judges, folder, overwrite=False):
    """Write raters as the ``alttest`` JSON pair in ``folder`` (created); return it.

    Both files are written together, atomically; existing ones are replaced only with
    ``overwrite`` (never through a symbolic link, nor into a linked folder).
    """
    from simcore.output_files import check_output_folder, write_together

    folder = Path(folder)
    names = {"human_annotations.json": humans, "llm_annotations.json": judges}
    files = dict.fromkeys(names, "data")
    check_output_folder(folder, "folder", files, overwrite=overwrite, remedy="overwrite=True")
    write_together([(folder / name, _json_writer(raters), False) for name, raters in names.items()])
    return folder


def _json_writer(document):
    return lambda stream: stream.write(json.dumps(document))


DATA_SHAPES = ("dense_panel", "sparse_panel", "crowd", "concentrated", "slots")
"""The shapes :func:`draw_shape` draws (:mod:`simcore.realdata.data_shape` names them;
``slots`` only when declared)."""


def shape_mask(kind, seed=0):
    """Return who labels what, ``(n_items, n_humans)`` bool, in the shape ``kind``.

    - ``dense_panel``: 4 humans on every one of 300 items;
    - ``sparse_panel``: 6 humans, each item to each with probability 0.3 (two at least);
    - ``crowd``: 150 humans on 400 items, each item to each with probability 0.02 (two at
      least): about 8 items per human;
    - ``concentrated``: 60 humans on 300 items; 2 items labelled by all of them, every
      other item by 2 humans drawn at random, so the 2 items carry most pairs;
    - ``slots``: 3 label positions on every one of 300 items (who fills them:
      :func:`draw_slots`).
    """
    rng = np.random.default_rng(seed)
    if kind == "slots":
        return np.ones((300, 3), bool)
    if kind == "dense_panel":
        return np.ones((300, 4), bool)
    if kind == "concentrated":
        mask = np.zeros((300, 60), bool)
        mask[:2] = True
        for i in range(2, 300):
            mask[i, rng.choice(60, size=2, replace=False)] = True
        return mask
    n_items, n_humans, density = {"sparse_panel": (500, 6, 0.3), "crowd": (400, 150, 0.02)}[kind]
    mask = rng.random((n_items, n_humans)) < density
    for i in np.flatnonzero(mask.sum(axis=1) < 2):
        mask[i, rng.choice(n_humans, size=2, replace=False)] = True
    return mask


def draw_shape(kind, seed=0, n_labels=2, human_accuracy=0.85, judge_accuracies=(0.7, 0.9)):
    """Draw a matrix of the shape ``kind`` (:func:`shape_mask`) with a known truth.

    Returns ``(humans, judges)`` as :func:`draw_matrix`; labels from the symmetric channel
    at ``human_accuracy`` and ``judge_accuracies`` (every judge labels every item).
    """
    if kind == "slots":
        return draw_slots(seed=seed, n_labels=n_labels, judge_accuracies=judge_accuracies)[:2]
    mask = shape_mask(kind, seed)
    n_items, n_humans = mask.shape
    return draw_matrix(
        n_items,
        n_humans,
        len(judge_accuracies),
        n_labels,
        density=1.0,
        human_accuracy=human_accuracy,
        judge_accuracies=judge_accuracies,
        seed=seed,
        labelled=mask,
    )


def draw_slots(
    n_items=300,
    n_slots=3,
    n_workers=40,
    accuracies=(0.65, 0.95),
    n_labels=2,
    judge_accuracies=(0.7, 0.9),
    seed=0,
):
    """Draw a matrix whose human columns are label positions, with a known truth.

    Each item gets ``n_slots`` distinct workers drawn at random from ``n_workers`` whose
    accuracies are evenly spread over ``accuracies``; the label in slot ``s`` is the
    ``s``-th worker's report (symmetric channel, truth uniform over ``L``), so a column is
    a position filled by different people, as in a crowd export with one column per answer.

    Returns
    -------
    slots, judges : dict
        ``{"slot1" ...: {item id: label text}}`` and ``{judge: {item: label}}`` as
        :func:`draw_matrix`.
    workers : numpy.ndarray
        ``(n_items, n_slots)`` the worker behind each label.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(n_labels, size=n_items)
    worker_accuracy = np.linspace(*accuracies, n_workers)
    workers = np.argsort(rng.random((n_items, n_workers)), axis=1)[:, :n_slots]
    slot_truth = np.repeat(truth[:, None], n_slots, axis=1)
    codes = symmetric_codes(rng, slot_truth, worker_accuracy[workers], n_labels)
    items = [f"item{i:05d}" for i in range(n_items)]
    slots = {
        f"slot{s + 1}": {item: f"l{code}" for item, code in zip(items, codes[:, s], strict=True)}
        for s in range(n_slots)
    }
    judges = {}
    for j, accuracy in enumerate(judge_accuracies):
        labels = symmetric_codes(rng, truth, accuracy, n_labels)
        judges[f"judge{j}"] = {item: f"l{code}" for item, code in zip(items, labels, strict=True)}
    return slots, judges, workers
