"""The leave-one-out rule under its first import path.

The rule's plain-NumPy reference lives in :mod:`simcore.model.rule`; this module keeps
``simcore.rule.leave_one_out`` and its companions importable for existing notebooks.
"""

from simcore.model.rule import (
    LeaveOneOutResult,
    RuleCounts,
    comparison_passes,
    comparison_tables,
    count_passes,
    decide,
    decide_counts,
    leave_one_out,
    omega_accepts,
    population_passes,
    population_scores,
)

__all__ = [
    "LeaveOneOutResult",
    "RuleCounts",
    "comparison_passes",
    "comparison_tables",
    "count_passes",
    "decide",
    "decide_counts",
    "leave_one_out",
    "omega_accepts",
    "population_passes",
    "population_scores",
]
