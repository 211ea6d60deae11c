"""The rule's form in the real-data protocol: who it holds out, resolved on each group's shape.

``rule.form`` (:mod:`simcore.realdata.rule_forms`) is resolved once per group on the full
matrix's shape (:func:`simcore.realdata.data_shape.data_shape`): ``auto`` holds out label
positions where a few items carry most pairs, pools the thin comparisons of a crowd, and
keeps every human a rater elsewhere. Every trial's thinned mask is then turned into that
form's virtual raters before the rule runs, so the raters a trial compares are built from
the labels the trial kept.
"""

from simcore.engine.coefficients import coefficient_code
from simcore.realdata.data_shape import data_shape
from simcore.realdata.rule_forms import evaluate_form, form_decisions, form_for


def group_form(rule, matrix):
    """Return the :class:`~simcore.realdata.rule_forms.RuleForm` of ``rule`` on ``matrix``.

    ``rule.form`` resolved on the matrix's shape (:func:`~simcore.realdata.rule_forms.form_for`;
    under alt_test every human is a rater, the test having its own minimum of items).
    """
    return form_for(rule.kind, rule.form, data_shape(matrix), rule.min_pairs, rule.min_comparisons)


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
        group.weighting,
    )


def decide_in_form(rule, group, passes, tested):
    """Return the point rule's decisions ``(T, J)`` in the group's form (``tested`` ``(T,)``)."""
    return form_decisions(passes, tested[:, None], rule.tau, group.form)
