"""Statistical tier: the kernel's draws follow the generative model and designs of the docs."""

import numpy as np

from simcore.engine import draws as engine_draws
from simcore.engine import rng
from simcore.model.generative import (
    pair_agreement,
    pair_tables,
    prevalence_vector,
    rater_accuracies,
    rater_confusions,
    shift_accuracy,
    symmetric_confusion,
)


def draw(
    n_trials,
    n_items,
    n_humans,
    accuracies,
    prevalence,
    design=0,
    rho=0.3,
    m=0,
    confusion=None,
    n_clusters=1,
    spread=0.0,
):
    keys = rng.trial_keys(np.random.SeedSequence(2024, spawn_key=(5,)), 0, n_trials)
    cdf = np.cumsum(prevalence)
    cdf[-1] = 1.0
    if confusion is None:
        confusion = np.stack([symmetric_confusion(p, len(prevalence)) for p in accuracies])
    return engine_draws.draw(
        keys, n_items, n_humans, confusion, cdf, n_clusters, spread, design, rho, m
    )


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


def test_confusion_matrices_are_followed():
    # Rater 1 always reports 1 when the truth is 0 and is right on label 1; rater 2 is a
    # 3-label channel with distinct rows. Joint shares equal the pair tables.
    confusion = np.array(
        [
            np.eye(3),
            [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.2, 0.3, 0.5]],
            [[0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0.25, 0.25, 0.5]],
        ]
    )
    prevalence = np.array([0.5, 0.3, 0.2])
    labels, _ = draw(400, 100, 2, None, prevalence, confusion=confusion)
    n = labels.shape[0] * labels.shape[1]
    expected = pair_tables(confusion, prevalence)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        joint = np.zeros((3, 3))
        np.add.at(joint, (labels[..., a].ravel(), labels[..., b].ravel()), 1)
        assert within(joint / n, expected[a, b], n), (a, b)


def test_clusters_share_one_difficulty_per_trial():
    # Two clusters with spread 0.3: within a trial, every rater's accuracy on a cluster's
    # items moves together, so the accuracies of two raters correlate across clusters,
    # while the pooled accuracy matches the expectation over the difficulty.
    accuracies = [0.7, 0.7, 0.7]
    labels, _ = draw(3000, 40, 2, accuracies, np.array([0.5, 0.5]), n_clusters=2, spread=0.3)
    truth_free = labels[..., 0] == labels[..., 1]  # agreement of two raters
    cluster = np.arange(40) % 2
    per_cluster = np.stack([truth_free[:, cluster == c].mean(axis=1) for c in (0, 1)])
    per_rater = np.stack(
        [(labels[..., r] == labels[..., 2])[:, cluster == 0].mean(axis=1) for r in (0, 1)]
    )
    # Agreement of raters 0 and 2 and of 1 and 2 on cluster 0 co-vary across trials.
    assert np.corrcoef(per_rater)[0, 1] > 0.3
    expected = pair_tables(rater_confusions(2, 2, 0.7, 0.7), [0.5, 0.5], 0.3)
    agree = np.trace(expected[0, 1])
    n = truth_free.size
    se = np.sqrt(per_cluster.mean(axis=0).var() / per_cluster.shape[1] + agree * (1 - agree) / n)
    assert abs(truth_free.mean() - agree) < 4 * se


def test_shift_accuracy_keeps_rows_stochastic():
    confusion = np.array([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0], [0.1, 0.1, 0.8]])
    for delta in (-0.9, -0.2, 0.0, 0.2, 0.5):
        shifted = shift_accuracy(confusion, delta)
        np.testing.assert_allclose(shifted.sum(axis=-1), 1.0)
        np.testing.assert_allclose(np.diag(shifted), np.clip(np.diag(confusion) + delta, 0, 1))
        assert (shifted >= 0).all()
    # A row without off-diagonal mass spreads what it loses evenly.
    np.testing.assert_allclose(shift_accuracy(confusion, -0.2)[1], [0.1, 0.8, 0.1])
    # Off-diagonal entries keep their proportions.
    row = shift_accuracy(confusion, 0.1)[0]
    assert row[1] / row[2] == 2.0


def test_skewed_prevalence_vector():
    from simcore.model.generative import Skew

    np.testing.assert_allclose(prevalence_vector(Skew(0.9), 3), [0.9, 0.05, 0.05])
    np.testing.assert_allclose(prevalence_vector(None, 4), [0.25] * 4)
