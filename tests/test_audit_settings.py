"""advise's inputs as value objects: a Rule and an AuditPlan down the audit, not twenty scalars."""

import dataclasses
import inspect
import json

import numpy as np
import pytest

import simcore
from simcore.advisor import advice as advice_module
from simcore.advisor.anchored import anchored_decisions
from simcore.advisor.dense import audit_risks
from simcore.advisor.risk import posterior
from simcore.advisor.settings import (
    PLAN_KEYWORDS,
    RULE_KEYWORDS,
    AuditPlan,
    AuditRule,
    Draws,
    Proposal,
    audit_settings,
)
from simcore.advisor.verdict import verdicts
from simcore.model.decision_rule import Rule
from simcore.realdata.shapes import draw_matrix, write_long_csv

CHAIN = (
    advice_module.advise,
    advice_module.audit_judges,
    audit_risks,
    posterior.judge_risk,
    posterior.risk_curve,
    posterior.adaptive_risk_now,
    posterior.posterior_risk,
    posterior.simulate_risk,
    posterior.model_changes,
    anchored_decisions,
    verdicts,
)
"""The audit's chain, from advise to the anchored decisions of one batch of draws."""


@pytest.mark.parametrize("function", CHAIN, ids=lambda f: f.__name__)
def test_the_chain_passes_values_not_scalars(function):
    parameters = inspect.signature(function).parameters
    assert len(parameters) <= 8, list(parameters)
    loose = {"epsilon", "tau", "min_pairs", "trials", "seed", "scoring", "target", "design"}
    assert not loose & set(parameters), sorted(loose & set(parameters))


def test_audit_settings_split_advises_keywords_into_the_rule_and_the_plan():
    rule, plan = audit_settings(
        "alt_test", epsilon=0.1, scale="numeric", target=0.02, trials=50, budget=40, seed=3
    )
    assert rule == Rule(kind="alt_test", epsilon=0.1, scale="numeric")
    assert plan == AuditPlan(target=0.02, trials=50, budget=40, seed=3)
    assert set(RULE_KEYWORDS) < {item.name for item in dataclasses.fields(Rule)}
    with pytest.raises(TypeError, match="boots: neither a rule nor a plan setting"):
        audit_settings(boots=3)
    with pytest.raises(ValueError, match=r"^rule\.epsilon: must be <= 1"):
        audit_settings(epsilon=2.0)
    assert set(PLAN_KEYWORDS) == {"target", "budget", "design", "trials", "seed"} | {
        "n_boot",
        "grid",
        "model",
    }


def test_values_are_frozen_and_draws_change_by_copy():
    draws = Draws(trials=100, seed=2)
    assert draws.but(first=100) == Draws(trials=100, seed=2, first=100) and draws.first == 0
    for value in (draws, AuditPlan(), AuditRule(), Proposal()):
        name = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)


def test_an_audit_rule_scores_the_alt_test_as_its_scale_says():
    assert AuditRule().item_terms is None
    numeric = AuditRule(kind="alt_test", scale="numeric", label_values=np.array([1.0, 3.0]))
    is_numeric, terms = numeric.item_terms
    assert is_numeric and terms.tolist() == [[0.0, 4.0], [4.0, 0.0]]


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory):
    drawn = draw_matrix(120, 4, 1, 3, 0.45, seed=7)
    return write_long_csv(*drawn, tmp_path_factory.mktemp("settings") / "matrix.csv")


CHEAP = {"judges": ["judge0"], "trials": 20, "seed": 4}


def test_a_rule_object_gives_the_advice_its_keywords_give(csv_file):
    by_keywords = simcore.advise(csv_file, rule="alt_test", epsilon=0.1, **CHEAP)
    by_rule = simcore.advise(csv_file, rule=simcore.Rule(kind="alt_test", epsilon=0.1), **CHEAP)
    assert json.dumps(by_rule.to_dict()) == json.dumps(by_keywords.to_dict())  # nan == nan
    assert by_rule.to_dict()["rule_form"]["reason"].startswith("alt_test:")


def test_a_rule_object_refuses_a_setting_given_twice_or_one_advise_does_not_take(csv_file):
    with pytest.raises(TypeError, match=r"epsilon: given twice, as a keyword and as rule\.eps"):
        simcore.advise(csv_file, rule=Rule(epsilon=0.1), epsilon=0.2, **CHEAP)
    with pytest.raises(ValueError, match=r"^rule\.q: advise does not take this setting"):
        simcore.advise(csv_file, rule=Rule(kind="alt_test", q=0.1), **CHEAP)
    with pytest.raises(ValueError, match="rule: must be one of point, alt_test"):
        simcore.advise(csv_file, rule=Rule(kind="interval"), **CHEAP)
