"""The calibration plan's inputs as value objects: the judge's profile, the target, clusters."""

import dataclasses
import inspect
import math

import numpy as np
import pytest

from simcore.calibration import CalibrationInputError, CalibrationTable, JudgeProfile
from simcore.planning import ClusterShape, PlanRequest, PlanTarget
from simcore.planning.calibration import allocation, clusters, labels


def test_a_profile_holds_its_rates_as_floats_and_derives_the_strata():
    judge = JudgeProfile(np.float32(0.5), 1, 0.25)
    assert judge.to_dict() == {"sensitivity": 0.5, "specificity": 1.0, "prevalence": 0.25}
    assert all(type(value) is float for value in judge.to_dict().values())
    # q = 0.25 * 0.5 + 0.75 * 0 = 0.125; p1 = 0.125 / 0.125 = 1; p0 = 0.125 / 0.875.
    assert judge.flag_rate == 0.125 and judge.youden == 0.5
    assert judge.strata == (0.125, 1.0, pytest.approx(1 / 7))
    assert JudgeProfile(0.9, 0.75, 0.0).strata == (0.25, 0.0, 0.0)  # no failures at all
    assert JudgeProfile(1.0, 0.0, 0.5).strata == (1.0, 0.5, 0.0)  # flags every item
    assert str(judge) == "judge Se 0.500, Sp 1.000; failure rate 0.2500"


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ((1.2, 0.9, 0.1), ValueError, r"sensitivity: must be in \[0, 1\] \(got 1.2\)"),
        ((0.8, -0.1, 0.1), ValueError, r"specificity: must be in \[0, 1\] \(got -0.1\)"),
        ((0.8, 0.9, math.nan), ValueError, r"prevalence: must be in \[0, 1\] \(got nan\)"),
        ((0.8, "0.9", 0.1), TypeError, r"specificity: must be a number in \[0, 1\] \(got str"),
        ((True, 0.9, 0.1), TypeError, r"sensitivity: must be a number"),
    ],
)
def test_a_profile_refuses_each_bad_rate_naming_it(fields, error, message):
    with pytest.raises(error, match=message):
        JudgeProfile(*fields)


def test_a_profile_round_trips_and_refuses_a_wrong_mapping():
    judge = JudgeProfile(0.85, 0.9, 0.17)
    assert JudgeProfile.from_dict(judge.to_dict()) == judge
    with pytest.raises(TypeError, match="missing 'prevalence'"):
        JudgeProfile.from_dict({"sensitivity": 0.8, "specificity": 0.9})
    with pytest.raises(TypeError, match="unknown key 'theta'"):
        JudgeProfile.from_dict({**judge.to_dict(), "theta": 0.1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        judge.prevalence = 0.5  # type: ignore[misc]


def test_a_pilot_gives_its_rates_and_the_stratified_failure_rate():
    # Se = 34 / 40, Sp = 72 / 80; q = 130 / 1000; theta = q 34/42 + (1 - q) 6/78.
    judge = JudgeProfile.from_pilot(CalibrationTable(34, 6, 8, 72).as_tuple(), 130, 1000)
    assert judge.sensitivity == 34 / 40 and judge.specificity == 72 / 80
    assert judge.prevalence == pytest.approx(0.13 * 34 / 42 + 0.87 * 6 / 78, rel=1e-15)
    # A judge label with no pilot rows: the pilot's human FAIL share instead.
    assert JudgeProfile.from_pilot((5, 0, 5, 0), 3, 10).prevalence == 0.5
    with pytest.raises(ValueError, match="needs human FAIL and human PASS rows"):
        JudgeProfile.from_pilot((0, 0, 5, 5), 3, 10)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ((0, 0.05), ValueError, r"n_production: must be an integer >= 1 \(got 0\)"),
        ((1000.0, 0.05), TypeError, r"n_production: must be an integer"),
        ((1000, 0.0), ValueError, r"half_width: must be in \(0, 0.5\] \(got 0.0\)"),
        ((1000, 0.05, 1.0), ValueError, r"confidence: must be in \[0.5, 0.9999\] \(got 1.0\)"),
        ((1000, 0.05, 0.95, 0), ValueError, r"trials: must be an integer >= 1 \(got 0\)"),
    ],
)
def test_a_target_refuses_each_bad_field_naming_it(fields, error, message):
    with pytest.raises(error, match=message):
        PlanTarget(*fields)


def test_a_target_gives_its_quantile_and_a_shape_its_design_effect():
    assert PlanTarget(1000, 0.05).z == pytest.approx(1.959963984540054, rel=1e-15)
    assert PlanTarget(1000, 0.05, confidence=0.9).z == pytest.approx(1.6448536269514722)
    assert ClusterShape(1, 0.7).design_effect == 1.0
    assert ClusterShape(5, 0.3).design_effect == pytest.approx(2.2)
    with pytest.raises(ValueError, match=r"icc: must be in \[0, 0.99\] \(got 1.5\)"):
        ClusterShape(5, 1.5)
    with pytest.raises(ValueError, match=r"size: must be an integer >= 1 \(got 0\)"):
        ClusterShape(0, 0.1)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"half_width": 0.7}, r"--half-width: must be in \(0, 0.5\] \(got 0.7\)"),
        ({"of": 0}, r"--of: must be in \[1, 1e\+12\] \(got 0\)"),
        ({"trials": 10}, r"--plan-trials: must be in \[100, 1e\+06\] \(got 10\)"),
        ({"table": (34, 6, 8, 72)}, "give a pilot .* or --se/--sp/--theta, not both"),
        ({"rates": (0.8, 0.9, None)}, "needs a pilot .* or --theta"),
        ({"shape": (5, None)}, "--plan in clusters: needs --icc"),
    ],
)
def test_a_request_is_checked_once_with_the_flag_named(changes, message):
    asked = {"of": 1000, "half_width": 0.05, "rates": (0.8, 0.9, 0.1), **changes}
    with pytest.raises(CalibrationInputError, match=message):
        PlanRequest(**asked)


def test_a_request_gives_its_target_and_shape():
    request = PlanRequest(1000, 0.05, rates=(0.8, 0.9, 0.1), trials=400, shape=(4, 0))
    assert request.target == PlanTarget(1000, 0.05, 0.95, 400)
    assert request.shape == ClusterShape(4, 0.0)


@pytest.mark.parametrize(
    "function",
    [
        labels.closed_form_n,
        labels.plan_calibration,
        labels.format_plan,
        labels.plan_result,
        allocation.plan_splits,
        allocation.simulate_split,
        allocation.judge_strata_split,
        allocation.human_pools_split,
        clusters.plan_clusters,
        clusters.format_cluster_plans,
    ],
    ids=lambda f: f.__name__,
)
def test_the_plan_passes_values_not_scalars(function):
    parameters = set(inspect.signature(function).parameters)
    assert len(parameters) <= 5, sorted(parameters)
    loose = {"se", "sp", "theta", "n_production", "half_width", "confidence", "trials", "z"}
    assert not loose & parameters, sorted(loose & parameters)
