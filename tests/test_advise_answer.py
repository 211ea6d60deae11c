"""advise gives one answer: labels to buy (or none, or out of reach), ties, capping, first."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from simcore.advisor.advice import advise
from simcore.advisor.next_round import extend_mask
from simcore.advisor.recommendation import (
    NEARLY_ALL_SHARE,
    SIMPLICITY,
    Reach,
    choose_design,
    needed_range,
    recommend,
)
from simcore.advisor.report.files import report_markdown, summary
from simcore.advisor.report.plan import recommendation_text, tie_sentence
from simcore.advisor.risk.posterior import RiskCurve
from simcore.advisor.settings import AuditPlan
from simcore.api.audit import load_matrix
from simcore.cli import main
from simcore.printed_rates import share_text
from simcore.realdata.shapes import draw_shape, write_long_csv

CHEAP = {"trials": 60, "n_boot": 4, "grid": (0, 25, 100), "seed": 0}


def sparse_panel(tmp_path, seed, judge_accuracies):
    """A ``sparse_panel`` matrix (500 items, 6 humans at 0.85, L = 2) as a long CSV."""
    humans, judges = draw_shape("sparse_panel", seed=seed, judge_accuracies=judge_accuracies)
    path = write_long_csv(humans, judges, tmp_path / f"panel_{seed}.csv")
    return path, list(humans), list(judges)


def test_an_obvious_rejection_gets_no_labels_even_with_a_budget(tmp_path, capsys):
    # a judge at 0.5 against humans at 0.85: every comparison far under the bar. Before,
    # a budget was spent on it whatever its risk (budget // (K - 1) per secondary)
    path, humans, judges = sparse_panel(tmp_path, 0, (0.5,))
    matrix = load_matrix(str(path), humans, judges)
    advice = advise(matrix, plan=AuditPlan(budget=600, **CHEAP))
    assert advice.verdicts[0]["decision"] == "reject"
    answer = advice.recommendation
    assert answer.kind == "none" and answer.above_target == ()
    assert answer.labels == 0 and not advice.proposal.any() and advice.extra == 0
    assert answer.risk <= advice.target
    assert answer.text.startswith("no labels needed: the risk of every verdict is already below")
    assert "the budget of 600 labels is not needed" in answer.text
    assert len(advice.budget_rows) == 6  # the designs are still compared, for the record
    # the recommendation comes first: summary, report.md, --json
    assert summary(advice).splitlines()[0] == f"recommendation: {answer.text}"
    report = report_markdown(advice)
    assert report.index("## Recommendation") < report.index("Data:") < report.index("## 1.")
    assert "`next_round.csv` lists no items: no labels needed" in report
    assert repr(advice).startswith("Advice(recommendation=Recommendation(kind='none'")
    argv = ["advise", str(path), "--humans", ",".join(humans), "--judges", ",".join(judges)]
    argv += ["--trials", "60", "--out", str(tmp_path / "out"), "--json"]
    assert main(argv) == 0
    (document,) = json.loads(capsys.readouterr().out)["groups"].values()
    assert list(document)[:2] == ["recommendation", "details"]
    assert document["recommendation"]["kind"] == "none"
    assert document["recommendation"]["labels"] == 0 and document["next_round"] == []
    assert set(document["details"]) == {"simulated", "conservative", "gaussian_recipe"}
    assert all(figure["means"] for figure in document["details"].values())


def test_labels_are_driven_by_the_judges_above_the_target_only(tmp_path):
    # judge0 (0.7) is observed rejected with one comparison near the bar: its risk now is
    # above 5%; judge1 (0.5) is far under the bar and needs nothing
    path, humans, judges = sparse_panel(tmp_path, 1, (0.7, 0.5))
    matrix = load_matrix(str(path), humans, judges)
    advice = advise(
        matrix, plan=AuditPlan(target=0.05, trials=60, n_boot=4, grid=(0, 50, 200, 1000), seed=0)
    )
    answer = advice.recommendation
    (rate0, _), (rate1, _) = advice.risk_now["judge0"], advice.risk_now["judge1"]
    assert rate1 <= 0.05 < rate0  # the setting the test is about
    assert answer.above_target == ("judge0",) and answer.judge == "judge0"
    assert answer.kind == "labels" and answer.design == "strat"
    assert answer.per_secondary == advice.curves["judge0"].needed(0.05)[0] == advice.extra
    assert answer.labels == int(advice.proposal.sum()) > 0
    assert answer.low <= answer.per_secondary and (
        answer.high < 0 or answer.per_secondary <= answer.high
    )
    assert answer.text.startswith(f"buy {answer.labels} labels: {answer.per_secondary} more")
    assert "judges above the target now: judge0;" in answer.text
    printed = summary(advice)
    assert printed.startswith("recommendation: buy ")
    assert "details (items per secondary; report.md says what each bounds)" in printed
    report = report_markdown(advice)
    assert report.index("## Recommendation") < report.index("### Details")
    for figure in ("*simulated*", "*conservative*", "*gaussian recipe*"):
        assert figure in report


def test_a_tie_within_noise_goes_to_the_simpler_design_and_a_clear_winner_is_picked():
    def rows(risks):
        return [
            {"design": design, "extra": 50, "risk": risk, "se": se, "mean_risk": risk}
            for design, (risk, se) in risks.items()
        ]

    # strat is lowest, but bernoulli is 1.4 combined SEs above it: a tie, bernoulli wins
    tied = rows({"bernoulli": (0.12, 0.01), "strat": (0.10, 0.01), "exact_m": (0.30, 0.01)})
    assert choose_design(tied)["design"] == "bernoulli"
    assert [row["tie"] for row in tied] == [True, True, False]
    assert "Tie: bernoulli, strat are within 2 combined Monte Carlo SEs" in tie_sentence(tied)
    # exactly 2 combined SEs apart is a tie; a hair more is not
    # (SEs 3/32 and 1/8 combine to 5/32 exactly: the edge is 0.3125)
    edge = rows({"strat": (0.125, 0.09375), "exact_m": (0.4375, 0.125)})
    assert choose_design(edge)["design"] == "exact_m"
    apart = rows({"strat": (0.125, 0.09375), "exact_m": (0.4376, 0.125)})
    assert choose_design(apart)["design"] == "strat"
    assert not any(row["tie"] for row in apart)
    assert tie_sentence(apart).startswith("Clear winner: strat")
    # the order is a total order of every design
    assert sorted(SIMPLICITY) == sorted(
        ("bernoulli", "exact_m", "shared_panel", "strat", "seq_refined", "seq_coverage")
    )


def test_a_budget_reports_its_tie_in_the_answer_and_the_report(tmp_path):
    # 20 matrices per design: every design's risk is within noise of the best's
    path, humans, judges = sparse_panel(tmp_path, 1, (0.7,))
    matrix = load_matrix(str(path), humans, judges)
    advice = advise(matrix, plan=AuditPlan(budget=250, trials=20, n_boot=4, grid=(0,), seed=0))
    answer = advice.recommendation
    assert answer.kind == "budget" and answer.per_secondary == 50
    chosen = next(row for row in advice.budget_rows if row["recommended"])
    tied = [row for row in advice.budget_rows if row["tie"]]
    best = min(advice.budget_rows, key=lambda row: (row["risk"], row["mean_risk"]))
    for row in advice.budget_rows:
        within = abs(row["risk"] - best["risk"]) <= 2 * np.hypot(row["se"], best["se"])
        assert row["tie"] == within
    assert len(tied) > 1 and chosen in tied
    assert chosen["design"] == min(tied, key=lambda row: SIMPLICITY.index(row["design"]))["design"]
    assert answer.design == advice.design == chosen["design"] and answer.tie
    assert "tie within noise" in answer.text
    report = report_markdown(advice)
    assert "Tie: " in report and "| recommended, tie |" in report
    frame = advice.budget_table
    assert frame["recommended"].sum() == 1 and frame["tie"].sum() == len(tied)


def fake_audit(unlabelled, n_items, rate_now):
    """An audit of 3 humans: the primary labels all, secondaries leave ``unlabelled`` items."""
    available = np.ones((n_items, 3), dtype=bool)
    for human, count in enumerate(unlabelled, start=1):
        available[:count, human] = False
    now = RiskCurve("judge", "exact_m", [0], [round(rate_now[0] * 300)], [300])
    risks = {"judge": SimpleNamespace(now=rate_now, curve=now)}
    return SimpleNamespace(available=available, risks=risks, curve_design="exact_m")


def answer_for(audit, curve, extra, target=0.05):
    """The :func:`recommend` of ``extra`` items per secondary by ``exact_m``."""
    rng = np.random.default_rng(0)
    labels = np.zeros(audit.available.shape, dtype=np.int64)
    proposal = extend_mask(rng, "exact_m", extra, labels, audit.available, 2)
    reach = Reach(True, {}, {}, audit.available.shape[0])
    return recommend(audit, {"judge": curve}, reach, [], "exact_m", extra, proposal, target)


def test_capped_secondaries_are_counted_and_nearly_every_cell_is_said():
    # secondary 1 has 30 unlabelled items, secondary 2 has 100; the curve asks for 50
    audit = fake_audit((30, 100), 200, (0.2, 0.01))
    curve = RiskCurve("judge", "exact_m", [0, 10, 50, 90], [60, 20, 4, 0], [300, 300, 300, 300])
    answer = answer_for(audit, curve, 50)
    assert answer.kind == "labels" and answer.capped == 1 and answer.secondaries == 2
    assert answer.labels == 30 + 50 and answer.unlabelled == 130
    assert answer.share == pytest.approx(80 / 130) and not answer.nearly_all
    advice = SimpleNamespace(recommendation=answer, budget=None, reach=None)
    text = recommendation_text(advice)
    assert "1 of 2 secondaries have fewer than 50 unlabelled items left" in text
    assert "the round buys 80 labels, not 100" in text and "61.5% of the 130 unlabelled" in text
    assert "nearly every unlabelled cell" not in text
    # 90 per secondary: 120 of the 130 unlabelled cells
    answer = answer_for(audit, curve, 90)
    assert answer.labels == 120 and answer.nearly_all and 120 / 130 >= NEARLY_ALL_SHARE
    advice = SimpleNamespace(recommendation=answer, budget=None, reach=None)
    assert "92.3% of the 130 unlabelled cells: nearly every unlabelled cell" in recommendation_text(
        advice
    )


def test_the_range_brackets_the_size_by_the_curves_wilson_intervals():
    # 8/100 at 10: Wilson 95% [0.041, 0.150], its low end under 5%; 1/100 at 25: [0.002,
    # 0.054], the estimate under 5% but not the interval; 0/300 at 50: upper 0.0126
    curve = RiskCurve("judge", "strat", [0, 10, 25, 50], [30, 8, 1, 0], [100, 100, 100, 300])
    assert needed_range(curve, 0.05) == (10, 25, 50)
    short = RiskCurve("judge", "strat", [0, 10, 25], [30, 8, 1], [100, 100, 100])
    assert needed_range(short, 0.05) == (10, 25, -1)
    audit = fake_audit((100, 100), 200, (0.3, 0.02))
    # 100 more items label everything: risk 0 exactly, whatever 0/20's Wilson bound (16%)
    whole = RiskCurve("judge", "exact_m", [0, 10, 100], [30, 8, 0], [100, 100, 20])
    assert needed_range(whole, 0.05) == (10, 100, -1)
    answer = answer_for(audit, whole, 100)
    assert (answer.low, answer.high, answer.labels_high) == (10, 100, 200)
    answer = answer_for(audit, curve, 25)
    assert (answer.low, answer.per_secondary, answer.high) == (10, 25, 50)
    assert (answer.labels_low, answer.labels, answer.labels_high) == (20, 50, 100)
    assert answer.risk == pytest.approx(0.01)
    advice = SimpleNamespace(recommendation=answer, budget=None, reach=None)
    assert "uncertain between 10 (20 labels) and 50 (100 labels) items per secondary" in (
        recommendation_text(advice)
    )


def test_an_unreachable_target_is_the_answer_with_the_best_the_corpus_allows(tmp_path):
    # the judge at 0.7 on seed 1 (risk now about 10%): a 0.1% target is out of reach short
    # of labelling every item, on a grid that ends at every item
    path, humans, judges = sparse_panel(tmp_path, 1, (0.7,))
    matrix = load_matrix(str(path), humans, judges)
    advice = advise(
        matrix, plan=AuditPlan(target=0.001, trials=60, n_boot=4, grid=(0, 25, 1000), seed=0)
    )
    answer = advice.recommendation
    assert answer.kind == "unreachable" and answer.labels == 0 and not advice.proposal.any()
    extra, rate, se = advice.reach.best["judge0"]
    curve = advice.curves["judge0"]
    short = [i for i, size in enumerate(curve.extra) if size < 303]  # 303: every item
    assert rate == min(curve.rate(i) for i in short) > 0.001
    assert (answer.risk, answer.se) == (rate, se)
    assert answer.text.startswith("target risk 0.001 not reachable by labelling this corpus")
    printed = share_text(rate, se, curve.trials[curve.extra.index(extra)], unit="%")
    best = f"best achievable risk judge0 {printed} at {extra} items"
    assert best in answer.text
    assert summary(advice).startswith("recommendation: target risk 0.001 not reachable")
    assert advice.to_dict()["recommendation"]["kind"] == "unreachable"
