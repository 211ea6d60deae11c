"""The rule's form in the real-data protocol: who it holds out, resolved on each group's shape.

``rule.form`` (:mod:`simcore.realdata.rule_forms`) is resolved once per group on the full
matrix's shape (:func:`simcore.realdata.data_shape.data_shape`): ``auto`` holds out label
positions where a few items carry most pairs, pools the thin comparisons of a crowd, and
keeps every human a rater elsewhere. Every trial's thinned mask is then turned into that
form's virtual raters before the rule runs, so the raters a trial compares are built from
the labels the trial kept.
"""

from simcore.engine.coefficients import coefficient_code
from simcore.model.rule import decide
from simcore.realdata.data_shape import data_shape
from simcore.realdata.rule_forms import (
    RuleForm,
    apply_min_comparisons,
    evaluate_form,
    resolve_form,
)


def group_form(rule, matrix):
    """Return the :class:`RuleForm` of ``rule`` on ``matrix`` (``rule.form`` on its shape).

    Under alt_test every human is a rater (the test has its own minimum of items).
    """
    if rule.kind != "point":
        return RuleForm("raters", rule.min_pairs, 1, f"{rule.kind}: every human is a rater")
    shape = data_shape(matrix)
    return resolve_form(
        rule.form, shape.kind, rule.min_pairs, rule.min_comparisons, shape.concentrated
    )


def evaluate(rule, group, masks):
    """Run the point rule's kernel on ``group`` under ``masks`` in the group's form."""
    return evaluate_form(
        group.labels,
        masks,
        group.n_humans,
        group.n_labels,
        rule.epsilon,
        coefficient_code(rule.coefficient),
        group.form,
        rule.min_items,
    )


def decide_in_form(rule, group, passes, tested):
    """Return the point rule's decisions ``(T, J)``, inconclusive under ``min_comparisons``."""
    decision = decide(passes, group.n_humans, rule.tau, tested=tested[:, None])
    return apply_min_comparisons(decision, tested[:, None], group.form.min_comparisons)
