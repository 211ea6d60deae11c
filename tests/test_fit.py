"""Dawid-Skene fit: recovery of simulated parameters, label switching, diagnostics, real data."""

from pathlib import Path

import numpy as np
import pytest

from simcore.advisor.fit import (
    FitErrors,
    ModelFit,
    agreement_diagnostics,
    fit_dawid_skene,
    fitted_agreement,
    majority_posterior,
    poor_fit,
)
from simcore.advisor.models import bootstrap_fit, fit_matrix
from simcore.model.generative import symmetric_confusion
from simcore.realdata.matrix import AnnotationMatrix, DataError, load_alttest

REPO = Path(__file__).resolve().parents[1]
SUMMEVAL = REPO.parent / "shared" / "data" / "alttest" / "summeval"

N_ITEMS = 3000
N_LABELS = 3
N_HUMANS = 3
PREVALENCE = np.array([0.5, 0.3, 0.2])
ACCURACIES = (0.85, 0.8, 0.75, 0.9, 0.7)  # humans 0-2, then judges 0-1
NAMES = ("h0", "h1", "h2", "j0", "j1")
SECONDARY_SHARE = 0.3
ASYMMETRIC_JUDGE = np.array(
    [
        [0.70, 0.20, 0.10],
        [0.15, 0.75, 0.10],
        [0.10, 0.30, 0.60],
    ]
)


def symmetric_confusions():
    return np.stack([symmetric_confusion(p, N_LABELS) for p in ACCURACIES])


def true_accuracies(confusions):
    return np.einsum("y,ryy->r", PREVALENCE, confusions)


def simulate(seed, confusions, n_items=N_ITEMS):
    """Return ``(truth, dense, observed)``: dense ``(n, R)`` labels and the sparse mask."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(N_LABELS, size=n_items, p=PREVALENCE)
    cumulative = confusions[:, truth, :].cumsum(axis=2)  # (R, n, L)
    draws = rng.random((confusions.shape[0], n_items, 1))
    dense = np.minimum((draws > cumulative).sum(axis=2), N_LABELS - 1).T
    observed = np.ones(dense.shape, dtype=bool)
    observed[:, 1] = rng.random(n_items) < SECONDARY_SHARE
    observed[:, 2] = rng.random(n_items) < SECONDARY_SHARE
    return truth, dense, observed


@pytest.fixture(scope="module")
def symmetric():
    confusions = symmetric_confusions()
    truth, dense, observed = simulate(11, confusions)
    fit, errors = bootstrap_fit(dense, observed, N_LABELS, n_boot=30, seed=0, n_humans=N_HUMANS)
    return confusions, truth, dense, observed, fit, errors


@pytest.fixture(scope="module")
def asymmetric():
    confusions = symmetric_confusions()
    confusions[4] = ASYMMETRIC_JUDGE
    truth, dense, observed = simulate(12, confusions)
    fit, errors = bootstrap_fit(dense, observed, N_LABELS, n_boot=30, seed=1, n_humans=N_HUMANS)
    return confusions, fit, errors


# --------------------------------------------------------------------------- recovery


def test_recovers_accuracies_and_prevalence_within_three_standard_errors(symmetric):
    confusions, _, _, _, fit, errors = symmetric
    assert isinstance(fit, ModelFit) and isinstance(errors, FitErrors)
    assert fit.converged and fit.iterations < 500
    assert fit.confusions.shape == (5, N_LABELS, N_LABELS)
    assert fit.posterior.shape == (N_ITEMS, N_LABELS)
    np.testing.assert_allclose(fit.confusions.sum(axis=2), 1.0)
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0)
    assert (fit.permutation == np.arange(N_LABELS)).all()
    truth = true_accuracies(confusions)
    assert ((errors.accuracies > 0) & (errors.accuracies < 0.05)).all(), errors.accuracies
    assert (np.abs(fit.accuracies - truth) < 3 * errors.accuracies).all(), (
        fit.accuracies,
        truth,
        errors.accuracies,
    )
    assert ((errors.prevalence > 0) & (errors.prevalence < 0.05)).all()
    assert (np.abs(fit.prevalence - PREVALENCE) < 3 * errors.prevalence).all(), (
        fit.prevalence,
        errors.prevalence,
    )
    np.testing.assert_allclose(
        fit.accuracies, np.einsum("y,ryy->r", fit.prevalence, fit.confusions)
    )


def test_recovers_an_asymmetric_judge_confusion(asymmetric):
    confusions, fit, errors = asymmetric
    assert fit.converged
    rows = PREVALENCE >= 0.3
    fitted = fit.confusions[4][rows]
    true = confusions[4][rows]
    error = errors.confusions[4][rows]
    assert (error > 0).all()
    assert (np.abs(fitted - true) < 3 * error).all(), (fitted, true, error)
    truth = true_accuracies(confusions)
    assert (np.abs(fit.accuracies - truth) < 3 * errors.accuracies).all()


# --------------------------------------------------------------------------- label switching


def dominant_diagonals(matrices):
    return all((np.argmax(matrix, axis=1) == np.arange(N_LABELS)).all() for matrix in matrices)


def test_consistently_permuted_labels_give_the_permuted_prevalence(symmetric):
    _, _, dense, observed, fit, _ = symmetric
    permutation = np.array([2, 0, 1])  # label l is reported as permutation[l]
    permuted = fit_dawid_skene(permutation[dense], observed, N_LABELS, n_humans=N_HUMANS)
    assert dominant_diagonals(permuted.confusions[:N_HUMANS])
    np.testing.assert_allclose(permuted.prevalence[permutation], fit.prevalence, atol=1e-6)
    np.testing.assert_allclose(permuted.accuracies, fit.accuracies, atol=1e-6)


def test_adversarial_start_is_realigned(symmetric):
    _, _, dense, observed, fit, _ = symmetric
    start = majority_posterior(dense, observed, N_LABELS)[:, [1, 2, 0]]
    unaligned = fit_dawid_skene(dense, observed, N_LABELS, initial_posterior=start, n_humans=0)
    assert not dominant_diagonals(unaligned.confusions[:N_HUMANS])
    assert (unaligned.accuracies < 0.5).all()
    aligned = fit_dawid_skene(dense, observed, N_LABELS, initial_posterior=start)
    assert not (aligned.permutation == np.arange(N_LABELS)).all()
    assert dominant_diagonals(aligned.confusions[:N_HUMANS])
    np.testing.assert_allclose(aligned.prevalence, fit.prevalence, atol=1e-6)
    np.testing.assert_allclose(aligned.confusions, fit.confusions, atol=1e-5)
    np.testing.assert_allclose(aligned.accuracies, fit.accuracies, atol=1e-6)


def test_majority_posterior_splits_ties_and_leaves_unlabelled_items_uniform():
    labels = np.array([[0, 1, 1], [0, 1, 2], [5, 5, 5], [2, 9, 2]])
    observed = np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 1]], dtype=bool)
    posterior = majority_posterior(labels, observed, 3)
    expected = [[0, 1, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3], [0, 0, 1]]
    np.testing.assert_allclose(posterior, expected)


def test_bad_input_is_refused():
    labels = np.zeros((4, 2), dtype=int)
    observed = np.ones((4, 2), dtype=bool)
    with pytest.raises(ValueError, match="observed"):
        fit_dawid_skene(labels, observed[:3], 2)
    with pytest.raises(ValueError, match="codes"):
        fit_dawid_skene(labels + 2, observed, 2)
    with pytest.raises(ValueError, match="n_labels"):
        fit_dawid_skene(labels, observed, 1)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_fit(labels, observed, 2, n_boot=1)


# --------------------------------------------------------------------------- agreement


def test_fitted_agreement_matches_monte_carlo(symmetric):
    confusions, _, dense, observed, fit, _ = symmetric
    agree = (dense[:, :, None] == dense[:, None, :]).mean(axis=0)
    standard_error = np.sqrt(agree * (1 - agree) / N_ITEMS)
    off = ~np.eye(5, dtype=bool)
    true_fit = fit._replace(prevalence=PREVALENCE, confusions=confusions)
    for model in (fit, true_fit):
        expected = fitted_agreement(model)
        assert np.isnan(np.diag(expected)).all()
        np.testing.assert_allclose(expected, expected.T)
        assert (np.abs(expected - agree)[off] < 4 * standard_error[off]).all(), (
            expected,
            agree,
        )
    # Symmetric channel: P(a == b) = p_a p_b + (1 - p_a)(1 - p_b) / (L - 1).
    p = np.array(ACCURACIES)
    closed = np.outer(p, p) + np.outer(1 - p, 1 - p) / (N_LABELS - 1)
    np.testing.assert_allclose(fitted_agreement(true_fit)[off], closed[off])


def test_diagnostics_flag_nothing_on_data_from_the_model(symmetric):
    _, _, dense, observed, fit, _ = symmetric
    rows = agreement_diagnostics(dense, observed, fit, NAMES)
    assert len(rows) == 10
    assert {"rater_a", "rater_b", "n_items", "observed", "fitted", "difference", "z"} <= set(
        rows[0]
    )
    pair = next(row for row in rows if (row["rater_a"], row["rater_b"]) == ("h1", "h2"))
    assert pair["n_items"] == int((observed[:, 1] & observed[:, 2]).sum())
    assert all(abs(row["z"]) < 4 for row in rows), rows
    assert poor_fit(rows) == []
    few = agreement_diagnostics(dense, observed, fit, NAMES, min_pairs=N_ITEMS)
    assert {(row["rater_a"], row["rater_b"]) for row in few} == {
        ("h0", "j0"),
        ("h0", "j1"),
        ("j0", "j1"),
    }


def test_poor_fit_flags_a_pair_with_correlated_errors():
    confusions = symmetric_confusions()
    _, dense, _ = simulate(13, confusions)
    # Every rater labels every item: with the sparse design h1 and h2 share only ~270 items
    # and the copied pair's z (about 4.8) sits too close to the limit for a stable test.
    observed = np.ones(dense.shape, dtype=bool)
    copy = np.random.default_rng(14).random(N_ITEMS) < 0.5
    dense[copy, 2] = dense[copy, 1]
    fit = fit_dawid_skene(dense, observed, N_LABELS, n_humans=N_HUMANS)
    rows = agreement_diagnostics(dense, observed, fit, NAMES)
    flagged = poor_fit(rows)
    pairs = [(row["rater_a"], row["rater_b"]) for row in flagged]
    assert ("h1", "h2") in pairs, rows
    worst = max(rows, key=lambda row: abs(row["z"]))
    assert (worst["rater_a"], worst["rater_b"]) == ("h1", "h2")
    assert worst["difference"] > 0.05 and worst["z"] > 4


def test_poor_fit_needs_both_a_large_z_and_a_large_difference():
    rows = [
        {"z": 10.0, "difference": 0.01},
        {"z": 2.0, "difference": 0.2},
        {"z": -5.0, "difference": -0.06},
        {"z": 4.5, "difference": 0.051},
    ]
    assert poor_fit(rows) == [rows[2], rows[3]]
    assert poor_fit(rows, z_limit=1.0, difference_limit=0.1) == [rows[1]]


# --------------------------------------------------------------------------- matrices


def small_matrix():
    rng = np.random.default_rng(5)
    humans = rng.integers(0, 2, size=(40, 2))
    humans[::3, 1] = -1
    return AnnotationMatrix(
        source="small",
        items=tuple(f"i{index:02d}" for index in range(40)),
        humans=("a", "b"),
        judges=("x", "y"),
        labels=("no", "yes"),
        ordinal=False,
        human_labels=humans,
        judge_labels=rng.integers(0, 2, size=(40, 2)),
    )


def test_fit_matrix_chooses_judges_by_name():
    matrix = small_matrix()
    fit, errors, names = fit_matrix(matrix, judges=["y"], n_boot=3)
    assert names == ("a", "b", "y")
    assert fit.confusions.shape == (3, 2, 2) and errors.accuracies.shape == (3,)
    fit_all, _, names_all = fit_matrix(matrix, n_boot=2)
    assert names_all == ("a", "b", "x", "y") and fit_all.accuracies.shape == (4,)
    with pytest.raises(DataError, match="unknown judge"):
        fit_matrix(matrix, judges=["z"], n_boot=2)


@pytest.mark.skipif(not SUMMEVAL.is_dir(), reason="SummEval data not present")
def test_fit_matrix_on_summeval():
    matrix = load_alttest(SUMMEVAL, humans=["e0", "e1", "e2"], ordinal=True)
    fit, errors, names = fit_matrix(matrix, n_boot=5)
    assert names[:3] == ("e0", "e1", "e2") and len(names) == 3 + matrix.n_judges
    assert fit.converged
    # With all six judges the latent truth leans on the judges' consensus (they centre on 3,
    # the humans on 5) and the maximum-likelihood human accuracies are about 0.28-0.38
    # (e1 is 0.28): above chance (1 / L = 0.2), not above 0.3. Random restarts find no
    # better optimum. With one judge the humans carry the truth and score about 0.6.
    chance = 1 / matrix.n_labels
    assert ((fit.accuracies[:3] > chance) & (fit.accuracies[:3] < 1)).all(), fit.accuracies
    assert (errors.accuracies > 0).all()
    np.testing.assert_allclose(fit.prevalence.sum(), 1.0)
    one_judge, _, names = fit_matrix(matrix, judges=["gpt-4o"], n_boot=5)
    assert names == ("e0", "e1", "e2", "gpt-4o") and one_judge.converged
    humans = one_judge.accuracies[:3]
    assert ((humans > 0.3) & (humans < 1)).all(), one_judge.accuracies
