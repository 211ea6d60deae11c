"""Where to spend calibration labels: the judge-stratified and the pooled-rows splits, their
closed forms on hand-worked cases, their optimality by enumeration, and the planned sizes
simulated back on fresh trials."""

import json
import math

import numpy as np
import pytest

import simcore
from simcore.calibration import JudgeProfile
from simcore.calibration.statistics import rogan_gladen
from simcore.cli import main
from simcore.planning import PlanTarget
from simcore.planning.calibration import allocation

Z95 = 1.959963984540054


def rates_of(q, p1, p0):
    """Return ``(se, sp, theta)`` of a judge-FAIL share q and human FAIL shares p1, p0."""
    theta = q * p1 + (1 - q) * p0
    return q * p1 / theta, (1 - q) * (1 - p0) / (1 - theta), theta


def test_the_neyman_split_on_a_hand_worked_case():
    # q 0.2, p1 0.5, p0 0.1: w sigma = 0.2 x 0.5 = 0.1 and 0.8 x 0.3 = 0.24; N huge, so
    # n = z^2 0.34^2 / h^2 = 177.63 at h 0.05, split 0.1 : 0.24, each rounded up.
    se, sp, theta = rates_of(0.2, 0.5, 0.1)
    assert JudgeProfile(se, sp, theta).strata == pytest.approx((0.2, 0.5, 0.1))
    total = Z95**2 * 0.34**2 / 0.05**2
    expected = (math.ceil(total * 0.1 / 0.34), math.ceil(total * 0.24 / 0.34))
    assert expected == (53, 126)
    assert (
        allocation.judge_strata_split(JudgeProfile(se, sp, theta), PlanTarget(10**12, 0.05))
        == expected
    )
    # Proportional: n = z^2 (0.2 x 0.25 + 0.8 x 0.09) / h^2, split 0.2 : 0.8.
    total = Z95**2 * (0.2 * 0.25 + 0.8 * 0.09) / 0.05**2
    proportional = (math.ceil(total * 0.2), math.ceil(total * 0.8))
    assert (
        allocation.judge_strata_split(JudgeProfile(se, sp, theta), PlanTarget(10**12, 0.05), 0.0)
        == proportional
    )


def stratified_variance(q, p1, p0, n1, n0):
    return q * q * p1 * (1 - p1) / n1 + (1 - q) ** 2 * p0 * (1 - p0) / n0


@pytest.mark.parametrize("seed", range(5))
def test_the_neyman_split_minimises_the_variance_by_enumeration(seed):
    rng = np.random.default_rng(seed)
    q, p1, p0 = rng.uniform(0.1, 0.6), rng.uniform(0.3, 0.9), rng.uniform(0.02, 0.2)
    se, sp, theta = rates_of(q, p1, p0)
    n1, n0 = allocation.judge_strata_split(JudgeProfile(se, sp, theta), PlanTarget(10**12, 0.03))
    total = n1 + n0
    variances = [stratified_variance(q, p1, p0, k, total - k) for k in range(1, total)]
    best = 1 + int(np.argmin(variances))
    assert abs(best - n1) <= 1
    assert stratified_variance(q, p1, p0, n1, n0) <= (0.03 / Z95) ** 2 + 1e-12


def pooled_variance(se, sp, theta, q, n, m1, m0):
    return (
        q * (1 - q) / n + theta**2 * se * (1 - se) / m1 + (1 - theta) ** 2 * sp * (1 - sp) / m0
    ) / (se + sp - 1) ** 2


def test_the_pooled_split_on_lee_et_als_readme_example():
    # Their example: p 0.4 judged "correct" of n 1000, specificity q0 0.7, sensitivity
    # q1 0.9, m0 = m1 = 200: theta = (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1) = 0.1667. Their
    # positive class ("correct") is the one counted here (FAIL): se = q1, sp = q0.
    theta = float(rogan_gladen(0.4, 0.9, 0.7))
    assert theta == pytest.approx(1 / 6) and round(theta, 4) == 0.1667
    # The split of 400 labels that minimises their delta-method variance, by enumeration,
    # is the closed form's: m1 / m0 = theta sqrt(q1(1-q1)) / ((1-theta) sqrt(q0(1-q0))).
    variances = [pooled_variance(0.9, 0.7, theta, 0.4, 1000, m1, 400 - m1) for m1 in range(1, 400)]
    best = 1 + int(np.argmin(variances))
    share = theta * math.sqrt(0.09) / (theta * math.sqrt(0.09) + (1 - theta) * math.sqrt(0.21))
    assert abs(best - 400 * share) <= 1
    assert pooled_variance(0.9, 0.7, theta, 0.4, 1000, best, 400 - best) < pooled_variance(
        0.9, 0.7, theta, 0.4, 1000, 200, 200
    )
    m1, m0 = allocation.human_pools_split(JudgeProfile(0.9, 0.7, theta), PlanTarget(1000, 0.08))
    assert m1 / (m1 + m0) == pytest.approx(share, abs=2 / (m1 + m0))
    assert pooled_variance(0.9, 0.7, theta, 0.4, 1000, m1, m0) <= (0.08 / Z95) ** 2 + 1e-12


def test_no_split_where_the_production_term_alone_is_wider():
    se, sp, theta = 0.8, 0.8, 0.15
    assert allocation.judge_strata_split(JudgeProfile(se, sp, theta), PlanTarget(50, 0.01)) is None
    assert allocation.human_pools_split(JudgeProfile(se, sp, theta), PlanTarget(50, 0.01)) is None
    assert (
        allocation.human_pools_split(JudgeProfile(0.5, 0.5, theta), PlanTarget(10**6, 0.05)) is None
    )


@pytest.mark.parametrize(
    "judge",
    [
        (0.8, 0.8, 0.15, 100_000, 0.05),
        (0.9, 0.95, 0.05, 20_000, 0.02),
        (0.7, 0.9, 0.3, 5000, 0.04),
        (0.7, 0.95, 0.1, 100_000, 0.05),
    ],
)
def test_the_planned_splits_meet_the_target_when_simulated_back_on_fresh_trials(judge):
    se, sp, theta, n_production, half_width = judge
    splits = allocation.plan_splits(
        JudgeProfile(se, sp, theta), PlanTarget(n_production, half_width, trials=2000)
    )
    assert [split.design for split in splits] == list(allocation.DESIGNS)
    for stream, split in enumerate(splits, start=10):  # streams the planner never drew
        sizes = (split.first, split.second)
        width, coverage, fresh_se = allocation.simulate_split(
            split.design,
            sizes,
            JudgeProfile(se, sp, theta),
            PlanTarget(n_production, half_width, trials=8000),
            stream,
        )
        # The planner's coverage (itself re-simulated at the chosen sizes) is the fresh one
        # within their joint Monte Carlo error, and the fresh one is nominal within 3 SEs.
        joint = math.hypot(split.coverage_se, fresh_se)
        assert abs(coverage - split.coverage) <= 3 * joint, split
        assert coverage >= 0.95 - 3 * fresh_se, split
        assert width <= half_width * 1.01, split
    stratified, random_sample = splits[0], splits[1]
    assert stratified.total <= random_sample.total  # stratifying never needs more


def test_the_plan_reports_the_splits_in_text_json_and_python(capsys):
    flags = ["calibrate", "--plan", "--se", "0.8", "--sp", "0.8", "--theta", "0.15"]
    flags += ["--of", "100000", "--half-width", "0.05", "--plan-trials", "300"]
    assert main([*flags, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    result = simcore.plan_calibration(
        se=0.8, sp=0.8, theta=0.15, of=100_000, half_width=0.05, plan_trials=300
    )
    assert document["allocation"] == result.to_dict()["allocation"]
    assert [row["design"] for row in document["allocation"]] == list(allocation.DESIGNS)
    assert result.table("allocation")["labels"].tolist() == [
        row["labels"] for row in document["allocation"]
    ]
    first = document["allocation"][0]
    assert (first["first_is"], first["second_is"]) == ("judge FAIL", "judge PASS")
    assert main(flags) == 0
    text = capsys.readouterr().out
    assert f"| production items by the judge's label | {first['labels']} | " in text


def test_no_judge_stratified_split_asks_more_items_than_production_holds():
    # q = 0.29 of N = 400: 116 judge-FAIL items; a half-width of 0.02 needs more than that.
    se, sp, theta = 0.8, 0.8, 0.15
    assert (
        allocation.judge_strata_split(JudgeProfile(se, sp, theta), PlanTarget(400, 0.02))[0] > 116
    )
    splits = allocation.plan_splits(JudgeProfile(se, sp, theta), PlanTarget(400, 0.02, trials=200))
    assert [split.total for split in splits[:2]] == [None, None]
