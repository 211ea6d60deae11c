"""simcore advise: the proposal's designs, the verdict's intervals, the risk, the CLI, and
the SummEval round trip."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from simcore.advisor.advice import comparison_intervals
from simcore.advisor.next_round import extend_mask
from simcore.advisor.risk.posterior import simulate_risk
from simcore.advisor.settings import Draws
from simcore.cli import main
from simcore.model.designs import DESIGNS, proportional_allocation
from simcore.model.generative import symmetric_confusion
from simcore.model.rule import leave_one_out
from simcore.realdata.thinning import primary_layer

REPO = Path(__file__).resolve().parents[1]
SUMMEVAL = REPO.parent / "shared" / "data" / "alttest" / "summeval"


def sparse_matrix(seed=3, n_items=400, n_humans=4, n_labels=3, coverage=0.1):
    """Labels ``(n, K)`` with -1 where missing: the primary labels all, secondaries a share."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, n_items)
    noise = rng.integers(0, n_labels, (n_items, n_humans))
    labels = np.where(rng.random((n_items, n_humans)) < 0.8, truth[:, None], noise)
    keep = rng.random((n_items, n_humans)) < coverage
    keep[:, 0] = True
    return np.where(keep, labels, -1), truth


@pytest.mark.parametrize("design", DESIGNS)
def test_a_proposal_never_repeats_a_label_and_follows_its_design(design):
    labels, _ = sparse_matrix()
    available = labels >= 0
    extra = 37
    proposal = extend_mask(np.random.default_rng(1), design, extra, labels, available, 3)
    assert not (proposal & available).any()
    assert not proposal[:, 0].any()
    per_human = proposal[:, 1:].sum(axis=0)
    if design == "bernoulli":
        # each unlabelled item with probability extra / unlabelled: mean extra, SD < sqrt(extra)
        assert abs(per_human.mean() - extra) < 3 * np.sqrt(extra / 3)
    elif design == "shared_panel":
        panel = proposal[:, 1:].any(axis=1)
        assert panel.sum() == extra
        # every secondary labels every panel item it has not labelled yet
        assert (proposal[panel, 1:] == ~available[panel, 1:]).all()
    else:
        assert (per_human == extra).all()
    if design == "strat":
        layer = primary_layer(available)
        primary = labels[np.arange(len(labels)), np.argmax(layer, axis=1)]
        for human in range(1, labels.shape[1]):
            unlabelled = ~available[:, human]
            sizes = np.bincount(primary[unlabelled], minlength=3)
            expected = proportional_allocation(sizes, extra)
            got = np.bincount(primary[proposal[:, human]], minlength=3)
            assert (got == expected).all()
    if design == "seq_coverage":
        # fewest secondary labels first: no proposed item has more secondary labels than an
        # unproposed candidate of the same stratum could have had at its turn; weaker check:
        # the first secondary's items carry no secondary label yet where such items exist
        counts = available[:, 1:].sum(axis=1)
        assert (counts[proposal[:, 1]] == 0).all()


def test_a_proposal_is_reproducible_and_capped_by_what_is_unlabelled():
    labels, _ = sparse_matrix()
    available = labels >= 0
    first = extend_mask(np.random.default_rng(9), "strat", 50, labels, available, 3)
    again = extend_mask(np.random.default_rng(9), "strat", 50, labels, available, 3)
    assert (first == again).all()
    everything = extend_mask(np.random.default_rng(9), "exact_m", 10_000, labels, available, 3)
    assert (everything[:, 1:] == ~available[:, 1:]).all()


def test_comparison_intervals_by_hand():
    # 4 items, 3 humans, one judge; -1 = not labelled
    humans = np.array([[0, 0, 1], [1, 1, -1], [0, -1, 0], [1, 0, 0]])
    judge = np.array([[0], [1], [1], [1]])
    rows = comparison_intervals(humans, judge, epsilon=0.05)[0]
    # held-out human 0: items 0..3 all have a pool. D_i = judge agreements - own agreements
    # item 0: pool (0, 1): judge 0 agrees 1, own 0 agrees 1 -> D 0, c 2
    # item 1: pool (1): judge 1 agrees 1, own 1 agrees 1 -> D 0, c 1
    # item 2: pool (0): judge 1 agrees 0, own 0 agrees 1 -> D -1, c 1
    # item 3: pool (0, 0): judge 1 agrees 0, own 1 agrees 0 -> D 0, c 2
    d = -1 / 6
    residuals = np.array([0 - d * 2, 0 - d * 1, -1 - d * 1, 0 - d * 2])
    se = np.sqrt(4 / 3 * (residuals**2).sum()) / 6
    assert rows[0]["d"] == pytest.approx(d)
    assert rows[0]["se"] == pytest.approx(se)
    assert (rows[0]["items"], rows[0]["pairs"]) == (4, 6)
    assert rows[0]["passes"] is False  # -1/6 < -0.05
    # d_k equals the NumPy oracle's score difference for observed agreement
    oracle = leave_one_out(humans, judge[:, 0], epsilon=0.05)
    for k in range(3):
        assert rows[k]["d"] == pytest.approx(oracle.difference[0, k])


def test_a_dense_matrix_has_no_risk_and_a_sparse_one_some():
    confusions = np.stack(
        [symmetric_confusion(p, 2) for p in (0.85, 0.85, 0.85, 0.80)]
    )  # the judge sits near the bar
    prevalence = np.array([0.5, 0.5])
    dense = np.ones((300, 3), dtype=bool)
    assert simulate_risk(confusions, prevalence, dense, 0, draws=Draws(trials=100)) == (0, 100)
    sparse = dense.copy()
    sparse[15:, 1:] = False
    wrong, trials = simulate_risk(confusions, prevalence, sparse, 0, draws=Draws(trials=200))
    assert 0.05 < wrong / trials < 0.95


def write_csv(path, labels, judge):
    """Long CSV item,rater,label of a human matrix (-1 missing) and one judge."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "rater", "label"])
        for item in range(labels.shape[0]):
            for human in range(labels.shape[1]):
                if labels[item, human] >= 0:
                    writer.writerow([f"i{item:04d}", f"h{human}", int(labels[item, human])])
            writer.writerow([f"i{item:04d}", "judge", int(judge[item])])


def test_the_cli_writes_the_report_and_an_allocation_of_new_items(tmp_path, capsys):
    labels, truth = sparse_matrix(n_humans=3)
    rng = np.random.default_rng(4)
    judge = np.where(rng.random(len(truth)) < 0.75, truth, rng.integers(0, 3, len(truth)))
    data = tmp_path / "matrix.csv"
    write_csv(data, labels, judge)
    out = tmp_path / "advice"
    argv = [
        "advise",
        str(data),
        "--humans",
        "h0,h1,h2",
        "--judges",
        "judge",
        "--out",
        str(out),
        "--trials",
        "60",
        "--budget",
        "400",  # 60 (30 per secondary) is predicted to raise the risk: no round is proposed
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "judge: omega" in printed and "risk of a wrong verdict" in printed
    phases = [line for line in captured.err.splitlines() if line.startswith("simcore advise [")]
    assert len(phases) == 3 and "fitting" in phases[0] and "simulating the risk" in phases[1]
    assert "comparing the designs within the budget" in phases[2]
    assert main([*argv, "--quiet"]) == 0
    assert "simcore advise [" not in capsys.readouterr().err
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert captured.err == "" and document["command"] == "advise"
    (advice,) = document["groups"].values()
    (verdict,) = advice["verdicts"]
    assert verdict["judge"] == "judge" and f"judge: omega {verdict['omega']:.2f}" in printed
    assert len(advice["comparisons"]) == 3 and advice["humans"] == ["h0", "h1", "h2"]
    assert len(advice["next_round"]) == len(list(csv.DictReader((out / "next_round.csv").open())))
    for name in ("report.md", "report.png", "next_round.csv"):
        assert (out / name).stat().st_size > 100
    report = (out / "report.md").read_text()
    for heading in (
        "## 1. The verdict",
        "## 2. How much to trust it",
        "## 3. What to label",
        "## 4. The allocation",
        "| strat |",
        "| seq_coverage |",
    ):
        assert heading in report
    with (out / "next_round.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    design = rows[0]["design"]
    per_human = np.bincount([int(row["human"][1:]) for row in rows], minlength=3)[1:]
    if design in ("exact_m", "strat", "seq_refined", "seq_coverage"):
        assert (per_human == 200).all()  # the budget's 400 labels, 200 per secondary
    elif design == "shared_panel":
        assert (per_human <= 200).all()
    else:  # bernoulli: 200 per secondary on average
        assert abs(per_human.mean() - 200) < 3 * np.sqrt(200)
    for row in rows:
        human = int(row["human"][1:])
        assert human >= 1 and labels[int(row["item"][1:]), human] < 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--audit", "nobody"], "--audit: unknown judge (judges: "),
        (["--target", "0"], "--target: must be in (0, 1)"),
        (["--design", "random"], "--design: must be one of"),
    ],
)
def test_bad_advise_input_exits_2(tmp_path, capsys, extra, message):
    labels, truth = sparse_matrix(n_humans=3, n_items=80)
    data = tmp_path / "matrix.csv"
    write_csv(data, labels, truth)
    argv = [
        "advise",
        str(data),
        "--humans",
        "h0,h1,h2",
        "--judges",
        "judge",
        "--out",
        str(tmp_path / "out"),
        "--trials",
        "20",
        *extra,
    ]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not SUMMEVAL.is_dir(), reason="../shared/data/alttest/summeval is absent")
def test_summeval_round_trip_lowers_the_risk_and_reveals_every_design(tmp_path):
    from experiments.advise_example import round_trip

    result = round_trip(
        SUMMEVAL, tmp_path, trials=300, seed=2026, replicates=1, design_dimensions=("coherence",)
    )
    rows = result["rows"]
    before = np.array([row["risk_before"] for row in rows])
    after = np.array([row["realised"] for row in rows])
    # the round lowers the audit's risk: on average over the judges and for the worst one,
    # each by more than the Monte Carlo noise of the difference
    noise = np.sqrt(sum(row["se_before"] ** 2 + row["se_realised"] ** 2 for row in rows))
    assert after.mean() < before.mean() - 2 * noise / len(rows)
    assert after.max() < before.max()
    # the round's new labels are exactly the proposal, none of them labelled before
    proposal = result["before"].proposal
    assert proposal.sum() == 2 * result["before"].extra
    readme = (tmp_path / "README.md").read_text()
    assert readme.count("| gpt-4o |") == 1
    # replicate 0 of the design check is this round trip: its recommendation is the design
    designs = result["designs"]
    assert designs["outcomes"][0]["recommended"] == result["before"].design
    assert [row["design"] for row in designs["rows"]] == list(DESIGNS)
    assert all(f"| {name} |" in readme for name in DESIGNS)
