"""Scenario fields of the full synthetic model: skew, confusion matrices, clusters, plots."""

import numpy as np
import pytest
from scenario_files import REPO, variant

import simcore
from simcore.model.designs import DESIGNS
from simcore.model.generative import Skew
from simcore.studies.config import ScenarioError
from simcore.studies.figures import plot_cube
from simcore.studies.synthetic.scenario import load_scenario, scenario_from_dict
from simcore.testing import assert_counts_consistent, assert_cubes_identical

BASE = {
    "model": {"n_items": 60, "n_humans": 3, "n_labels": 3, "p_human": 0.85, "p_judge": 0.8},
    "design": {"kind": "strat", "m": 12},
    "trials": 150,
    "seed": 4,
}


def problems(raw):
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(raw, source="s.yaml")
    return caught.value.problems


def test_skew_in_the_model_and_as_a_sweep_give_the_same_cell():
    fixed = scenario_from_dict(variant(BASE, {"model.prevalence": {"skew": 0.7}}))
    swept = scenario_from_dict(variant(BASE, {"sweep": {"skew": [0.5, 0.7]}}))
    (cell,) = fixed.cells()
    assert cell.model.prevalence == Skew(0.7)
    assert [c.seed_key() for c in swept.cells()][1] == cell.seed_key()
    assert swept.to_dict()["sweep"] == {"skew": [0.5, 0.7]}
    assert fixed.to_dict()["model"]["prevalence"] == {"skew": 0.7}


@pytest.mark.parametrize(
    ("changes", "key", "fragment"),
    [
        (
            {"model.prevalence": {"skew": 1.0}},
            "model.prevalence",
            "skew must be a number in (0, 1)",
        ),
        ({"model.prevalence": {"share": 0.5}}, "model.prevalence", "{skew: SHARE}"),
        ({"sweep": {"skew": [0.5, 1.2]}}, "sweep.skew[1]", "in (0, 1)"),
        (
            {"model.confusion_judge": [[0.9, 0.1], [0.2, 0.8]]},
            "model.confusion_judge",
            "3 x 3 matrices",
        ),
        (
            {"model.confusion_judge": [[0.9, 0.2, 0.0], [0, 1, 0], [0, 0, 1]]},
            "model.confusion_judge",
            "every row must sum to 1",
        ),
        (
            {"model.confusion_human": [[[1, 0, 0], [0, 1, 0], [0, 0, 1]]] * 2},
            "model.confusion_human",
            "one per rater (3)",
        ),
        (
            {"model.confusion_human": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
            "model.confusion_human",
            "not both",
        ),
        ({"model.cluster_spread": -0.1}, "model.cluster_spread", "must be >= 0.0"),
        ({"model.n_clusters": 0}, "model.n_clusters", "must be >= 1"),
        ({"design.m": None}, "design.m", "the strat design needs m or rho"),
        ({"plot": {"x": "rho"}}, "plot.x", "swept dims"),
        ({"plot": {"variables": ["nope"]}}, "plot.variables[0]", "unknown variable"),
        ({"plot": {"kind": "pie"}}, "plot.kind", "must be one of auto, heatmap, lines, bars"),
    ],
)
def test_bad_model_fields_are_named(changes, key, fragment):
    raw = variant(BASE, changes)
    if key == "model.confusion_judge":
        del raw["model"]["p_judge"]
    if key == "model.confusion_human" and fragment != "not both":
        del raw["model"]["p_human"]
    found = problems(raw)
    assert any(p.startswith(f"s.yaml: {key}: ") and fragment in p for p in found), found


def test_confusion_matrix_replaces_the_symmetric_channel():
    # A judge that always says label 0 is the symmetric channel of nothing: it must be used.
    always_zero = [[1, 0, 0], [1, 0, 0], [1, 0, 0]]
    raw = variant(BASE, {"model.confusion_judge": always_zero, "reference": "population"})
    del raw["model"]["p_judge"]
    scenario = scenario_from_dict(raw)
    (cell,) = scenario.cells()
    np.testing.assert_array_equal(cell.confusions()[-1], always_zero)
    cube = simcore.run(scenario)
    assert int(cube["n_ref_accept"]) == 0  # the population reference rejects it
    assert float(cube["false_approval_rate"]) < 0.2


@pytest.mark.parametrize("design", DESIGNS)
def test_every_design_is_reproducible_across_threads_and_workers(design):
    raw = variant(
        BASE,
        {
            "design": {"kind": design, "rho": 0.2},
            "model.n_clusters": 3,
            "model.cluster_spread": 0.1,
            "sweep": {"p_judge": [0.9, 0.7]},
            "rule.coefficient": "cohen_kappa",
        },
    )
    one = simcore.run(raw, threads=1)
    two = simcore.run(raw, threads=2)
    assert_cubes_identical(one, two)
    assert_counts_consistent(one)
    if design == "shared_panel":
        np.testing.assert_array_equal(one["shared_panel_rate"], 1.0)
    if design != "bernoulli":
        np.testing.assert_allclose(one["mean_coverage"], 12 / 60)


def test_distributed_workers_for_a_stratified_design():
    raw = variant(BASE, {"design.kind": "seq_coverage", "sweep": {"p_judge": [0.9, 0.7]}})
    assert_cubes_identical(simcore.run(raw, workers=2), simcore.run(raw))


def test_agreement_statistics_are_consistent():
    raw = variant(
        BASE,
        {
            "design": {"kind": "exact_m", "m": 30},
            "trials": 400,
            "sweep": {"coefficient": ["observed", "cohen_kappa"]},
        },
    )
    cube = simcore.run(raw)
    assert (cube["n_agreement_defined"] <= cube["n_trials"]).all()
    assert (cube["n_agreement_reliable"] <= cube["n_agreement_defined"]).all()
    bias = cube["agreement_mean"] - cube["agreement_reference_mean"]
    np.testing.assert_allclose(cube["agreement_bias"], bias, atol=1e-12)
    np.testing.assert_allclose(cube["agreement_sd"] ** 2, cube["agreement_variance"])
    # Observed agreement of humans of accuracy 0.85 over 3 labels: 0.85^2 + 0.15^2 / 2.
    expected = 0.85**2 + 0.15**2 / 2
    observed = cube.sel(coefficient="observed")
    se = float(observed["agreement_sd"]) / np.sqrt(int(observed["n_agreement_defined"]))
    assert abs(float(observed["agreement_mean"]) - expected) < 4 * se


@pytest.mark.parametrize(
    "name", ["fig2_panels", "designs", "variance", "asymmetry", "rules", "ranking"]
)
def test_shipped_scenarios_validate_and_plot(name, tmp_path):
    scenario = load_scenario(REPO / "scenarios" / f"{name}.yaml")
    # A cut-down run of the same sweep: two values per dim, few trials.
    sweep = {dim: list(values[:2]) for dim, values in scenario.sweep}
    cube = simcore.run(
        REPO / "scenarios" / f"{name}.yaml", trials=40, sets={"sweep": sweep, "model.n_items": 200}
    )
    out = plot_cube(cube, tmp_path / f"{name}.png", scenario.to_dict()["plot"])
    assert out.stat().st_size > 10_000
