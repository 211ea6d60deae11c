"""The analytic population reference of SPEC §6."""

import numpy as np
import pytest

import simcore
from simcore.model import pair_agreement, rater_accuracies
from simcore.rule import population_passes

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


@pytest.mark.parametrize("p_judge", [BAR - 0.01, BAR + 0.01])
def test_population_passes_flip_at_the_bar(p_judge):
    accuracies = rater_accuracies(0.85, [p_judge], 4)
    passes = population_passes(accuracies, 4, 2, 0.05, np.array([1.0, 0.1, 0.1, 0.1]))
    assert passes[0] == (4 if p_judge > BAR else 0)


def test_unequal_humans_weight_pool_members_by_expected_pairs():
    # Primary 0.95, secondaries 0.75; comparison 1 pools the primary (weight 0.2) and
    # two secondaries (weight 0.04 each). Judge 0.8 beats secondary 1 against that pool.
    accuracies = rater_accuracies([0.95, 0.75, 0.75, 0.75], [0.8], 4)
    coverage = np.array([1.0, 0.2, 0.2, 0.2])
    weights = np.array([0.2, 0.04, 0.04]) / 0.28
    pool = [0.95, 0.75, 0.75]
    judge = weights @ pair_agreement(0.8, np.array(pool), 2)
    human = weights @ pair_agreement(0.75, np.array(pool), 2)
    expected_secondary = judge - human + 0.0 >= 0
    passes = population_passes(accuracies, 4, 2, 0.0, coverage)
    # The primary's comparison: pool = three secondaries with equal weight.
    primary = pair_agreement(0.8, 0.75, 2) - pair_agreement(0.95, 0.75, 2) >= 0
    assert passes[0] == int(primary) + 3 * int(expected_secondary)


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
