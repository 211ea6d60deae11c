"""advise answers honestly: no round that raises the risk, suspect humans named, honest digits."""

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from simcore.advisor.advice import advise
from simcore.advisor.dense import risk_text
from simcore.advisor.next_round import extend_mask
from simcore.advisor.recommendation import Reach, choose_design, recommend
from simcore.advisor.report.files import report_markdown, summary
from simcore.advisor.report.plan import curve_risk, risk_share, tie_sentence
from simcore.advisor.risk.ceiling import CLEAR_SES, clear_drop
from simcore.advisor.risk.posterior import RiskCurve, monte_carlo_se
from simcore.advisor.settings import AuditPlan
from simcore.advisor.suspects import below_chance, pivotal_humans
from simcore.api.audit import load_matrix
from simcore.cli import main

STARS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alttest" / "cebab_stars"
needs_stars = pytest.mark.skipif(not STARS.is_dir(), reason="../shared/data/alttest is absent")


def budget_rows(risks, extra=33, trials=100):
    """Budget rows ``{design: risk}`` with their binomial SEs, as budget_row writes them."""
    return [
        {
            "design": design,
            "extra": extra,
            "worst_judge": "judge",
            "risk": risk,
            "se": monte_carlo_se(round(risk * trials), trials),
            "trials": trials,
            "mean_risk": risk,
            "mean_se": monte_carlo_se(round(risk * trials), trials),
        }
        for design, risk in risks.items()
    ]


# --------------------------------------------------------------------------- no rise


def test_a_design_above_the_risk_now_is_never_recommended():
    # bernoulli is the simplest of the tied, but above the risk now (0.25): strat is chosen
    rows = budget_rows({"bernoulli": 0.27, "strat": 0.22, "exact_m": 0.60})
    chosen = choose_design(rows, ceiling=0.25)
    assert chosen["design"] == "strat"
    assert [row["raises_risk"] for row in rows] == [True, False, True]
    assert [row["tie"] for row in rows] == [True, True, False]
    assert "so the simplest not above the risk now, strat, is recommended" in tie_sentence(rows)
    # every design above it: none is recommended, whatever the noise
    rows = budget_rows({"bernoulli": 0.32, "seq_coverage": 0.25})
    assert choose_design(rows, ceiling=0.246) is None
    assert not any(row["recommended"] for row in rows)
    assert tie_sentence(rows).startswith("None recommended: every design's worst-judge risk")
    # without a ceiling the old rule stands
    assert choose_design(budget_rows({"bernoulli": 0.32}))["design"] == "bernoulli"


def test_the_first_clear_drop_is_beyond_two_combined_ses():
    # risk now 24.6% +- 1.4; 24% at 100 and 22% at 200 are within noise, 16% at 400 is not
    curve = RiskCurve("judge", "strat", [0, 10, 100, 200, 400], [246, 39, 24, 22, 16])
    curve.trials = [1000, 100, 100, 100, 100]
    se_now = monte_carlo_se(246, 1000)
    extra, rate, se, trials = clear_drop([curve], 33, 0.246, se_now)
    assert (extra, rate, trials) == (400, 0.16, 100)
    assert 0.246 - rate > CLEAR_SES * np.hypot(se, se_now)
    assert 0.246 - 0.22 <= CLEAR_SES * np.hypot(curve.se(3), se_now)
    assert clear_drop([curve], 400, 0.246, se_now) is None


def fake_audit(rate_now, trials_now=1000):
    """An audit of 3 humans, 200 items, each secondary leaving 100 unlabelled."""
    available = np.ones((200, 3), dtype=bool)
    available[:100, 1:] = False
    wrong = round(rate_now * trials_now)
    now = RiskCurve("judge", "strat", [0, 25, 100], [wrong, 43, 0], [trials_now, 100, 100])
    risks = {"judge": SimpleNamespace(now=(rate_now, monte_carlo_se(wrong, trials_now)), curve=now)}
    return SimpleNamespace(available=available, risks=risks, curve_design="strat"), now


def test_a_budget_that_raises_the_risk_is_refused_with_its_reason():
    audit, curve = fake_audit(0.246)
    rows = budget_rows({"bernoulli": 0.32, "seq_coverage": 0.25}, extra=33)
    choose_design(rows, ceiling=0.246)
    labels = np.zeros(audit.available.shape, dtype=np.int64)
    proposal = extend_mask(np.random.default_rng(0), "bernoulli", 0, labels, audit.available, 2)
    reach = Reach(False, {}, {}, 200)
    answer = recommend(audit, {"judge": curve}, reach, rows, "seq_coverage", 0, proposal, 0.05)
    assert answer.kind == "raises_risk" and answer.labels == 0 and answer.per_secondary == 0
    assert (answer.risk, answer.risk_now) == (0.25, 0.246) and answer.budget_extra == 33
    assert answer.helps_from == 100 and answer.helps_risk == 0.0  # every item labelled there
    assert "every design's predicted worst-judge risk is above the risk now, 24.6% ± 1.4" in (
        answer.reason
    )
    assert "at best 25.0% ± 4.3 by seq_coverage (0.1 combined Monte Carlo SEs above it" in (
        answer.reason
    )
    assert answer.reason.endswith(
        "only when every unlabelled item is labelled (100 items per secondary by strat), where "
        "it is 0"
    )
    assert answer.to_dict()["reason"] == answer.reason


@pytest.fixture(scope="module")
def stars():
    """cebab_stars, mistral-v03, budget 300 (README Quickstart 2): a rising risk curve."""
    return advise(
        load_matrix(str(STARS), None, None),
        judges=["mistral-v03"],
        plan=AuditPlan(budget=300, trials=100, seed=0, grid=(0, 10, 25, 400, 3200)),
    )


@needs_stars
def test_on_cebab_stars_no_recommended_round_predicts_a_higher_risk(stars, tmp_path, capsys):
    answer = stars.recommendation
    rate_now, se_now = stars.risk_now["mistral-v03"]
    for row in stars.budget_rows:  # with 100 trials every design is above the risk now
        assert row["raises_risk"] == (row["risk"] > rate_now) and not row["recommended"]
    assert answer.kind == "raises_risk" and not stars.proposal.any()
    assert answer.helps_from == 400 and answer.helps_risk < rate_now  # 16% at 400 items
    assert answer.risk > answer.risk_now == rate_now
    assert summary(stars).startswith("recommendation: no round of the budget of 300 labels is")
    assert "next_round.csv: no items (no round recommended)" in summary(stars)
    report = report_markdown(stars)
    assert "`next_round.csv` lists no items: no round of the budget's size" in report
    assert stars.to_dict()["recommendation"]["kind"] == "raises_risk"


@needs_stars
def test_on_cebab_stars_the_worse_than_chance_human_and_the_pivots_are_named(stars):
    document = stars.to_dict()["suspect_humans"]["mistral-v03"]
    (weak,) = document["below_chance"]
    assert weak["human"] == "w40" and weak["accuracy"] <= weak["chance"] == 0.2
    # omega 5/10 at tau 0.5: each of the five passing comparisons is pivotal
    (row,) = stars.verdicts
    passing = [stars.humans[k] for k, c in enumerate(row["comparisons"]) if c["passes"]]
    assert row["omega"] == 0.5 and document["pivotal_humans"] == passing and len(passing) == 5
    assert document["flipped_decision"] == "reject"
    line = next(text for text in summary(stars).splitlines() if "rests on" in text)
    assert line.startswith("mistral-v03: the accept rests on comparisons with w40 (fitted")
    assert "at or below chance 0.20 on 5 labels" in line
    assert "- mistral-v03: the accept rests on" in report_markdown(stars)


# --------------------------------------------------------------------------- suspects


def point_row(passes, decision, pairs=10):
    return {
        "decision": decision,
        "comparisons": [{"passes": p, "pairs": pairs} for p in passes],
    }


def test_pivotal_comparisons_are_those_whose_flip_alone_changes_the_decision():
    humans = [f"h{k}" for k in range(10)]
    on_the_bar = point_row([True] * 5 + [False] * 5, "accept")
    assert pivotal_humans(on_the_bar, humans, 0.5) == (humans[:5], "reject")
    one_short = point_row([True] * 4 + [False] * 6, "reject")
    assert pivotal_humans(one_short, humans, 0.5) == (humans[4:], "accept")
    clear = point_row([True] * 6 + [False] * 4, "accept")
    assert pivotal_humans(clear, humans, 0.5) == ([], None)
    # a comparison left out by min_pairs cannot flip anything
    row = point_row([True] * 5 + [False] * 5, "accept")
    row["comparisons"][0]["pairs"] = 0
    assert pivotal_humans(row, humans, 0.5, min_pairs=1)[0] == humans[1:5]
    # alt_test: 2 wins of 4 tested at tau 0.5; a human not tested is never pivotal
    tests = [{"tested": True, "won": w} for w in (True, True, False, False)]
    alt = {"decision": "accept", "wins": 2, "tested": 4, "alt_test": tests}
    alt["alt_test"].append({"tested": False, "won": False})
    assert pivotal_humans(alt, humans, 0.5) == (humans[:2], "reject")


def adversarial_panel(seed=3, n_items=240, n_labels=3):
    """Five humans at 0.85 on 60% of items, one always wrong on its items, a judge at 0.8."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, n_items)
    rows = []

    def noisy(accuracy):
        wrong = (truth + rng.integers(1, n_labels, n_items)) % n_labels
        return np.where(rng.random(n_items) < accuracy, truth, wrong)

    for h in range(5):
        labels, seen = noisy(0.85), rng.random(n_items) < 0.6
        rows += [(i, f"h{h}", f"l{labels[i]}") for i in range(n_items) if seen[i]]
    seen = rng.random(n_items) < 0.6
    rows += [(i, "liar", f"l{(truth[i] + 1) % n_labels}") for i in range(n_items) if seen[i]]
    judge = noisy(0.8)
    rows += [(i, "judge", f"l{judge[i]}") for i in range(n_items)]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def test_a_human_who_labels_adversarially_is_named_below_chance(tmp_path, capsys):
    frame = adversarial_panel()
    matrix = load_matrix(frame, None, ["judge"])
    advice = advise(matrix, plan=AuditPlan(trials=40, n_boot=4, grid=(0,), seed=0))
    model = advice.models["judge"]
    (weak,) = below_chance(model, advice.humans, 3)
    assert weak["human"] == "liar" and weak["accuracy"] <= 1 / 3
    honest = [h for h in advice.humans if h != "liar"]
    others = [model.fit.accuracies[model.rater_names.index(h)] for h in honest]
    assert min(others) > 0.6  # the honest humans are well above chance
    document = advice.to_dict()["suspect_humans"]["judge"]
    assert [row["human"] for row in document["below_chance"]] == ["liar"]
    assert "liar (fitted accuracy" in document["text"]
    assert "at or below chance 0.33 on 3 labels" in summary(advice)
    # the command line prints the same line and carries it in --json
    csv = tmp_path / "panel.csv"
    frame.to_csv(csv, index=False)
    argv = ["advise", str(csv), "--judges", "judge", "--trials", "40", "--out"]
    assert main([*argv, str(tmp_path / "out"), "--json"]) == 0
    (printed,) = json.loads(capsys.readouterr().out)["groups"].values()
    assert printed["suspect_humans"]["judge"]["below_chance"][0]["human"] == "liar"


# --------------------------------------------------------------------------- precision


def test_a_risk_of_no_wrong_verdict_prints_its_exact_bound_not_zero_plus_minus():
    assert risk_share(0.0, monte_carlo_se(0, 100), 100) == "< 3.0%"
    assert risk_share(0.0, 0.0, 0) == "0%"  # not simulated: a dense matrix's, 0 exactly
    assert risk_share(0.246, monte_carlo_se(246, 1000), 1000) == "24.6% ± 1.4"
    assert risk_share(0.02, monte_carlo_se(2, 100), 100) == "2.0% [0.2, 7.0]"
    curve = RiskCurve("j", "strat", [0, 50, 551], [0, 3, 0], [1000, 100, 100])
    advice = SimpleNamespace(
        risk_now={"j": (0.0, monte_carlo_se(0, 1000))},
        curves={"j": curve},
        items=tuple(range(711)),
        curve_design="strat",
        recommendation=SimpleNamespace(most_unlabelled=551),
    )
    assert risk_text(advice, "j") == "< 0.30%"
    assert curve_risk(advice, curve, 1) == "3.0% [0.6, 8.5]"
    assert curve_risk(advice, curve, 2) == "0% (every item labelled)"
