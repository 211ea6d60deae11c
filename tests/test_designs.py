"""Property tier: the overlap designs drawn by the kernels (docs/explanation/designs.md).

Labels are given (``engine_draws.draw_masks``), so each property is checked against a plain
reading of the design's definition: counts per secondary, proportional allocation over the
strata each secondary sees, what the sequential designs may read, coverage order, uniformity,
and determinism of the streams.
"""

from typing import NamedTuple

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simcore.engine import draws as engine_draws
from simcore.engine import rng
from simcore.model.designs import design_code

STRATIFIED = ("strat", "seq_refined", "seq_coverage")
SEQUENTIAL = ("seq_refined", "seq_coverage")
FIXED_M = ("exact_m", "shared_panel", *STRATIFIED)

PROPERTY = settings(max_examples=200, deadline=None, derandomize=True)  # same examples in CI


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Run the small draws on one thread: waking the pool costs more than the draw.

    The masks do not depend on the thread count (checked by
    ``test_masks_do_not_depend_on_thread_count``).
    """
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(threads)


class Case(NamedTuple):
    seed: int
    n_humans: int
    n_labels: int
    m: int
    labels: np.ndarray  # (T, n, K + 1) int16, the last column the judge


def trial_keys(seed, start, stop):
    return rng.trial_keys(np.random.SeedSequence(seed), start, stop)


def draw_masks(keys, labels, n_humans, n_labels, design, m):
    labels = np.ascontiguousarray(labels, dtype=np.int16)
    return engine_draws.draw_masks(keys, labels, n_humans, n_labels, design_code(design), m)


def draw_case_masks(case, design):
    keys = trial_keys(case.seed, 0, case.labels.shape[0])
    return draw_masks(keys, case.labels, case.n_humans, case.n_labels, design, case.m)


def skewed_labels(seed, shape, n_labels):
    """Noisy copies of a truth drawn from a skewed prevalence: small and empty strata."""
    generator = np.random.default_rng(seed)
    prevalence = generator.dirichlet(np.full(n_labels, 0.3))
    truth = generator.choice(n_labels, size=shape[:2], p=prevalence)
    accurate = generator.random(shape) < generator.uniform(0.3, 1.0)
    noise = generator.choice(n_labels, size=shape, p=prevalence)
    return np.where(accurate, truth[..., None], noise).astype(np.int16)


FEW_TRIALS = st.integers(1, 4)


@st.composite
def cases(draw, n_trials=FEW_TRIALS):
    n_items = draw(st.integers(5, 60))
    n_humans = draw(st.integers(2, 6))
    n_labels = draw(st.integers(2, 5))
    m = draw(st.integers(1, n_items))
    shape = (draw(n_trials), n_items, n_humans + 1)
    if draw(st.booleans()):
        labels = skewed_labels(draw(st.integers(0, 2**32 - 1)), shape, n_labels)
    else:
        labels = draw(arrays(np.int16, shape, elements=st.integers(0, n_labels - 1)))
    return Case(draw(st.integers(0, 2**64 - 1)), n_humans, n_labels, m, labels)


def proportional_allocation(sizes, m):
    """``floor(m n_s / n)``, then one more each for the largest strata (ties: smaller label)."""
    n_items = sum(sizes)
    allocation = [m * size // n_items for size in sizes]
    by_size = sorted(range(len(sizes)), key=lambda s: (-sizes[s], s))
    for s in by_size[: m - sum(allocation)]:
        allocation[s] += 1
    return allocation


def collected_mode(labels, mask, k, n_labels):
    """Each item's stratum before secondary ``k`` chooses: the mode of its collected labels.

    ``labels`` ``(n, R)`` and ``mask`` ``(n, K)`` of one trial; a tie goes to the primary's
    label when it is tied, else to the smallest tied label.
    """
    one_hot = labels[:, :k, None] == np.arange(n_labels)
    counts = (one_hot & mask[:, :k, None]).sum(axis=1)
    tied = counts == counts.max(axis=1, keepdims=True)
    primary = labels[:, 0].astype(np.int64)
    primary_tied = tied[np.arange(labels.shape[0]), primary]
    return np.where(primary_tied, primary, tied.argmax(axis=1))


def coverage_before(mask, k):
    """Number of secondaries ``1 .. k-1`` that labelled each item."""
    return mask[:, 1:k].sum(axis=1)


def per_stratum_counts(strata, chosen, n_labels):
    sizes = np.bincount(strata, minlength=n_labels)
    taken = np.bincount(strata[chosen], minlength=n_labels)
    return sizes.tolist(), taken.tolist()


def change_labels(generator, labels, changed, n_labels):
    """Replace every label where ``changed`` by a different random label."""
    shift = generator.integers(1, n_labels, size=labels.shape)
    return np.where(changed, (labels + shift) % n_labels, labels).astype(np.int16)


def not_collected_before(mask, k, n_raters):
    """Labels not collected before secondary ``k``: ``(T, n, R)`` bool."""
    collected = np.zeros(mask.shape[:2] + (n_raters,), dtype=bool)
    collected[:, :, :k] = mask[:, :, :k]
    return ~collected


def assert_m_per_secondary(mask, m):
    assert mask[:, :, 0].all()
    np.testing.assert_array_equal(mask[:, :, 1:].sum(axis=1), m)


# ----------------------------------------------------------------------------- counts


@PROPERTY
@given(cases())
def test_exact_m_labels_m_items_per_secondary(case):
    mask = draw_case_masks(case, "exact_m")
    assert mask.shape == case.labels.shape[:2] + (case.n_humans,)
    assert_m_per_secondary(mask, case.m)


def test_exact_m_secondaries_are_drawn_independently():
    n_trials, n_items, n_humans, n_labels, m = 50, 20, 4, 2, 5
    labels = np.zeros((n_trials, n_items, n_humans + 1), dtype=np.int16)
    mask = draw_masks(trial_keys(3, 0, n_trials), labels, n_humans, n_labels, "exact_m", m)
    differs = (mask[:, :, 1:] != mask[:, :, 1:2]).any(axis=(1, 2))
    assert differs.any()


@PROPERTY
@given(cases())
def test_shared_panel_gives_every_secondary_the_same_m_items(case):
    mask = draw_case_masks(case, "shared_panel")
    assert_m_per_secondary(mask, case.m)
    secondaries = mask[:, :, 1:]
    first = np.broadcast_to(mask[:, :, 1:2], secondaries.shape)
    np.testing.assert_array_equal(secondaries, first)


@PROPERTY
@given(cases())
def test_strat_allocates_proportionally_over_primary_labels(case):
    mask = draw_case_masks(case, "strat")
    assert_m_per_secondary(mask, case.m)
    for labels, trial_mask in zip(case.labels, mask, strict=True):
        strata = labels[:, 0].astype(np.int64)
        for k in range(1, case.n_humans):
            sizes, taken = per_stratum_counts(strata, trial_mask[:, k], case.n_labels)
            assert taken == proportional_allocation(sizes, case.m), (k, sizes)


@pytest.mark.parametrize("design", SEQUENTIAL)
@PROPERTY
@given(case=cases())
def test_sequential_allocates_over_collected_modes(design, case):
    mask = draw_case_masks(case, design)
    assert_m_per_secondary(mask, case.m)
    for labels, trial_mask in zip(case.labels, mask, strict=True):
        for k in range(1, case.n_humans):
            strata = collected_mode(labels, trial_mask, k, case.n_labels)
            sizes, taken = per_stratum_counts(strata, trial_mask[:, k], case.n_labels)
            assert taken == proportional_allocation(sizes, case.m), (k, sizes)


# ----------------------------------------------------------------------------- what is read


@pytest.mark.parametrize("design", SEQUENTIAL)
@PROPERTY
@given(case=cases(), data=st.data())
def test_sequential_reads_only_labels_collected_before(design, case, data):
    k = data.draw(st.integers(1, case.n_humans - 1), label="k")
    keys = trial_keys(case.seed, 0, case.labels.shape[0])
    mask = draw_masks(keys, case.labels, case.n_humans, case.n_labels, design, case.m)
    changed = not_collected_before(mask, k, case.labels.shape[2])
    generator = np.random.default_rng(case.seed % 2**32)
    other = change_labels(generator, case.labels, changed, case.n_labels)
    redrawn = draw_masks(keys, other, case.n_humans, case.n_labels, design, case.m)
    np.testing.assert_array_equal(redrawn[:, :, : k + 1], mask[:, :, : k + 1])


@PROPERTY
@given(cases())
def test_strat_reads_only_the_primary(case):
    keys = trial_keys(case.seed, 0, case.labels.shape[0])
    mask = draw_masks(keys, case.labels, case.n_humans, case.n_labels, "strat", case.m)
    changed = np.ones(case.labels.shape, dtype=bool)
    changed[:, :, 0] = False
    generator = np.random.default_rng(case.seed % 2**32)
    other = change_labels(generator, case.labels, changed, case.n_labels)
    redrawn = draw_masks(keys, other, case.n_humans, case.n_labels, "strat", case.m)
    np.testing.assert_array_equal(redrawn, mask)


# ----------------------------------------------------------------------------- coverage


@PROPERTY
@given(cases())
def test_seq_coverage_takes_less_covered_items_first(case):
    mask = draw_case_masks(case, "seq_coverage")
    for labels, trial_mask in zip(case.labels, mask, strict=True):
        for k in range(2, case.n_humans):
            strata = collected_mode(labels, trial_mask, k, case.n_labels)
            coverage = coverage_before(trial_mask, k)
            chosen = trial_mask[:, k]
            for s in np.unique(strata):
                in_stratum = strata == s
                picked = coverage[in_stratum & chosen]
                left = coverage[in_stratum & ~chosen]
                if picked.size and left.size:
                    assert picked.max() <= left.min(), (k, s)


# ----------------------------------------------------------------------------- uniformity

UNIFORM_TRIALS = 4000
MAX_Z = 4.0


def assert_frequencies(chosen_counts, expected_counts, variances):
    z = (chosen_counts - expected_counts) / np.sqrt(variances)
    assert np.all(np.abs(z) <= MAX_Z), np.round(z, 2)


def inclusion_counts(mask, secondary):
    return mask[:, :, secondary].sum(axis=0).astype(float)


def test_exact_m_includes_every_item_equally_often():
    n_items, n_humans, m = 10, 3, 3
    labels = np.zeros((UNIFORM_TRIALS, n_items, n_humans + 1), dtype=np.int16)
    mask = draw_masks(trial_keys(21, 0, UNIFORM_TRIALS), labels, n_humans, 2, "exact_m", m)
    p = m / n_items
    expected = np.full(n_items, UNIFORM_TRIALS * p)
    assert_frequencies(inclusion_counts(mask, 1), expected, expected * (1 - p))


def test_strat_is_uniform_within_each_stratum():
    n_humans, m = 3, 5
    primary = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int16)
    generator = np.random.default_rng(5)
    labels = generator.integers(0, 2, size=(UNIFORM_TRIALS, primary.size, n_humans + 1))
    labels[:, :, 0] = primary
    mask = draw_masks(trial_keys(22, 0, UNIFORM_TRIALS), labels, n_humans, 2, "strat", m)
    p = np.where(primary == 0, 3 / 6, 2 / 4)
    expected = UNIFORM_TRIALS * p
    for secondary in range(1, n_humans):
        assert_frequencies(inclusion_counts(mask, secondary), expected, expected * (1 - p))


def split_level(coverage, take):
    """Where taking the ``take`` least-covered items splits a level of tied coverage.

    Returns the coverage level of the last item taken and how many of that level are taken.
    """
    level = np.sort(coverage)[take - 1]
    return level, take - int((coverage < level).sum())


def add_bernoulli(tally, slots, chosen, p):
    """Add choices made with probability ``p`` to ``tally`` rows (chosen, expected, variance)."""
    tally[0, slots] += chosen
    tally[1, slots] += p
    tally[2, slots] += p * (1 - p)


@pytest.mark.parametrize("m", [3, 8])
def test_seq_coverage_breaks_coverage_ties_at_random(m):
    n_humans, n_labels = 3, 2
    truth = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int16)
    # Every human agrees, so the strata stay the primary's labels.
    labels = np.broadcast_to(truth[None, :, None], (UNIFORM_TRIALS, truth.size, n_humans + 1))
    keys = trial_keys(23, 0, UNIFORM_TRIALS)
    mask = draw_masks(keys, labels, n_humans, n_labels, "seq_coverage", m)
    allocation = proportional_allocation(np.bincount(truth).tolist(), m)
    by_item = np.zeros((3, truth.size))
    by_position = np.zeros((n_labels, 3, truth.size))  # position among the tied, item order
    for trial_mask in mask:
        coverage = coverage_before(trial_mask, 2)
        for s in range(n_labels):
            items = np.flatnonzero(truth == s)
            level, take = split_level(coverage[items], allocation[s])
            tied = items[coverage[items] == level]
            if take < tied.size:
                chosen = trial_mask[tied, 2]
                add_bernoulli(by_item, tied, chosen, take / tied.size)
                add_bernoulli(by_position[s], np.arange(tied.size), chosen, take / tied.size)
    for chosen, expected, variance in (by_item, *by_position):
        seen = variance > 0
        assert seen.sum() >= 3
        assert_frequencies(chosen[seen], expected[seen], variance[seen])


# ----------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("design", FIXED_M)
@PROPERTY
@given(case=cases(n_trials=st.just(5)))
def test_masks_depend_only_on_trial_keys(design, case):
    sequence = np.random.SeedSequence(case.seed)
    args = (case.n_humans, case.n_labels, design, case.m)
    keys = rng.trial_keys(sequence, 0, 5)
    whole = draw_masks(keys, case.labels, *args)
    np.testing.assert_array_equal(draw_masks(keys, case.labels, *args), whole)
    head = draw_masks(rng.trial_keys(sequence, 0, 2), case.labels[:2], *args)
    tail = draw_masks(rng.trial_keys(sequence, 2, 5), case.labels[2:], *args)
    np.testing.assert_array_equal(np.concatenate([head, tail]), whole)


def test_masks_do_not_depend_on_thread_count():
    n_trials, n_items, n_humans, n_labels, m = 300, 30, 5, 3, 9
    labels = skewed_labels(8, (n_trials, n_items, n_humans + 1), n_labels)
    keys = trial_keys(24, 0, n_trials)
    for design in FIXED_M:
        args = (keys, labels, n_humans, n_labels, design, m)
        single = draw_masks(*args)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        try:
            threaded = draw_masks(*args)
        finally:
            numba.set_num_threads(1)
        np.testing.assert_array_equal(threaded, single)
