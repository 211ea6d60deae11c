"""The leave-one-out decision rule as a value object: every setting, validated once.

:class:`Rule` is what the rule is wherever it travels: the scenario files' ``rule`` section,
the engine's rule parameters, the commands' settings. Its fields are declared once
(:func:`simcore.model.fields.declared_field`), with the descriptions the scenario key
table shows.
"""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from simcore.engine.coefficients import COEFFICIENTS
from simcore.model.fields import convert_field, declared_field, describe_value, plain_value
from simcore.model.rule_form import FORMS, MIN_ITEMS
from simcore.model.weighted import LEVELS, WEIGHTS
from simcore.options import did_you_mean

__all__ = ["RULE_COEFFICIENTS", "RULE_KINDS", "Rule"]

RULE_KINDS = ("point", "alt_test", "interval")
"""The rule's kinds: the point rule, the alternative annotator test, the interval verdict."""

RULE_COEFFICIENTS = (*COEFFICIENTS, "gwet_ac2")
"""The agreement coefficients a rule scores its comparisons with."""


@dataclass(frozen=True)
class Rule:
    """The leave-one-out decision rule, every setting of it, validated once.

    Each field is declared with its kind, default and limits (:func:`declared_field`);
    construction checks every field and refuses the first bad one, naming it
    (``rule.epsilon: must be <= 1.0 (got 2)``). The scenario files' ``rule`` section is this
    object (docs/explanation/rule.md). Checks across fields that depend on the data (a
    weighted coefficient on an unordered scale, ...) are the scenario's and the commands'.
    """

    kind: str = declared_field("point", "str", "decision rule", choices=RULE_KINDS)
    coefficient: str = declared_field(
        "observed", "str", "agreement coefficient", choices=RULE_COEFFICIENTS
    )
    level: str = declared_field("nominal", "str", "krippendorff_alpha's level", choices=LEVELS)
    weights: str = declared_field(
        "identity", "str", "weights of observed, kappa, AC2", choices=WEIGHTS
    )
    epsilon: float = declared_field(0.05, "float", "tolerance eps", minimum=0.0, maximum=1.0)
    tau: float = declared_field(
        0.5, "float", "accept when omega >= tau", exclusive_minimum=0.0, maximum=1.0
    )
    strict: bool = declared_field(
        False, "bool", "accept only when omega > tau (tau 0.5: a strict majority)"
    )
    inconclusive: tuple | None = declared_field(
        None, "interval", "point rule: omega in [low, high) is inconclusive", optional=True
    )
    confidence: float = declared_field(
        0.95,
        "float",
        "interval verdict: two-sided confidence of each comparison's interval",
        exclusive_minimum=0.0,
        maximum=0.9999,
    )
    min_humans_per_item: int = declared_field(
        2, "int", "alt_test: drop items labelled by fewer humans", minimum=2
    )
    min_items_per_human: int = declared_field(
        30, "int", "alt_test: skip humans with fewer items", minimum=2
    )
    q: float = declared_field(
        0.05, "float", "alt_test: Benjamini-Yekutieli level", exclusive_minimum=0.0, maximum=1.0
    )
    scale: str = declared_field(
        "categorical",
        "str",
        "alt_test: per-item score is accuracy (categorical), minus the RMSE of the label "
        "codes (numeric) or the mean agreement weight (weighted, with rule.weights)",
        choices=("categorical", "numeric", "weighted"),
    )
    min_pairs: int = declared_field(
        0,
        "int",
        "point rule: a leave-one-out comparison with fewer pairs is left out of omega "
        "(0: every comparison counts, an empty one passes, the paper's convention)",
        minimum=0,
    )
    form: str = declared_field(
        "auto",
        "str",
        "real data, point rule: who the rule holds out: raters (every human), slots (virtual "
        "raters by label position) or pooled (thin comparisons pooled); auto: slots where "
        "a few items carry most pairs, pooled on a crowd, raters otherwise",
        choices=FORMS,
    )
    min_items: int = declared_field(
        MIN_ITEMS, "int", "virtual raters: fewest items shared", minimum=2
    )
    min_comparisons: int | None = declared_field(
        None,
        "int",
        "fewer comparisons made is inconclusive (null: by form)",
        minimum=1,
        optional=True,
    )

    def __post_init__(self):
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            raw = list(value) if isinstance(value, tuple) else value
            converted, problem = convert_field(raw, item.metadata)
            if problem:
                raise ValueError(f"rule.{item.name}: {problem} (got {describe_value(value)})")
            object.__setattr__(self, item.name, converted)

    def to_dict(self):
        """Return every setting as plain data (lists for tuples): ``Rule.from_dict`` reads it."""
        return {
            item.name: plain_value(getattr(self, item.name)) for item in dataclasses.fields(self)
        }

    @classmethod
    def from_dict(cls, data):
        """Return the rule of a mapping of settings (those left out take their defaults).

        Raises
        ------
        TypeError
            ``data`` is not a mapping.
        ValueError
            An unknown key (naming the nearest), or a bad value (naming the field).
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"rule: must be a mapping of settings (got {describe_value(data)})")
        names = [item.name for item in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(
                f"rule.{unknown[0]}: unknown key{did_you_mean(unknown[0], names)} "
                f"(keys: {', '.join(names)})"
            )
        return cls(**data)

    def __str__(self):
        """Return the rule in one line, e.g. ``point rule: eps 0.05, omega >= 0.5, ...``."""
        common = f"eps {self.epsilon:g}"
        if self.kind == "alt_test":
            return (
                f"alt_test: {common}, scale {self.scale}, q {self.q:g}, min_humans_per_item "
                f"{self.min_humans_per_item}, min_items_per_human {self.min_items_per_human}"
            )
        scoring = self.coefficient
        if self.coefficient == "krippendorff_alpha":
            scoring += f" ({self.level})"
        elif self.weights != "identity":
            scoring += f" ({self.weights} weights)"
        if self.kind == "interval":
            return f"interval verdict: {common}, confidence {self.confidence:g}, {scoring}"
        accept = f"omega {'>' if self.strict else '>='} {self.tau:g}"
        return (
            f"point rule: {common}, {accept}, {scoring}, min_pairs {self.min_pairs}, "
            f"form {self.form}"
        )
