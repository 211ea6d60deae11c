"""The interval verdict and the alternative annotator test on the bitset engine.

Decided from bitsets (:mod:`simcore.engine.bitset.verdicts`) they must equal, exactly, the
NumPy references on the same matrices: the alternative annotator test of
:mod:`simcore.model.alt_test_reference` and the interval verdict's per-item sums computed
here with NumPy, over every label count, with few items (ties everywhere), partial words,
empty comparisons and humans skipped for too few items.
"""

import numpy as np
import pytest
from scipy import stats
from test_bitset_engine import (
    DESIGNS,
    from_bitsets,
    keys,
    model_for,
    random_matrices,
    to_bitsets,
)

from simcore.engine import layout as engine_layout
from simcore.engine.bitset.draws import planes_model
from simcore.engine.bitset.trials import draw_bitsets, evaluate_bitsets, simulate_bitset
from simcore.engine.bitset.verdicts import slice_count
from simcore.engine.interval import EXTRA_ITEMS_CAP
from simcore.engine.layout import TIE_TOLERANCE
from simcore.model.alt_test_reference import alternative_annotator_test
from simcore.model.decision_rule import Rule
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters

CASES = [
    # n_items, n_humans, n_judges, coverage
    (7, 3, 2, 0.4),  # few items: ties everywhere, most humans skipped
    (70, 4, 1, 0.45),  # two words, a partial last one
    (130, 10, 2, 0.3),  # K = 10: four slices, three words
    (64, 2, 1, 0.5),  # one full word, one secondary
    (200, 5, 1, 0.08),  # sparse: empty comparisons
]


def alt_test_oracle(labels, mask, n_humans, config):
    """wins (T, J), tested (T,), skipped (T, K) of the NumPy alternative annotator test."""
    wins, tested, skipped = [], [], []
    for trial_labels, trial_mask in zip(labels, mask, strict=True):
        humans = np.where(trial_mask, trial_labels[:, :n_humans], -1)
        result = alternative_annotator_test(
            humans,
            trial_labels[:, n_humans:],
            config.epsilon,
            config.min_humans_per_item,
            config.min_items_per_human,
            config.q,
        )
        wins.append(result.wins)
        tested.append(result.n_tested)
        skipped.append(~result.tested)
    return np.array(wins), np.array(tested), np.array(skipped)


def interval_oracle(labels, mask, n_humans, epsilon, z):
    """clears, fails (T, J), undecided (T,), extra (T,) of the interval verdict, in NumPy."""
    humans, judges = labels[:, :, :n_humans], labels[:, :, n_humans:]
    n_trials, _, n_judges = judges.shape
    clears = np.zeros((n_trials, n_judges), dtype=int)
    fails = np.zeros((n_trials, n_judges), dtype=int)
    undecided = np.zeros(n_trials, dtype=int)
    extra = np.zeros(n_trials)
    for k in range(n_humans):
        others = mask.copy()
        others[:, :, k] = False
        pool = others.sum(axis=2)  # (T, n)
        own = (others & (humans == humans[:, :, k : k + 1])).sum(axis=2)
        rows = mask[:, :, k] & (pool > 0)
        for c in range(n_judges):
            agree = (others & (humans == judges[:, :, c : c + 1])).sum(axis=2)
            d = np.where(rows, agree - own, 0)
            p = np.where(rows, pool, 0)
            n = rows.sum(axis=1)
            for t in range(n_trials):
                if n[t] < 2:
                    undecided[t] += 1
                    extra[t] += EXTRA_ITEMS_CAP
                    continue
                mean = d[t].sum() / p[t].sum()
                residual = ((d[t] - mean * p[t]) ** 2).sum()
                se = np.sqrt(residual * n[t] / (n[t] - 1)) / p[t].sum()
                centre = mean + epsilon
                if centre - z * se >= -TIE_TOLERANCE:
                    clears[t, c] += 1
                elif centre + z * se < -TIE_TOLERANCE:
                    fails[t, c] += 1
                else:
                    undecided[t] += 1
                    needed = n[t] * (z * se / centre) ** 2 if centre != 0 else 1e300
                    extra[t] += np.ceil(min(max(needed - n[t], 0.0), EXTRA_ITEMS_CAP))
    return clears, fails, undecided, extra


def test_slices_hold_every_count_of_other_humans():
    for n_humans in range(2, 40):
        assert 2 ** slice_count(n_humans) - 1 >= n_humans - 1
        assert slice_count(n_humans) == max(1, int(n_humans - 1).bit_length())


@pytest.mark.parametrize("n_labels", range(2, 9))
def test_alt_test_on_bitsets_equals_the_numpy_test(n_labels):
    generator = np.random.default_rng(100 + n_labels)
    seen = set()
    for n_items, n_humans, n_judges, coverage in CASES:
        labels, mask = random_matrices(
            generator, 40, n_items, n_humans, n_judges, n_labels, coverage
        )
        planes, masks = to_bitsets(labels, mask, n_labels)
        for epsilon, min_humans, min_items in ((0.1, 2, 5), (0.0, 2, 2), (0.2, 3, 10)):
            config = Rule(
                kind="alt_test",
                epsilon=epsilon,
                min_humans_per_item=min_humans,
                min_items_per_human=min_items,
            )
            rule = rule_parameters(config)
            for offsets in (False, True):  # offsets agree where labels do
                outputs = TrialOutputs(*evaluate_bitsets(planes, masks, n_items, not offsets, rule))
                wins, tested, skipped = alt_test_oracle(labels, mask, n_humans, config)
                np.testing.assert_array_equal(outputs.favour, wins)
                np.testing.assert_array_equal(outputs.tested, tested)
                np.testing.assert_array_equal(outputs.against, tested[:, None] - wins)
                np.testing.assert_array_equal(outputs.skipped, skipped)
                dense = alt_test_oracle(labels, np.ones_like(mask), n_humans, config)
                np.testing.assert_array_equal(outputs.reference_favour, dense[0])
                np.testing.assert_array_equal(outputs.reference_tested, dense[1])
            seen |= {"skipped"} if tested.min() < n_humans else set()
            seen |= {"won"} if (wins > 0).any() else set()
            seen |= {"lost"} if (wins < tested[:, None]).any() else set()
    assert seen == {"skipped", "won", "lost"}  # the cases exercise every outcome


@pytest.mark.parametrize("n_labels", range(2, 9))
def test_interval_verdict_on_bitsets_equals_the_numpy_verdict(n_labels):
    generator = np.random.default_rng(200 + n_labels)
    for n_items, n_humans, n_judges, coverage in CASES:
        labels, mask = random_matrices(
            generator, 40, n_items, n_humans, n_judges, n_labels, coverage
        )
        planes, masks = to_bitsets(labels, mask, n_labels)
        for epsilon, confidence in ((0.05, 0.95), (0.0, 0.5)):
            config = Rule(kind="interval", epsilon=epsilon, confidence=confidence)
            rule = rule_parameters(config)
            z = stats.norm.ppf(0.5 + confidence / 2)
            clears, fails, undecided, extra = interval_oracle(labels, mask, n_humans, epsilon, z)
            for offsets in (False, True):
                outputs = TrialOutputs(*evaluate_bitsets(planes, masks, n_items, not offsets, rule))
                np.testing.assert_array_equal(outputs.favour, clears)
                np.testing.assert_array_equal(outputs.against, fails)
                np.testing.assert_array_equal(
                    outputs.counters[:, engine_layout.UNDECIDED], undecided
                )
                np.testing.assert_array_equal(outputs.values[:, engine_layout.EXTRA_ITEMS], extra)


def test_interval_ties_clear_the_bar_and_a_broken_tie_rule_would_show():
    """A judge copying human 0 ties comparison 0 at eps 0 with zero spread: it clears."""
    generator = np.random.default_rng(8)
    labels, mask = random_matrices(generator, 100, 40, 3, 1, 3, 0.6)
    labels[:, :, 3] = labels[:, :, 0]
    planes, masks = to_bitsets(labels, mask, 3)
    config = Rule(kind="interval", epsilon=0.0)
    outputs = TrialOutputs(*evaluate_bitsets(planes, masks, 40, True, rule_parameters(config)))
    clears, *_ = interval_oracle(labels, mask, 3, 0.0, stats.norm.ppf(0.975))
    np.testing.assert_array_equal(outputs.favour, clears)
    strict, *_ = interval_oracle(labels, mask, 3, -1e-6, stats.norm.ppf(0.975))
    assert (strict[:, 0] < outputs.favour[:, 0]).any()


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("kind", ["alt_test", "interval"])
def test_simulate_decides_the_verdicts_of_what_it_draws(design, kind):
    code, rho, m = DESIGNS[design]
    n_items, n_humans, n_labels = 90, 4, 3
    confusion, prevalence = model_for(n_humans, n_labels, symmetric=True)
    model = planes_model(confusion, prevalence, True)
    config = Rule(kind=kind, min_items_per_human=10, epsilon=0.1)
    trial_keys_ = keys(100)
    outputs = TrialOutputs(
        *simulate_bitset(
            trial_keys_, n_items, n_humans, model, code, rho, m, rule_parameters(config)
        )
    )
    planes, masks = draw_bitsets(trial_keys_, n_items, n_humans, model, code, rho, m)
    labels, mask = from_bitsets(planes, masks, n_items)
    if kind == "alt_test":
        wins, tested, _ = alt_test_oracle(labels, mask, n_humans, config)
        np.testing.assert_array_equal(outputs.favour, wins)
        np.testing.assert_array_equal(outputs.tested, tested)
    else:
        clears, fails, undecided, _ = interval_oracle(
            labels, mask, n_humans, 0.1, stats.norm.ppf(0.975)
        )
        np.testing.assert_array_equal(outputs.favour, clears)
        np.testing.assert_array_equal(outputs.against, fails)
        np.testing.assert_array_equal(outputs.counters[:, engine_layout.UNDECIDED], undecided)
