"""Oracle tier: the numba kernels against the plain NumPy rule on identical draws."""

import numpy as np
import pytest

from simcore.engine import draws as engine_draws
from simcore.engine import kernels, rng
from simcore.engine import layout as engine_layout
from simcore.engine import point_rule as engine_point_rule
from simcore.engine.coefficients import COEFFICIENTS, coefficient_code, score_table
from simcore.model.decision_rule import Rule
from simcore.model.designs import DESIGNS, design_code, sample_mask
from simcore.model.generative import (
    prevalence_vector,
    rater_accuracies,
    rater_confusions,
    sample_labels,
)
from simcore.model.rule import comparison_tables, count_passes
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters

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


def numpy_draws(shape, n_trials=300, seed=11):
    n_items, n_humans, n_labels, p_judge, design, rho, m = shape
    generator = np.random.default_rng(seed)
    accuracies = rater_accuracies(0.8, p_judge, n_humans)
    _, labels = sample_labels(
        generator, n_trials, n_items, accuracies, prevalence_vector(None, n_labels)
    )
    mask = sample_mask(generator, design, n_trials, n_items, n_humans, rho=rho, m=m)
    return labels, mask


def assert_kernel_matches_oracle(
    labels, mask, n_humans, n_labels, epsilon, coefficient, passes, counters, values
):
    sparse = count_passes(labels, mask, n_humans, epsilon, coefficient, n_labels)
    dense = count_passes(labels, np.ones_like(mask), n_humans, epsilon, coefficient, n_labels)
    np.testing.assert_array_equal(passes[:, 0], sparse.n_pass)
    np.testing.assert_array_equal(passes[:, 1], dense.n_pass)
    np.testing.assert_array_equal(counters[:, engine_layout.EMPTY], sparse.n_empty)
    np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE], sparse.n_degenerate)
    np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE_DENSE], dense.n_degenerate)
    code = coefficient_code(coefficient)
    for column, pool_mask in (
        (engine_layout.POOL_SPARSE, mask),
        (engine_layout.POOL_DENSE, np.ones_like(mask)),
    ):
        _, _, pool = comparison_tables(labels, pool_mask, n_humans, n_labels)
        np.testing.assert_allclose(
            values[:, column], score_table(pool, code)[0], rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_kernel_rule_equals_numpy_rule_on_numpy_draws(shape, epsilon, coefficient):
    n_humans, n_labels = shape[1], shape[2]
    labels, mask = numpy_draws(shape)
    passes, counters, values = engine_point_rule.evaluate(
        labels, mask, n_humans, n_labels, epsilon, coefficient_code(coefficient)
    )
    assert_kernel_matches_oracle(
        labels, mask, n_humans, n_labels, epsilon, coefficient, passes, counters, values
    )


def simulate_and_draw(
    n_items,
    n_humans,
    n_labels,
    p_judge,
    design,
    rho,
    m,
    coefficient,
    prevalence=None,
    spread=0.0,
    n_clusters=1,
    trials=200,
):
    confusion = rater_confusions(n_humans, n_labels, 0.8, p_judge)
    cdf = np.cumsum(prevalence_vector(prevalence, n_labels))
    cdf[-1] = 1.0
    trial_keys = keys(trials)
    model = (n_items, n_humans, confusion, cdf, n_clusters, spread, design_code(design), rho, m)
    rule = rule_parameters(Rule(coefficient=coefficient, epsilon=0.05))
    outputs = TrialOutputs(*kernels.simulate(trial_keys, *model, rule))
    labels, mask = engine_draws.draw(trial_keys, *model)
    return outputs, labels, mask


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("coefficient", ["observed", "cohen_kappa"])
def test_simulate_decides_what_it_draws(design, coefficient):
    n_items, n_humans, n_labels, m = 30, 4, 3, 8
    outputs, labels, mask = simulate_and_draw(
        n_items,
        n_humans,
        n_labels,
        [0.7, 0.9],
        design,
        0.3,
        m,
        coefficient,
        prevalence=[0.6, 0.3, 0.1],
        spread=0.1,
        n_clusters=3,
    )
    passes = np.stack([outputs.favour, outputs.reference_favour], axis=1)
    counters, values, coverage = outputs.counters, outputs.values, outputs.coverage
    assert_kernel_matches_oracle(
        labels, mask, n_humans, n_labels, 0.05, coefficient, passes, counters, values
    )
    np.testing.assert_array_equal(outputs.against, n_humans - outputs.favour)
    np.testing.assert_array_equal(outputs.tested, n_humans)
    assert mask[:, :, 0].all()
    assert labels.min() >= 0 and labels.max() < n_labels
    np.testing.assert_allclose(coverage, mask[:, :, 1:].mean(axis=1))
    secondaries = mask[:, :, 1:]
    overlap = np.mean(
        [
            (secondaries[:, :, a] & secondaries[:, :, b]).sum(axis=1)
            for a in range(3)
            for b in range(a + 1, 3)
        ],
        axis=0,
    )
    np.testing.assert_allclose(values[:, engine_layout.PAIRWISE_OVERLAP], overlap)
    shared = (secondaries == secondaries[:, :, :1]).all(axis=(1, 2))
    np.testing.assert_array_equal(counters[:, engine_layout.SHARED], shared)
    if design != "bernoulli":
        np.testing.assert_array_equal(secondaries.sum(axis=1), m)
    if design == "shared_panel":
        assert shared.all()


def test_trial_keys_extend_rather_than_replace():
    sequence = np.random.SeedSequence(3, spawn_key=(9,))
    full = rng.trial_keys(sequence, 0, 3 * rng.TRIAL_BLOCK + 17)
    np.testing.assert_array_equal(rng.trial_keys(sequence, 0, 300), full[:300])
    start, stop = rng.TRIAL_BLOCK - 5, 2 * rng.TRIAL_BLOCK + 3  # across block boundaries
    np.testing.assert_array_equal(rng.trial_keys(sequence, start, stop), full[start:stop])
    assert len(np.unique(full)) == len(full)
    other = rng.trial_keys(np.random.SeedSequence(4, spawn_key=(9,)), 0, 300)
    assert not np.intersect1d(other, full).size


@pytest.mark.parametrize("design", DESIGNS)
def test_draws_do_not_depend_on_batching(design):
    confusion = rater_confusions(4, 2, 0.85, [0.7])
    cdf = np.array([0.5, 1.0])
    trial_keys = keys(300)
    rule = rule_parameters(Rule(kind="alt_test", min_items_per_human=5))
    model = (50, 4, confusion, cdf, 1, 0.0, design_code(design), 0.2, 10, rule)
    whole = kernels.simulate(trial_keys, *model)
    parts = [kernels.simulate(trial_keys[a:b], *model) for a, b in [(0, 1), (1, 130), (130, 300)]]
    for position in range(len(whole)):
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
