"""The point rule with weighted coefficients: scores, kernels, engines and the ordinal channel.

The kernels' weighted score of a pair table equals the coefficient's authors' definition
for two raters (:func:`simcore.model.weighted.pair_table_score`, itself checked against the
``krippendorff`` package in test_weighted_agreement) and the ``krippendorff`` package
directly on the pairs; with identity weights it equals the nominal score. The weighted rule
inside the engines decides, counts and scores exactly what a NumPy oracle on the same
draws does; the items and counts engines agree within 4 SEs; the adjacent-error channel
draws what it defines (chi-square); the scenario layer refuses misplaced weights.
"""

import itertools

import krippendorff
import numpy as np
import pytest
from scipy import stats

import simcore
from simcore.engine import draws as engine_draws
from simcore.engine.coefficients import COEFFICIENTS, coefficient_code, table_score
from simcore.engine.decide import decide_rows, rule_scratch, trial_outputs
from simcore.engine.layout import (
    BERNOULLI,
    EMPTY,
    POOL_DENSE,
    POOL_SPARSE,
)
from simcore.engine.rng import trial_keys
from simcore.engine.weighted_rule import evaluate_masks_weighted
from simcore.engine.weighted_scores import weighted_score, weighting_of
from simcore.model import weighted
from simcore.model.decision_rule import Rule
from simcore.model.generative import adjacent_confusion, prevalence_vector, rater_confusions
from simcore.model.rule import comparison_tables
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic import cell as synthetic_cell
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters
from simcore.studies.synthetic.scenario import scenario_from_dict

WEIGHTINGS = [
    ("krippendorff_alpha", "ordinal", "identity"),
    ("krippendorff_alpha", "interval", "identity"),
    ("krippendorff_alpha", "ratio", "identity"),
    ("cohen_kappa", "nominal", "linear"),
    ("cohen_kappa", "nominal", "quadratic"),
    ("gwet_ac2", "nominal", "linear"),
    ("gwet_ac2", "nominal", "quadratic"),
    ("observed", "nominal", "linear"),
    ("observed", "nominal", "quadratic"),
]


def kernel_weighting(coefficient, values, level, weights):
    return weighted.kernel_weighting(coefficient, values, level, weights)


def kernel_score(table, coefficient, values, level, weights):
    weighting = kernel_weighting(coefficient, values, level, weights)
    rows = table.sum(axis=1).astype(float)
    cols = table.sum(axis=0).astype(float)
    ranks = np.zeros(len(values))
    return weighted_score(table, rows, cols, weighting, coefficient_code(coefficient), ranks)


def oracle(table, coefficient, values, level, weights):
    score = weighted.pair_table_score(table, coefficient, values, level, weights)
    return 0.0 if np.isnan(score) else score


def random_table(generator, n_labels, n_pairs):
    lean = generator.random((n_labels, n_labels)) + 3 * np.eye(n_labels)
    flat = generator.multinomial(n_pairs, (lean / lean.sum()).ravel())
    return flat.reshape(n_labels, n_labels).astype(np.int64)


@pytest.mark.parametrize(("coefficient", "level", "weights"), WEIGHTINGS)
def test_weighted_score_equals_the_two_rater_definitions(coefficient, level, weights):
    generator = np.random.default_rng(7)
    checked = 0
    for n_labels, n_pairs in itertools.product([2, 3, 5, 10], [1, 3, 40, 400]):
        for values in (np.arange(n_labels, dtype=float), np.sort(generator.random(n_labels)) * 9):
            table = random_table(generator, n_labels, n_pairs)
            score, degenerate = kernel_score(table, coefficient, values, level, weights)
            expected = oracle(table, coefficient, values, level, weights)
            assert score == pytest.approx(expected, abs=1e-10)
            assert degenerate == bool(
                np.isnan(weighted.pair_table_score(table, coefficient, values, level, weights))
            )
            checked += 1
    assert checked == 32


@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_weighted_alpha_of_the_pairs_equals_the_krippendorff_package(level):
    generator = np.random.default_rng(3)
    for n_labels in (2, 4, 7):
        values = np.arange(1, n_labels + 1, dtype=float)
        table = random_table(generator, n_labels, 60)
        rows, cols = np.nonzero(table)
        pairs = np.stack([np.repeat(rows, table[rows, cols]), np.repeat(cols, table[rows, cols])])
        expected = krippendorff.alpha(
            reliability_data=values[pairs], level_of_measurement=level, value_domain=list(values)
        )
        score, _ = kernel_score(table, "krippendorff_alpha", values, level, "identity")
        assert score == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_identity_weights_give_the_nominal_score(coefficient):
    generator = np.random.default_rng(11)
    for n_labels in (2, 3, 6):
        table = random_table(generator, n_labels, 50)
        weighting = weighting_of(np.eye(n_labels))
        rows, cols = table.sum(axis=1).astype(float), table.sum(axis=0).astype(float)
        code = coefficient_code(coefficient)
        score, _ = weighted_score(table, rows, cols, weighting, code, np.zeros(n_labels))
        assert score == pytest.approx(table_score(table, code)[0], abs=1e-12)


def test_hand_computed_tables():
    """Two raters on a 3-point scale; quadratic weights 1, 0.75, 0 by distance 0, 1, 2."""
    table = np.array([[2, 1, 0], [0, 1, 1], [0, 0, 1]], dtype=np.int64)
    values = np.arange(3.0)
    # observed: (2 + 1 + 1 + 0.75 * 2) / 6; kappa's chance: rows (3, 2, 1), cols (2, 2, 2)
    observed = (4 + 0.75 * 2) / 6
    assert kernel_score(table, "observed", values, "nominal", "quadratic")[0] == pytest.approx(
        observed
    )
    weights = np.array([[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]])
    chance = np.array([3, 2, 1]) @ weights @ np.array([2, 2, 2]) / 36
    kappa = (observed - chance) / (1 - chance)
    assert kernel_score(table, "cohen_kappa", values, "nominal", "quadratic")[0] == pytest.approx(
        kappa
    )
    # ordinal alpha: pooled counts (5, 4, 3) of 12 values, mid-ranks 2.5, 7, 10.5
    ranks = np.array([2.5, 7.0, 10.5])
    metric = (ranks[:, None] - ranks[None, :]) ** 2
    pooled = np.array([5, 4, 3])
    alpha = 1 - ((table * metric).sum() / 6) / (pooled @ metric @ pooled / (12 * 11))
    score = kernel_score(table, "krippendorff_alpha", values, "ordinal", "identity")[0]
    assert score == pytest.approx(alpha)


@pytest.mark.parametrize(("coefficient", "level", "weights"), WEIGHTINGS)
def test_vectorised_scores_equal_the_definitions(coefficient, level, weights):
    generator = np.random.default_rng(5)
    values = np.arange(5.0)
    tables = np.stack([random_table(generator, 5, n) for n in (0, 2, 30, 300)])
    scores = weighted.table_scores(
        tables, coefficient, weighted.rule_weighting(coefficient, values, level, weights)
    )
    expected = [oracle(table, coefficient, values, level, weights) for table in tables]
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-10)


SHAPES = [
    # trials, items, humans, judges, labels, coverage
    (4, 30, 4, 1, 5, 0.5),
    (3, 12, 5, 2, 3, 0.3),  # sparse: empty comparisons
    (3, 25, 3, 2, 7, 0.9),
    (2, 40, 6, 1, 2, 0.6),
]


def oracle_trial(labels, mask, n_humans, n_labels, epsilon, weighting, min_pairs):
    coefficient, level, weights = weighting
    values = np.arange(n_labels, dtype=float)
    judge_tables, human_tables, pool = (
        a[0] for a in comparison_tables(labels[None], mask[None], n_humans, n_labels)
    )
    n_judges = judge_tables.shape[0]
    passes, thin, empty, pairs = np.zeros(n_judges, int), 0, 0, human_tables.sum(axis=(1, 2))
    ranking = np.zeros(n_judges)
    made = pairs >= max(min_pairs, 1)
    for k in range(n_humans):
        empty += pairs[k] == 0
        if pairs[k] < min_pairs:
            thin += 1
            continue
        human = oracle(human_tables[k], coefficient, values, level, weights)
        for j in range(n_judges):
            judge = oracle(judge_tables[j, k], coefficient, values, level, weights)
            passes[j] += pairs[k] == 0 or judge - human + epsilon >= -1e-12
            if made[k]:
                ranking[j] += judge / made.sum()
    return passes, thin, empty, oracle(pool, coefficient, values, level, weights), ranking


def run_decide_rows(labels, mask, n_humans, n_labels, rule, weighting):
    n_trials, _, n_raters = labels.shape
    outputs = TrialOutputs(*trial_outputs(n_trials, n_humans, n_raters - n_humans))
    scratch = rule_scratch(n_humans, n_raters - n_humans, n_labels, weighting)
    for t in range(n_trials):
        weights = np.ones(labels.shape[1], dtype=np.int64)
        rows = (labels[t], weights)
        decide_rows(labels[t], mask[t], weights, rows, n_humans, rule, scratch, t, tuple(outputs))
    return outputs


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("min_pairs", [0, 4])
def test_weighted_rule_equals_the_numpy_oracle(shape, weighting, min_pairs):
    n_trials, n_items, n_humans, n_judges, n_labels, coverage = shape
    generator = np.random.default_rng(n_items + n_labels)
    truth = generator.integers(0, n_labels, size=(n_trials, n_items, 1))
    noise = generator.integers(0, n_labels, size=(n_trials, n_items, n_humans + n_judges))
    labels = np.where(generator.random(noise.shape) < 0.6, truth, noise).astype(np.int16)
    mask = generator.random((n_trials, n_items, n_humans)) < coverage
    coefficient, level, weights = weighting
    config = Rule(coefficient=coefficient, level=level, weights=weights, min_pairs=min_pairs)
    rule = rule_parameters(config)
    kernel = kernel_weighting(coefficient, np.arange(n_labels, dtype=float), level, weights)
    outputs = run_decide_rows(labels, mask, n_humans, n_labels, rule, kernel)
    full = np.ones_like(mask)
    for t in range(n_trials):
        passes, thin, empty, pool, ranking = oracle_trial(
            labels[t], mask[t], n_humans, n_labels, 0.05, weighting, min_pairs
        )
        np.testing.assert_array_equal(outputs.favour[t], passes)
        assert outputs.tested[t] == n_humans - thin
        assert outputs.counters[t, EMPTY] == empty
        assert outputs.values[t, POOL_SPARSE] == pytest.approx(pool, abs=1e-10)
        if n_judges > 1:
            np.testing.assert_allclose(outputs.ranking[t, 0], ranking, rtol=0, atol=1e-10)
        dense = oracle_trial(labels[t], full[t], n_humans, n_labels, 0.05, weighting, min_pairs)
        np.testing.assert_array_equal(outputs.reference_favour[t], dense[0])
        assert outputs.values[t, POOL_DENSE] == pytest.approx(dense[3], abs=1e-10)
    masks = mask.reshape(n_trials, n_items, n_humans)
    rule_values = (0.05, coefficient_code(coefficient), min_pairs)
    passes, _, pool, _, tested = evaluate_masks_weighted(
        labels[0], masks, n_humans, n_labels, rule_values, kernel
    )
    for t in range(n_trials):
        expected = oracle_trial(labels[0], mask[t], n_humans, n_labels, 0.05, weighting, min_pairs)
        np.testing.assert_array_equal(passes[t], expected[0])
        assert pool[t] == pytest.approx(expected[3], abs=1e-10)
        assert tested[t] == n_humans - expected[1]


def test_an_unweighted_cell_hands_the_kernels_no_weighting():
    def cell(**rule):
        raw = {"model": {"n_labels": 5}, "design": {"rho": 0.1}, "rule": rule}
        (only,) = scenario_from_dict(raw).cells()
        return only

    assert synthetic_cell.kernel_weighting(cell(coefficient="krippendorff_alpha")) is None
    weights, order, ordinal = synthetic_cell.kernel_weighting(
        cell(coefficient="cohen_kappa", weights="linear")
    )
    assert weights.shape == (25,) and order.tolist() == [0, 1, 2, 3, 4] and ordinal == 0
    _, _, ordinal = synthetic_cell.kernel_weighting(
        cell(coefficient="krippendorff_alpha", level="ordinal")
    )
    assert ordinal == 1


def weighted_scenario(engine, **rule):
    return {
        "model": {"n_items": 240, "n_humans": 4, "n_labels": 5, "p_human": 0.75, "adjacent": 0.9},
        "design": {"kind": "bernoulli", "rho": 0.15},
        "rule": rule,
        "sweep": {"p_judge": [0.6, 0.7]},
        "engine": engine,
        "trials": 2000,
        "seed": 4,
    }


@pytest.mark.parametrize(
    "rule",
    [
        {"coefficient": "krippendorff_alpha", "level": "ordinal"},
        {"coefficient": "cohen_kappa", "weights": "quadratic"},
    ],
)
def test_items_and_counts_engines_agree_within_four_standard_errors(rule):
    items = simcore.run(weighted_scenario("items", **rule))
    counts = simcore.run(weighted_scenario("counts", **rule))
    assert counts["n_trials_counts_engine"].values.min() == 2000
    share_items = items["n_accept"].values / 2000
    share_counts = counts["n_accept"].values / 2000
    pooled = (share_items + share_counts) / 2
    se = np.sqrt(2 * pooled * (1 - pooled) / 2000)
    assert np.all(np.abs(share_items - share_counts) <= 4 * se)
    assert (0.05 < pooled).all() and (pooled < 0.95).all()  # the comparison can fail


def test_auto_takes_no_bitset_engine_for_a_weighted_rule_and_bitset_is_refused():
    cube = simcore.run(weighted_scenario("auto", coefficient="gwet_ac2", weights="linear"))
    assert cube["n_trials_bitset_engine"].values.sum() == 0
    with pytest.raises(ScenarioError, match="engine"):
        simcore.run(weighted_scenario("bitset", coefficient="gwet_ac2", weights="linear"))


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"coefficient": "cohen_kappa", "level": "ordinal"}, "rule.level: belongs to"),
        ({"coefficient": "krippendorff_alpha", "weights": "linear"}, "rule.weights: belongs"),
        (
            {"kind": "interval", "coefficient": "observed", "weights": "linear"},
            "a weighted coefficient runs in the point rule or the alt_test",
        ),
        ({"coefficient": "krippendorff_alpha", "level": "ratio"}, "ratio reads the labels"),
    ],
)
def test_misplaced_weights_are_refused(rule, message):
    with pytest.raises(ScenarioError, match=message):
        simcore.run(weighted_scenario("auto", **rule))


def test_a_weighted_coefficient_on_a_large_label_space_is_refused():
    scenario = weighted_scenario("auto", coefficient="krippendorff_alpha", level="ordinal")
    scenario["model"]["n_labels"] = 129
    with pytest.raises(ScenarioError, match="model.n_labels: a weighted coefficient keeps"):
        simcore.run(scenario)
    scenario["model"]["n_labels"] = 128  # the largest it takes: validated, not run
    assert len(list(scenario_from_dict(scenario).cells())) == 2


def test_margin_with_an_adjacent_channel_is_refused():
    scenario = weighted_scenario("auto", coefficient="observed")
    scenario["sweep"] = {}
    scenario["model"]["margin"] = 0.02
    with pytest.raises(ScenarioError, match="model.margin: solves p_judge"):
        simcore.run(scenario)


def test_scenarios_without_the_new_keys_write_the_same_text():
    raw = {"model": {"n_labels": 3}, "design": {"rho": 0.1}, "rule": {"coefficient": "cohen_kappa"}}
    scenario = scenario_from_dict(raw)
    text = scenario.to_dict()
    assert "adjacent" not in text["model"]
    assert "level" not in text["rule"] and "weights" not in text["rule"]


@pytest.mark.parametrize("n_labels", [2, 3, 5])
@pytest.mark.parametrize("adjacent", [0.0, 0.8, 1.0])
def test_adjacent_channel_rows_follow_their_definition(n_labels, adjacent):
    matrix = adjacent_confusion(0.7, n_labels, adjacent)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.diag(matrix), 0.7)
    for label in range(n_labels):
        near = [b for b in (label - 1, label + 1) if 0 <= b < n_labels]
        far = [b for b in range(n_labels) if b != label and b not in near]
        share = adjacent if far else 1.0
        assert matrix[label, near].sum() == pytest.approx(0.3 * share)


def test_adjacent_channel_draws_pass_a_chi_square_check():
    n_items, n_humans, n_labels, trials = 400, 2, 5, 60
    confusion = rater_confusions(n_humans, n_labels, 0.6, 0.5, adjacent=0.8)
    cdf = np.cumsum(prevalence_vector(None, n_labels))
    cdf[-1] = 1.0
    keys = trial_keys(np.random.SeedSequence(9, spawn_key=(1, 2, 3, 4)), 0, trials)
    labels, _ = engine_draws.draw(
        keys, n_items, n_humans, confusion, cdf, 1, 0.0, BERNOULLI, 1.0, 0
    )
    # the judge against human 0 (accuracy 0.6): the joint law of the two reports
    joint = np.einsum("y,ya,yb->ab", np.full(n_labels, 1 / n_labels), confusion[0], confusion[2])
    observed = np.zeros((n_labels, n_labels))
    np.add.at(observed, (labels[..., 0].ravel(), labels[..., 2].ravel()), 1)
    expected = joint.ravel() * observed.sum()
    statistic = ((observed.ravel() - expected) ** 2 / expected).sum()
    assert stats.chi2.sf(statistic, n_labels * n_labels - 1) > 1e-3
    nominal = rater_confusions(n_humans, n_labels, 0.6, 0.5)
    uniform = np.einsum("y,ya,yb->ab", np.full(n_labels, 1 / n_labels), nominal[0], nominal[2])
    wrong = uniform.ravel() * observed.sum()
    assert stats.chi2.sf(((observed.ravel() - wrong) ** 2 / wrong).sum(), 24) < 1e-6


def test_the_weighted_rule_is_a_kernel_variant_of_its_own():
    from simcore.engine import warm

    raw = weighted_scenario("items", coefficient="krippendorff_alpha")
    raw["sweep"] = {"level": ["nominal", "ordinal"], "engine": ["items", "counts"]}
    variants = [cell.kernel_variant for cell in scenario_from_dict(raw).cells()]
    assert variants == ["items", "counts", "items:weighted", "counts:weighted"]
    assert set(variants) <= set(warm.COMPILE_SECONDS)
    simcore.run({**raw, "trials": 3})
    assert warm.is_compiled("items:weighted") and warm.is_compiled("counts:weighted")
    assert warm._matches(("a", "omitted(default=None)"), (False,))
    assert not warm._matches(("a", "UniTuple(int64, 2)"), (False,))
