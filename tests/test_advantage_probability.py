"""The alternative annotator test's advantage probability and winning rate, as its authors
report them: a naive loop, the kernel, the published values on the shipped matrices, and
``kind: real`` runs with ``rule.kind: alt_test``."""

import numpy as np
import pytest
from scenario_files import REPO

import simcore
from simcore.advisor.settings import AuditRule
from simcore.advisor.verdict import alt_test_verdict, numeric_label_values, verdicts
from simcore.cli import main
from simcore.engine import alt_test as engine_alt_test
from simcore.engine.alt_test import alt_test_masks
from simcore.model.alt_test_reference import alternative_annotator_test, by_rejections
from simcore.model.decision_rule import Rule
from simcore.realdata.matrix import load_alttest
from simcore.studies.config import ScenarioError
from simcore.studies.protocol import add_counts
from simcore.studies.real.alt_test import check_scale
from simcore.studies.real.study import STUDY
from simcore.studies.real.tables import summary
from simcore.studies.synthetic.cell import rule_parameters

DATA = REPO.parent / "shared" / "data" / "alttest"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/alttest is absent")
MISSING = -1


# --------------------------------------------------------------------------- the naive loop


def naive_advantage(human_labels, judge_column, min_humans, min_items, numeric=False):
    """The authors' definition, one item and one human at a time, with dicts and lists.

    Per held-out human h with at least ``min_items`` kept items (items with at least
    ``min_humans`` human labels): the share of h's items on which the judge's score
    against the other humans is at least h's; the mean of those shares over the humans.
    """
    annotations = {
        h: {i: int(human_labels[i, h]) for i in range(len(human_labels)) if human_labels[i, h] >= 0}
        for h in range(human_labels.shape[1])
    }
    labellers = {}
    for h, items in annotations.items():
        for i in items:
            labellers.setdefault(i, []).append(h)
    kept = {i for i, who in labellers.items() if len(who) >= min_humans}

    def score(prediction, others):
        if numeric:
            return -float(np.sqrt(np.mean([(prediction - other) ** 2 for other in others])))
        return float(np.mean([prediction == other for other in others]))

    shares = []
    for h, items in annotations.items():
        mine = [i for i in items if i in kept]
        if len(mine) < min_items:
            continue
        indicators = []
        for i in mine:
            others = [annotations[q][i] for q in labellers[i] if q != h]
            judge_score = score(int(judge_column[i]), others)
            human_score = score(items[i], others)
            indicators.append(1 if judge_score >= human_score else 0)
        shares.append(float(np.mean(indicators)))
    return float(np.mean(shares))


def tiny_matrix():
    # Humans A, B, C; item 4 has one human label and is dropped.
    humans = np.array(
        [
            [0, 0, 1],
            [1, 1, MISSING],
            [0, MISSING, 0],
            [MISSING, 1, 1],
            [0, MISSING, MISSING],
        ]
    )
    judge = np.array([[0], [0], [1], [1], [0]])
    return humans, judge


def test_advantage_on_a_tiny_matrix_by_hand():
    humans, judge = tiny_matrix()
    result = alternative_annotator_test(humans, judge, 0.1, 2, 3)
    # A: items 0-2; item 0 ties (1/2 each), items 1 and 2 the judge disagrees with the
    # only other human: 1/3. B: items 0, 1, 3 -> tie, loss, tie: 2/3. C: items 0, 2, 3 ->
    # the judge agrees with A and B where C does not, loses item 2, ties item 3: 2/3.
    np.testing.assert_array_equal(result.items, [3, 3, 3])
    np.testing.assert_array_equal(result.advantage[0], [1 / 3, 2 / 3, 2 / 3])
    assert result.advantage_probability[0] == np.mean([1 / 3, 2 / 3, 2 / 3])
    assert result.advantage_probability[0] == naive_advantage(humans, judge[:, 0], 2, 3)


def sparse_matrix(seed, n_items=60, n_humans=5, n_labels=3, coverage=0.6):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, n_items)
    noise = rng.integers(0, n_labels, (n_items, n_humans + 2))
    labels = np.where(rng.random((n_items, n_humans + 2)) < 0.7, truth[:, None], noise)
    keep = rng.random((n_items, n_humans)) < coverage
    keep[:, 0] = True
    keep[:, n_humans - 1] &= rng.random(n_items) < 0.3  # this human is often skipped
    return np.where(keep, labels[:, :n_humans], MISSING), labels[:, n_humans:]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("numeric", [False, True])
def test_advantage_equals_the_naive_loop_exactly(seed, numeric):
    humans, judges = sparse_matrix(seed)
    scale = "numeric" if numeric else "categorical"
    result = alternative_annotator_test(humans, judges, 0.1, 2, 20, scale=scale)
    assert result.n_tested >= 2
    for judge in range(judges.shape[1]):
        expected = naive_advantage(humans, judges[:, judge], 2, 20, numeric)
        assert result.advantage_probability[judge] == expected


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("numeric", [False, True])
def test_the_kernel_matches_numpy(seed, numeric):
    humans, judges = sparse_matrix(seed, n_items=90)
    scale = "numeric" if numeric else "categorical"
    result = alternative_annotator_test(humans, judges, 0.15, 2, 20, 0.1, scale)
    labels = np.concatenate([np.maximum(humans, 0), judges], axis=1).astype(np.int16)
    rule = rule_parameters(
        Rule(kind="alt_test", epsilon=0.15, min_items_per_human=20, q=0.1, scale=scale)
    )
    masks = np.stack([humans >= 0, np.ones_like(humans, dtype=bool)])
    wins, tested, advantage = alt_test_masks(labels, masks, humans.shape[1], rule)
    assert tested[0] == result.n_tested
    np.testing.assert_array_equal(wins[0], result.wins)
    np.testing.assert_allclose(advantage[0], result.advantage_probability, rtol=0, atol=1e-12)
    _, _, skipped, pvalues = engine_alt_test.alternative_annotator_test(
        labels, masks[0], humans.shape[1], 0.15, 2, 20, 0.1, numeric
    )
    np.testing.assert_array_equal(skipped == 0, result.tested)
    np.testing.assert_allclose(pvalues, result.pvalues, rtol=0, atol=1e-10)
    dense = alternative_annotator_test(
        np.where(masks[1], np.maximum(humans, 0), MISSING), judges, 0.15, 2, 20, 0.1, scale
    )
    np.testing.assert_array_equal(wins[1], dense.wins)
    np.testing.assert_allclose(advantage[1], dense.advantage_probability, rtol=0, atol=1e-12)


def test_nobody_tested_gives_nan():
    humans, judge = tiny_matrix()
    result = alternative_annotator_test(humans, judge, 0.1, 2, 30)
    assert result.n_tested == 0
    assert np.isnan(result.advantage_probability[0]) and np.isnan(result.winning_rate[0])
    labels = np.concatenate([np.maximum(humans, 0), judge], axis=1).astype(np.int16)
    rule = rule_parameters(Rule(kind="alt_test"))
    wins, tested, advantage = alt_test_masks(labels, (humans >= 0)[None], 3, rule)
    assert tested[0] == 0 and wins[0, 0] == 0 and np.isnan(advantage[0, 0])


def test_by_rejections_rejects_the_smallest():
    # c(3) = 11/6: thresholds 0.00909 k; the two smallest pass.
    np.testing.assert_array_equal(by_rejections([0.5, 0.009, 0.018], 0.05), [False, True, True])
    np.testing.assert_array_equal(by_rejections([0.5, 0.0095, 0.019], 0.05), [False] * 3)
    assert by_rejections([], 0.05).tolist() == []


# --------------------------------------------------------------------------- published values

PUBLISHED = [
    # folder, eps, scale, judge, published winning rate, (wins, humans tested) behind it,
    # published advantage probability (both published to 2 decimals)
    ("wax", 0.1, "categorical", "gemini_pro", 0.50, (4, 8), 0.74),
    ("wax", 0.1, "categorical", "gpt-4o", 0.50, (4, 8), 0.73),
    ("wax", 0.1, "categorical", "gemini_flash", 0.38, (3, 8), 0.69),
    ("wax", 0.1, "categorical", "llama-31", 0.00, (0, 8), 0.57),
    ("cebab_aspects", 0.1, "categorical", "gpt-4o", 0.90, (9, 10), 0.93),
    ("cebab_aspects", 0.1, "categorical", "gemini_pro", 0.90, (9, 10), 0.94),
    ("cebab_aspects", 0.1, "categorical", "mistral-v03", 0.10, (1, 10), 0.81),
    ("cebab_stars", 0.1, "numeric", "gpt-4o", 0.90, (9, 10), 0.90),
    ("cebab_stars", 0.1, "numeric", "mistral-v03", 0.50, (5, 10), 0.83),
    ("summeval", 0.2, "numeric", "gpt-4o", 0.00, (0, 3), 0.48),
    ("summeval", 0.2, "numeric", "mistral-v03", 0.00, (0, 3), 0.62),
]


@needs_data
@pytest.mark.parametrize(
    ("folder", "epsilon", "scale", "judge", "published", "rate", "advantage"), PUBLISHED
)
def test_published_values_on_the_shipped_matrices(
    folder, epsilon, scale, judge, published, rate, advantage
):
    # SummEval's published numbers pool its four dimensions (6,400 items, 3 humans):
    # the authors' notebook runs the test once on the whole file.
    matrix = load_alttest(DATA / folder)
    values = numeric_label_values(matrix.labels) if scale == "numeric" else None
    result = alt_test_verdict(
        matrix.human_labels.astype(np.int64),
        matrix.judge_labels.astype(np.int64),
        epsilon,
        scale=scale,
        label_values=values,
    )
    column = matrix.judges.index(judge)
    # Winning rate exactly as a fraction: the published value rounds wins / tested.
    assert (int(result.wins[column]), result.n_tested) == rate
    assert abs(result.winning_rate[column] - published) <= 0.005 + 1e-12
    assert abs(result.advantage_probability[column] - advantage) <= 0.005


@needs_data
def test_summeval_per_dimension_does_not_reproduce_the_published_zeros():
    # Per dimension (coherence), several judges win: the published 0.00s are pooled.
    matrix = load_alttest(DATA / "summeval", group_separator="__").subset("coherence")
    result = alternative_annotator_test(
        matrix.human_labels.astype(np.int64),
        matrix.judge_labels.astype(np.int64),
        0.2,
        scale="numeric",
    )
    assert result.wins.max() > 0


@needs_data
def test_advise_rows_carry_the_advantage_and_the_per_human_tests():
    matrix = load_alttest(DATA / "wax")
    rows = verdicts(
        matrix.human_labels.astype(np.int64),
        matrix.judge_labels.astype(np.int64),
        matrix.judges,
        rule=AuditRule(kind="alt_test", epsilon=0.1),
    )
    gemini_flash = rows[matrix.judges.index("gemini_flash")]
    assert (gemini_flash["wins"], gemini_flash["tested"]) == (3, 8)
    assert gemini_flash["omega"] == 3 / 8
    assert gemini_flash["decision"] == "reject"
    assert round(gemini_flash["advantage_probability"], 2) == 0.69
    assert sum(test["won"] for test in gemini_flash["alt_test"]) == 3
    assert all(test["tested"] for test in gemini_flash["alt_test"])


def test_numeric_scale_refuses_text_labels():
    with pytest.raises(ValueError, match="'Positive'"):
        numeric_label_values(("1", "Positive"))


# --------------------------------------------------------------------------- kind: real


def wax_alt_test_scenario(trials=8):
    return {
        "name": "wax_alt_test",
        "kind": "real",
        "data": {"format": "alttest", "path": str(DATA / "wax")},
        "rule": {"kind": "alt_test", "epsilon": 0.1},
        "trials": trials,
        "seed": 7,
        "sweep": {"design": ["bernoulli"], "coverage": [0.5, 1.0]},
    }


@needs_data
def test_a_real_run_with_alt_test_reports_the_advantage_probability():
    cube = simcore.run(wax_alt_test_scenario())
    matrix = load_alttest(DATA / "wax")
    rows = verdicts(
        matrix.human_labels.astype(np.int64),
        matrix.judge_labels.astype(np.int64),
        matrix.judges,
        rule=AuditRule(kind="alt_test", epsilon=0.1),
    )
    # The full-matrix reference is advise's verdict: winning rate, decision, advantage.
    for row in rows:
        judge = cube.sel(judge=row["judge"])
        assert float(judge["full_omega"]) == row["omega"]
        assert bool(judge["full_accept"]) == (row["decision"] == "accept")
        assert float(judge["full_advantage_probability"]) == pytest.approx(
            row["advantage_probability"], abs=1e-12
        )
    # Coverage 1 keeps every label: every trial is the full matrix.
    full = cube.sel(design="bernoulli", coverage=1.0)
    assert (full["n_wrong"] == 0).all() and float(full["effective_k"]) == 8
    np.testing.assert_allclose(
        full["advantage_probability"], cube["full_advantage_probability"], atol=2**-23
    )
    # Thinned to half, the advantage moves but stays a probability, with an SE.
    half = cube.sel(design="bernoulli", coverage=0.5)
    assert ((half["advantage_probability"] > 0) & (half["advantage_probability"] < 1)).all()
    assert (half["advantage_probability_se"] > 0).all()
    assert cube.attrs["decision_rule"].startswith("alternative annotator test")
    assert "advantage probability (alt_test)" in summary(cube)


@needs_data
def test_alt_test_counts_add_over_blocks_of_trials():
    study = STUDY
    scenario = study.parse(wax_alt_test_scenario(trials=6), "wax_alt_test.yaml")
    context = study.context(scenario)
    cell = study.cells(scenario, context)[0]
    whole = study.run_cell(scenario, context, cell, 0, 6)
    parts = add_counts(
        study.run_cell(scenario, context, cell, 0, 2), study.run_cell(scenario, context, cell, 2, 6)
    )
    for name in ("sum_advantage_probability", "n_humans_tested", "n_wrong", "n_untestable"):
        np.testing.assert_array_equal(whole[name], parts[name])


def test_real_runs_refuse_the_interval_rule_and_uneven_numeric_labels():
    with pytest.raises(ScenarioError, match="point rule or alt_test"):
        STUDY.parse({"kind": "real", "data": {"path": "x"}, "rule": {"kind": "interval"}}, "x.yaml")
    rule = Rule(kind="alt_test", scale="numeric")
    check_scale(rule, ("1", "2", "3"), "x.yaml")
    check_scale(rule, ("0", "0.5", "1"), "x.yaml")
    with pytest.raises(ScenarioError, match="equally spaced"):
        check_scale(rule, ("1", "2", "4"), "x.yaml")
    with pytest.raises(ScenarioError, match="'Positive'"):
        check_scale(rule, ("Negative", "Positive"), "x.yaml")


@needs_data
def test_advise_alt_test_report_shows_the_per_human_tests(tmp_path, capsys):
    out = tmp_path / "advice"
    argv = [
        "advise",
        str(DATA / "cebab_stars"),
        "--rule",
        "alt_test",
        "--scale",
        "numeric",
        "--eps",
        "0.1",
        "--audit",
        "mistral-v03",
        "--trials",
        "20",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "mistral-v03: winning rate 5/10 = 0.500, advantage probability 0.829" in printed
    report = (out / "report.md").read_text()
    assert "| mistral-v03 | 5/10 = 0.500 | 0.829 | accept |" in report
    assert "| judge | held-out human | items | p-value | BY decision | advantage |" in report
    rows = [line for line in report.splitlines() if line.startswith("| mistral-v03 | w")]
    assert len(rows) == 10
    assert sum(line.split(" | ")[4] == "win" for line in rows) == 5
    assert "minus the RMSE of the label values" in report
    assert "| judge | held-out human | d_k |" not in report  # the point rule's table


def test_advise_numeric_scale_on_text_labels_is_bad_input(tmp_path, capsys):
    if not DATA.is_dir():
        pytest.skip("../shared/data/alttest is absent")
    argv = ["advise", str(DATA / "cebab_aspects"), "--rule", "alt_test", "--scale", "numeric"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--trials", "20", "--quiet"]) == 2
    assert "--scale numeric" in capsys.readouterr().err
