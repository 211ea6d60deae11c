"""Human ceilings (instrument/ceiling): exact values against SciPy/NumPy oracles."""

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata, spearmanr

from simcore.instrument.ceiling.human_ceilings import (
    agreement_with_consensus,
    consensus,
    human_ceilings,
    pairwise_agreement,
    raters_per_item,
    symmetric_ceiling,
)
from simcore.instrument.ceiling.position import judge_position, position_reading
from simcore.instrument.grouped_scores import grouped_average_ranks

REPO = Path(__file__).resolve().parent.parent
NEWSROOM = REPO.parent / "shared" / "data" / "judgebench" / "newsroom"
needs_newsroom = pytest.mark.skipif(
    not NEWSROOM.is_dir(), reason="../shared/data/judgebench/newsroom is absent"
)


def kappa(a, b):
    """Cohen's kappa, written out: (p_o - p_e) / (1 - p_e) from the pair's own marginals."""
    codes = np.union1d(a, b)
    observed = np.mean(a == b)
    chance = sum(np.mean(a == c) * np.mean(b == c) for c in codes)
    return (observed - chance) / (1.0 - chance) if chance < 1 else np.nan


def score(a, b, graded):
    """The oracle's agreement of two label vectors."""
    if graded:
        return spearmanr(a, b)[0]
    return kappa(np.asarray(a), np.asarray(b))


def majority(values):
    """Most frequent code, ties to the smallest."""
    codes, counts = np.unique(values, return_counts=True)
    return codes[np.argmax(counts)]


def weighted(values, weights):
    """Mean of the finite values weighted by their items (NaN when none)."""
    values, weights = np.asarray(values, float), np.asarray(weights, float)
    finite = np.isfinite(values)
    return float(np.average(values[finite], weights=weights[finite])) if finite.any() else np.nan


def oracle(labels, graded, min_shared=3):
    """r̂, benchmark and LOO ceilings (weighted by items) and the unweighted r̂, by loops."""
    n, raters = labels.shape
    pairs, plain = [], []
    for a in range(raters):
        for b in range(a + 1, raters):
            both = (labels[:, a] >= 0) & (labels[:, b] >= 0)
            if both.sum() >= 2:
                value = score(labels[both, a], labels[both, b], graded)
                plain.append(value)
                if both.sum() >= min_shared:
                    pairs.append((value, both.sum()))
    bench, loo = [], []
    for a in range(raters):
        mine = np.flatnonzero(labels[:, a] >= 0)
        full, rest, rest_items = [], [], []
        for i in mine:
            row = labels[i][labels[i] >= 0]
            others = np.delete(labels[i], a)
            others = others[others >= 0]
            full.append(row.mean() if graded else majority(row))
            if others.size:
                rest.append(others.mean() if graded else majority(others))
                rest_items.append(i)
        if len(mine) >= min_shared:
            bench.append((score(labels[mine, a], full, graded), len(mine)))
        if len(rest_items) >= min_shared:
            loo.append((score(labels[rest_items, a], rest, graded), len(rest_items)))
    found = tuple(weighted(*zip(*v, strict=True)) if v else np.nan for v in (pairs, bench, loo))
    return (*found, float(np.nanmean(plain)))


def sparse_matrix(n, raters, codes, keep, seed):
    """Labels correlated through a shared item truth, with cells dropped at rate 1 - keep."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, codes, size=n)
    noise = rng.integers(-1, 2, size=(n, raters))
    labels = np.clip(truth[:, None] + noise, 0, codes - 1)
    labels[rng.random((n, raters)) > keep] = -1
    return labels


GRADED = np.array(
    [[0, 1, 0], [2, 2, 1], [4, 3, 4], [1, 1, 3], [3, 4, 2], [2, 0, 2], [4, 4, 3], [0, 2, 1]]
)
CATEGORICAL = np.array(
    [[0, 0, 1], [1, 1, 1], [2, 1, 2], [0, 0, 0], [1, 2, 1], [2, 2, 0], [0, 1, 0], [1, 1, 2]]
)


@pytest.mark.parametrize(
    ("labels", "graded"),
    [
        (GRADED, True),
        (CATEGORICAL, False),
        (sparse_matrix(60, 6, 5, 0.55, seed=1), True),
        (sparse_matrix(60, 6, 3, 0.55, seed=2), False),
    ],
    ids=["graded", "categorical", "sparse-graded", "sparse-categorical"],
)
def test_reliability_and_measured_ceilings_match_the_oracle(labels, graded):
    expected = oracle(labels, graded)
    measured = human_ceilings(labels, graded, n_boot=0)
    got = (measured.reliability.value, measured.benchmark.value, measured.leave_one_out.value)
    np.testing.assert_allclose(got, expected[:3], rtol=0, atol=1e-12)
    assert measured.unweighted_reliability.value == pytest.approx(expected[3], abs=1e-12)
    assert pairwise_agreement(labels, graded).mean == pytest.approx(expected[3], abs=1e-12)
    found = pairwise_agreement(labels, graded, min_overlap=3).weighted_mean
    assert found == pytest.approx(expected[0], abs=1e-12)
    k = raters_per_item(labels)
    assert measured.symmetric.value == pytest.approx(symmetric_ceiling(expected[0], k)[0])
    c = symmetric_ceiling(expected[0], measured.k_others)[0]
    assert measured.predicted_leave_one_out.value == pytest.approx(c)


def test_pairwise_agreement_lists_each_co_labelled_pair_with_its_overlap():
    labels = sparse_matrix(40, 5, 4, 0.5, seed=3)
    found = pairwise_agreement(labels, graded=True, min_overlap=3)
    expected = []
    for a in range(5):
        for b in range(a + 1, 5):
            both = (labels[:, a] >= 0) & (labels[:, b] >= 0)
            if both.sum() >= 3:
                expected.append((a, b, both.sum(), spearmanr(labels[both, a], labels[both, b])[0]))
    assert found.pairs.tolist() == [[a, b] for a, b, _, _ in expected]
    assert found.overlaps.tolist() == [n for _, _, n, _ in expected]
    np.testing.assert_allclose(found.values, [v for *_, v in expected], atol=1e-12)


def test_a_constant_rater_gives_nan_rho_and_a_constant_pair_nan_kappa():
    graded = np.array([[1, 0], [1, 2], [1, 3]])
    assert np.isnan(pairwise_agreement(graded, True).values[0])
    assert np.isnan(pairwise_agreement(graded, True).mean)
    same = np.array([[2, 2], [2, 2], [2, 2]])
    assert np.isnan(pairwise_agreement(same, False).values[0])


def test_grouped_ranks_are_scipy_average_ranks_within_each_group():
    rng = np.random.default_rng(4)
    group = rng.integers(0, 7, size=300)
    values = rng.integers(0, 5, size=300).astype(float)
    ranks = grouped_average_ranks(group, values)
    for g in range(7):
        np.testing.assert_array_equal(ranks[group == g], rankdata(values[group == g]))


def test_consensus_mean_majority_ties_and_exclusion():
    labels = np.array([[0, 2, 2], [1, 0, -1], [-1, -1, -1], [3, 1, 1]])
    np.testing.assert_allclose(consensus(labels, True), [4 / 3, 0.5, np.nan, 5 / 3])
    assert consensus(labels, False).tolist() == [2, 0, -1, 1]  # 1 vs 0 tie -> 0
    assert consensus(labels, False, exclude=2).tolist() == [0, 0, -1, 1]
    np.testing.assert_allclose(consensus(labels, True, exclude=0), [2, 0, np.nan, 1])


def test_symmetric_ceiling_limits():
    assert symmetric_ceiling(1.0, 3)[0] == pytest.approx(1.0)
    assert symmetric_ceiling(0.3, 1e12)[0] == pytest.approx(np.sqrt(0.3))
    assert symmetric_ceiling(0.3, 1)[0] == pytest.approx(0.3)
    np.testing.assert_array_equal(symmetric_ceiling([-0.2, 0.0], 3), [0.0, 0.0])
    assert np.isnan(symmetric_ceiling(0.3, 0.5)[0])  # k - 1 with k = 1.5: no such panel


def test_bootstrap_is_seeded_and_brackets_the_point():
    labels = sparse_matrix(80, 5, 5, 0.7, seed=5)
    first = human_ceilings(labels, True, n_boot=200, seed=11)
    assert first == human_ceilings(labels, True, n_boot=200, seed=11)
    assert first.r_hat is first.reliability
    assert first.reliability != human_ceilings(labels, True, n_boot=200, seed=12).reliability
    for name in ("reliability", "benchmark", "leave_one_out", "symmetric"):
        estimate = getattr(first, name)
        assert estimate.low <= estimate.value <= estimate.high, name


def test_judge_position_against_the_symmetric_interval():
    labels = sparse_matrix(100, 4, 5, 1.0, seed=6)
    ceilings = human_ceilings(labels, True, n_boot=100, seed=0)
    low, high = ceilings.symmetric.low, ceilings.symmetric.high
    assert judge_position(low - 0.01, ceilings) == "below"
    assert judge_position((low + high) / 2, ceilings) == "within"
    assert judge_position(high + 0.01, ceilings) == "above"
    assert position_reading(high + 0.01, ceilings).startswith("above the ceiling's interval")
    assert position_reading((low + high) / 2, ceilings).startswith("within the ceiling's")
    near_zero = ceilings._replace(
        symmetric=ceilings.symmetric._replace(value=0.0, low=0.0, high=0.05)
    )
    assert "shared bias" in position_reading(0.5, near_zero)


def test_agreement_with_consensus_is_the_score_against_the_full_mean():
    labels = sparse_matrix(50, 4, 5, 0.8, seed=7)
    judge = np.clip(labels.max(axis=1), 0, None)
    rated = (labels >= 0).any(axis=1)
    target = consensus(labels, True)
    expected = spearmanr(judge[rated], target[rated])[0]
    assert agreement_with_consensus(judge, labels, True) == pytest.approx(expected, abs=1e-12)
    majority_target = consensus(labels, False)
    expected = kappa(judge[rated], majority_target[rated])
    assert agreement_with_consensus(judge, labels, False) == pytest.approx(expected, abs=1e-12)


def test_pairwise_agreement_on_200_sparse_raters_stays_small():
    n, raters = 3000, 200
    labels = sparse_matrix(n, raters, 5, 0.02, seed=8)
    tracemalloc.start()
    found = pairwise_agreement(labels, graded=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < raters * raters * n  # a K x K x n array of bools alone would be this big
    a, b = found.pairs[np.argmax(found.overlaps)]
    both = (labels[:, a] >= 0) & (labels[:, b] >= 0)
    rho = spearmanr(labels[both, a], labels[both, b])[0]
    assert found.values[np.argmax(found.overlaps)] == pytest.approx(rho, abs=1e-12)
    assert len(found.pairs) > 5_000


def newsroom_labels():
    """The newsroom criteria as (420, 3) code matrices (slot columns), by criterion."""
    import pandas as pd

    table = pd.read_csv(NEWSROOM / "human_scores.csv")
    return {
        name: rows.pivot(index="item", columns="rater", values="score").to_numpy() - 1
        for name, rows in table.groupby("criterion")
    }


@needs_newsroom
def test_newsroom_ceilings_reproduce_the_published_values():
    measured = {
        name: human_ceilings(labels, True, n_boot=300, seed=2026)
        for name, labels in newsroom_labels().items()
    }
    fluency, relevance = measured["Fluency"], measured["Relevance"]
    informativeness = measured["Informativeness"]
    assert fluency.reliability.low <= 0.0 <= fluency.reliability.high
    assert fluency.symmetric.value == 0.0
    assert relevance.symmetric.low <= 0.18 <= relevance.symmetric.high
    pred, loo = informativeness.predicted_leave_one_out, informativeness.leave_one_out
    assert pred.low <= 0.352 <= pred.high
    assert loo.low <= 0.378 <= loo.high
    assert all(c.k == 3 for c in measured.values())
    assert measured["Coherence"].reliability.value == pytest.approx(0.0633, abs=5e-4)
    assert informativeness.benchmark.value == pytest.approx(0.7144, abs=5e-4)


# --------------------------------------------------------------------------- the command


def run(argv, capsys):
    """Return ``(status, stdout, stderr)`` of ``simcore`` with ``argv``."""
    from simcore.cli import main

    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@needs_newsroom
def test_ceiling_command_on_newsroom_with_the_published_judges(tmp_path, capsys):
    out, table = tmp_path / "ceiling.md", tmp_path / "ceiling.csv"
    argv = ["ceiling", str(NEWSROOM / "human_scores.csv"), "--boot", "200"]
    argv += ["--judge-scores", str(NEWSROOM / "published_judges.csv")]
    status, text, err = run([*argv, "--out", str(out), "--csv", str(table)], capsys)
    assert status == 0, err
    assert "| group | items | raters | k | r̂ |" in text
    assert "| Fluency | 420 | 3 | 3 | -0.019 [" in text
    assert "### Fluency: 11 of 12 judges above c_3 = 0.000 [0.000, " in text
    assert "### Relevance: 10 of 12 judges above c_3 = 0.182 [" in text
    assert "| Meta-Llama-3.1-70B-Instruct | 0.630 | published | above |" in text
    assert "shared bias of the aggregate" in text
    assert out.read_text() == "# simcore ceiling\n\n" + text  # the file's title: simcore's own
    import csv

    rows = {row["group"]: row for row in csv.DictReader(table.open())}
    assert sorted(rows) == ["Coherence", "Fluency", "Informativeness", "Relevance"]
    assert float(rows["Informativeness"]["leave_one_out"]) == pytest.approx(0.3764, abs=1e-4)
    assert rows["Fluency"]["judges_above"] == "11"
    status, alone, _ = run([*argv, "--criterion", "Relevance"], capsys)
    assert status == 0 and "| Fluency |" not in alone
    relevance_row = next(line for line in text.splitlines() if line.startswith("| Relevance |"))
    assert relevance_row in alone  # the same seed per group: the same numbers alone


@needs_newsroom
@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (
            ["--label-column", "stars"],
            ["human_scores.csv: header: missing column 'label'", "'stars'"],
        ),
        (["--criterion", "Style"], ["criterion: no such group", "'Style'", "Fluency"]),
        (["--judge-scores", "JUDGES", "--score-column", "tau"], ["missing score column 'tau'"]),
        (["--boot", "0"], ["--boot: must be >= 1 (got 0)"]),
    ],
    ids=["column", "criterion", "score-column", "boot"],
)
def test_ceiling_command_bad_input_exits_2_naming_file_and_key(capsys, extra, fragments):
    extra = [str(NEWSROOM / "published_judges.csv") if e == "JUDGES" else e for e in extra]
    status, _, err = run(["ceiling", str(NEWSROOM / "human_scores.csv"), *extra], capsys)
    assert status == 2
    assert err.startswith("simcore ceiling: ")
    for fragment in fragments:
        assert fragment in err


def test_ceiling_command_refuses_a_missing_file_and_a_bad_score(tmp_path, capsys):
    missing = tmp_path / "nope.csv"
    status, _, err = run(["ceiling", str(missing)], capsys)
    assert status == 2 and str(missing) in err
    data = tmp_path / "ratings.csv"
    data.write_text("item,rater,label\n1,a,1\n1,b,2\n2,a,3\n2,b,3\n3,a,2\n3,b,1\n")
    judges = tmp_path / "judges.csv"
    judges.write_text("model,spearman\nj1,high\n")
    status, _, err = run(["ceiling", str(data), "--judge-scores", str(judges)], capsys)
    assert status == 2 and f"{judges}: row 2: spearman: not a number (got 'high')" in err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("item,criterion,rater,score\n1,A,a,1\n1,A,b\n")
    status, _, err = run(["ceiling", str(ragged)], capsys)
    assert status == 2 and f"{ragged}: row 3: expected 4 cells (got 3)" in err
    extra = tmp_path / "extra.csv"
    extra.write_text("item,criterion,rater,score,note\n1,A,a,1,x\n1,A,b,2,y\n")
    status, _, err = run(["ceiling", str(extra)], capsys)
    assert status == 2 and f"{extra}: header: unknown column" in err and "(got 'note')" in err
    named = ["--item-column", "item", "--rater-column", "rater", "--label-column", "score"]
    status, _, err = run(["ceiling", str(extra), *named], capsys)
    assert "unknown column" not in err  # named columns: the others are not read
    judges.write_text("model,criterion,spearman\nj1,Style,0.5\n")
    status, _, err = run(["ceiling", str(data), "--judge-scores", str(judges)], capsys)
    assert status == 2 and f"{judges}: criterion: no group of the data (valid: all)" in err
    judges.write_text("model,spearman\nj1,0.9\nj2,-0.5\n")
    status, text, _ = run(["ceiling", str(data), "--judge-scores", str(judges)], capsys)
    assert status == 0 and "| j1 | 0.900 | published |" in text


def test_ceiling_command_on_a_user_long_csv_matches_the_module(tmp_path, capsys):
    labels = sparse_matrix(90, 5, 5, 0.6, seed=9)
    judge = np.clip(labels.max(axis=1), 0, 4)
    lines = ["id,annotator,rating,aspect"]
    for i, row in enumerate(labels):
        group = "a" if i % 2 else "b"
        lines += [f"x{i},h{r},{code + 1},{group}" for r, code in enumerate(row) if code >= 0]
        lines.append(f"x{i},llm,{judge[i] + 1},{group}")
    data = tmp_path / "mine.csv"
    data.write_text("\n".join(lines) + "\n")
    table = tmp_path / "new folder" / "out.csv"  # --csv, as --out, makes its folder
    argv = ["ceiling", str(data), "--judges", "llm", "--boot", "50", "--csv", str(table)]
    status, text, err = run(argv, capsys)
    assert status == 0, err
    assert "| llm |" in text and "| data |" in text
    import csv

    rows = {row["group"]: row for row in csv.DictReader(table.open())}
    odd = labels[1::2]
    odd = odd[(odd >= 0).any(axis=1)]
    expected = human_ceilings(odd, True, n_boot=0)
    assert float(rows["a"]["reliability"]) == pytest.approx(expected.reliability.value, abs=1e-9)
    assert float(rows["a"]["leave_one_out"]) == pytest.approx(expected.leave_one_out.value)


def test_ceiling_command_reads_categorical_csv_and_alttest_folders(tmp_path, capsys):
    from simcore.realdata.shapes import draw_matrix, write_alttest_folder, write_long_csv

    humans, judges = draw_matrix(120, 6, 2, 3, density=0.5, seed=3)
    data = write_long_csv(humans, judges, tmp_path / "drawn.csv")
    status, text, err = run(["ceiling", str(data), "--judges", "judge0,judge1"], capsys)
    assert status == 0, err
    assert text.startswith("labels: categories l0, l1, l2 (text labels); scored by Cohen's kappa")
    assert "\nshape: sparse panel (6 humans;" in text
    assert "\n\nHuman ceilings (Cohen's kappa;" in text and "| judge1 |" in text
    folder = write_alttest_folder(humans, judges, tmp_path / "pair")
    status, again, err = run(["ceiling", str(folder), "--boot", "1000"], capsys)
    assert status == 0, err
    assert again.splitlines()[4] == text.splitlines()[4]  # same matrix, same row


def test_ceiling_help_is_light():
    import subprocess
    import sys

    code = (
        "import sys, simcore.cli; "
        "print(sorted(m for m in ('numpy', 'scipy', 'simcore.calibration') if m in sys.modules))"
    )
    env = {"PYTHONPATH": str(REPO), "PATH": ""}
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert found.stdout.strip() == "[]", found.stderr


@needs_newsroom
def test_the_docs_newsroom_table_is_what_the_command_prints(capsys):
    argv = ["ceiling", str(NEWSROOM / "human_scores.csv")]
    status, text, _ = run(argv, capsys)
    assert status == 0
    rows = [line.rsplit("|", 2)[0] for line in text.splitlines() if line.startswith("| ")]
    page = (REPO / "docs" / "explanation" / "ceilings.md").read_text()
    for row in rows:  # the judge counts need --judge-scores; the rest must match
        assert row in page, row


def test_the_command_line_defaults_are_the_modules():
    # the parsers keep literals (no NumPy at parse time); they must equal the constants
    from simcore.cli import parse_arguments
    from simcore.instrument.ceiling.human_ceilings import DEFAULT_BOOT, DEFAULT_SEED

    for command in ("ceiling", "wellposed"):
        args = parse_arguments([command, "data.csv"])
        assert (args.boot, args.seed) == (DEFAULT_BOOT, DEFAULT_SEED)
