"""The benchmark's NumPy baseline computes the point rule exactly: checked against the oracle.

``benchmarks/baseline.py`` is what simcore's engines are compared with in ``make bench``; a
fast baseline that computed something else would make the ratios meaningless. Its passes and
decisions, sparse and dense, must equal ``simcore.model.rule.count_passes`` (the NumPy oracle
of the kernels) on the same drawn arrays, trial by trial.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from simcore.model.rule import count_passes, omega_accepts

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "baseline.py"


@pytest.fixture(scope="module")
def baseline():
    spec = importlib.util.spec_from_file_location("benchmark_baseline", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def oracle_passes(labels, masks, epsilon):
    """The oracle on the baseline's rater-major arrays (``masks`` None: dense)."""
    n_humans = labels.shape[0] - 1
    as_items = np.moveaxis(labels, 0, -1).astype(np.int64)  # (T, n, K + 1)
    mask = np.ones(as_items.shape[:2] + (n_humans,), dtype=bool)
    if masks is not None:
        mask = np.moveaxis(masks, 0, -1)
    return count_passes(as_items, mask, n_humans, epsilon, n_labels=2).n_pass[:, 0]


SETTINGS = [
    # n, K, p_human, p_judge, design, rho, m, epsilon
    (40, 4, 0.85, 0.85, "bernoulli", 0.3, 0, 0.05),
    (40, 4, 0.85, 0.7, "exact_m", 0.0, 6, 0.05),
    (25, 2, 0.8, 0.9, "bernoulli", 0.2, 0, 0.0),
    (30, 6, 0.85, 0.8, "exact_m", 0.0, 1, 0.1),
    (12, 3, 0.6, 0.6, "bernoulli", 0.05, 0, 0.05),  # many empty comparisons
    (20, 10, 0.85, 0.85, "exact_m", 0.0, 20, 0.05),  # m = n: every human labels all
]


@pytest.mark.parametrize(("n", "k", "p_human", "p_judge", "design", "rho", "m", "eps"), SETTINGS)
def test_passes_and_decisions_equal_the_oracle(
    baseline, n, k, p_human, p_judge, design, rho, m, eps
):
    rng = np.random.default_rng(20261130 + n * k)
    labels, masks = baseline.draw(rng, 300, n, k, p_human, p_judge, design, rho, m)
    for mask in (masks, None):
        expected = oracle_passes(labels, mask, eps)
        got = baseline.passes(labels, mask, eps)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(
            baseline.accepts(got, k, 0.5), omega_accepts(expected, k, 0.5)
        )
    # The draws vary: not every trial passes the same number of comparisons.
    assert len(np.unique(baseline.passes(labels, masks, eps))) > 1


@pytest.mark.parametrize("design", ["bernoulli", "exact_m"])
def test_draws_follow_the_design(baseline, design):
    rng = np.random.default_rng(7)
    labels, masks = baseline.draw(rng, 400, 200, 4, 0.85, 0.7, design, 0.1, 20)
    assert labels.shape == (5, 400, 200) and masks.shape == (4, 400, 200)
    assert masks[0].all()
    secondary = masks[1:].sum(axis=-1)
    if design == "exact_m":
        assert (secondary == 20).all()
    else:
        # 3 x 400 x 200 coins at rho 0.1: SE of the mean 0.3 / sqrt(240000) = 6.1e-4.
        assert abs(masks[1:].mean() - 0.1) < 4 * 6.1e-4
    # Human-judge agreement (both right or both wrong): 0.85 x 0.7 + 0.15 x 0.3 = 0.64;
    # bounded by treating each of the 80,000 items as one draw: SE sqrt(0.25 / 80000).
    agreement = (labels[:4] == labels[4]).mean()
    assert abs(agreement - (0.85 * 0.7 + 0.15 * 0.3)) < 4 * 0.0018


def test_wrong_decisions_counts_sparse_against_dense(baseline):
    rng = np.random.default_rng(3)
    labels, masks = baseline.draw(rng, 200, 60, 4, 0.85, 0.85, "bernoulli", 0.1, 0)
    sparse = omega_accepts(oracle_passes(labels, masks, 0.05), 4, 0.5)
    dense = omega_accepts(oracle_passes(labels, None, 0.05), 4, 0.5)
    expected = int((sparse != dense).sum())
    got = baseline.wrong_decisions(
        np.random.default_rng(3), 200, 60, 4, 0.85, 0.85, "bernoulli", 0.1, 0
    )
    assert got == expected > 0


def test_unknown_design_is_refused(baseline):
    with pytest.raises(ValueError, match="strat"):
        baseline.draw(np.random.default_rng(0), 2, 10, 3, 0.85, 0.85, "strat", 0.1, 2)


def test_exact_m_keeps_exactly_m_when_keys_tie(baseline):
    keys = np.array([[0.5, 0.5, 0.5, 0.1, 0.9], [0.2, 0.3, 0.1, 0.7, 0.6]], dtype=np.float32)
    chosen = baseline._exactly_m(keys, 2)
    np.testing.assert_array_equal(chosen.sum(axis=-1), [2, 2])
    assert chosen[0, 3] and chosen[1, 0] and chosen[1, 2]
    assert not baseline._exactly_m(keys, 0).any()
