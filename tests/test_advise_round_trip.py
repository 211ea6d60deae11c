"""The SummEval round trip's check of advise's design choice: every design revealed."""

import math
from pathlib import Path

import numpy as np
import pytest

from experiments.advise_round_trip import (
    design_check,
    design_table_markdown,
    load_dimension,
    thin_matrix,
)
from simcore.advisor.advice import advise
from simcore.advisor.next_round import extend_mask
from simcore.advisor.settings import AuditRule, audit_settings
from simcore.advisor.verdict import comparison_intervals, verdicts
from simcore.model.designs import DESIGNS

REPO = Path(__file__).resolve().parents[1]
SUMMEVAL = REPO.parent / "shared" / "data" / "alttest" / "summeval"
JUDGES = ["gpt-4o", "llama-31"]
SEED, COVERAGE, BUDGET = 11, 0.05, 400
CHEAP = {"epsilon": 0.05, "target": 0.05, "trials": 40, "n_boot": 4, "grid": (0,)}

pytestmark = pytest.mark.skipif(
    not SUMMEVAL.is_dir(), reason="../shared/data/alttest/summeval is absent"
)


@pytest.fixture(scope="module")
def dense():
    return load_dimension(SUMMEVAL, "coherence")


@pytest.fixture(scope="module")
def first(dense):
    """advise on replicate 0's thinning, as the round trip runs it."""
    matrix = thin_matrix(dense, COVERAGE, SEED)
    rule, plan = audit_settings(budget=BUDGET, seed=SEED, **CHEAP)
    return advise(matrix, judges=JUDGES, rule=rule, plan=plan)


@pytest.fixture(scope="module")
def table(dense, first):
    return design_check(dense, JUDGES, 2, SEED, COVERAGE, BUDGET, first=first, **CHEAP)


def point_decisions_by_hand(human_labels, judge_labels):
    rows = verdicts(human_labels, judge_labels, JUDGES, rule=AuditRule(kind="point", epsilon=0.05))
    return [row["decision"] for row in rows]


def margins_by_hand(human_labels, judge_labels):
    rows = comparison_intervals(human_labels, judge_labels, 0.05)
    return np.array([[row["d"] + 0.05 for row in judge_rows] for judge_rows in rows])


def test_every_design_is_revealed_and_its_shares_recomputed_directly(dense, first, table):
    assert [row["design"] for row in table["rows"]] == list(DESIGNS)
    assert sum(row["recommended"] for row in table["rows"]) == 2
    human = np.asarray(dense.human_labels, dtype=np.int64)
    judge = np.asarray(dense.judge_labels, dtype=np.int64)[
        :, [dense.judges.index(name) for name in JUDGES]
    ]
    truth = point_decisions_by_hand(human, judge)
    # replicate 0 by hand: advise's own proposal stream, every design, labels revealed
    thinned = np.asarray(thin_matrix(dense, COVERAGE, SEED).human_labels, dtype=np.int64)
    available = thinned >= 0
    outcome = table["outcomes"][0]
    assert outcome["recommended"] == first.design
    for row in first.budget_rows:
        rng = np.random.default_rng(np.random.SeedSequence([SEED, 20_261_130]))
        proposal = extend_mask(rng, row["design"], row["extra"], thinned, available, dense.n_labels)
        if row["design"] == first.design:
            assert (proposal == first.proposal).all()  # the proposal advise wrote
        revealed = np.where(proposal, human, thinned)
        wrong = [
            got != want
            for got, want in zip(point_decisions_by_hand(revealed, judge), truth, strict=True)
        ]
        assert [outcome["designs"][row["design"]]["wrong"][name] for name in JUDGES] == wrong
        error = margins_by_hand(revealed, judge) - margins_by_hand(human, judge)
        assert np.allclose(outcome["designs"][row["design"]]["d_error"], error, equal_nan=True)
    # the table's shares are exactly the replicates' outcomes counted
    for row in table["rows"]:
        wrong = np.array(
            [
                [rep["designs"][row["design"]]["wrong"][name] for name in JUDGES]
                for rep in table["outcomes"]
            ]
        )
        assert row["mean_realised"] == wrong.mean()
        assert row["realised"] == wrong.mean(axis=0).max()
        assert row["se_realised"] == math.sqrt(row["realised"] * (1 - row["realised"]) / 2)
        predicted = [rep["designs"][row["design"]]["risk"] for rep in table["outcomes"]]
        assert row["predicted"] == pytest.approx(np.mean(predicted))
        assert np.array_equal(row["series"]["mean_realised"], wrong.mean(axis=1))
        errors = [rep["designs"][row["design"]]["d_error"] for rep in table["outcomes"]]
        assert row["d_rms"] == pytest.approx(np.sqrt(np.nanmean(np.square(errors))))
    chosen = [rep["designs"][rep["recommended"]] for rep in table["outcomes"]]
    expected = np.mean([[c["wrong"][name] for name in JUDGES] for c in chosen])
    assert table["recommended"]["mean_realised"] == expected
    verdict = table["verdict"]["mean_realised"]
    best = next(row for row in table["rows"] if row["design"] == verdict["best"])
    paired = table["recommended"]["series"]["mean_realised"] - best["series"]["mean_realised"]
    assert verdict["difference"] == pytest.approx(paired.mean())
    assert verdict["paired_se"] == pytest.approx(paired.std(ddof=1) / math.sqrt(2))
    assert table["recommended"]["gap"] == pytest.approx(paired.mean())
    assert best["gap"] == 0
    text = design_table_markdown(table, BUDGET, COVERAGE)
    assert all(f"| {name} |" in text for name in (*DESIGNS, "recommended"))


def test_a_seeded_design_check_is_reproducible(dense, table):
    again = design_check(dense, JUDGES, 2, SEED, COVERAGE, BUDGET, **CHEAP)
    # replicate 0 advised afresh gives what the reused advice gave
    for new_outcome, old_outcome in zip(again["outcomes"], table["outcomes"], strict=True):
        assert new_outcome["recommended"] == old_outcome["recommended"]
        assert np.array_equal(new_outcome["dense_margins"], old_outcome["dense_margins"])
        for design, outcome in new_outcome["designs"].items():
            before = old_outcome["designs"][design]
            assert {k: v for k, v in outcome.items() if k != "d_error"} == {
                k: v for k, v in before.items() if k != "d_error"
            }
            assert np.array_equal(outcome["d_error"], before["d_error"], equal_nan=True)
    for new, old in zip(
        [*again["rows"], again["recommended"]], [*table["rows"], table["recommended"]], strict=True
    ):
        assert {k: v for k, v in new.items() if k != "series"} == {
            k: v for k, v in old.items() if k != "series"
        }
        for key, series in new["series"].items():
            assert np.array_equal(series, old["series"][key])
    assert again["verdict"] == table["verdict"]
