"""The alternative annotator test on a rating scale: each item scored by its mean agreement
weight with the other humans (``scale: weighted``), in the NumPy test, the kernels, the
synthetic and real-data runs and ``advise``."""

import dataclasses
import json

import numpy as np
import pytest
from scenario_files import REPO
from test_advise_coefficients import ratings_frame

import simcore
from simcore.advisor.risk.posterior import _decisions
from simcore.advisor.settings import AuditRule
from simcore.advisor.verdict import DECISIONS, alt_test_item_terms, verdicts
from simcore.cli import main
from simcore.engine import alt_test as engine_alt_test
from simcore.model.alt_test_reference import alternative_annotator_test, item_scores
from simcore.model.weighted import agreement_weights, scoring_of
from simcore.realdata.matrix import load_alttest
from simcore.studies.config import ScenarioError

DATA = REPO.parent / "shared" / "data" / "alttest"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/alttest is absent")


def sparse_ratings(seed, n_items=160, n_humans=5, n_judges=2, n_labels=5, coverage=0.6):
    """Humans and judges near a latent rating; each human labels a share of the items."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, n_items)
    noise = rng.integers(-1, 2, (n_items, n_humans + n_judges)) * (
        rng.random((n_items, n_humans + n_judges)) < 0.4
    )
    labels = np.clip(truth[:, None] + noise, 0, n_labels - 1)
    humans = np.where(rng.random((n_items, n_humans)) < coverage, labels[:, :n_humans], -1)
    humans[:, 0] = labels[:, 0]  # a primary on every item
    return humans, labels[:, n_humans:]


def same_result(first, second):
    np.testing.assert_array_equal(first.items, second.items)
    np.testing.assert_array_equal(first.won, second.won)
    np.testing.assert_allclose(first.pvalues, second.pvalues, rtol=1e-12, atol=0, equal_nan=True)
    np.testing.assert_allclose(first.advantage, second.advantage, rtol=0, atol=0, equal_nan=True)


# --------------------------------------------------------------------------- the NumPy test


def test_an_item_scores_its_mean_agreement_weight_by_hand():
    # Item: humans say 0, 2, 4 (human 0 held out); linear weights on 0..4: 1 - |a - b| / 4.
    humans = np.array([[0, 2, 4]])
    judge = np.array([[3]])
    weights = agreement_weights(np.arange(5.0), "linear")
    human, judged = item_scores(humans, judge, 0, "weighted", similarity=weights)
    assert human[0] == pytest.approx((0.5 + 0.0) / 2)  # 0 against 2 and 4
    assert judged[0, 0] == pytest.approx((0.75 + 0.75) / 2)  # 3 against 2 and 4


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_identity_weights_give_the_categorical_test(seed):
    humans, judges = sparse_ratings(seed)
    categorical = alternative_annotator_test(humans, judges, 0.1, 2, 30)
    weighted = alternative_annotator_test(
        humans, judges, 0.1, 2, 30, scale="weighted", similarity=np.eye(5)
    )
    same_result(categorical, weighted)


@pytest.mark.parametrize("n_labels", [2, 3, 5])
def test_quadratic_weights_give_the_numeric_test(n_labels):
    # s = 1 - MSE / (L - 1)^2 orders items as -RMSE does; with L - 1 a power of two the
    # weights are exact in binary, so ties are ties in both.
    humans, judges = sparse_ratings(n_labels, n_labels=n_labels)
    numeric = alternative_annotator_test(humans, judges, 0.1, 2, 30, scale="numeric")
    weights = agreement_weights(np.arange(float(n_labels)), "quadratic")
    weighted = alternative_annotator_test(
        humans, judges, 0.1, 2, 30, scale="weighted", similarity=weights
    )
    same_result(numeric, weighted)
    assert numeric.n_tested == 5


def test_linear_weights_move_the_test_on_a_rating_scale():
    humans, judges = sparse_ratings(5)
    categorical = alternative_annotator_test(humans, judges, 0.1, 2, 30)
    weights = agreement_weights(np.arange(5.0), "linear")
    linear = alternative_annotator_test(
        humans, judges, 0.1, 2, 30, scale="weighted", similarity=weights
    )
    assert not np.allclose(categorical.advantage, linear.advantage)


def test_the_weighted_scale_and_only_it_takes_weights():
    humans, judges = sparse_ratings(1)
    with pytest.raises(ValueError, match="similarity"):
        alternative_annotator_test(humans, judges, 0.1, scale="weighted")
    with pytest.raises(ValueError, match="similarity"):
        alternative_annotator_test(humans, judges, 0.1, similarity=np.eye(5))


# --------------------------------------------------------------------------- the kernels


def kernel_result(humans, judges, scale, terms):
    labels = np.concatenate([np.maximum(humans, 0), judges], axis=1).astype(np.int16)
    wins, tested, skipped, pvalues = engine_alt_test.alternative_annotator_test(
        labels, humans >= 0, humans.shape[1], 0.1, 2, 30, 0.05, scale == "numeric", terms
    )
    return wins, tested, skipped, pvalues


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
@pytest.mark.parametrize("n_labels", [2, 3, 4, 6, 7])
def test_the_kernel_equals_the_numpy_test_under_weights(weights, n_labels):
    humans, judges = sparse_ratings(10 + n_labels, n_labels=n_labels, n_judges=3)
    matrix = agreement_weights(np.arange(float(n_labels)), weights)
    expected = alternative_annotator_test(
        humans, judges, 0.1, 2, 30, scale="weighted", similarity=matrix
    )
    wins, tested, skipped, pvalues = kernel_result(humans, judges, "weighted", matrix)
    assert tested == expected.n_tested
    np.testing.assert_array_equal(wins, expected.wins)
    np.testing.assert_array_equal(skipped == 0, expected.tested)
    np.testing.assert_allclose(pvalues, expected.pvalues, rtol=1e-10, equal_nan=True)


def test_the_kernel_scores_unequally_spaced_values_by_their_rmse():
    humans, judges = sparse_ratings(8, n_labels=4)
    values = np.array([0.0, 1.0, 4.0, 5.0])
    expected = alternative_annotator_test(
        humans, judges, 0.1, 2, 30, scale="numeric", label_values=values
    )
    numeric, terms = alt_test_item_terms("numeric", values)
    assert numeric
    wins, tested, _, pvalues = kernel_result(humans, judges, "numeric", terms)
    np.testing.assert_array_equal(wins, expected.wins)
    np.testing.assert_allclose(pvalues, expected.pvalues, rtol=1e-10, equal_nan=True)
    codes = alternative_annotator_test(humans, judges, 0.1, 2, 30, scale="numeric")
    assert not np.allclose(codes.pvalues, expected.pvalues, equal_nan=True)


# --------------------------------------------------------------------------- synthetic runs


def alt_test_scenario(engine, **rule):
    return {
        "model": {"n_items": 300, "n_humans": 5, "n_labels": 5, "p_human": 0.75, "adjacent": 0.9},
        "design": {"kind": "bernoulli", "rho": 0.5},
        "rule": {"kind": "alt_test", "epsilon": 0.1, **rule},
        "sweep": {"p_judge": [0.7, 0.8]},
        "engine": engine,
        "trials": 600,
        "seed": 4,
    }


def test_quadratic_weights_decide_every_synthetic_trial_as_the_numeric_scale():
    numeric = simcore.run(alt_test_scenario("counts", scale="numeric"))
    quadratic = simcore.run(alt_test_scenario("counts", scale="weighted", weights="quadratic"))
    np.testing.assert_array_equal(numeric["n_accept"], quadratic["n_accept"])
    assert (quadratic["n_trials_counts_engine"] == 600).all()


def test_items_and_counts_engines_agree_under_linear_weights():
    rule = {"scale": "weighted", "weights": "linear"}
    items = simcore.run(alt_test_scenario("items", **rule))
    counts = simcore.run(alt_test_scenario("counts", **rule))
    share_items = items["n_accept"].values / 600
    share_counts = counts["n_accept"].values / 600
    pooled = (share_items + share_counts) / 2
    se = np.sqrt(2 * pooled * (1 - pooled) / 600)
    assert np.all(np.abs(share_items - share_counts) <= 4 * se)
    assert (0.05 < pooled).all() and (pooled < 0.95).all()  # the comparison can fail
    auto = simcore.run(alt_test_scenario("auto", **rule) | {"trials": 40})
    assert auto["n_trials_bitset_engine"].values.sum() == 0


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"scale": "weighted"}, "rule.weights: the alt_test's weighted scale"),
        ({"weights": "linear"}, "rule.scale: rule.weights: linear under the alt_test"),
        (
            {"scale": "weighted", "weights": "linear", "level": "ordinal"},
            "rule.level: the alt_test has no level",
        ),
    ],
)
def test_a_scale_and_weights_that_do_not_go_together_are_refused(rule, message):
    with pytest.raises(ScenarioError, match=message):
        simcore.run(alt_test_scenario("auto", **rule))


# --------------------------------------------------------------------------- real data


@needs_data
def test_a_real_run_on_the_weighted_scale_is_the_numpy_test_on_the_full_matrix():
    scenario = {
        "name": "stars_weighted",
        "kind": "real",
        "data": {"format": "alttest", "path": str(DATA / "cebab_stars")},
        "rule": {"kind": "alt_test", "epsilon": 0.1, "scale": "weighted", "weights": "linear"},
        "trials": 4,
        "seed": 7,
        "sweep": {"design": ["bernoulli"], "coverage": [1.0]},
    }
    cube = simcore.run(scenario)
    matrix = load_alttest(DATA / "cebab_stars")
    values = np.array([float(label) for label in matrix.labels])
    expected = alternative_annotator_test(
        matrix.human_labels.astype(np.int64),
        matrix.judge_labels.astype(np.int64),
        0.1,
        scale="weighted",
        similarity=agreement_weights(values, "linear"),
    )
    np.testing.assert_array_equal(cube["full_omega"].values, expected.winning_rate)
    np.testing.assert_allclose(
        cube["full_advantage_probability"], expected.advantage_probability, atol=1e-12
    )
    assert (cube["n_wrong"] == 0).all()  # coverage 1 keeps every label


# --------------------------------------------------------------------------- advise


def rating_frame(seed=4):
    humans, judges = sparse_ratings(seed, n_items=200, n_humans=4)
    return ratings_frame(humans, judges), humans, judges


def test_advise_on_the_weighted_scale_reports_the_numpy_test(tmp_path, capsys):
    frame, humans, judges = rating_frame()
    advice = simcore.advise(
        frame, judges="close,far", rule="alt_test", scale="weighted", weights="linear", trials=40
    )
    expected = alternative_annotator_test(
        humans,
        judges,
        0.05,
        scale="weighted",
        similarity=agreement_weights(np.arange(1.0, 6.0), "linear"),
    )
    for column, row in enumerate(advice.verdicts):
        assert row["omega"] == expected.winning_rate[column]
        assert row["advantage_probability"] == pytest.approx(
            expected.advantage_probability[column], abs=1e-12
        )
        assert (row["scale"], row["weights"]) == ("weighted", "linear")
    assert "mean agreement weight (linear weights)" in advice.to_markdown()
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    argv = ["advise", str(path), "--judges", "close,far", "--rule", "alt_test"]
    argv += ["--scale", "weighted", "--weights", "linear", "--trials", "40", "--json"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    document = json.loads(capsys.readouterr().out)
    first = document["groups"]["all"]["verdicts"][0]
    assert (first["scale"], first["weights"], first["omega"]) == (
        "weighted",
        "linear",
        advice.verdicts[0]["omega"],
    )


def test_the_risks_draws_are_decided_on_the_verdicts_scale():
    # Each simulated matrix's decision is the NumPy test's on the same scale.
    rng = np.random.default_rng(3)
    n_trials, n_items, n_humans = 4, 120, 4
    labels = rng.integers(0, 5, (n_trials, n_items, n_humans + 1)).astype(np.int16)
    labels[..., -1] = np.clip(labels[..., 0] + rng.integers(-1, 2, (n_trials, n_items)), 0, 4)
    mask = rng.random((n_trials, n_items, n_humans)) < 0.7
    mask[..., 0] = True
    values = np.arange(1.0, 6.0)
    scoring = scoring_of("observed", values, "nominal", "linear")
    for scale, kwargs in (
        ("weighted", {"similarity": scoring.weighting[1]}),
        ("numeric", {"label_values": values**2}),
    ):
        rule = AuditRule(kind="alt_test", epsilon=0.1, scale=scale, scoring=scoring)
        drawn = dataclasses.replace(rule, label_values=values**2)
        assert drawn.item_terms is not None
        sparse, _ = _decisions(labels, mask, n_humans, 5, drawn)
        for t in range(n_trials):
            humans = np.where(mask[t], labels[t, :, :n_humans], -1).astype(np.int64)
            rows = verdicts(
                humans,
                labels[t, :, n_humans:].astype(np.int64),
                ["judge"],
                dataclasses.replace(rule, label_values=kwargs.get("label_values")),
            )
            assert DECISIONS[int(sparse[t])] == rows[0]["decision"]
