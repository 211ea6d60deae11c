"""Statistical tier: the kernel's draws follow the generative model of SPEC §2 and §3."""

import numpy as np

from simcore import kernels, rng
from simcore.model import pair_agreement, rater_accuracies


def draw(n_trials, n_items, n_humans, accuracies, prevalence, design=0, rho=0.3, m=0):
    keys = rng.trial_keys(np.random.SeedSequence(2024, spawn_key=(5,)), 0, n_trials)
    cdf = np.cumsum(prevalence)
    cdf[-1] = 1.0
    return kernels.draw(keys, n_items, n_humans, np.asarray(accuracies, float), cdf, design, rho, m)


def within(estimate, truth, n, sigma=4.0):
    se = np.sqrt(truth * (1 - truth) / n)
    return np.all(np.abs(estimate - truth) <= sigma * se)


def test_pairwise_agreement_matches_symmetric_noise():
    accuracies = rater_accuracies([0.9, 0.8, 0.7], [0.6], 3)
    labels, _ = draw(400, 100, 3, accuracies, np.array([0.2, 0.5, 0.3]))
    n = labels.shape[0] * labels.shape[1]
    for a in range(4):
        for b in range(a + 1, 4):
            observed = (labels[..., a] == labels[..., b]).mean()
            truth = pair_agreement(accuracies[a], accuracies[b], 3)
            assert within(observed, truth, n), (a, b, observed, truth)


def test_prevalence_and_wrong_labels_are_uniform_among_the_others():
    # With a perfect rater (accuracy 1) the column is the truth: its shares are the
    # prevalence. A rater of accuracy 0 never reports the truth and spreads uniformly.
    prevalence = np.array([0.7, 0.2, 0.1])
    labels, _ = draw(500, 100, 2, [1.0, 0.0, 0.5], prevalence)
    truth = labels[..., 0].ravel()
    n = truth.size
    assert within(np.bincount(truth, minlength=3) / n, prevalence, n)
    wrong = labels[..., 1].ravel()
    assert not (wrong == truth).any()
    offset = (wrong - truth) % 3
    assert within(np.bincount(offset, minlength=3)[1:] / n, np.array([0.5, 0.5]), n)


def test_bernoulli_coverage_and_independence():
    _, mask = draw(400, 200, 4, [0.85] * 5, np.array([0.5, 0.5]), design=0, rho=0.1)
    n = mask.shape[0] * mask.shape[1]
    assert mask[..., 0].all()
    assert within(mask[..., 1:].mean(axis=(0, 1)), np.full(3, 0.1), n)
    # Two secondaries share an item with probability rho^2.
    assert within((mask[..., 1] & mask[..., 2]).mean(), 0.01, n)


def test_exact_m_subsets_are_uniform():
    _, mask = draw(3000, 10, 3, [0.85] * 4, np.array([0.5, 0.5]), design=1, m=3)
    np.testing.assert_array_equal(mask[..., 1:].sum(axis=1), 3)
    # Every item is in a secondary's subset with probability m / n = 0.3.
    assert within(mask[..., 1].mean(axis=0), np.full(10, 0.3), mask.shape[0])
