"""Planning under a weighted coefficient: the delta-method recipe and ``simcore plan``.

The delta-method per-item variance of ``d = S_j - S_h`` equals the exact observed-agreement
recipe where ``d`` is linear, and the variance of ``d`` measured on simulated items (within
4 standard errors of a sample variance) for weighted and chance-corrected coefficients on
an adjacent-error channel; ``simcore plan`` plans under them and refuses a margin it cannot
turn into a judge accuracy.
"""

import json

import numpy as np
import pytest

from simcore.cli import main
from simcore.engine import draws as engine_draws
from simcore.engine.layout import BERNOULLI
from simcore.engine.rng import trial_keys
from simcore.model.generative import prevalence_vector, rater_confusions
from simcore.model.recipes import coefficient_recipe, recipe_variance
from simcore.model.weighted import rule_weighting, table_scores


@pytest.mark.parametrize(("n_labels", "adjacent"), [(2, None), (4, None), (5, 0.8)])
def test_the_delta_method_is_the_exact_recipe_for_observed_agreement(n_labels, adjacent):
    confusions = rater_confusions(2, n_labels, 0.8, 0.65, adjacent=adjacent)
    prevalence = prevalence_vector([0.5, *[0.5 / (n_labels - 1)] * (n_labels - 1)], n_labels)
    exact = recipe_variance(confusions, prevalence, judge=2)
    _, delta = coefficient_recipe(confusions, prevalence, "observed", None, judge=2)
    assert delta == pytest.approx(exact, abs=1e-8)


def pair_counts(first, second, n_labels):
    trials = first.shape[0]
    tables = np.zeros((trials, n_labels * n_labels))
    rows = np.repeat(np.arange(trials), first.shape[1])
    np.add.at(tables, (rows, (first * n_labels + second).ravel()), 1)
    return tables.reshape(trials, n_labels, n_labels)


@pytest.mark.parametrize(
    ("coefficient", "level", "weights"),
    [
        ("krippendorff_alpha", "ordinal", "identity"),
        ("krippendorff_alpha", "nominal", "identity"),
        ("cohen_kappa", "nominal", "quadratic"),
        ("gwet_ac2", "nominal", "linear"),
        ("observed", "nominal", "linear"),
    ],
)
def test_the_delta_method_variance_matches_simulated_items(coefficient, level, weights):
    n_labels, n_items, n_trials = 5, 300, 3000
    confusions = rater_confusions(2, n_labels, 0.7, 0.75, adjacent=0.8)
    prevalence = prevalence_vector(None, n_labels)
    cdf = np.cumsum(prevalence)
    cdf[-1] = 1.0
    keys = trial_keys(np.random.SeedSequence(23, spawn_key=(len(coefficient),)), 0, n_trials)
    labels, _ = engine_draws.draw(keys, n_items, 2, confusions, cdf, 1, 0.0, BERNOULLI, 1.0, 0)
    labels = labels.astype(np.int64)
    weighting = rule_weighting(coefficient, np.arange(n_labels, dtype=float), level, weights)
    judge = table_scores(
        pair_counts(labels[..., 2], labels[..., 0], n_labels), coefficient, weighting
    )
    human = table_scores(
        pair_counts(labels[..., 1], labels[..., 0], n_labels), coefficient, weighting
    )
    difference = judge - human
    measured = difference.var(ddof=1) * n_items
    mean, sigma2 = coefficient_recipe(confusions, prevalence, coefficient, weighting, judge=2)
    assert abs(measured - sigma2) < 4 * measured * np.sqrt(2 / (n_trials - 1))
    standard_error = np.sqrt(measured / n_items / n_trials)
    assert abs(difference.mean() - mean) < 4 * standard_error + 2 / n_items  # bias O(1/m)


def run_plan(capsys, *flags):
    code = main(["plan", *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plan_under_ordinal_alpha(capsys):
    flags = ["--n-labels", "5", "--p-human", "0.7", "--p-judge", "0.74", "--adjacent", "0.9"]
    flags += ["--coefficient", "krippendorff_alpha", "--level", "ordinal", "--items", "400"]
    code, out, _ = run_plan(capsys, *flags, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["question"]["level"] == "ordinal"
    answer = document["answer"]
    assert 0 < answer["m"] <= 400 and answer["margin"] > 0
    assert answer["recipe_items"] >= answer["m"]  # the recipe bounds one comparison's error
    code, out, _ = run_plan(capsys, *flags, "--quiet")
    assert "coefficient krippendorff_alpha (ordinal), adjacent 0.9" in out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--coefficient", "cohen_kappa"], "--coefficient cohen_kappa: the default --advantage 0"),
        (["--adjacent", "0.5", "--margin", "0.1"], "--adjacent: --margin 0.1 sets the judge"),
        (["--p-judge", "0.8", "--level", "ordinal"], "--level: belongs to krippendorff_alpha"),
    ],
)
def test_plan_refuses_what_it_cannot_plan(capsys, flags, message):
    code, _, err = run_plan(capsys, "--n-labels", "5", *flags)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
