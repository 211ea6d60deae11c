"""simcore wellposed: judge agreement, its bootstrap, the judge-only loader, the CLI, the study."""

import csv
import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from experiments.wellposed_study import exact_spearman
from experiments.wellposed_study import main as study_main
from simcore.cli import main
from simcore.instrument.ceiling.human_ceilings import _pair_table, is_graded, pairwise_agreement
from simcore.instrument.grouped_scores import code_count, mean_of_defined, replicate_scores
from simcore.instrument.wellposed.agreement import (
    bootstrap_means,
    group_agreements,
    judge_agreement,
    pair_tables,
    table_agreement,
)
from simcore.instrument.wellposed.data import load_judge_table

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "alttest"
SUMMEVAL = DATA / "summeval"
needs_data = pytest.mark.skipif(not SUMMEVAL.is_dir(), reason=f"no alttest data at {DATA}")

# Four judges on ten items, codes of a 1-5 scale; -1: the judge skipped the item.
JUDGES = np.array(
    [
        [0, 0, 1, 0],
        [1, 1, 1, -1],
        [2, 1, 2, 2],
        [3, 3, 2, 4],
        [4, 4, 3, 4],
        [2, 2, -1, 1],
        [1, 0, 0, 0],
        [3, 4, 4, 3],
        [4, 3, 4, 4],
        [0, 1, 0, 1],
    ],
    dtype=np.int16,
)


def _direct(codes, graded):
    """Mean over pairs of scipy's Spearman or a hand-written kappa, on co-labelled items."""
    values = []
    for a, b in combinations(range(codes.shape[1]), 2):
        both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
        x, y = codes[both, a], codes[both, b]
        if graded:
            values.append(stats.spearmanr(x, y).statistic)
        else:
            p_o = np.mean(x == y)
            p_e = sum(np.mean(x == c) * np.mean(y == c) for c in range(5))
            values.append((p_o - p_e) / (1 - p_e))
    return values


@pytest.mark.parametrize("graded", [True, False])
def test_agreement_matches_direct_computation(graded):
    expected = _direct(JUDGES, graded)
    result = judge_agreement(JUDGES, graded, n_boot=0)
    np.testing.assert_allclose(result.values, expected, rtol=0, atol=1e-12)
    assert result.mean == pytest.approx(np.mean(expected), abs=1e-12)
    assert result.measure == ("spearman" if graded else "kappa")
    assert math.isnan(result.low) and result.n_boot_defined == 0
    tables = pair_tables(JUDGES, np.ones((1, JUDGES.shape[0])), 5)
    np.testing.assert_allclose(table_agreement(tables, graded)[:, 0], expected, atol=1e-12)


@pytest.mark.parametrize("graded", [True, False])
def test_bootstrap_means_equal_the_cell_level_bootstrap(graded):
    rng = np.random.default_rng(7)
    codes = rng.integers(-1, 4, size=(60, 5))
    draws = rng.integers(0, 60, size=(40, 60))
    table = _pair_table(codes, 2)[0]
    expected = mean_of_defined(*replicate_scores(table, draws, graded, code_count(False, codes)), 2)
    np.testing.assert_allclose(bootstrap_means(codes, graded, draws), expected, atol=1e-12)
    for row in draws[:3]:
        one = pairwise_agreement(codes[row], graded).mean
        assert bootstrap_means(codes, graded, row[None])[0] == pytest.approx(one, abs=1e-12)


def test_interval_holds_the_point_and_is_seeded():
    codes = np.random.default_rng(3).integers(0, 5, size=(200, 3))
    codes[:, 1] = np.clip(codes[:, 0] + np.random.default_rng(4).integers(-1, 2, 200), 0, 4)
    first = judge_agreement(codes, True, n_boot=300, rng=11)
    again = judge_agreement(codes, True, n_boot=300, rng=11)
    other = judge_agreement(codes, True, n_boot=300, rng=12)
    assert first.low <= first.mean <= first.high
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.n_boot_defined == 300


def test_a_group_row_does_not_depend_on_the_other_groups():
    codes = np.random.default_rng(5).integers(0, 3, size=(90, 3))
    groups = np.repeat([0, 1, 2], 30)
    names = ("a", "b", "c")
    every = group_agreements(codes, groups, names, False, n_boot=50, seed=9)
    alone = group_agreements(codes, groups, names, False, n_boot=50, seed=9, only=["b"])
    assert list(alone) == ["b"]
    assert (alone["b"].low, alone["b"].high) == (every["b"].low, every["b"].high)


def test_is_graded():
    assert is_graded(["1", "2", "3"]) and not is_graded(["1", "2"])
    assert not is_graded(["Negative", "Positive", "unknown"])


def test_exact_spearman():
    rho, p = exact_spearman([1, 2, 3, 4], [10, 20, 30, 40])
    assert rho == pytest.approx(1.0) and p == pytest.approx(2 / 24)
    x, y = [3, 1, 4, 1.5, 5, 9, 2], [2, 7, 1, 8, 2, 8, 1]
    assert exact_spearman(x, y)[0] == pytest.approx(stats.spearmanr(x, y).statistic)
    assert math.isnan(exact_spearman([1, 2, math.nan], [1, 2, 3])[0])


# --------------------------------------------------------------------------- input and CLI


def _write_long_csv(path, raters):
    """Write ``item,rater,label,group`` rows: every rater labels 12 items in two groups."""
    rng = np.random.default_rng(8)
    truth = rng.integers(1, 6, size=12)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "rater", "label", "group"])
        for rater in raters:
            noise = rng.integers(-1, 2, size=12)
            for item in range(12):
                label = int(np.clip(truth[item] + noise[item], 1, 5))
                writer.writerow([f"i{item}", rater, label, "g1" if item < 6 else "g2"])


def test_user_long_csv_with_humans_and_judges(tmp_path, capsys):
    data = tmp_path / "ratings.csv"
    _write_long_csv(data, ["h1", "h2", "j1", "j2", "j3"])
    table = load_judge_table(data, judges=["j1", "j2", "j3"])
    assert table.judges == ("j1", "j2", "j3") and table.group_names == ("g1", "g2")
    assert table.codes.shape == (12, 3) and (table.codes >= 0).all()
    out_md, out_csv = tmp_path / "t.md", tmp_path / "t.csv"
    argv = ["wellposed", str(data), "--judges", "j1,j2,j3", "--boot", "50"]
    assert main([*argv, "--out", str(out_md), "--csv", str(out_csv)]) == 0
    printed = capsys.readouterr().out
    assert "| g1 | 6 | spearman |" in printed and "| g2 | 6 | spearman |" in printed
    assert out_md.read_text().strip() == printed.strip()
    rows = list(csv.DictReader(out_csv.open()))
    assert [row["group"] for row in rows] == ["g1", "g2"] and "pair:j1~j2" in rows[0]


def test_judge_only_csv_needs_no_humans(tmp_path, capsys):
    data = tmp_path / "judges.csv"
    _write_long_csv(data, ["j1", "j2"])
    assert main(["wellposed", str(data), "--boot", "20", "--categorical"]) == 0
    assert "| g1 | 6 | kappa |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--judges", "j1,nobody"], "'nobody'"),
        (["--judges", "j1"], "need at least 2 judges"),
        (["--criterion", "g9"], "'g9'"),
        (["--group-separator", "__"], "group_separator"),
    ],
)
def test_bad_input_exits_2_naming_file_key_and_value(tmp_path, capsys, extra, named):
    data = tmp_path / "ratings.csv"
    _write_long_csv(data, ["j1", "j2"])
    assert main(["wellposed", str(data), "--boot", "5", *extra]) == 2
    error = capsys.readouterr().err
    assert str(data) in error and named in error


def test_missing_path_exits_2(tmp_path, capsys):
    assert main(["wellposed", str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv" in capsys.readouterr().err


@needs_data
def test_cli_on_one_summeval_criterion(capsys):
    argv = ["wellposed", str(SUMMEVAL), "--group-separator", "__", "--criterion", "fluency"]
    assert main([*argv, "--judges", "gpt-4o-mini,llama-31,mistral-v03", "--boot", "100"]) == 0
    printed = capsys.readouterr().out
    assert "| fluency | 1600 | spearman |" in printed
    assert "coherence" not in printed.split("|---")[-1]


@needs_data
def test_study_writes_the_table_and_rank_correlations(tmp_path):
    assert study_main(["--data", str(DATA), "--out", str(tmp_path / "w"), "--boot", "20"]) == 0
    rows = list(csv.DictReader((tmp_path / "w.csv").open()))
    assert len(rows) == 8
    assert {row["dataset"] for row in rows} == {"summeval", "cebab_aspects"}
    text = (tmp_path / "w.md").read_text()
    assert "| all groups | agreement_all | best_kappa |" in text


def test_judge_only_folder_reads_llm_annotations(tmp_path, capsys):
    import json

    labels = {"a": ["Pos", "Neg", "Pos", "Neu"], "b": ["Pos", "Neg", "Neu", "Neu"]}
    judges = {name: {f"i{k}__x": v for k, v in enumerate(given)} for name, given in labels.items()}
    (tmp_path / "llm_annotations.json").write_text(json.dumps(judges))
    argv = ["wellposed", str(tmp_path), "--group-separator", "__", "--boot", "10"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    p_e = (2 / 4) * (1 / 4) + (1 / 4) * (1 / 4) + (1 / 4) * (2 / 4)
    assert f"| x | 4 | kappa | {(3 / 4 - p_e) / (1 - p_e):.3f} |" in printed
