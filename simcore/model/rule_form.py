"""Which form the leave-one-out rule runs in on a matrix, chosen from its shape.

``rule.form`` (``advise --form``) names who the rule holds out: ``raters`` (every human),
``slots`` (virtual raters by label position) or ``pooled`` (thin comparisons pooled);
``auto`` chooses from the matrix's shape (:mod:`simcore.realdata.data_shape`).
:func:`resolve_form` makes the choice and :class:`RuleForm` records it with its reason;
:mod:`simcore.realdata.rule_forms` builds the virtual raters and runs the rule on them.
"""

from typing import NamedTuple

FORMS = ("auto", "raters", "slots", "pooled")
"""The values of ``rule.form``."""

MIN_ITEMS = 10
"""The fewest items a virtual rater shares with the others: ``pooled`` grows a pool until it
does, ``slots`` drops a slot that does not (``rule.min_items``)."""

CROWD_MIN_COMPARISONS = 3
"""``auto`` on a crowd: a verdict on fewer comparisons made than this is inconclusive."""


class RuleForm(NamedTuple):
    """The form the rule runs in on one matrix (:func:`resolve_form`).

    Attributes
    ----------
    form : str
        ``raters``, ``slots`` or ``pooled``.
    min_pairs : int
        Comparisons on fewer pairs are left out of omega.
    min_comparisons : int
        A verdict with fewer comparisons made is inconclusive (1: only none made is).
    reason : str
        Why this form: given, or chosen from the shape.
    """

    form: str
    min_pairs: int
    min_comparisons: int
    reason: str

    def description(self):
        """Return ``FORM, min_pairs N, min_comparisons M (REASON)``."""
        return (
            f"{self.form}, min_pairs {self.min_pairs}, min_comparisons {self.min_comparisons} "
            f"({self.reason})"
        )

    def text(self):
        """Return the ``rule form:`` line the commands print."""
        return f"rule form: {self.description()}"

    def to_dict(self):
        """Return the form as plain values (the ``rule_form`` of ``--json``)."""
        return self._asdict()


def resolve_form(form, shape_kind, min_pairs=0, min_comparisons=None, concentrated=False):
    """Return the :class:`RuleForm` for ``form`` on a matrix of ``shape_kind``.

    ``auto``: on a declared ``slots`` matrix, ``raters`` (the slots); where a few items
    carry most pairs (``concentrated``), ``slots``; on a crowd, ``pooled``, with
    ``min_comparisons`` :data:`CROWD_MIN_COMPARISONS` unless given (the slots of a
    concentrated matrix are as few as a panel's humans, and decide as a panel does); else
    ``raters`` (the published rule, ``min_comparisons`` 1). A form given by name is kept as given,
    ``min_comparisons`` 1 unless given.
    """
    if form not in FORMS:
        raise ValueError(f"rule form must be one of {', '.join(FORMS)} (got {form!r})")
    chosen, reason = form, "given"
    if form == "auto" and shape_kind == "slots":
        chosen, reason = "raters", "auto: the declared slots are the raters"
    elif form == "auto" and concentrated and shape_kind != "dense panel":
        chosen, reason = (
            "slots",
            f"auto: chosen for a {shape_kind} where a few items carry most pairs",
        )
    elif form == "auto":
        chosen = "pooled" if shape_kind == "crowd" else "raters"
        reason = f"auto: chosen for a {shape_kind}"
    if min_comparisons is None:
        pooled = form == "auto" and chosen == "pooled"
        min_comparisons = CROWD_MIN_COMPARISONS if pooled else 1
    return RuleForm(chosen, int(min_pairs), max(int(min_comparisons), 1), reason)


def form_for(kind, form, shape, min_pairs=0, min_comparisons=None):
    """Return the :class:`RuleForm` a rule of ``kind`` runs in on a matrix of ``shape``.

    The point rule resolves ``form`` on the shape's kind and concentration
    (:func:`resolve_form`); under any other rule (alt_test: its own minimum of items) every
    human is a rater.
    """
    if kind != "point":
        return RuleForm("raters", int(min_pairs), 1, f"{kind}: every human is a rater")
    return resolve_form(form, shape.kind, min_pairs, min_comparisons, shape.concentrated)
