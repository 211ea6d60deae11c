"""The rule's form in the real-data protocol: who it holds out, and how it scores a group.

``rule.form`` (:mod:`simcore.realdata.rule_forms`) is resolved once per group on the full
matrix's shape (:func:`simcore.realdata.data_shape.data_shape`): ``auto`` holds out label
positions where a few items carry most pairs, pools the thin comparisons of a crowd, and
keeps every human a rater elsewhere. Every trial's thinned mask is then turned into that
form's virtual raters before the rule runs, so the raters a trial compares are built from
the labels the trial kept. A weighted coefficient's weights are read from each group's
labels once (:func:`group_weighting`).
"""

from simcore.engine.coefficients import coefficient_code
from simcore.model.rule_form import form_for
from simcore.model.weighted import is_weighted, kernel_weighting, values_needed
from simcore.realdata.agreement import label_values
from simcore.realdata.annotation import DataError
from simcore.realdata.data_shape import data_shape
from simcore.realdata.rule_forms import evaluate_form, form_decisions
from simcore.studies.rule_section import weighting_problems


def group_form(rule, matrix):
    """Return the :class:`~simcore.model.rule_form.RuleForm` of ``rule`` on ``matrix``.

    ``rule.form`` resolved on the matrix's shape (:func:`~simcore.model.rule_form.form_for`;
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


def group_weighting(rule, matrix):
    """Return the kernels' weighting of ``rule``'s coefficient on ``matrix``'s labels, or None.

    The weights and the ordinal order are read from the labels' numbers (or, for the
    ordinal level and the weights, a declared order), never guessed: labels without them
    are refused naming ``rule.level`` or ``rule.weights``
    (:func:`simcore.realdata.agreement.label_values`), and so are more labels than
    :data:`~simcore.studies.rule_section.WEIGHTED_MAX_LABELS`.
    """
    if not is_weighted(rule.level, rule.weights):
        return None
    problems = weighting_problems(rule, synthetic=False, n_labels=matrix.n_labels)
    if problems:  # the rule's own settings were checked on reading; here the label count
        raise DataError(
            [f"{matrix.source}: {key}: {text} (got {got})" for key, text, got in problems]
        )
    values, _ = label_values(matrix, values_needed(rule.level, rule.weights))
    return kernel_weighting(rule.coefficient, values, rule.level, rule.weights)
