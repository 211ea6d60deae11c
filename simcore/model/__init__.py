"""The model layer: what the engine simulates, in plain NumPy.

The decision rule as a value object (decision_rule, its fields declared in fields, who it
holds out in rule_form), the generative model (generative), the overlap designs (designs),
the leave-one-out rule as a plain-NumPy oracle with the population reference (rule), the
alternative annotator test's NumPy reference (alt_test_reference), and the closed-form
planning recipes (recipes). It imports only the engine and the options.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "ACCEPT",
    "DESIGNS",
    "INCONCLUSIVE",
    "REJECT",
    "RULE_COEFFICIENTS",
    "RULE_KINDS",
    "Rule",
    "Skew",
    "adjacent_confusion",
    "alternative_annotator_test",
    "certification_items",
    "count_passes",
    "decide",
    "decide_counts",
    "design_code",
    "judge_accuracy_for_margin",
    "leave_one_out",
    "pair_agreement",
    "pair_tables",
    "pair_weights",
    "population_passes",
    "population_scores",
    "prevalence_vector",
    "proportional_allocation",
    "ranking_items",
    "rater_confusions",
    "recipe_variance",
    "symmetric_recipe_variance",
    "z_two_sided",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "alt_test_reference": ("alternative_annotator_test",),
        "decision_rule": ("RULE_COEFFICIENTS", "RULE_KINDS", "Rule"),
        "designs": ("DESIGNS", "design_code", "pair_weights", "proportional_allocation"),
        "generative": (
            "Skew",
            "adjacent_confusion",
            "pair_agreement",
            "pair_tables",
            "prevalence_vector",
            "rater_confusions",
        ),
        "recipes": (
            "certification_items",
            "judge_accuracy_for_margin",
            "ranking_items",
            "recipe_variance",
            "symmetric_recipe_variance",
            "z_two_sided",
        ),
        "rule": (
            "ACCEPT",
            "INCONCLUSIVE",
            "REJECT",
            "count_passes",
            "decide",
            "decide_counts",
            "leave_one_out",
            "population_passes",
            "population_scores",
        ),
    },
)
