"""What FAIL means on a criterion: a score threshold or a set of labels, and the human truth.

A judge card (:mod:`simcore.instrument.card.measure`) measures a judge's TPR and TNR with FAIL as
the positive class, so every criterion needs a binary FAIL definition. :class:`FailDefinition` holds
one: ``fail_at_most`` (a numeric label at most this is FAIL) or ``fail_labels`` (these label texts
are FAIL), exactly one of them set. :func:`binary_truth` turns an annotation matrix's human labels
into one truth per item by majority vote of the binarised labels.
:data:`SHIPPED_CARD_SPECS` names the FAIL definition of every shipped ``alttest`` data set.
"""

import math
from typing import NamedTuple

import numpy as np


class FailDefinition(NamedTuple):
    """What FAIL means: a score threshold or a set of labels (exactly one is set).

    Attributes
    ----------
    fail_at_most : float or None
        A label read as a number ``x`` is FAIL when ``x <= fail_at_most``, PASS otherwise.
    fail_labels : tuple of str or None
        Label texts that are FAIL (compared exactly, as text); every other label is PASS.
    """

    fail_at_most: float | None = None
    fail_labels: tuple | None = None

    def check(self):
        """Return ``self``; raise ``ValueError`` unless exactly one field is set and valid."""
        if (self.fail_at_most is None) == (self.fail_labels is None):
            raise ValueError(
                "fail definition: give exactly one of fail_at_most and fail_labels "
                f"(got fail_at_most={self.fail_at_most!r}, fail_labels={self.fail_labels!r})"
            )
        if self.fail_at_most is not None:
            value = self.fail_at_most
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"fail_at_most: must be a number (got {value!r})")
            if not math.isfinite(value):
                raise ValueError(f"fail_at_most: must be finite (got {value!r})")
            return self
        labels = self.fail_labels
        if (
            not isinstance(labels, tuple | list)
            or not labels
            or not all(isinstance(label, str) and label for label in labels)
        ):
            raise ValueError(
                f"fail_labels: must be a non-empty list of label texts (got {labels!r})"
            )
        return self

    def describe(self):
        """Return the definition as text, e.g. ``"FAIL = score <= 3"``."""
        self.check()
        if self.fail_at_most is not None:
            return f"FAIL = score <= {self.fail_at_most:g}"
        return "FAIL = label in {" + ", ".join(self.fail_labels) + "}"

    def is_fail(self, label_text):
        """Return whether one label (as text) is FAIL.

        Raises
        ------
        ValueError
            Under ``fail_at_most``, when ``label_text`` is not a finite number.
        """
        self.check()
        if self.fail_labels is not None:
            return str(label_text) in self.fail_labels
        try:
            value = float(label_text)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(
                f"label: must be a numeric score under {self.describe()} (got {label_text!r})"
            )
        return value <= self.fail_at_most


def definition_of(fail_at_most, fail_labels, command):
    """Return the checked FAIL definition a command was given (exactly one of the two).

    ``fail_labels`` may be a comma-separated text (names stripped). Raises
    :class:`~simcore.calibration.command.CalibrationInputError` (exit 2) naming ``command``
    when neither or both are given or the definition is not valid.
    """
    from simcore.calibration.errors import CalibrationInputError

    if fail_at_most is None and fail_labels is None:
        raise CalibrationInputError(
            f"{command}: needs a FAIL definition: --fail-at-most X or --fail-labels A,B "
            "(got neither)"
        )
    if isinstance(fail_labels, str):
        fail_labels = tuple(label.strip() for label in fail_labels.split(","))
    try:
        return FailDefinition(fail_at_most, fail_labels).check()
    except ValueError as error:
        raise CalibrationInputError(f"{command}: {error}") from None


def label_fail_flags(labels, definition, binarised=None):
    """Return bool ``(L,)``: whether each label text of ``labels`` is FAIL under ``definition``.

    Only the labels where ``binarised`` (bool ``(L,)``, default all) is True are read; the
    others are False, so a label outside them (a judge's unparseable answer, a label no
    human used) is never passed to :meth:`FailDefinition.is_fail`.
    """
    binarised = np.ones(len(labels), dtype=bool) if binarised is None else binarised
    pairs = zip(labels, binarised, strict=True)
    return np.array([bool(read) and definition.is_fail(label) for label, read in pairs], dtype=bool)


def binary_truth(matrix, definition):
    """Return each item's human truth: the majority of the humans' binarised labels.

    Parameters
    ----------
    matrix : simcore.realdata.annotation.AnnotationMatrix
        ``human_labels`` ``(n, K)`` int16 codes into ``matrix.labels``, ``-1`` where missing.
    definition : FailDefinition
        What FAIL means.

    Returns
    -------
    truth_fail : numpy.ndarray
        bool ``(n,)``: the item's truth is FAIL (False where it has no truth).
    has_truth : numpy.ndarray
        bool ``(n,)``: the item has a truth, i.e. at least one human label and no tie.
    n_tied : int
        Items whose humans split evenly between FAIL and PASS (no truth; excluded).

    Notes
    -----
    With ``f_i`` the humans labelling item ``i`` FAIL and ``p_i`` those labelling it PASS,
    the truth is FAIL when ``f_i > p_i``, PASS when ``p_i > f_i``, and none when
    ``f_i == p_i`` (a tie, or no human label). Only labels the humans used are binarised,
    so a judge-only label that is not numeric never raises here.

    Raises
    ------
    simcore.realdata.annotation.DataError
        When a label a human used cannot be binarised (non-numeric under ``fail_at_most``),
        naming the matrix's source and the label.
    """
    from simcore.realdata.annotation import DataError

    codes = np.asarray(matrix.human_labels)
    used = np.zeros(len(matrix.labels), dtype=bool)
    used[np.unique(codes[codes >= 0])] = True
    try:
        fail_of_code = label_fail_flags(matrix.labels, definition, used)
    except ValueError as error:
        raise DataError([f"{matrix.source}: {error}"]) from None
    present = codes >= 0
    fails = (present & fail_of_code[np.where(present, codes, 0)]).sum(axis=1)
    passes = present.sum(axis=1) - fails
    has_truth = fails != passes
    n_tied = int(((fails == passes) & (fails > 0)).sum())
    return fails > passes, has_truth, n_tied


class CardSpec(NamedTuple):
    """A shipped data set with a binary FAIL definition, for ``make cards``.

    Attributes
    ----------
    dataset : str
        Folder name under the ``alttest`` data directory.
    group_separator : str or None
        Passed to :func:`simcore.realdata.readers.read_annotations`; ``None``: no groups.
    definition : FailDefinition
        What FAIL means on every criterion of the data set.
    criteria : tuple of str
        The criteria: the group names when there is a separator, else one name standing
        for the whole matrix.
    """

    dataset: str
    group_separator: str | None
    definition: FailDefinition
    criteria: tuple


def criterion_matrix(matrix, spec, criterion):
    """Return the part of ``matrix`` that is ``criterion`` of ``spec`` (one group, or all)."""
    if spec.group_separator is None:
        return matrix
    return matrix.subset(criterion)


WAX_FAIL_LABEL = "Action"
"""WAX's FAIL label: the relation the humans give most often (193 of the 1,380 human labels).

WAX has 17 relation labels and no natural pass/fail, so a card reads one relation as the
positive class: "the judge detects the *Action* relation". "None-of-the-above" cannot be
used: the humans never give it (only the judges do, 15 times).
"""

SHIPPED_CARD_SPECS = (
    CardSpec(
        "summeval",
        "__",
        FailDefinition(fail_at_most=3.0),
        ("coherence", "consistency", "fluency", "relevance"),
    ),
    CardSpec("cebab_stars", "__", FailDefinition(fail_at_most=2.0), ("stars",)),
    CardSpec(
        "cebab_aspects",
        "__",
        FailDefinition(fail_labels=("Negative",)),
        ("ambiance", "food", "noise", "service"),
    ),
    CardSpec("wax", None, FailDefinition(fail_labels=(WAX_FAIL_LABEL,)), ("relation",)),
)
"""The shipped ``alttest`` data sets whose criteria have a binary FAIL definition.

SummEval: 1-5 expert scores per dimension, FAIL = score <= 3 (as in
:mod:`simcore.calibration.real.pairs`); CEBaB stars: 1-5 stars, FAIL = stars <= 2 (item ids
end ``__stars``, so the one group is ``stars``); CEBaB aspects: Negative / Positive / unknown
per aspect, FAIL = Negative; WAX: one relation label per word pair, FAIL = ``"Action"``
(:data:`WAX_FAIL_LABEL`). The lesion data set is left out: it has no binary criterion.
"""
