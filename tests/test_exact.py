"""Exact tier: enumerate every label and mask outcome of a tiny case and compare the
Monte Carlo estimate of the engine, end to end, within 4 standard errors."""

import itertools

import numpy as np
import pytest

import simcore
from simcore.rule import ACCEPT, REJECT, count_passes, decide

N_ITEMS, N_HUMANS, N_LABELS = 3, 3, 2
TRIALS = 200_000


def label_outcomes(accuracies):
    """Every labelling of one item by all raters, with its probability (uniform truth)."""
    outcomes, probabilities = [], []
    for labels in itertools.product(range(N_LABELS), repeat=len(accuracies)):
        probability = 0.0
        for truth in range(N_LABELS):
            p = 1.0 / N_LABELS
            for label, accuracy in zip(labels, accuracies, strict=True):
                p *= accuracy if label == truth else (1 - accuracy) / (N_LABELS - 1)
            probability += p
        outcomes.append(labels)
        probabilities.append(probability)
    return np.array(outcomes), np.array(probabilities)


def mask_outcomes(design, rho, m):
    """Every mask ``(n, K)`` of the secondaries, with its probability."""
    masks, probabilities = [], []
    if design == "bernoulli":
        for bits in itertools.product([False, True], repeat=N_ITEMS * (N_HUMANS - 1)):
            secondary = np.array(bits).reshape(N_ITEMS, N_HUMANS - 1)
            masks.append(np.column_stack([np.ones(N_ITEMS, bool), secondary]))
            k = secondary.sum()
            probabilities.append(rho**k * (1 - rho) ** (secondary.size - k))
    else:
        subsets = list(itertools.combinations(range(N_ITEMS), m))
        for choice in itertools.product(subsets, repeat=N_HUMANS - 1):
            mask = np.zeros((N_ITEMS, N_HUMANS), bool)
            mask[:, 0] = True
            for secondary, items in enumerate(choice, start=1):
                mask[list(items), secondary] = True
            masks.append(mask)
            probabilities.append(1.0 / len(subsets) ** (N_HUMANS - 1))
    return np.array(masks), np.array(probabilities)


def exact_outcomes(p_human, p_judge, epsilon, tau, design, rho, m):
    """Exact distribution of (sparse passes, dense decision, empty comparisons)."""
    accuracies = [p_human] * N_HUMANS + [p_judge]
    item_labels, item_p = label_outcomes(accuracies)
    index = np.array(list(itertools.product(range(len(item_labels)), repeat=N_ITEMS)))
    labels = item_labels[index]  # (configs, n, R)
    label_p = item_p[index].prod(axis=1)
    masks, mask_p = mask_outcomes(design, rho, m)
    sparse_pass, empty = count_passes(
        np.repeat(labels, len(masks), axis=0),
        np.tile(masks, (len(labels), 1, 1)),
        N_HUMANS,
        epsilon,
    )
    dense_pass, _ = count_passes(
        labels, np.ones((len(labels), N_ITEMS, N_HUMANS), bool), N_HUMANS, epsilon
    )
    probability = np.outer(label_p, mask_p).ravel()
    assert probability.sum() == pytest.approx(1.0, abs=1e-12)
    sparse = decide(sparse_pass[:, 0], N_HUMANS, tau)
    dense = np.repeat(decide(dense_pass[:, 0], N_HUMANS, tau), len(masks))
    return {
        "wrong": probability[sparse != dense].sum(),
        "false_reject": probability[(dense == ACCEPT) & (sparse == REJECT)].sum(),
        "ref_accept": probability[dense == ACCEPT].sum(),
        "pass_hist": np.bincount(sparse_pass[:, 0], weights=probability, minlength=N_HUMANS + 1),
        "empty_mean": (probability * empty).sum(),
        "empty_var": (probability * empty**2).sum() - (probability * empty).sum() ** 2,
    }


CASES = [
    # p_human, p_judge, epsilon, tau, design, rho, m
    (0.8, 0.7, 0.05, 0.5, "bernoulli", 0.5, None),
    (0.9, 0.8, 0.0, 0.6, "bernoulli", 0.3, None),
    (0.8, 0.75, 0.05, 0.5, "exact_m", None, 2),
]


@pytest.mark.parametrize("case", CASES)
def test_monte_carlo_matches_enumeration(case):
    p_human, p_judge, epsilon, tau, design, rho, m = case
    exact = exact_outcomes(p_human, p_judge, epsilon, tau, design, rho, m)
    scenario = {
        "model": {
            "n_items": N_ITEMS,
            "n_humans": N_HUMANS,
            "n_labels": N_LABELS,
            "p_human": p_human,
            "p_judge": p_judge,
        },
        "design": {"kind": design, "rho": rho, "m": m},
        "rule": {"epsilon": epsilon, "tau": tau},
        "reference": "dense",
        "trials": TRIALS,
        "seed": 99,
    }
    cube = simcore.run(scenario)
    n = TRIALS

    def close(estimate, truth):
        se = np.sqrt(truth * (1 - truth) / n)
        assert abs(estimate - truth) <= 4 * se + 1e-12, (estimate, truth, se)

    close(float(cube["wrong_decision_rate"]), exact["wrong"])
    close(int(cube["n_false_reject"]) / n, exact["false_reject"])
    close(int(cube["n_ref_accept"]) / n, exact["ref_accept"])
    for value, truth in enumerate(exact["pass_hist"]):
        close(int(cube["omega_hist"][value]) / n, truth)
    empty_se = np.sqrt(exact["empty_var"] / n)
    assert abs(int(cube["n_empty_comparisons"]) / n - exact["empty_mean"]) <= 4 * empty_se
    assert exact["wrong"] > 0.01  # the case is not trivial
