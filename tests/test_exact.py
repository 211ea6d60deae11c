"""Exact tier: enumerate every label and mask outcome of a tiny case and compare the
Monte Carlo estimate of the engine, end to end, within 4 standard errors."""

import itertools

import numpy as np
import pytest

import simcore
from simcore.model.rule import ACCEPT, REJECT, count_passes, decide

N_ITEMS, N_HUMANS, N_LABELS = 3, 3, 2
TRIALS = 200_000


def label_outcomes(accuracies, prevalence):
    """Every labelling of one item by all raters, with its probability."""
    outcomes, probabilities = [], []
    for labels in itertools.product(range(N_LABELS), repeat=len(accuracies)):
        probability = 0.0
        for truth in range(N_LABELS):
            p = prevalence[truth]
            for label, accuracy in zip(labels, accuracies, strict=True):
                p *= accuracy if label == truth else (1 - accuracy) / (N_LABELS - 1)
            probability += p
        outcomes.append(labels)
        probabilities.append(probability)
    return np.array(outcomes), np.array(probabilities)


def strat_allocation(primary, m):
    """The strat design: floor(m n_s / n) per stratum, leftovers one each to the largest strata."""
    sizes = np.bincount(primary, minlength=N_LABELS)
    allocation = m * sizes // N_ITEMS
    by_size = sorted(range(N_LABELS), key=lambda s: (-sizes[s], s))
    for s in by_size[: m - allocation.sum()]:
        allocation[s] += 1
    return allocation


def secondary_choices(design, m, primary):
    """Every item set one secondary may get, each equally likely (not bernoulli)."""
    if design == "exact_m":
        return list(itertools.combinations(range(N_ITEMS), m))
    allocation = strat_allocation(primary, m)
    per_stratum = [
        list(itertools.combinations(np.flatnonzero(primary == s), allocation[s]))
        for s in range(N_LABELS)
    ]
    return [sum(parts, ()) for parts in itertools.product(*per_stratum)]


def mask_outcomes(design, rho, m, primary):
    """Every mask ``(n, K)`` of the secondaries given the primary's labels, with probability."""
    masks, probabilities = [], []
    if design == "bernoulli":
        for bits in itertools.product([False, True], repeat=N_ITEMS * (N_HUMANS - 1)):
            secondary = np.array(bits).reshape(N_ITEMS, N_HUMANS - 1)
            masks.append(np.column_stack([np.ones(N_ITEMS, bool), secondary]))
            k = secondary.sum()
            probabilities.append(rho**k * (1 - rho) ** (secondary.size - k))
        return np.array(masks), np.array(probabilities)
    choices = secondary_choices(design, m, primary)
    for choice in itertools.product(choices, repeat=N_HUMANS - 1):
        mask = np.zeros((N_ITEMS, N_HUMANS), bool)
        mask[:, 0] = True
        for secondary, items in enumerate(choice, start=1):
            mask[list(items), secondary] = True
        masks.append(mask)
        probabilities.append(1.0 / len(choices) ** (N_HUMANS - 1))
    return np.array(masks), np.array(probabilities)


def exact_outcomes(p_human, p_judge, epsilon, tau, design, rho, m, prevalence):
    """Exact distribution of (sparse passes, dense decision, empty comparisons)."""
    accuracies = [p_human] * N_HUMANS + [p_judge]
    item_labels, item_p = label_outcomes(accuracies, prevalence)
    index = np.array(list(itertools.product(range(len(item_labels)), repeat=N_ITEMS)))
    labels = item_labels[index]  # (configs, n, R)
    label_p = item_p[index].prod(axis=1)
    dense_pass = count_passes(
        labels, np.ones((len(labels), N_ITEMS, N_HUMANS), bool), N_HUMANS, epsilon
    ).n_pass[:, 0]
    dense_decision = decide(dense_pass, N_HUMANS, tau)
    sparse_parts, dense_parts, empty_parts, probability_parts = [], [], [], []
    for primary in np.unique(labels[:, :, 0], axis=0):
        rows = (labels[:, :, 0] == primary).all(axis=1)
        masks, mask_p = mask_outcomes(design, rho, m, primary)
        chosen = labels[rows]
        result = count_passes(
            np.repeat(chosen, len(masks), axis=0),
            np.tile(masks, (len(chosen), 1, 1)),
            N_HUMANS,
            epsilon,
        )
        sparse_parts.append(result.n_pass[:, 0])
        empty_parts.append(result.n_empty)
        dense_parts.append(np.repeat(dense_decision[rows], len(masks)))
        probability_parts.append(np.outer(label_p[rows], mask_p).ravel())
    sparse_pass = np.concatenate(sparse_parts)
    empty = np.concatenate(empty_parts)
    dense = np.concatenate(dense_parts)
    probability = np.concatenate(probability_parts)
    assert probability.sum() == pytest.approx(1.0, abs=1e-12)
    sparse = decide(sparse_pass, N_HUMANS, tau)
    return {
        "wrong": probability[sparse != dense].sum(),
        "false_reject": probability[(dense == ACCEPT) & (sparse == REJECT)].sum(),
        "ref_accept": probability[dense == ACCEPT].sum(),
        "pass_hist": np.bincount(sparse_pass, weights=probability, minlength=N_HUMANS + 1),
        "empty_mean": (probability * empty).sum(),
        "empty_var": (probability * empty**2).sum() - (probability * empty).sum() ** 2,
    }


CASES = [
    # p_human, p_judge, epsilon, tau, design, rho, m, prevalence
    (0.8, 0.7, 0.05, 0.5, "bernoulli", 0.5, None, (0.5, 0.5)),
    (0.9, 0.8, 0.0, 0.6, "bernoulli", 0.3, None, (0.5, 0.5)),
    (0.8, 0.75, 0.05, 0.5, "exact_m", None, 2, (0.5, 0.5)),
    (0.8, 0.7, 0.05, 0.5, "strat", None, 2, (0.5, 0.5)),
    (0.85, 0.7, 0.05, 0.5, "bernoulli", 0.4, None, (0.8, 0.2)),
]


ENGINE_CASES = [
    pytest.param(case, engine, id=f"{case[4]}-{case[0]}-{case[1]}-{engine}")
    for case in CASES
    for engine in (("items", "counts") if case[4] != "strat" else ("items",))
]


@pytest.mark.parametrize(("case", "engine"), ENGINE_CASES)
def test_monte_carlo_matches_enumeration(case, engine):
    """Both engines (the counts engine where it applies) match the enumeration."""
    p_human, p_judge, epsilon, tau, design, rho, m, prevalence = case
    exact = exact_outcomes(p_human, p_judge, epsilon, tau, design, rho, m, prevalence)
    scenario = {
        "model": {
            "n_items": N_ITEMS,
            "n_humans": N_HUMANS,
            "n_labels": N_LABELS,
            "p_human": p_human,
            "p_judge": p_judge,
            "prevalence": list(prevalence),
        },
        "design": {"kind": design, "rho": rho, "m": m},
        "rule": {"epsilon": epsilon, "tau": tau},
        "reference": "dense",
        "engine": engine,
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
    assert int(cube["n_trials_counts_engine"]) == (n if engine == "counts" else 0)
