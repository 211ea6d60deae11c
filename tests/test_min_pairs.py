"""rule.min_pairs: a comparison with too few pairs is left out of omega, not passed."""

import numpy as np
import pytest
import xarray as xr
import yaml
from scenario_files import FIG2, variant, write_scenario

import simcore
from simcore.cli import main
from simcore.engine import draws as engine_draws
from simcore.engine import kernels, rng
from simcore.engine import layout as engine_layout
from simcore.engine import point_rule as engine_point_rule
from simcore.engine.coefficients import COEFFICIENTS, coefficient_code
from simcore.model.decision_rule import Rule
from simcore.model.designs import design_code
from simcore.model.generative import rater_confusions
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT, count_passes, leave_one_out
from simcore.realdata.shapes import draw_matrix, write_alttest_folder
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters

MISSING = -1


def crowd_without_overlap():
    # Four raters, each alone on its item: every leave-one-out comparison is empty.
    humans = np.full((4, 4), MISSING)
    humans[np.arange(4), np.arange(4)] = [0, 1, 0, 1]
    judge = np.array([1, 0, 1, 0])  # disagrees with everyone
    return humans, judge


def crowd_with_one_pair():
    # Raters a and b share items 0 and 1 and agree; c and d label one item each, alone.
    humans = np.array(
        [[0, 0, MISSING, MISSING], [1, 1, MISSING, MISSING], [MISSING, MISSING, 0, MISSING]]
        + [[MISSING, MISSING, MISSING, 1]]
    )
    return humans, np.array([1, 0, 0, 0])  # the judge disagrees with a and b on both items


def kernel_decision(humans, judge, min_pairs, tau=0.5):
    labels = np.concatenate([np.maximum(humans, 0), judge[:, None]], axis=1).astype(np.int16)
    passes, counters, _, _, tested = engine_point_rule.evaluate_masks(
        labels, (humans >= 0)[None], humans.shape[1], 2, 0.05, 0, min_pairs
    )
    return passes[0, 0], tested[0], counters[0]


def test_empty_comparisons_pass_by_default_and_are_left_out_with_min_pairs():
    humans, judge = crowd_without_overlap()
    paper = leave_one_out(humans, judge, epsilon=0.05, tau=0.5)
    assert paper.empty.all() and paper.passes.all() and paper.tested == 4
    assert paper.decision.tolist() == [ACCEPT]
    strict = leave_one_out(humans, judge, epsilon=0.05, tau=0.5, min_pairs=1)
    assert strict.tested == 0 and not strict.passes.any()
    assert strict.decision.tolist() == [INCONCLUSIVE] and not strict.accept[0]
    n_pass, tested, counters = kernel_decision(humans, judge, 0)
    assert (n_pass, tested, counters[engine_layout.EMPTY], counters[engine_layout.THIN]) == (
        4,
        4,
        4,
        0,
    )
    n_pass, tested, counters = kernel_decision(humans, judge, 1)
    assert (n_pass, tested, counters[engine_layout.EMPTY], counters[engine_layout.THIN]) == (
        0,
        0,
        4,
        4,
    )


def test_leaving_out_the_empty_comparisons_turns_a_tie_into_a_rejection():
    humans, judge = crowd_with_one_pair()
    paper = leave_one_out(humans, judge, epsilon=0.05, tau=0.5)
    assert paper.passes[0].tolist() == [False, False, True, True]  # 2 of 4: a tie accepts
    assert paper.decision.tolist() == [ACCEPT]
    strict = leave_one_out(humans, judge, epsilon=0.05, tau=0.5, min_pairs=1)
    assert strict.tested == 2 and strict.omega.tolist() == [0.0]
    assert strict.decision.tolist() == [REJECT]
    assert kernel_decision(humans, judge, 1)[:2] == (0, 2)
    # two pairs per comparison of a and b: min_pairs 3 leaves nothing, inconclusive
    assert leave_one_out(humans, judge, min_pairs=3).decision.tolist() == [INCONCLUSIVE]


def random_case(seed, n_trials=60, n_items=12, n_humans=5, n_labels=3, n_judges=2):
    generator = np.random.default_rng(seed)
    labels = generator.integers(0, n_labels, size=(n_trials, n_items, n_humans + n_judges))
    mask = generator.random((n_trials, n_items, n_humans)) < generator.uniform(0.1, 0.6)
    return labels.astype(np.int16), mask


@pytest.mark.parametrize("min_pairs", [0, 1, 5])
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_kernel_equals_oracle_with_min_pairs(min_pairs, coefficient):
    n_humans, n_labels = 5, 3
    for seed in range(3):
        labels, mask = random_case(seed)
        passes, counters, _ = engine_point_rule.evaluate(
            labels, mask, n_humans, n_labels, 0.05, coefficient_code(coefficient), min_pairs
        )
        for side, side_mask, thin in (
            (0, mask, engine_layout.THIN),
            (1, np.ones_like(mask), engine_layout.THIN_DENSE),
        ):
            oracle = count_passes(
                labels, side_mask, n_humans, 0.05, coefficient, n_labels, min_pairs
            )
            np.testing.assert_array_equal(passes[:, side], oracle.n_pass)
            np.testing.assert_array_equal(n_humans - counters[:, thin], oracle.n_tested)
        sparse = count_passes(labels, mask, n_humans, 0.05, coefficient, n_labels, min_pairs)
        np.testing.assert_array_equal(counters[:, engine_layout.EMPTY], sparse.n_empty)
        np.testing.assert_array_equal(counters[:, engine_layout.THIN], sparse.n_thin)
        np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE], sparse.n_degenerate)
        if min_pairs == 5:
            assert sparse.n_thin.sum() > 0 and (sparse.n_tested > 0).any()


@pytest.mark.parametrize("min_pairs", [0, 1, 5])
def test_simulation_reports_the_comparisons_made(min_pairs):
    n_items, n_humans, n_labels = 20, 4, 2
    confusion = rater_confusions(n_humans, n_labels, 0.8, [0.7, 0.9])
    trial_keys = rng.trial_keys(np.random.SeedSequence(5), 0, 200)
    model = (n_items, n_humans, confusion, np.array([0.5, 1.0]), 1, 0.0)
    model += (design_code("bernoulli"), 0.25, 0)
    rule = rule_parameters(Rule(min_pairs=min_pairs))
    outputs = TrialOutputs(*kernels.simulate(trial_keys, *model, rule))
    labels, mask = engine_draws.draw(trial_keys, *model)
    sparse = count_passes(labels, mask, n_humans, 0.05, "observed", n_labels, min_pairs)
    dense = count_passes(
        labels, np.ones_like(mask), n_humans, 0.05, "observed", n_labels, min_pairs
    )
    np.testing.assert_array_equal(outputs.favour, sparse.n_pass)
    np.testing.assert_array_equal(outputs.tested, sparse.n_tested)
    np.testing.assert_array_equal(outputs.against, sparse.n_tested[:, None] - sparse.n_pass)
    np.testing.assert_array_equal(outputs.reference_favour, dense.n_pass)
    np.testing.assert_array_equal(outputs.reference_tested, dense.n_tested)
    assert (outputs.tested < n_humans).any() == (min_pairs > 0)


def test_a_synthetic_sweep_over_min_pairs_counts_inconclusive_trials():
    raw = variant(
        yaml.safe_load(FIG2.read_text()),
        {"model.n_items": 40, "trials": 300, "sweep": {"p_judge": [0.6], "rho": [0.02]}},
    )
    raw["sweep"]["min_pairs"] = [0, 1]
    raw.pop("published")
    cube = simcore.run(raw)
    paper, strict = (cube.sel(min_pairs=value, p_judge=0.6, rho=0.02) for value in (0, 1))
    assert int(paper["n_inconclusive"]) == 0 and float(paper["effective_k"]) == 4.0
    assert float(strict["effective_k"]) < 4.0
    assert int(strict["n_untestable"]) == int(strict["n_inconclusive"]) > 0
    assert int(strict["omega_hist"].sum()) == 300
    assert float(strict["false_approval_rate"]) < float(paper["false_approval_rate"])


def crowd_scenario(folder, min_pairs):
    return {
        "name": f"crowd{min_pairs}",
        "kind": "real",
        "data": {"format": "alttest", "path": str(folder)},
        "rule": {"kind": "point", "min_pairs": min_pairs, "form": "raters"},
        "trials": 20,
        "seed": 3,
        "sweep": {"design": ["bernoulli"], "coverage": [0.05]},
    }


def test_a_sparse_crowd_is_no_longer_accepted_wholesale_with_min_pairs(tmp_path, capsys):
    humans, judges = draw_matrix(200, 60, 3, 5, 0.03, judge_accuracies=[0.3, 0.8, 0.9], seed=4)
    folder = write_alttest_folder(humans, judges, tmp_path / "crowd")
    stores = {}
    for min_pairs in (0, 1):
        store = tmp_path / f"crowd{min_pairs}.zarr"
        path = write_scenario(tmp_path, crowd_scenario(folder, min_pairs), f"c{min_pairs}.yaml")
        assert main(["run", str(path), "--out", str(store), "--quiet"]) == 0
        capsys.readouterr()
        assert main(["show", str(store)]) == 0
        stores[min_pairs] = (xr.open_zarr(store), capsys.readouterr().out)
    paper, paper_text = stores[0]
    strict, strict_text = stores[1]
    reject = paper["judge_class"].values == 0
    assert reject.any()
    assert (paper["false_approval_rate"].values[..., reject] == 1.0).all()
    assert (strict["false_approval_rate"].values[..., reject] < 1.0).all()
    assert float(paper["empty_comparison_share"].max()) > 0.5
    assert float(strict["effective_k"].max()) < 60
    assert "WARNING" in paper_text and "rule.min_pairs: 1" in paper_text
    assert "rule.min_pairs = 1 leaves out" in strict_text


@pytest.mark.parametrize("value", [-1, "x", 1.5])
@pytest.mark.parametrize("kind", ["synthetic", "real"])
def test_a_bad_min_pairs_is_refused_naming_the_key(tmp_path, capsys, value, kind):
    if kind == "synthetic":
        raw = variant(yaml.safe_load(FIG2.read_text()), {"rule.min_pairs": value})
    else:
        raw = crowd_scenario(tmp_path, 0)
        raw["rule"]["min_pairs"] = value
    path = write_scenario(tmp_path, raw, "bad.yaml")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "rule.min_pairs" in err and "bad.yaml" in err and str(value) in err
    with pytest.raises(ScenarioError):
        simcore.run(path, trials=1)


def test_min_pairs_belongs_to_the_point_rule(tmp_path, capsys):
    raw = variant(yaml.safe_load(FIG2.read_text()), {"rule.kind": "alt_test", "rule.min_pairs": 2})
    path = write_scenario(tmp_path, raw, "alt.yaml")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "rule.min_pairs" in err and "point rule" in err
