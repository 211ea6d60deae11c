"""The rule as a value object: every field validated once, named when refused, round trip."""

import dataclasses
from pathlib import Path

import pytest

import simcore
from simcore.model.decision_rule import Rule

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

BAD_FIELDS = [
    ("kind", "majority", "must be one of point, alt_test, interval"),
    ("coefficient", "pearson", "must be one of"),
    ("level", "cardinal", "must be one of"),
    ("weights", "cubic", "must be one of"),
    ("epsilon", 2, "must be <= 1"),
    ("epsilon", -0.1, "must be >= 0"),
    ("tau", 0, "must be > 0"),
    ("strict", "yes", "must be true or false"),
    ("inconclusive", [0.6, 0.4], "must satisfy 0 <= low < high <= 1"),
    ("confidence", 1.5, "must be <="),
    ("min_humans_per_item", 1, "must be >= 2"),
    ("min_items_per_human", 1, "must be >= 2"),
    ("q", 0, "must be > 0"),
    ("scale", "ratio", "must be one of"),
    ("min_pairs", -1, "must be >= 0"),
    ("form", "crowd", "must be one of"),
    ("min_items", 1, "must be >= 2"),
    ("min_comparisons", 0, "must be >= 1"),
    ("epsilon", "0.05", "must be a number"),
    ("min_pairs", 2.0, "must be an integer"),
    ("kind", None, "must be given"),
]


@pytest.mark.parametrize(("name", "value", "problem"), BAD_FIELDS, ids=lambda v: str(v))
def test_construction_refuses_each_bad_field_naming_it(name, value, problem):
    with pytest.raises(ValueError, match=rf"^rule\.{name}: {problem}"):
        Rule(**{name: value})


def test_every_field_has_a_refusal_above():
    assert {f.name for f in dataclasses.fields(Rule)} - {"strict"} <= {b[0] for b in BAD_FIELDS}


RULES = [
    Rule(),
    Rule(kind="alt_test", epsilon=0.1, q=0.1, scale="numeric", min_items_per_human=20),
    Rule(kind="interval", confidence=0.9, coefficient="cohen_kappa", weights="quadratic"),
    Rule(inconclusive=(0.4, 0.6), strict=True, min_pairs=2, form="pooled", min_comparisons=3),
    Rule(coefficient="krippendorff_alpha", level="ordinal", tau=0.75),
]


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_a_rule_round_trips_through_to_dict(rule):
    data = rule.to_dict()
    assert set(data) == {f.name for f in dataclasses.fields(Rule)}
    assert Rule.from_dict(data) == rule
    assert hash(Rule.from_dict(data)) == hash(rule)


def test_values_are_kept_in_their_canonical_types():
    rule = Rule(epsilon=1, inconclusive=[0.4, 0.6])
    assert rule.epsilon == 1.0 and isinstance(rule.epsilon, float)
    assert rule.inconclusive == (0.4, 0.6)
    assert rule.to_dict()["inconclusive"] == [0.4, 0.6]


def test_from_dict_refuses_an_unknown_key_naming_the_nearest():
    with pytest.raises(ValueError, match=r"^rule\.epsilom: unknown key; did you mean 'epsilon'"):
        Rule.from_dict({"epsilom": 0.1})
    with pytest.raises(TypeError, match="must be a mapping"):
        Rule.from_dict([("epsilon", 0.1)])


def test_a_rule_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rule().epsilon = 0.1


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (Rule(), "point rule: eps 0.05, omega >= 0.5, observed, min_pairs 0, form auto"),
        (Rule(strict=True), "point rule: eps 0.05, omega > 0.5, observed, min_pairs 0, form auto"),
        (
            Rule(kind="interval", coefficient="krippendorff_alpha", level="ordinal"),
            "interval verdict: eps 0.05, confidence 0.95, krippendorff_alpha (ordinal)",
        ),
        (
            Rule(kind="alt_test"),
            "alt_test: eps 0.05, scale categorical, q 0.05, min_humans_per_item 2, "
            "min_items_per_human 30",
        ),
    ],
)
def test_a_rule_renders_itself_in_one_line(rule, text):
    assert str(rule) == text and "\n" not in str(rule)


def test_a_scenarios_rule_is_the_value_object():
    scenario = simcore.load_scenario(SCENARIOS / "fig2.yaml")
    assert isinstance(scenario.rule, Rule)
    assert Rule.from_dict(scenario.rule.to_dict()) == scenario.rule
