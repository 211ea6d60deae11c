"""The synthetic study (``kind: synthetic``, the default): P's simulation of the rule.

Its configuration (config, with the generative model's section in model), loading a
scenario with every cross-field check (scenario), one cell run through the engine (cell,
with its memory in memory), the cube of counts and derived rates (cube), its tables
(report) and the study object the registry finds (study).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "COUNT_NAMES",
    "DERIVED_ATTRS",
    "RATE_ATTRS",
    "RELIABLE_ERROR",
    "agreement_statistics",
    "cell_bytes",
    "count_outcomes",
    "discordant_pairs",
    "population_ranking",
    "published_values",
    "rule_parameters",
    "scenario_from_dict",
    "simulate_cell",
    "synthetic_weighting",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "cell": (
            "COUNT_NAMES",
            "RELIABLE_ERROR",
            "count_outcomes",
            "discordant_pairs",
            "population_ranking",
            "rule_parameters",
            "simulate_cell",
            "synthetic_weighting",
        ),
        "cube": (
            "DERIVED_ATTRS",
            "RATE_ATTRS",
            "agreement_statistics",
        ),
        "memory": ("cell_bytes",),
        "report": ("published_values",),
        "scenario": ("scenario_from_dict",),
    },
)
