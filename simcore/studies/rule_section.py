"""The ``rule`` section beyond its field declarations: coefficients, keys written, weightings.

The coefficients a rule may name; the keys added after stores were published, which a
scenario writes only when set (:func:`rule_dict`); and where a weighted coefficient may go:
a level of measurement (``rule.level``) belongs to Krippendorff's alpha, agreement weights
(``rule.weights``) to the observed agreement, Cohen's kappa and Gwet's AC2, and both to the
point rule; the alternative annotator test takes weights with its weighted scale
(``rule.scale: weighted``) (docs/howto/rating-scales.md). The synthetic and the real-data
scenarios refuse anything else with :func:`weighting_problems`.
"""

import dataclasses

from simcore.model.rule_form import MIN_ITEMS
from simcore.model.weighted import WEIGHTED_COEFFICIENTS, is_weighted, misplaced_weighting

"""The rule's coefficients: the nominal ones and Gwet's AC2 (AC1 with ``rule.weights``)."""


WEIGHTED_MAX_LABELS = 128
"""Most labels a weighted coefficient takes: it keeps every comparison's ``L x L`` pair table
(``2 K (J + 1) L**2`` counts a thread, cleared every trial), which would swamp a large label
space; rating scales have a handful of labels, score scales up to about a hundred."""


def weighting_problems(rule, synthetic, n_labels=None):
    """Return ``(key, text, value)`` of each way ``rule.level`` or ``rule.weights`` is misplaced.

    A level belongs to krippendorff_alpha, weights to :data:`WEIGHTED_COEFFICIENTS`, both
    to the point rule, and weights to the alt_test's weighted scale; the ratio level reads
    the labels' numbers, which a synthetic panel (codes ``0 .. L - 1``, equally spaced)
    does not have; ``n_labels`` (when known) at most :data:`WEIGHTED_MAX_LABELS`.
    """
    problems = []
    weighted = is_weighted(rule.level, rule.weights)
    misplaced = misplaced_weighting(rule.coefficient, rule.level, rule.weights)
    if weighted and n_labels is not None and n_labels > WEIGHTED_MAX_LABELS:
        problems.append(
            (
                "model.n_labels" if synthetic else "labels",
                "a weighted coefficient keeps every comparison's L x L pair table; it takes "
                f"at most {WEIGHTED_MAX_LABELS} labels (use level nominal and weights identity)",
                n_labels,
            )
        )
    if "level" in misplaced and rule.kind != "alt_test":
        problems.append(
            (
                "rule.level",
                "belongs to krippendorff_alpha; set rule.coefficient: "
                "krippendorff_alpha, or weights for the others",
                rule.level,
            )
        )
    if "weights" in misplaced:
        problems.append(
            (
                "rule.weights",
                f"belongs to {', '.join(WEIGHTED_COEFFICIENTS)} "
                "(krippendorff_alpha takes rule.level; AC1 with weights is gwet_ac2)",
                rule.weights,
            )
        )
    if rule.kind == "alt_test":
        problems += _alt_test_scale_problems(rule)
    elif weighted and rule.kind != "point":
        problems.append(
            (
                "rule.kind",
                "a weighted coefficient runs in the point rule or the alt_test's weighted "
                "scale; set rule.kind: point",
                rule.kind,
            )
        )
    if synthetic and rule.level == "ratio":
        problems.append(
            (
                "rule.level",
                "ratio reads the labels' numbers; a synthetic panel's labels are "
                "equally spaced codes (use interval or ordinal)",
                rule.level,
            )
        )
    return problems


def _alt_test_scale_problems(rule):
    """Return the problems of a rating scale under the alt_test: weights go with scale weighted.

    The weighted scale scores each item by the mean agreement weight with the other
    humans' labels (:func:`simcore.model.alt_test_reference.item_scores`): it needs
    ``rule.weights`` linear or quadratic, which no other scale takes; the alt_test has no
    level of measurement.
    """
    problems = []
    if rule.scale == "weighted" and rule.weights == "identity":
        problems.append(
            (
                "rule.weights",
                "the alt_test's weighted scale scores each item by agreement weights; "
                "set rule.weights: linear or quadratic",
                rule.weights,
            )
        )
    if rule.scale != "weighted" and rule.weights != "identity":
        problems.append(
            (
                "rule.scale",
                f"rule.weights: {rule.weights} under the alt_test scores items on the "
                "weighted scale; set rule.scale: weighted",
                rule.scale,
            )
        )
    if rule.level != "nominal":
        problems.append(
            (
                "rule.level",
                "the alt_test has no level of measurement; score a rating scale with "
                "rule.scale: weighted and rule.weights",
                rule.level,
            )
        )
    return problems


RULE_KEYS_WRITTEN_WHEN_SET = {
    "level": "nominal",
    "weights": "identity",
    "min_pairs": 0,
    "form": "auto",
    "min_items": MIN_ITEMS,
    "min_comparisons": None,
}
"""Rule keys added after stores were published, with their defaults: a scenario writes them
only when set, so a scenario that does not set them keeps its YAML text and content hash."""


def rule_dict(rule, plain=lambda value: value):
    """Return the rule's fields as a mapping (``plain`` converts each value).

    Keys of :data:`RULE_KEYS_WRITTEN_WHEN_SET` at their default are left out: older
    scenarios never wrote them, and their YAML text and content hash stay as they were.
    """
    return {
        field.name: plain(getattr(rule, field.name))
        for field in dataclasses.fields(rule)
        if RULE_KEYS_WRITTEN_WHEN_SET.get(field.name, object()) != getattr(rule, field.name)
    }
