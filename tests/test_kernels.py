"""Oracle tier: the numba kernels against the plain NumPy rule on identical draws."""

import numpy as np
import pytest

from simcore import kernels, rng
from simcore.designs import sample_mask
from simcore.model import prevalence_vector, rater_accuracies, sample_labels
from simcore.rule import count_passes

SHAPES = [
    # n_items, n_humans, n_labels, p_judge list, design, rho, m
    (30, 4, 2, [0.8], "bernoulli", 0.3, 0),
    (5, 2, 2, [0.6], "bernoulli", 0.5, 0),
    (40, 3, 3, [0.9, 0.5], "bernoulli", 0.1, 0),
    (25, 5, 4, [0.7], "exact_m", 0.0, 6),
    (12, 4, 2, [0.85, 0.6, 0.95], "exact_m", 0.0, 12),
    (50, 4, 2, [0.7], "bernoulli", 0.02, 0),  # many empty comparisons
]


def keys(count, seed=7):
    return rng.trial_keys(np.random.SeedSequence(seed, spawn_key=(1, 2, 3, 4)), 0, count)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("epsilon", [0.0, 0.05, 0.1])
def test_kernel_rule_equals_numpy_rule_on_numpy_draws(shape, epsilon):
    n_items, n_humans, n_labels, p_judge, design, rho, m = shape
    generator = np.random.default_rng(11)
    accuracies = rater_accuracies(0.8, p_judge, n_humans)
    _, labels = sample_labels(
        generator, 300, n_items, accuracies, prevalence_vector(None, n_labels)
    )
    mask = sample_mask(generator, design, 300, n_items, n_humans, rho=rho, m=m)
    sparse, dense, empty = kernels.evaluate(labels, mask, n_humans, n_labels, epsilon, 0)
    expected_sparse, expected_empty = count_passes(labels, mask, n_humans, epsilon)
    expected_dense, _ = count_passes(labels, np.ones_like(mask), n_humans, epsilon)
    np.testing.assert_array_equal(sparse, expected_sparse)
    np.testing.assert_array_equal(dense, expected_dense)
    np.testing.assert_array_equal(empty, expected_empty)


@pytest.mark.parametrize("shape", SHAPES)
def test_simulate_decides_what_it_draws(shape):
    n_items, n_humans, n_labels, p_judge, design, rho, m = shape
    accuracies = rater_accuracies(0.8, p_judge, n_humans)
    cdf = np.cumsum(prevalence_vector(None, n_labels))
    code = 0 if design == "bernoulli" else 1
    trial_keys = keys(200)
    sparse, dense, empty = kernels.simulate(
        trial_keys, n_items, n_humans, accuracies, cdf, code, rho, m, 0.05, 0
    )
    labels, mask = kernels.draw(trial_keys, n_items, n_humans, accuracies, cdf, code, rho, m)
    expected_sparse, expected_empty = count_passes(labels, mask, n_humans, 0.05)
    expected_dense, _ = count_passes(labels, np.ones_like(mask), n_humans, 0.05)
    np.testing.assert_array_equal(sparse, expected_sparse)
    np.testing.assert_array_equal(dense, expected_dense)
    np.testing.assert_array_equal(empty, expected_empty)
    assert mask[:, :, 0].all()
    assert labels.min() >= 0 and labels.max() < n_labels
    if design == "exact_m":
        np.testing.assert_array_equal(mask[:, :, 1:].sum(axis=1), m)


def test_trial_keys_extend_rather_than_replace():
    sequence = np.random.SeedSequence(3, spawn_key=(9,))
    full = rng.trial_keys(sequence, 0, 3 * rng.TRIAL_BLOCK + 17)
    np.testing.assert_array_equal(rng.trial_keys(sequence, 0, 300), full[:300])
    start, stop = rng.TRIAL_BLOCK - 5, 2 * rng.TRIAL_BLOCK + 3  # across block boundaries
    np.testing.assert_array_equal(rng.trial_keys(sequence, start, stop), full[start:stop])
    assert len(np.unique(full)) == len(full)
    other = rng.trial_keys(np.random.SeedSequence(4, spawn_key=(9,)), 0, 300)
    assert not np.intersect1d(other, full).size


def test_draws_do_not_depend_on_batching():
    accuracies = rater_accuracies(0.85, [0.7], 4)
    cdf = np.array([0.5, 1.0])
    trial_keys = keys(300)
    whole = kernels.simulate(trial_keys, 50, 4, accuracies, cdf, 0, 0.2, 0, 0.05, 0)
    parts = [
        kernels.simulate(trial_keys[a:b], 50, 4, accuracies, cdf, 0, 0.2, 0, 0.05, 0)
        for a, b in [(0, 1), (1, 130), (130, 300)]
    ]
    for position in range(3):
        np.testing.assert_array_equal(whole[position], np.concatenate([p[position] for p in parts]))


def test_uniform_and_below_cover_their_ranges():
    state = np.empty(4, dtype=np.uint64)
    rng.seed_state(np.uint64(12345), state)
    values = np.array([rng.uniform(state) for _ in range(20000)])
    assert values.min() >= 0.0 and values.max() < 1.0
    # Mean 1/2 with SE sqrt(1/12 / n).
    assert abs(values.mean() - 0.5) < 4 * np.sqrt(1 / 12 / len(values))
    picks = np.array([rng.below(state, 3) for _ in range(30000)])
    counts = np.bincount(picks, minlength=3)
    assert picks.min() == 0 and picks.max() == 2
    # Each of three values has probability 1/3, SE sqrt(p (1 - p) / n) in share.
    assert np.all(np.abs(counts / len(picks) - 1 / 3) < 4 * np.sqrt(2 / 9 / len(picks)))
