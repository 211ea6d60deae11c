"""Labels that differ only in case or surrounding spaces: refused, or merged when asked.

Every format strips a label of its surrounding spaces as it reads it, so ``' yes '`` and
``'yes'`` are one label. Two labels read that are still equal once case-folded (``'Yes'``,
``'yes'``, ``'YES'``) form a *spelling group*: scored as they are, they would be different
categories (the humans' agreement falls, the judge is marked wrong), and such a file is
nearly always a typing slip, so :func:`settle_spellings` refuses it, naming every group and
how many labels each spelling has. Asked to merge (``--merge-label-variants``, Python
``merge_label_variants=True``, a scenario's ``data.merge_label_variants``), it merges each
group into its most frequent spelling (ties: the first spelling in sorted order) and the
matrix records each merge (:attr:`AnnotationMatrix.label_merges`), which ``inspect`` prints
and its ``--json`` carries.

The rule is case and surrounding spaces only: ``'1'`` and ``'1.0'``, ``'not sure'`` and
``'not  sure'``, ``'ok'`` and ``'okay'`` stay distinct labels. Labels declared by the caller
(``labels``, ``--label-order``) are never checked: their spellings are the caller's choice.
"""

import dataclasses
from typing import NamedTuple

import numpy as np

from simcore.realdata.annotation import DataError

MERGE_FLAG = "--merge-label-variants"
"""The command-line flag that merges the spelling groups (Python ``merge_label_variants``)."""


class LabelMerge(NamedTuple):
    """One spelling group merged into its most frequent spelling.

    Attributes
    ----------
    into : str
        The spelling kept.
    merged : tuple of str
        The other spellings, now read as ``into``.
    counts : tuple of int
        The labels of each spelling before the merge: ``into``'s, then each of ``merged``.
    """

    into: str
    merged: tuple
    counts: tuple

    def text(self):
        """Return ``'yes' (37) into 'Yes' (412)``: what was merged into what."""
        others = " and ".join(
            f"{spelling!r} ({count})"
            for spelling, count in zip(self.merged, self.counts[1:], strict=True)
        )
        return f"{others} into {self.into!r} ({self.counts[0]})"

    def to_dict(self):
        """Return ``{"into", "merged", "counts"}`` (``counts``: spelling -> labels before)."""
        spellings = (self.into, *self.merged)
        return {
            "into": self.into,
            "merged": list(self.merged),
            "counts": dict(zip(spellings, (int(count) for count in self.counts), strict=True)),
        }


def spelling_key(label):
    """Return what two spellings of one label share: the text stripped and case-folded."""
    return str(label).strip().casefold()


def spelling_groups(labels, counts):
    """Return a :class:`LabelMerge` for each group of ``labels`` equal up to case and spaces.

    Parameters
    ----------
    labels : sequence of str
        Distinct label texts.
    counts : sequence of int
        How many labels each text has.

    Returns
    -------
    list of LabelMerge
        One per group of two spellings or more, ordered by the kept spelling; the kept
        spelling is the most frequent, ties broken by the first in sorted order.
    """
    groups = {}
    for label, count in zip(labels, counts, strict=True):
        groups.setdefault(spelling_key(label), []).append((str(label), int(count)))
    merges = []
    for members in groups.values():
        if len(members) < 2:
            continue
        ordered = sorted(members, key=lambda member: (-member[1], member[0]))
        merges.append(
            LabelMerge(
                into=ordered[0][0],
                merged=tuple(spelling for spelling, _ in ordered[1:]),
                counts=tuple(count for _, count in ordered),
            )
        )
    return sorted(merges, key=lambda merge: merge.into)


def spellings_problem(source, merges):
    """Return the one-line refusal of a matrix holding the spelling groups ``merges``.

    ``SOURCE: labels: labels that differ only in case or surrounding spaces: 'Yes' and
    'yes' (412 and 37 labels); they would be scored as different categories. Fix the file,
    or pass --merge-label-variants (Python: merge_label_variants=True) to merge each group
    into its most frequent spelling``.
    """
    groups = "; ".join(
        " and ".join(repr(spelling) for spelling in (merge.into, *merge.merged))
        + f" ({' and '.join(str(count) for count in merge.counts)} labels)"
        for merge in merges
    )
    return (
        f"{source}: labels: labels that differ only in case or surrounding spaces: {groups}; "
        "they would be scored as different categories. Fix the file, or pass "
        f"{MERGE_FLAG} (Python: merge_label_variants=True; a scenario: "
        "data.merge_label_variants: true) to merge each group into its most frequent spelling"
    )


def label_counts(matrix):
    """Return how many labels, human and judge, the matrix holds of each label, ``(L,)``."""
    size = len(matrix.labels)
    human = matrix.human_labels[matrix.human_labels >= 0]
    return np.bincount(human, minlength=size) + np.bincount(
        matrix.judge_labels.ravel(), minlength=size
    )


def settle_spellings(matrix, merge=False):
    """Return ``matrix`` when no two labels differ only in case, else refuse or merge them.

    Parameters
    ----------
    matrix : AnnotationMatrix
        A matrix as read, its labels undeclared.
    merge : bool
        Merge each spelling group into its most frequent spelling (ties: the first in
        sorted order) instead of refusing the matrix.

    Returns
    -------
    AnnotationMatrix
        ``matrix`` itself, or the merged matrix: the merged spellings dropped from
        ``labels`` (the others keep their order), every code remapped, and
        ``label_merges`` recording each :class:`LabelMerge`.

    Raises
    ------
    DataError
        Without ``merge``, one problem naming every group (:func:`spellings_problem`).
    """
    merges = spelling_groups(matrix.labels, label_counts(matrix))
    if not merges:
        return matrix
    if not merge:
        raise DataError([spellings_problem(matrix.source, merges)])
    into = {spelling: merge.into for merge in merges for spelling in merge.merged}
    kept = [label for label in matrix.labels if label not in into]
    position = {label: code for code, label in enumerate(kept)}
    remap = np.array(
        [position[into.get(label, label)] for label in matrix.labels] + [-1], dtype=np.int16
    )  # remap[-1] keeps a missing label (-1) missing
    return dataclasses.replace(
        matrix,
        labels=tuple(kept),
        human_labels=remap[matrix.human_labels],
        judge_labels=remap[matrix.judge_labels],
        label_merges=tuple(merges),
    )
