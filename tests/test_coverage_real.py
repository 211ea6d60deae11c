"""Real-data coverage check: splits, synthetic coverage, SummEval rows, report and CLI."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from experiments.real_check import (
    POOLED,
    TABLE_HEADER,
    binarised_pairs,
    coverage_markdown,
    coverage_splits,
    draw_splits,
    item_dimension,
    main,
    real_coverage_table,
)
from simcore.calibration.statistics import DEFAULT_YOUDEN_FLOOR
from simcore.realdata.matrix import DataError

# Same location as tests/test_realdata_loading.py: the shared data sits next to the repo.
SUMMEVAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "alttest" / "summeval"
needs_summeval = pytest.mark.skipif(
    not SUMMEVAL.is_dir(), reason=f"SummEval alttest data not found at {SUMMEVAL}"
)

JUDGES6 = ("gemini_flash", "gemini_pro", "gpt-4o", "llama-31", "gpt-4o-mini", "mistral-v03")


def synthetic_judge(n=5000, fail_rate=0.3, flip=0.1, seed=11):
    """Truth ~ Bernoulli(fail_rate); the judge is the truth flipped with probability ``flip``."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < fail_rate
    judge = truth ^ (rng.random(n) < flip)
    return truth, judge


# --------------------------------------------------------------------------- splits


def test_splits_are_disjoint_sized_and_reproducible():
    n, n_cal, n_splits = 57, 13, 40
    calibration, stream = draw_splits(n, n_cal, n_splits, np.random.default_rng(5))
    assert calibration.shape == (n_splits, n_cal)
    assert stream.shape == (n_splits, n - n_cal)
    for cal_row, stream_row in zip(calibration, stream, strict=True):
        assert len(set(cal_row)) == n_cal
        assert not set(cal_row) & set(stream_row)
        assert np.array_equal(np.sort(np.concatenate([cal_row, stream_row])), np.arange(n))

    again = draw_splits(n, n_cal, n_splits, np.random.default_rng(5))
    assert np.array_equal(again[0], calibration) and np.array_equal(again[1], stream)
    other = draw_splits(n, n_cal, n_splits, np.random.default_rng(6))
    assert not np.array_equal(other[0], calibration)


def test_calibration_sets_are_uniform_draws():
    n, n_cal, n_splits = 20, 5, 4000
    calibration, _ = draw_splits(n, n_cal, n_splits, np.random.default_rng(8))
    counts = np.bincount(calibration.ravel(), minlength=n)
    p = n_cal / n
    sd = math.sqrt(n_splits * p * (1 - p))
    assert np.all(np.abs(counts - n_splits * p) < 5 * sd)


def test_coverage_splits_counts_match_the_splits_and_are_reproducible():
    truth, judge = synthetic_judge(n=300, seed=3)
    n_cal, n_splits = 40, 25
    result = coverage_splits(truth, judge, n_cal, n_splits, np.random.default_rng(17))
    calibration, stream = draw_splits(truth.size, n_cal, n_splits, np.random.default_rng(17))

    cal_truth, cal_judge = truth[calibration], judge[calibration]
    assert np.array_equal(result["fail_caught"], (cal_truth & cal_judge).sum(axis=1))
    assert np.array_equal(result["fail_missed"], (cal_truth & ~cal_judge).sum(axis=1))
    assert np.array_equal(result["pass_flagged"], (~cal_truth & cal_judge).sum(axis=1))
    assert np.array_equal(result["pass_cleared"], (~cal_truth & ~cal_judge).sum(axis=1))
    assert np.array_equal(result["judge_fails"], judge[stream].sum(axis=1))
    assert np.all(result["n_production"] == truth.size - n_cal)
    assert np.allclose(result["truth_rate"], truth[stream].mean(axis=1))

    again = coverage_splits(truth, judge, n_cal, n_splits, np.random.default_rng(17))
    assert again.keys() == result.keys()
    for key, values in result.items():
        assert np.array_equal(again[key], values, equal_nan=values.dtype.kind == "f"), key


def test_coverage_splits_rejects_bad_input():
    truth, judge = synthetic_judge(n=50)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="one length"):
        coverage_splits(truth, judge[:-1], 10, 5, rng)
    with pytest.raises(ValueError, match="n_cal must be below"):
        coverage_splits(truth, judge, 50, 5, rng)
    with pytest.raises(ValueError, match="n_splits"):
        coverage_splits(truth, judge, 10, 0, rng)
    with pytest.raises(ValueError, match="booleans"):
        coverage_splits(truth * 2, judge, 10, 5, rng)


def test_lr_covers_and_naive_undercovers_on_a_synthetic_judge():
    # Se = Sp = 0.9, J = 0.8, fail rate 0.3; n_cal = 100 leaves a stream of 4900 items.
    # The calibration error of Se, Sp moves the corrected rate by sd ~ 0.037, while the
    # naive interval's half-width only reflects the stream's sampling error (~0.017 = 1.96 x
    # 0.0068 / 0.8), so the naive interval covers ~1/3 of the time. The LR interval carries
    # the calibration variance and should reach the nominal 95%.
    truth, judge = synthetic_judge()
    n_splits = 300
    result = coverage_splits(truth, judge, 100, n_splits, np.random.default_rng(2029))
    corrected = ~result["refused"]
    m = int(corrected.sum())
    assert m == n_splits  # J = 0.8 is far above the floor: nothing is refused
    lr = result["covered_lr"][corrected].mean()
    naive = result["covered_naive"][corrected].mean()
    assert lr >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_splits)
    combined_se = math.sqrt(lr * (1 - lr) / m + naive * (1 - naive) / m)
    assert lr - naive > 3 * combined_se
    assert np.all(result["width_lr"][corrected] > result["width_naive"][corrected])


def test_refused_splits_are_counted_for_a_useless_judge():
    # A judge independent of the truth has J = 0; most calibration sets fall under the floor.
    rng = np.random.default_rng(4)
    truth = rng.random(2000) < 0.3
    judge = rng.random(2000) < 0.5
    result = coverage_splits(truth, judge, 200, 100, np.random.default_rng(1))
    assert result["refused"].mean() > 0.9


# --------------------------------------------------------------------------- SummEval


@pytest.fixture(scope="module")
def short_rows():
    return real_coverage_table(SUMMEVAL, n_cals=(25, 100), n_splits=60)


@needs_summeval
def test_binarised_pairs_on_summeval():
    pairs = binarised_pairs(SUMMEVAL)
    assert tuple(pairs) == JUDGES6
    experts = json.loads((SUMMEVAL / "human_annotations.json").read_text())
    expected_fails = sum(float(score) <= 3 for score in experts["e0"].values())
    for pair in pairs.values():
        assert pair.truth_fail.dtype == bool and pair.judge_fail.dtype == bool
        assert pair.truth_fail.shape == pair.judge_fail.shape
        assert pair.truth_fail.size > 100
        assert len(pair.items) == pair.truth_fail.size
        assert int(pair.truth_fail.sum()) == expected_fails
    dimensions = {item_dimension(item) for item in pairs["gpt-4o"].items}
    assert dimensions == {"coherence", "consistency", "fluency", "relevance"}


@needs_summeval
def test_real_coverage_rows_are_sane(short_rows):
    assert len(short_rows) == len(JUDGES6) * 2
    for row in short_rows:
        assert row["dimension"] == POOLED
        assert 0.0 <= row["refused"] <= 1.0
        assert 0.0 <= row["true_fail_rate"] <= 1.0
        for key in ("lr_coverage", "naive_coverage"):
            if row["n_corrected"]:
                assert 0.0 <= row[key] <= 1.0
            else:  # every split refused: coverage over corrected splits is undefined
                assert math.isnan(row[key])
        if row["youden"] >= DEFAULT_YOUDEN_FLOOR:
            assert row["n_corrected"] > 0, row


@needs_summeval
def test_every_ppi_method_is_checked_on_the_same_real_splits(short_rows):
    for row in short_rows:
        for method in ("ppi", "ppi++", "strat-ppi"):
            assert 0.0 <= row[f"{method}_refused"] <= 1.0
            if row[f"{method}_refused"] < 1.0:
                assert 0.0 <= row[f"{method}_coverage"] <= 1.0
                assert 0.0 < row[f"{method}_width"] <= 1.0
        # PPI and PPI++ refuse only without a variance estimate (n_cal >= 2 here).
        assert row["ppi_refused"] == 0.0 and row["ppi++_refused"] == 0.0


@needs_summeval
def test_lr_covers_at_least_as_often_as_naive_at_n_cal_25(short_rows):
    # On each corrected split the LR interval adds the calibration variance to the stream's
    # (and its add-2 centre moves by far less than that extra width at n_cal = 25), so the
    # naive interval sits inside it and every split the naive interval covers, LR covers too.
    # Both coverages are taken over the same corrected splits.
    rows = [row for row in short_rows if row["n_cal"] == 25]
    assert {row["judge"] for row in rows} == set(JUDGES6)
    for row in rows:
        if row["n_corrected"] == 0:
            continue
        assert row["lr_coverage"] >= row["naive_coverage"], row


@needs_summeval
def test_naive_interval_sits_inside_lr_on_real_splits():
    pairs = binarised_pairs(SUMMEVAL)
    for index, pair in enumerate(pairs.values()):
        result = coverage_splits(
            pair.truth_fail, pair.judge_fail, 25, 60, np.random.default_rng([7, index])
        )
        ok = ~result["refused"]
        assert np.all(result["lr_low"][ok] <= result["naive_low"][ok] + 1e-12)
        assert np.all(result["naive_high"][ok] <= result["lr_high"][ok] + 1e-12)


def test_binarised_pairs_reports_bad_input(tmp_path):
    humans = {"e0": {"a__x": 2, "b__x": "five"}, "e1": {"a__x": 4}}
    judges = {"j1": {"a__x": 3, "b__x": 1}}
    (tmp_path / "human_annotations.json").write_text(json.dumps(humans))
    (tmp_path / "llm_annotations.json").write_text(json.dumps(judges))
    with pytest.raises(DataError, match="numeric score") as caught:
        binarised_pairs(tmp_path)
    assert "'five'" in str(caught.value)
    with pytest.raises(DataError, match="unknown human") as caught:
        binarised_pairs(tmp_path, expert="e9")
    assert "'e9'" in str(caught.value)
    with pytest.raises(DataError, match="path: no such file or folder"):
        binarised_pairs(tmp_path / "absent")


def test_binarised_pairs_threshold_and_overlap(tmp_path):
    humans = {"e0": {"a__x": 3, "b__x": 4, "c__y": 1}, "e1": {}}
    judges = {"j1": {"a__x": 4, "b__x": 2, "z__y": 5}}
    (tmp_path / "human_annotations.json").write_text(json.dumps(humans))
    (tmp_path / "llm_annotations.json").write_text(json.dumps(judges))
    pair = binarised_pairs(tmp_path)["j1"]
    assert pair.items == ("a__x", "b__x")
    assert pair.truth_fail.tolist() == [True, False]
    assert pair.judge_fail.tolist() == [False, True]
    lenient = binarised_pairs(tmp_path, fail_at_most=4)["j1"]
    assert lenient.truth_fail.tolist() == [True, True]


# --------------------------------------------------------------------------- report and CLI


def fake_row(judge, n_cal, lr, lr_se, n_corrected=100, youden=0.5):
    return {
        "judge": judge,
        "dimension": POOLED,
        "n_items": 1000,
        "tpr": 0.8,
        "tnr": 0.7,
        "youden": youden,
        "n_cal": n_cal,
        "n_production": 1000 - n_cal,
        "n_splits": 100,
        "n_corrected": n_corrected,
        "refused": 1 - n_corrected / 100,
        "lr_coverage": lr,
        "lr_se": lr_se,
        "naive_coverage": 0.3 if n_corrected else math.nan,
        "naive_se": 0.05 if n_corrected else math.nan,
        "lr_width": 0.2,
        "naive_width": 0.05,
        "true_fail_rate": 0.25,
        "seed_key": (1, 0, n_cal),
        **{
            f"{method}_{field}": value
            for method in ("ppi", "ppi++", "strat-ppi")
            for field, value in (
                ("coverage", 0.93),
                ("se", 0.02),
                ("width", 0.1),
                ("refused", 0),
                ("kept", 200),
            )
        },
    }


def test_markdown_names_where_lr_undercovers():
    rows = [fake_row("good", 25, 0.94, 0.01), fake_row("bad", 50, 0.90, 0.01)]
    text = coverage_markdown(rows, "/data", "e0", 100, 1, 3)
    assert TABLE_HEADER in text
    assert "The LR interval under-covers (coverage + 2 SE < 95%) at: bad n_cal=50" in text
    assert "good n_cal=25 (" not in text.split("under-covers")[1]

    assert "## LR against the prediction-powered intervals" in text
    assert "| judge | n_cal | lr | ppi | ppi++ | strat-ppi |" in text
    # LR: 94 of 100 corrected splits covered, 6 misses: the exact 95% interval, not ± SE
    assert "| good | 25 | 94.0 [87.4, 97.8] / 0.200 | 93.0 ± 2.0 / 0.100 |" in text

    fine = coverage_markdown([rows[0]], "/data", "e0", 100, 1, 3)
    assert "The LR interval does not under-cover anywhere" in fine

    empty = fake_row("weak", 200, math.nan, math.nan, n_corrected=0, youden=0.01)
    text = coverage_markdown([rows[0], empty], "/data", "e0", 100, 1, 3)
    assert "No corrected split" in text and "weak n_cal=200" in text
    assert "below the Youden floor" in text


def test_main_with_missing_data_exits_2_naming_the_path(tmp_path, capsys):
    missing = tmp_path / "no_such_folder"
    status = main(["--data", str(missing), "--out", str(tmp_path / "report.md")])
    assert status == 2
    assert str(missing) in capsys.readouterr().err
    assert not (tmp_path / "report.md").exists()


@needs_summeval
def test_main_writes_the_markdown_report(tmp_path):
    out = tmp_path / "results" / "coverage_real.md"
    status = main(["--data", str(SUMMEVAL), "--out", str(out), "--splits", "20", "--seed", "3"])
    assert status == 0
    text = out.read_text()
    assert TABLE_HEADER in text
    assert str(SUMMEVAL) in text
    assert "FAIL when score <= 3" in text
    for judge in JUDGES6:
        assert f"| {judge} |" in text
