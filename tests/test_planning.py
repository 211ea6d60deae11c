"""Planning: the recipes, the "stays at or below" rule, the adaptive search, the table."""

import math

import numpy as np
import pytest
from scenario_files import REPO, variant
from scipy import stats

import simcore
from simcore.cli import main
from simcore.engine import draws as engine_draws
from simcore.engine import rng
from simcore.model.generative import prevalence_vector, rater_confusions
from simcore.planning import validation_items as plan
from simcore.studies.config import ScenarioError
from simcore.studies.planning_table import (
    RateProbe,
    certification_items,
    judge_accuracy_for_margin,
    min_items_staying_below,
    ranking_items,
    recipe_variance,
    search_items,
    symmetric_recipe_variance,
    wilson_bounds,
    write_plan_table,
)
from simcore.studies.synthetic.scenario import scenario_from_dict

PLANNING = REPO / "scenarios" / "planning.yaml"


# --------------------------------------------------------------------------- recipes


def test_margin_sets_the_judge_accuracy_of_spec_section_6():
    for margin in (-0.1, -0.02, 0.0, 0.05, 0.1):
        assert judge_accuracy_for_margin(margin, 0.85, 2, 0.05) == pytest.approx(
            (margin + 0.545) / 0.7, abs=1e-12
        )


@pytest.mark.parametrize(
    ("n_labels", "prevalence", "p_judge"),
    [
        (2, None, 0.85),
        (2, [0.9, 0.1], 0.7),
        (3, None, 0.6),
        (4, [0.4, 0.3, 0.2, 0.1], 0.9),
    ],
)
def test_recipe_variance_equals_the_variance_measured_on_simulated_items(
    n_labels, prevalence, p_judge
):
    confusion = rater_confusions(2, n_labels, 0.8, p_judge)
    cdf = np.cumsum(prevalence_vector(prevalence, n_labels))
    cdf[-1] = 1.0
    keys = rng.trial_keys(np.random.SeedSequence(17, spawn_key=(n_labels,)), 0, 200)
    labels, _ = engine_draws.draw(keys, 500, 2, confusion, cdf, 1, 0.0, 0, 0.5, 0)
    difference = (
        (labels[..., 2] == labels[..., 0]).astype(float) - (labels[..., 1] == labels[..., 0])
    ).ravel()
    n = difference.size
    centred = difference - difference.mean()
    variance = centred.var(ddof=1)
    se = np.sqrt((np.mean(centred**4) - variance**2) / n)  # SE of a sample variance
    analytic = recipe_variance(confusion, prevalence_vector(prevalence, n_labels), judge=2)
    assert abs(variance - analytic) < 4 * se
    if prevalence is None:
        assert analytic == pytest.approx(symmetric_recipe_variance(p_judge, 0.8, n_labels))


def test_certification_and_ranking_recipes():
    sigma2 = symmetric_recipe_variance(0.85, 0.85, 2)
    # D = [j = r1] - [k = r1] with j, k, r1 of accuracy 0.85: P(j = r1) = 0.745,
    # P(j = r1 = k) = 0.85^3 + 0.15^3 = 0.6175, Var = 2 (0.745) - 2 (0.6175) - 0 = 0.255.
    assert sigma2 == pytest.approx(0.255, abs=1e-12)
    assert certification_items(0.05, sigma2, 0.05) == math.ceil(1.959964**2 * 0.255 / 0.0025)
    assert certification_items(-0.05, sigma2, 0.05) == certification_items(0.05, sigma2)
    assert certification_items(0.0, sigma2) == -1
    z = stats.norm.ppf(1 - 0.05 / 4)
    assert ranking_items(5, 0.02, 0.2, 0.05) == math.ceil(2 * z**2 * 0.2 / 0.02**2)
    with pytest.raises(ValueError):
        ranking_items(1, 0.02, 0.2)


def test_human_accuracy_from_agreement_inverts_the_agreement():
    for n_labels in (2, 3, 5):
        for p in (0.5, 0.7, 0.85, 1.0):
            agreement = p**2 + (1 - p) ** 2 / (n_labels - 1)
            if p >= 1 / n_labels:
                assert plan.human_accuracy_from_agreement(agreement, n_labels) == pytest.approx(p)
    with pytest.raises(ValueError):
        plan.human_accuracy_from_agreement(0.3, 2)


def test_wilson_bounds_match_scipy():
    for successes, trials in ((0, 50), (3, 100), (50, 100), (400, 400)):
        expected = stats.binomtest(successes, trials).proportion_ci(0.95, method="wilson")
        lower, upper = wilson_bounds(successes, trials, 0.95)
        assert lower == pytest.approx(expected.low, abs=1e-9)
        assert upper == pytest.approx(expected.high, abs=1e-9)


# --------------------------------------------------------------------------- the rule


def test_stays_below_on_a_monotone_curve():
    m = [10, 20, 40, 80]
    assert min_items_staying_below(m, [0.3, 0.1, 0.04, 0.01], 0.05) == (40, "")
    assert min_items_staying_below(m, [0.01, 0.01, 0.01, 0.01], 0.05) == (10, "")
    assert min_items_staying_below(m, [0.3, 0.1, 0.05, 0.01], 0.05) == (40, "")  # at = ok


def test_stays_below_ignores_an_early_dip_of_a_noisy_curve():
    m = [10, 20, 40, 80, 160]
    assert min_items_staying_below(m, [0.2, 0.04, 0.07, 0.03, 0.02], 0.05) == (80, "")
    assert min_items_staying_below(m, [0.2, 0.04, np.nan, 0.03, 0.02], 0.05) == (80, "")


def test_stays_below_reports_a_target_never_reached():
    m, reason = min_items_staying_below([10, 20, 40], [0.3, 0.04, 0.06], 0.05)
    assert m == -1
    assert "m = 40" in reason
    with pytest.raises(ValueError):
        min_items_staying_below([20, 10], [0.1, 0.1], 0.05)


# --------------------------------------------------------------------------- the search


def synthetic_probe(rate_of_m, target=0.05, seed=3):
    """A probe whose wrong decisions come from a known rate curve (binomial draws)."""

    def simulate(m, start, stop):
        generator = np.random.default_rng([seed, m, start])
        return int(generator.binomial(stop - start, rate_of_m(m)))

    return RateProbe(simulate, target, 0.95, first_trials=400, max_trials=51_200)


def test_search_finds_the_crossing_of_a_monotone_curve():
    found = search_items(synthetic_probe(lambda m: 0.5 * np.exp(-m / 40)), 2000)
    crossing = 40 * np.log(0.5 / 0.05)  # 92.1
    assert found["m_optimistic"] <= found["m"] <= found["m_conservative"]
    assert abs(found["m"] - crossing) <= 3
    assert found["m_optimistic"] >= crossing - 8 and found["m_conservative"] <= crossing + 8


def test_search_is_not_fooled_by_a_dip():
    # Below the target only on 40..49, then above again up to 119.
    def rate(m):
        if 40 <= m < 50:
            return 0.01
        return 0.2 if m < 120 else 0.01

    found = search_items(synthetic_probe(rate), 1000)
    assert found["m"] == 120


def test_search_reports_a_target_out_of_reach():
    found = search_items(synthetic_probe(lambda m: 0.2), 500)
    assert found["m"] == found["m_conservative"] == found["m_optimistic"] == -1


# --------------------------------------------------------------------------- scenarios


def test_planning_scenario_keeps_margin_and_judge_accuracy(tmp_path):
    cube = simcore.run(
        PLANNING,
        trials=200,
        sets={"sweep": {"margin": [-0.05, 0.05], "m": [25, 50, 100, 200]}, "model.n_items": 300},
    )
    np.testing.assert_allclose(cube["p_judge"], [(m + 0.545) / 0.7 for m in (-0.05, 0.05)])
    assert cube["min_items"].dims == ("margin",)
    np.testing.assert_array_equal(cube["recipe_items"], [531, 392])
    text = write_plan_table(cube, tmp_path / "plan.md", tmp_path / "plan.csv")
    assert "false approval" in text and "false rejection" in text
    assert "| > 300 (recipe 531) |" in text and "| > 300 (recipe 392) |" in text  # n = 300
    csv = (tmp_path / "plan.csv").read_text().splitlines()
    assert csv[0] == "margin,p_judge,side,simulated_m,recipe_m,ratio"
    assert len(csv) == 3
    never = [row for row in csv[1:] if "> 200" in row]
    assert all(int(cube["min_items"].sel(margin=float(row.split(",")[0]))) == -1 for row in never)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"sweep": {"margin": [0.05]}}, "needs a sweep over m"),
        ({"model.p_judge": 0.8}, "give p_judge or margin, not both"),
        ({"model.p_human": [0.8, 0.8, 0.8, 0.8]}, "needs one p_human"),
        ({"sweep": {"margin": [0.5], "m": [10]}}, "judge accuracy outside (0, 1]"),
        ({"planning": {"target": 0}}, "planning.target: must be > 0.0"),
    ],
)
def test_bad_planning_scenarios_are_refused(changes, fragment):
    import yaml

    raw = variant(yaml.safe_load(PLANNING.read_text()), changes)
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(raw, source="planning.yaml")
    assert any(fragment in problem for problem in caught.value.problems), caught.value.problems


def test_plan_agrees_with_the_table_within_one_grid_step():
    grid = [20, 25, 30, 40, 50, 60, 75, 100, 125, 150]
    cube = simcore.run(
        PLANNING, trials=3000, sets={"sweep": {"margin": [0.05], "m": grid}, "model.n_items": 500}
    )
    table_m = int(cube["min_items"].sel(margin=0.05))
    assert table_m > 0
    raw = plan.question_scenario(500, 4, 2, 0.85, 0.05, 0.5, "exact_m", margin=0.05, seed=20264)
    answer = plan.answer(raw, target=0.05, confidence=0.95)
    position = grid.index(table_m)
    low = grid[max(position - 1, 0)]
    high = grid[min(position + 1, len(grid) - 1)]
    assert low <= answer.m <= high, (answer.m, table_m)
    assert answer.recipe_items == 392
    assert answer.m_optimistic <= answer.m <= answer.m_conservative


def test_plan_command(capsys):
    import json

    assert main(["plan", "--items", "300", "--margin", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "simulated: m = " in out and "recipe: m_cert = 78" in out
    assert main(["plan", "--items", "300", "--margin", "0.1", "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert captured.err == ""  # no progress lines beside the JSON document
    answer = document["answer"]
    assert f"simulated: m = {answer['m']}" in out and answer["recipe_items"] == 78
    assert document["question"]["items"] == 300 and document["question"]["margin"] == 0.1
    assert main(["plan", "--rank", "--n-judges", "5", "--gap", "0.02"]) == 0
    ranked = capsys.readouterr().out
    assert main(["plan", "--rank", "--n-judges", "5", "--gap", "0.02", "--json"]) == 0
    m_rank = json.loads(capsys.readouterr().out)["answer"]["m_rank"]
    assert f"m_rank = more than the 2,000 items of the corpus (recipe: {m_rank:,} " in ranked
    assert main(["plan", "--rank", "--n-judges", "1", "--gap", "0.02"]) == 2
    assert main(["plan", "--human-agreement", "0.3"]) == 2
    assert main(["plan", "--target", "2"]) == 2
    assert main(["plan", "--margin", "0.9"]) == 2
    assert "simcore plan: --margin: gives a judge accuracy outside" in capsys.readouterr().err
