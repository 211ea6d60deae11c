"""rule.form: virtual raters for crowds (slots, pooled thin comparisons), chosen by shape."""

from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from scenario_files import write_scenario

from experiments import crowd_forms
from simcore.cli import main
from simcore.engine import point_rule as engine_point_rule
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT
from simcore.model.rule_form import CROWD_MIN_COMPARISONS, RuleForm, resolve_form
from simcore.realdata import rule_forms
from simcore.realdata.shapes import draw_matrix, shape_mask, write_alttest_folder

T, F = True, False


def test_slots_hold_the_labels_in_human_order_item_by_item():
    available = np.array([[T, F, T], [F, T, T], [F, F, T], [F, F, F]])
    assert rule_forms.slot_raters(available).tolist() == [[0, 2], [1, 2], [2, -1], [-1, -1]]
    codes, kept = rule_forms.virtual_matrix(
        np.array([[5, 0, 6], [0, 7, 8], [0, 0, 9], [0, 0, 0]]), rule_forms.slot_raters(available)
    )
    assert codes.tolist() == [[5, 6], [7, 8], [9, 0], [0, 0]]
    assert kept.tolist() == [[T, T], [T, T], [T, F], [F, F]]


def test_thin_humans_pool_into_disjoint_virtual_raters_until_they_share_enough():
    # The primary labels items 0-3 and shares items 1 and 2; humans 1 and 3 both label
    # item 1 (so never one rater), human 2 item 2, human 4 item 5 alone.
    available = np.zeros((6, 5), bool)
    available[:4, 0] = True  # the primary on items 0-3
    available[1, 1] = available[2, 2] = available[1, 3] = True
    available[5, 4] = True  # alone on item 5: shares nothing
    assert rule_forms.shared_items(available).tolist() == [2, 1, 1, 1, 0]
    assert rule_forms.pooled_groups(available, min_items=3) == [[0], [1, 2], [3]]
    assert rule_forms.pooled_groups(available, min_items=2) == [[0], [1, 2], [3]]
    raters = rule_forms.pooled_raters(available, min_items=3)
    assert raters[:, 1].tolist() == [-1, 1, 2, -1, -1, -1]
    assert rule_forms.pooled_groups(available, min_items=1) == [[0], [1], [2], [3]]


def test_auto_pools_a_crowd_and_keeps_every_human_a_rater_elsewhere():
    assert resolve_form("auto", "crowd") == RuleForm(
        "pooled", 0, CROWD_MIN_COMPARISONS, "auto: chosen for a crowd"
    )
    for kind in ("dense panel", "sparse panel"):
        assert resolve_form("auto", kind)[:3] == ("raters", 0, 1)
    assert resolve_form("slots", "crowd", 5, 2) == RuleForm("slots", 5, 2, "given")
    assert resolve_form("auto", "crowd", min_comparisons=1).min_comparisons == 1
    assert "rule form: pooled" in resolve_form("auto", "crowd").text()
    with pytest.raises(ValueError, match="rule form"):
        resolve_form("people", "crowd")


def test_min_comparisons_makes_a_verdict_on_too_few_comparisons_inconclusive():
    decision = np.array([[ACCEPT, REJECT], [ACCEPT, REJECT]], np.int8)
    out = rule_forms.apply_min_comparisons(decision, np.array([[2], [3]]), 3)
    assert out.tolist() == [[INCONCLUSIVE, INCONCLUSIVE], [ACCEPT, REJECT]]


def random_panel(seed, n_items=40, n_humans=5):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=(n_items, n_humans + 2)).astype(np.int16)
    masks = rng.random((6, n_items, n_humans)) < 0.6
    return labels, masks


@pytest.mark.parametrize("seed", range(3))
def test_the_raters_form_is_the_kernel_and_pooling_a_panel_without_thin_humans_changes_nothing(
    seed,
):
    labels, masks = random_panel(seed)
    direct = engine_point_rule.evaluate_masks(labels, masks, 5, 3, 0.05, 0, 0)
    for form in ("raters", "pooled"):
        through = rule_forms.evaluate_form(
            labels, masks, 5, 3, 0.05, 0, RuleForm(form, 0, 1, "given"), 2
        )
        for got, want in zip(through, direct, strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("shape", "coverage", "trials", "chosen"),
    [("crowd", 0.25, 120, "pooled"), ("concentrated", 1.0, 150, "slots")],
)
def test_auto_keeps_false_approval_near_a_dense_panels_of_the_same_items(
    shape, coverage, trials, chosen
):
    # Truth known (experiments.crowd_forms): the shape, thinned to ``coverage``,
    # against a dense panel with as many labels per item on the same items, thinned alike.
    assert crowd_forms.auto_form(shape_mask(shape, seed=11)).form == chosen
    forms = {label: crowd_forms.FORMS[label] for label in ("dense panel", "raters", "auto")}
    results = crowd_forms.crowd_trials(coverage, trials, seed=11, forms=forms, shape=shape)
    dense, raters, auto = (crowd_forms.rates(results[label]) for label in forms)
    (fa_dense, se_dense), (fa_auto, se_auto) = dense["FA"], auto["FA"]
    assert abs(fa_auto - fa_dense) <= 3 * np.hypot(se_dense, se_auto)
    assert raters["FA"][0] > fa_dense + 5 * np.hypot(se_dense, raters["FA"][1])
    assert abs(auto["FR"][0] - dense["FR"][0]) <= 3 * np.hypot(auto["FR"][1], dense["FR"][1])


def test_slots_drop_the_deep_slots_of_the_few_items_that_carry_most_raters():
    mask = shape_mask("concentrated")
    assert rule_forms.slot_raters(mask).shape == (300, 60)
    kept = rule_forms.slot_raters(mask, min_items=10)
    assert kept.shape == (300, 2) and (kept >= 0).all()
    assert resolve_form("auto", "sparse panel", concentrated=True).form == "slots"
    assert resolve_form("auto", "dense panel", concentrated=True).form == "raters"


def test_the_population_rule_accepts_the_judges_the_study_calls_good():
    assert crowd_forms.should_accept().tolist() == [False, False, True, True]
    assert shape_mask("crowd").shape == (400, 150)


def crowd_run(tmp_path, form, capsys):
    humans, judges = draw_matrix(300, 60, 2, 2, 0.05, judge_accuracies=[0.6, 0.9], seed=5)
    folder = write_alttest_folder(humans, judges, tmp_path / f"crowd_{form}_data")
    rule = {"kind": "point"} | ({} if form is None else {"form": form})
    raw = {
        "name": f"crowd_{form}",
        "kind": "real",
        "data": {"format": "alttest", "path": str(folder)},
        "rule": rule,
        "trials": 30,
        "seed": 3,
        "sweep": {"design": ["bernoulli"], "coverage": [0.1]},
    }
    path = write_scenario(tmp_path, raw, f"crowd_{form}.yaml")
    store = tmp_path / f"crowd_{form}.zarr"
    assert main(["run", str(path), "--out", str(store), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["show", str(store)]) == 0
    return xr.open_zarr(store), capsys.readouterr().out


def test_a_real_crowd_run_pools_by_default_says_so_and_stops_approving_everything(tmp_path, capsys):
    auto, auto_text = crowd_run(tmp_path, None, capsys)
    raters, raters_text = crowd_run(tmp_path, "raters", capsys)
    assert "rule form: pooled" in auto.attrs["rule_form"] and "crowd" in auto.attrs["rule_form"]
    assert "rule form: pooled" in auto_text and "rule form: raters" in raters_text
    bad = raters["judge"].values == "judge0"
    assert float(raters["n_accept"].values[..., bad].sum()) == 30  # approved in every trial
    assert float(auto["n_accept"].values[..., bad].sum()) < 30
    assert float(auto["effective_k"].max()) < 60  # virtual raters, fewer than the humans
    assert float(auto["empty_comparison_share"].max()) == 0.0


def test_a_form_is_refused_where_it_does_not_apply(tmp_path, capsys):
    raw = {
        "name": "alt",
        "kind": "real",
        "data": {"format": "alttest", "path": str(tmp_path)},
        "rule": {"kind": "alt_test", "form": "pooled"},
    }
    assert main(["validate", str(write_scenario(tmp_path, raw, "alt.yaml"))]) == 2
    err = capsys.readouterr().err
    assert "rule.form" in err and "alt.yaml" in err and "pooled" in err
    raw["rule"] = {"form": "sideways"}
    assert main(["validate", str(write_scenario(tmp_path, raw, "bad.yaml"))]) == 2
    assert "rule.form" in capsys.readouterr().err


def slot_csv(tmp_path):
    from simcore.realdata.shapes import write_long_csv

    humans, judges = draw_matrix(60, 3, 1, 2, 1.0, seed=2)
    named = {f"answer{k + 1}": labels for k, labels in enumerate(humans.values())}
    return write_long_csv(named, judges, tmp_path / "slots.csv")


def test_slots_are_declared_never_guessed_and_auto_holds_out_each_slot(tmp_path, capsys):
    import json

    path = slot_csv(tmp_path)
    assert main(["inspect", str(path), "--judges", "judge0", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["shape"]
    assert plain["kind"] == "dense panel"  # the same columns, undeclared
    assert main(["inspect", str(path), "--judges", "judge0", "--slots", "--json"]) == 0
    shape = json.loads(capsys.readouterr().out)["shape"]
    assert shape["kind"] == "slots"
    assert shape["auto_rule_form"]["form"] == "raters"
    assert "slots" in shape["auto_rule_form"]["reason"]
    assert main(["inspect", str(path), "--judges", "judge0", "--slots"]) == 0
    assert "shape: slots" in capsys.readouterr().out


def test_a_scenario_declares_slots_in_its_data_block(tmp_path, capsys):
    path = slot_csv(tmp_path)
    raw = {
        "name": "slots",
        "kind": "real",
        "data": {"path": str(path), "judges": ["judge0"], "slots": True},
        "trials": 4,
        "sweep": {"design": ["bernoulli"], "coverage": [0.5]},
    }
    store = tmp_path / "slots.zarr"
    assert main(["run", str(write_scenario(tmp_path, raw, "s.yaml")), "--out", str(store)]) == 0
    assert "the declared slots are the raters" in xr.open_zarr(store).attrs["rule_form"]
    capsys.readouterr()
    raw["data"]["slots"] = "yes"
    assert main(["validate", str(write_scenario(tmp_path, raw, "bad.yaml"))]) == 2
    err = capsys.readouterr().err
    assert "data.slots" in err and "yes" in err


def test_python_inspect_takes_the_slots_declaration(tmp_path):
    import simcore

    path = slot_csv(tmp_path)
    assert simcore.inspect(path, judges="judge0", slots=True).to_dict()["shape"]["kind"] == "slots"
    assert simcore.inspect(path, judges="judge0").to_dict()["shape"]["kind"] == "dense panel"


def test_a_matrix_of_virtual_raters_keeps_every_label_and_names_the_pools(tmp_path):
    from simcore.realdata.readers import read_annotations
    from simcore.realdata.shapes import write_long_csv

    humans, judges = draw_matrix(200, 40, 1, 2, 0.04, seed=3)
    matrix = read_annotations(write_long_csv(humans, judges, tmp_path / "c.csv"), judges="judge0")
    pooled = rule_forms.virtual_annotation(matrix, resolve_form("pooled", "crowd"), min_items=20)
    shared = rule_forms.shared_items(matrix.available)
    assert pooled.n_humans < matrix.n_humans
    assert int((pooled.human_labels >= 0).sum()) == int(matrix.available[:, shared > 0].sum())
    assert any(name.startswith("pool ") for name in pooled.humans)
    slots = rule_forms.virtual_annotation(matrix, resolve_form("slots", "crowd"), min_items=0)
    assert slots.humans[0] == "slot 1" and int(slots.available.sum()) == int(matrix.available.sum())
    assert rule_forms.virtual_annotation(matrix, resolve_form("raters", "crowd")) is matrix


SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data")
@pytest.mark.parametrize("name", ["real_summeval", "real_wax", "real_cebab_stars", "strat_wax"])
def test_the_published_real_scenarios_keep_the_published_rule_in_every_group(name):
    from simcore.studies.config import read_raw
    from simcore.studies.real.forms import group_form
    from simcore.studies.real.study import load_matrix, real_scenario_from_dict

    path = SCENARIOS / f"{name}.yaml"
    scenario = real_scenario_from_dict(read_raw(path), str(path), path.parent)
    matrix = load_matrix(scenario)
    groups = (
        [matrix.subset(g) for g in matrix.group_names] if len(matrix.group_names) > 1 else [matrix]
    )
    assert {group_form(scenario.rule, group)[:3] for group in groups} == {("raters", 0, 1)}
