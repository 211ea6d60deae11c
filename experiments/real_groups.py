"""A shipped data set's groups as binary FAIL flags: the human majority truth and each judge.

Shared by the transport study (:mod:`experiments.transport_study`) and the
well-posedness study (:mod:`experiments.wellposed_study`). The FAIL definition and
the group separator of each data set are those of
:data:`simcore.instrument.fail_definitions.SHIPPED_CARD_SPECS`; the truth of an item is the
majority of its humans' binarised labels
(:func:`~simcore.instrument.fail_definitions.binary_truth`, ties excluded).
"""

from pathlib import Path
from typing import NamedTuple

import numpy as np

from simcore.instrument.fail_definitions import (
    SHIPPED_CARD_SPECS,
    binary_truth,
    label_fail_flags,
)
from simcore.realdata.matrix import DataError
from simcore.realdata.readers import read_annotations


class GroupFlags(NamedTuple):
    """One group's binary view, on the items whose humans give a (non-tied) truth.

    Attributes
    ----------
    truth_fail : numpy.ndarray
        bool ``(n,)``: the human majority says FAIL.
    judge_fail : numpy.ndarray
        bool ``(n, J)``: each judge's label is FAIL.
    n_items : int
        Items of the group before ties were dropped.
    n_tied : int
        Items dropped because their humans split evenly.
    """

    truth_fail: np.ndarray
    judge_fail: np.ndarray
    n_items: int
    n_tied: int


def card_spec(dataset):
    """Return the shipped :class:`~simcore.instrument.fail_definitions.CardSpec` of a name."""
    for spec in SHIPPED_CARD_SPECS:
        if spec.dataset == dataset:
            return spec
    known = ", ".join(spec.dataset for spec in SHIPPED_CARD_SPECS)
    raise DataError([f"dataset: no shipped FAIL definition (known: {known}) (got {dataset!r})"])


def load_dataset(data_root, dataset):
    """Return ``(matrix, spec)``: the ``alttest`` folder ``data_root/dataset`` and its spec."""
    spec = card_spec(dataset)
    matrix = read_annotations(Path(data_root) / dataset, group_separator=spec.group_separator)
    return matrix, spec


def group_flags(matrix, definition):
    """Return ``{group: GroupFlags}`` of every group of ``matrix`` under ``definition``."""
    fail_of_code = label_fail_flags(matrix.labels, definition)
    flags = {}
    for name in matrix.group_names:
        part = matrix.subset(name) if len(matrix.group_names) > 1 else matrix
        truth, has_truth, n_tied = binary_truth(part, definition)
        judge = fail_of_code[np.asarray(part.judge_labels, dtype=np.int64)]
        flags[name] = GroupFlags(truth[has_truth], judge[has_truth], part.n_items, n_tied)
    return flags
