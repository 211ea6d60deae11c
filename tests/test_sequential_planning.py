"""``kind: sequential`` and ``simcore settle --replay``: labels in rounds, read both ways.

A trial's two readings are checked against the rule and the verdict computed directly (the
fixed rule by :func:`simcore.model.rule.leave_one_out` on the labels revealed by each look,
the sequential verdict by :func:`simcore.sequential.judge_verdict` on the snapshots of the
looks); the cube's counts are additive over trials and its wrong settlements stay within
alpha; the scenario and the replay refuse what they cannot read.
"""

import math

import numpy as np
import pytest

from simcore.cli import main
from simcore.model.rule import leave_one_out
from simcore.sequential import (
    SequentialSettings,
    comparison_sequence,
    judge_verdict,
    replay_judge,
)
from simcore.sequential.rounds import (
    RoundsModel,
    labelled_rounds,
    noisy_labels,
    read_rounds,
)
from simcore.studies import study_for
from simcore.studies.config import ScenarioError

SETTINGS = SequentialSettings("point", 0.05, 0.1, 0.5)
MODEL = RoundsModel(120, 4, 3, 0.85, 0.9, 4, 30)


def drawn(seed):
    """One trial's labels and rounds under MODEL."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, MODEL.n_labels, size=MODEL.n_items)
    humans = noisy_labels(rng, truth, MODEL.p_human, MODEL.n_labels, (MODEL.n_items, 4))
    judge = noisy_labels(rng, truth, MODEL.p_judge, MODEL.n_labels, (MODEL.n_items,))
    return humans, judge, labelled_rounds(rng, MODEL)


def revealed(humans, rounds, look):
    """The human codes revealed by ``look`` (-1 elsewhere)."""
    return np.where(rounds <= look, humans, -1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fixed_reading_is_the_rule_on_the_labels_revealed_by_each_look(seed):
    humans, judge, rounds = drawn(seed)
    _, _, fixed = read_rounds(humans, judge, rounds, SETTINGS, MODEL.rounds)
    for look in range(1, MODEL.rounds + 1):
        rule = leave_one_out(revealed(humans, rounds, look), judge, 0.05, 0.5, n_labels=3)
        assert fixed[look - 1] == bool(rule.accept[0]), look


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_sequential_reading_is_the_verdict_on_the_snapshots_of_the_looks(seed):
    humans, judge, rounds = drawn(seed)
    model_settings = SequentialSettings("point", 0.05, 0.3, 0.5)  # settles within 30 rounds
    look, verdict, _ = read_rounds(humans, judge, rounds, model_settings, MODEL.rounds)
    snapshots = np.stack([revealed(humans, rounds, r) for r in range(1, MODEL.rounds + 1)])
    ranks = np.arange(MODEL.n_items)  # within a look, items in index order, as read_rounds
    # look 1 holds the primary's labels and round 1's: an item enters at the first look
    # where it and another human's label are in, as in read_rounds with the primary at 0.
    sequences = [
        comparison_sequence(snapshots, judge, k, 0.05, "point", ranks)[:2] for k in range(4)
    ]
    expected = None
    for t in range(1, MODEL.rounds + 1):
        at = [(values[entered < t], entered[entered < t]) for values, entered in sequences]
        reading = judge_verdict(at, model_settings, with_intervals=False)["verdict"]
        if reading != "open":
            expected = (t, 1 if reading == "settled accept" else -1)
            break
    assert (look, verdict) == (expected or (0, 0))


def scenario(**changes):
    raw = {
        "kind": "sequential",
        "name": "probe",
        "n_items": 200,
        "round_size": 4,
        "rounds": 25,
        "trials": 40,
        "seed": 3,
        "sweep": {"p_judge": [0.95, 0.7], "alpha": [0.1]},
        **changes,
    }
    return study_for("sequential").parse(raw, "probe.yaml")


def test_a_cells_counts_add_over_blocks_of_trials():
    study = study_for("sequential")
    parsed = scenario()
    cell = next(iter(study.cells(parsed, None)))
    whole = study.run_cell(parsed, None, cell, 0, 30)
    first = study.run_cell(parsed, None, cell, 0, 12)
    second = study.run_cell(parsed, None, cell, 12, 30)
    for name, value in whole.items():
        np.testing.assert_array_equal(value, first[name] + second[name], err_msg=name)
    assert int(whole["n_trials"]) == 30
    assert int(whole["settled_at"].sum()) == int(whole["n_accept"] + whole["n_reject"])


def test_wrong_settlements_stay_within_alpha_for_judges_on_either_side():
    """A reject judge near the bar (margin -0.02) and an accept one (+0.015), 300 trials."""
    study = study_for("sequential")
    parsed = scenario(trials=300, sweep={"p_judge": [0.8, 0.75], "alpha": [0.2]})
    for cell in study.cells(parsed, None):
        counts = study.run_cell(parsed, None, cell, 0, 300)
        rate = int(counts["n_wrong"]) / 300
        se = math.sqrt(0.2 * 0.8 / 300)
        assert rate <= 0.2 + 3 * se, cell.coords
        # the fixed rule read after every round is wrong far more often than alpha
        assert int(counts["n_fixed_ever_wrong"]) / 300 > 0.2 + 3 * se, cell.coords


def test_the_cube_derives_items_to_settle_and_the_fixed_plan(tmp_path, capsys):
    path = tmp_path / "sequential.yaml"
    text = (
        "kind: sequential\nn_items: 200\nround_size: 4\nrounds: 50\ntrials: 60\nseed: 5\n"
        "sweep:\n  p_judge: [0.95, 0.6]\n  alpha: [0.1]\n"
        f"output:\n  table: {tmp_path / 'table.md'}\n"
    )
    path.write_text(text)
    assert main(["run", str(path), "--out", str(tmp_path / "s.zarr"), "--quiet"]) == 0
    # a cube of counts only packs no floats: its store still reads and verifies
    assert main(["verify", str(tmp_path / "s.zarr")]) == 0
    assert main(["plot", str(tmp_path / "s.zarr"), "--out", str(tmp_path / "s.png")]) == 0
    import xarray as xr

    cube = xr.open_zarr(tmp_path / "s.zarr")
    settled = cube["n_accept"] + cube["n_reject"]
    mean = (cube["settled_at"] * cube["items_per_secondary"]).sum("look") / settled
    np.testing.assert_allclose(cube["mean_items_to_settle"], mean)
    assert bool(cube["population_accepts"][0]) and not bool(cube["population_accepts"][1])
    assert (cube["recipe_items"] > 0).all()
    table = (tmp_path / "table.md").read_text()
    assert table.startswith("# Planning table: labels until the sequential verdict settles")
    assert "| 0.95 | +0.120 | accept | 0.1 |" in table
    assert "| 0.6 | -0.125 | reject | 0.1 |" in table


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"sweep": {"p_judge": [0.9], "alpha": [0.6]}}, "sweep.alpha: must be <= 0.49"),
        ({"rounds": 60}, "round_size x rounds must be at most n_items"),
        ({"output": {"csv": "x.csv"}}, "output.csv: a sequential scenario writes its table"),
        ({"sweep": {"p_judge": [0.9]}}, "sweep.alpha: must be a non-empty list"),
        ({"coverage": 0.5}, "coverage"),
    ],
)
def test_a_bad_scenario_names_the_key_and_the_value(changes, message):
    with pytest.raises(ScenarioError, match=message):
        scenario(**changes)


def test_a_replay_of_a_dense_matrix_ends_at_its_own_decision():
    humans, judge, _ = drawn(7)
    replay = replay_judge(humans, judge, SETTINGS, 10, 20, seed=4)
    rule = leave_one_out(humans, judge, 0.05, 0.5, n_labels=3)
    assert replay.reference_accepts == bool(rule.accept[0])
    assert replay.fixed_wrong[-1] == 0.0
    assert replay.rounds == 12 and list(replay.labels_at[:3]) == [30, 60, 90]
    summary = replay.to_dict(0.1)
    assert summary["secondary_labels"] == 360 and summary["primary_labels"] == 120
    assert summary["settled_against_reference"] <= summary["settled"]
    assert replay_judge(humans, judge, SETTINGS, 10, 20, seed=4).to_dict(0.1) == summary


def test_the_replay_takes_no_record_round_gate_or_alt_test(tmp_path, capsys):
    data = tmp_path / "m.csv"
    humans, judge, _ = drawn(8)
    lines = ["item,rater,label"]
    for item in range(MODEL.n_items):
        lines += [f"i{item},h{k},{humans[item, k]}" for k in range(4)]
        lines.append(f"i{item},judge,{judge[item]}")
    data.write_text("\n".join(lines) + "\n")
    flags = ["settle", str(data), "--judges", "judge", "--replay", "5"]
    assert main([*flags, "--round-size", "20"]) == 0
    assert "| judge |" in capsys.readouterr().out
    assert main([*flags, "--looks", str(tmp_path / "l.json")]) == 2
    assert "leave out --looks" in capsys.readouterr().err
    assert main([*flags, "--rule", "alt_test"]) == 2
    assert main([*flags, "--fail-if", "not-settled-accept"]) == 2
    assert not (tmp_path / "l.json").exists()
