"""The analytic population reference (docs/explanation/model.md)."""

import numpy as np
import pytest

import simcore
from simcore.model.designs import pair_weights
from simcore.model.generative import pair_agreement, pair_tables, rater_confusions
from simcore.model.rule import population_passes

# L = 2, p_h = 0.85, eps = 0.05: margin = 0.7 p_j - 0.545, zero at p_j = 0.545 / 0.7.
BAR = 0.545 / 0.7


def margin(p_judge, p_human=0.85, n_labels=2, epsilon=0.05):
    return (
        pair_agreement(p_judge, p_human, n_labels)
        - pair_agreement(p_human, p_human, n_labels)
        + epsilon
    )


@pytest.mark.parametrize("p_judge", [0.6, 0.7, 0.77, 0.8, 0.95])
def test_margin_is_linear_in_the_judge_accuracy(p_judge):
    assert margin(p_judge) == pytest.approx(0.7 * p_judge - 0.545, abs=1e-12)


def passes(
    p_human, p_judge, weights, epsilon=0.05, coefficient="observed", n_labels=2, prevalence=None
):
    confusion = rater_confusions(4, n_labels, p_human, [p_judge])
    prevalence = np.full(n_labels, 1 / n_labels) if prevalence is None else prevalence
    return population_passes(pair_tables(confusion, prevalence), 4, weights, epsilon, coefficient)[
        0
    ]


@pytest.mark.parametrize("p_judge", [BAR - 0.01, BAR + 0.01])
def test_population_passes_flip_at_the_bar(p_judge):
    weights = pair_weights("bernoulli", 500, 4, rho=0.1)
    assert passes(0.85, p_judge, weights) == (4 if p_judge > BAR else 0)


def test_unequal_humans_weight_pool_members_by_expected_pairs():
    # Primary 0.95, secondaries 0.75, bernoulli rho = 0.2: comparison 1 pools the primary
    # (weight 0.2) and two secondaries (weight 0.04 each). With eps = 0 a judge of 0.8 beats
    # a secondary against that pool but not the primary against three secondaries.
    weights = pair_weights("bernoulli", 500, 4, rho=0.2)
    np.testing.assert_allclose(weights[1], [0.2, 0.0, 0.04, 0.04])
    pool = np.array([0.95, 0.75, 0.75])
    share = np.array([0.2, 0.04, 0.04]) / 0.28
    secondary = share @ pair_agreement(0.8, pool, 2) - share @ pair_agreement(0.75, pool, 2)
    primary = pair_agreement(0.8, 0.75, 2) - pair_agreement(0.95, 0.75, 2)
    assert secondary > 0 > primary
    assert passes([0.95, 0.75, 0.75, 0.75], 0.8, weights, epsilon=0.0) == 3


@pytest.mark.parametrize("coefficient", ["cohen_kappa", "krippendorff_alpha", "gwet_ac1"])
def test_chance_corrected_population_agrees_with_large_samples(coefficient):
    # The limit tables scored by the coefficient equal the coefficient of a huge sample's
    # table up to sampling error: compare the sign of the margin away from the bar.
    weights = pair_weights("exact_m", 1000, 4, m=100)
    skewed = np.array([0.9, 0.1])
    good = passes(0.85, 0.95, weights, coefficient=coefficient, prevalence=skewed)
    bad = passes(0.85, 0.6, weights, coefficient=coefficient, prevalence=skewed)
    assert good == 4 and bad == 0


def test_shared_panel_weights_secondaries_by_coverage():
    weights = pair_weights("shared_panel", 200, 3, m=50)
    np.testing.assert_allclose(weights, [[0, 0.25, 0.25], [0.25, 0, 0.25], [0.25, 0.25, 0]])


def test_population_reference_in_a_cell():
    base = {
        "model": {"n_items": 200, "n_humans": 4},
        "design": {"kind": "bernoulli", "rho": 0.25},
        "reference": "population",
        "trials": 500,
        "seed": 3,
        "sweep": {"p_judge": [0.7, 0.9]},
    }
    cube = simcore.run(base)
    np.testing.assert_array_equal(cube["n_ref_accept"].values, [0, 500])
    # Against the population reference, false approvals of the bad judge are its
    # sparse accepts, and false rejections of the good judge its sparse rejects.
    accepts = cube["omega_hist"].sel(omega=[2, 3, 4]).sum("omega").values
    np.testing.assert_array_equal(cube["n_false_accept"].values[0], accepts[0])
    np.testing.assert_array_equal(cube["n_false_reject"].values[1], 500 - accepts[1])
