"""Transporting a judge's card: synthetic coverage, seeding, bias, and the real-data study."""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from experiments.transport_study import main as study_main
from experiments.transport_study import study_rows
from simcore.calibration.real.splits import coverage_splits
from simcore.instrument.transport import (
    group_splits,
    split_key,
    transport_bias,
    transport_row,
    transport_splits,
    transport_table,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "alttest"
needs_data = pytest.mark.skipif(not (DATA / "summeval").is_dir(), reason=f"no data at {DATA}")

NOMINAL = 0.95


def population(n, prevalence, se, sp):
    """Return exact ``(truth_fail, judge_fail)``: round(n p) fails, round(se n_f) caught, ..."""
    n_fail = round(n * prevalence)
    truth = np.arange(n) < n_fail
    judge = np.zeros(n, dtype=bool)
    judge[: round(se * n_fail)] = True
    judge[n_fail : n_fail + round((1 - sp) * (n - n_fail))] = True
    return truth, judge


def _coverage(split):
    kept = ~split["refused"]
    share = float(np.mean(split["covered_lr"][kept]))
    return share, math.sqrt(NOMINAL * (1 - NOMINAL) / kept.sum())


def _run(source, target, n_cal=200, n_splits=400):
    calibrations = [
        group_splits(group[0].size, n_cal, n_splits, 1, "synthetic", name)
        for name, group in (("A", source), ("B", target))
    ]
    return transport_splits(source, target, *calibrations)


def test_equal_se_sp_transports_at_nominal_coverage():
    source = population(3000, 0.2, 0.85, 0.9)
    target = population(3000, 0.4, 0.85, 0.9)
    assert transport_bias(source, target)["bias"] == pytest.approx(0.0, abs=1e-12)
    transported, same = _run(source, target)
    for coverage, se in (_coverage(transported), _coverage(same)):
        assert coverage >= NOMINAL - 4 * se


def test_a_planted_se_shift_breaks_transported_coverage_only():
    source = population(3000, 0.3, 0.9, 0.9)
    target = population(3000, 0.3, 0.6, 0.9)
    bias = transport_bias(source, target)
    # RG(q_B; 0.9, 0.9) - 0.3 with q_B = 0.3 * 0.6 + 0.7 * 0.1 = 0.25: 0.15 / 0.8 - 0.3.
    assert bias["bias"] == pytest.approx(0.15 / 0.8 - 0.3, abs=1e-12)
    transported, same = _run(source, target)
    moved, moved_se = _coverage(transported)
    own, own_se = _coverage(same)
    assert own >= NOMINAL - 4 * own_se
    assert moved < 0.5
    assert own - moved > 4 * math.hypot(moved_se, own_se)


def test_same_population_arm_is_the_real_data_check():
    truth, judge = population(500, 0.3, 0.8, 0.85)
    other = population(400, 0.1, 0.7, 0.95)
    key = split_key(4, "d", "B", 60)
    expected = coverage_splits(truth, judge, 60, 50, np.random.SeedSequence(key))
    calibrations = group_splits(400, 60, 50, 4, "d", "A"), group_splits(500, 60, 50, 4, "d", "B")
    _, same = transport_splits(other, (truth, judge), *calibrations)
    for name in ("covered_lr", "estimate", "lr_low", "lr_high", "truth_rate"):
        np.testing.assert_array_equal(same[name], expected[name])


def _groups():
    specs = {"A": (0.2, 0.85, 0.9), "B": (0.4, 0.7, 0.9), "C": (0.1, 0.9, 0.8)}
    groups = {}
    for name, (prevalence, se, sp) in specs.items():
        truth, judge = population(300, prevalence, se, sp)
        groups[name] = (truth, np.column_stack([judge, ~judge ^ truth]))
    return groups


def test_rows_do_not_depend_on_the_other_groups_or_row_order():
    groups = _groups()
    every = transport_table(groups, ["j0", "j1"], "d", n_cals=(50,), n_splits=40, seed=3)
    pair = {name: groups[name] for name in ("C", "B")}
    some = transport_table(pair, ["j0", "j1"], "d", n_cals=(50,), n_splits=40, seed=3)
    index = {(r["source"], r["target"], r["judge"]): r for r in every}
    for row in some:
        assert row == index[(row["source"], row["target"], row["judge"])]
    same = [r["same_coverage"] for r in every if r["target"] == "B" and r["judge"] == "j0"]
    assert len(same) == 2 and same[0] == same[1]
    alone = transport_row(
        (groups["A"][0], groups["A"][1][:, 1]),
        (groups["B"][0], groups["B"][1][:, 1]),
        group_splits(300, 50, 40, 3, "d", "A"),
        group_splits(300, 50, 40, 3, "d", "B"),
    )
    assert alone.items() <= index[("A", "B", "j1")].items()


@needs_data
def test_small_real_run_writes_the_table(tmp_path):
    rows = study_rows(DATA, datasets=("summeval",), n_cals=(50,), n_splits=20, seed=1)
    assert len(rows) == 12 * 6
    assert all(0.0 <= r["same_refused"] <= 1.0 for r in rows)
    out = tmp_path / "transport"
    assert study_main(["--data", str(DATA), "--out", str(out), "--splits", "10"]) == 0
    text = out.with_suffix(".md").read_text()
    assert "| summeval | 100 | 72 |" in text and "| cebab_aspects | 50 |" in text
    assert len(list(csv.DictReader(out.with_suffix(".csv").open()))) > 72
