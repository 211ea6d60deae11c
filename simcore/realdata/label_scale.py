"""The one decision about a matrix's label scale: a rating scale, or plain categories.

Every data command (inspect, advise, ceiling, wellposed, card, a ``kind: real`` run) reads
this decision, states it in its first lines and its ``--json``, and scores by the same
defaults. Labels form a **rating scale** when their order is known without guessing:

- every label is a number (``1``-``5`` stars, ``0.5`` steps) and there are at least
  :data:`MIN_RATING_LEVELS` distinct ones (two numbers are a yes/no, where order and
  exact match agree), or
- the caller declared their order (``--label-order``, ``label_order=``, a scenario's
  ``data.scale: ordinal``).

Otherwise they are **categories**. The default scoring everywhere stays the published
protocol's (the sparse-overlap paper's *observed agreement*: exact match, every
disagreement weighs the same), because published numbers depend on it; on a rating scale
that scoring ignores how far apart two ratings are, so the commands that reach a verdict
also reach it under the **scale-aware scoring**, Krippendorff's alpha at the ordinal level
(:data:`SCALE_AWARE`: pairs of ratings weighted by their distance in the scale's ranks),
and say where the two disagree: such a verdict is *settled only under one scoring*.
"""

from dataclasses import dataclass

from simcore.realdata.annotation import label_numbers

MIN_RATING_LEVELS = 3
"""The fewest distinct numeric labels read as a rating scale."""

EXACT_MATCH = "observed agreement (exact match)"
"""How the default scoring is named in every output."""

SCALE_AWARE = ("krippendorff_alpha", "ordinal")
"""The scale-aware scoring on a rating scale: ``(coefficient, level)``."""

SCALE_AWARE_TEXT = "Krippendorff's alpha, ordinal level"
"""How the scale-aware scoring is named in every output."""


@dataclass(frozen=True)
class LabelScale:
    """What a matrix's labels are: a rating scale or categories, and why.

    Parameters
    ----------
    labels : tuple of str
        The label texts in code order.
    kind : str
        ``rating`` or ``categories``.
    basis : str
        Why: ``numbers`` (every label a number), ``declared order``, or, for categories,
        ``text labels`` (some label is not a number) or ``two values``.
    """

    labels: tuple
    kind: str
    basis: str

    @property
    def is_rating(self):
        """Whether the labels form a rating scale."""
        return self.kind == "rating"

    def text(self):
        """Return the scale in words, e.g. ``rating scale 1 < 2 < 3 < 4 < 5 (numbers)``."""
        shown = list(self.labels[:12]) + (["..."] if len(self.labels) > 12 else [])
        if self.is_rating:
            return f"rating scale {' < '.join(shown)} ({self.basis})"
        return f"categories {', '.join(shown)} ({self.basis})"

    def to_dict(self):
        """Return ``{"kind", "basis", "labels"}`` for a ``--json`` document."""
        return {"kind": self.kind, "basis": self.basis, "labels": list(self.labels)}


def label_scale(labels, ordinal=False):
    """Return the :class:`LabelScale` of ``labels`` (a matrix's, in code order).

    Parameters
    ----------
    labels : sequence of str
        The label texts (:attr:`AnnotationMatrix.labels`).
    ordinal : bool
        Whether their order was declared (:attr:`AnnotationMatrix.ordinal`).

    Returns
    -------
    LabelScale
        A rating scale when ``ordinal`` or when every label is a number and there are at
        least :data:`MIN_RATING_LEVELS` distinct ones; categories otherwise.
    """
    labels = tuple(str(label) for label in labels)
    numbers = label_numbers(labels)
    if numbers is not None and len(set(numbers.tolist())) >= MIN_RATING_LEVELS:
        return LabelScale(labels, "rating", "numbers")
    if ordinal:
        return LabelScale(labels, "rating", "declared order")
    return LabelScale(labels, "categories", "two values" if numbers is not None else "text labels")


def matrix_scale(matrix):
    """Return the :class:`LabelScale` of an annotation matrix."""
    return label_scale(matrix.labels, matrix.ordinal)


def scale_line(scale, scoring_text, check=None):
    """Return the line a data command opens with: the labels' scale and the scoring used.

    ``labels: rating scale 1 < 2 < 3 < 4 < 5 (numbers); scored by observed agreement
    (exact match)``, then ``; <check>`` where given (e.g. the other scoring a verdict was
    checked under).
    """
    line = f"labels: {scale.text()}; scored by {scoring_text}"
    return line + (f"; {check}" if check else "")
