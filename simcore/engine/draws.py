"""Drawing one trial: every item's labels, then which items each secondary human labels.

The items engine (:func:`simcore.engine.kernels.simulate`) draws every trial here, and
:func:`draw` and :func:`draw_masks` return the same draws for tests and inspection. Each
trial ``t`` draws from its own counter-based stream seeded by ``trial_keys[t]``
(:mod:`simcore.engine.rng`), so its draws do not depend on the thread that runs it.

Draw order inside a trial (this order defines the stream and must not change silently):

1. With ``cluster_spread > 0``: one uniform per cluster, its difficulty
   ``delta_c = spread (2u - 1)``.
2. For each item: the true label (inverse CDF of the prevalence), then each rater's label
   (one uniform, inverse CDF of its confusion row), then, for ``bernoulli`` only, one uniform
   per secondary against ``rho``.
3. Other designs, after all labels: the secondaries' items, secondary 1 first
   (:func:`_draw_masks`).
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.layout import BERNOULLI, EXACT_M, SEQ_COVERAGE, SHARED_PANEL, STRAT
from simcore.engine.rng import below, seed_state, uniform

# --------------------------------------------------------------------------- labels


@jit
def _confusion_cdf(confusion, delta, out):
    """Write the cumulative rows of every rater's confusion matrix shifted by ``delta``.

    The diagonal moves by ``delta`` (clipped to [0, 1]); off-diagonal entries are rescaled
    to keep each row stochastic, or spread evenly where a row has none
    (:func:`simcore.model.generative.shift_accuracy`). The last entry of each row is set to 1.
    """
    n_raters, n_labels, _ = confusion.shape
    for r in range(n_raters):
        for y in range(n_labels):
            diagonal = min(1.0, max(0.0, confusion[r, y, y] + delta))
            off_sum = 0.0
            for label in range(n_labels):
                if label != y:
                    off_sum += confusion[r, y, label]
            running = 0.0
            for label in range(n_labels):
                if label == y:
                    running += diagonal
                elif off_sum > 0.0:
                    running += confusion[r, y, label] * ((1.0 - diagonal) / off_sum)
                else:
                    running += (1.0 - diagonal) / (n_labels - 1)
                out[r, y, label] = running
            out[r, y, n_labels - 1] = 1.0


@jit
def _draw_labels(
    state,
    n_humans,
    confusion,
    prevalence_cdf,
    n_clusters,
    cluster_spread,
    design,
    rho,
    cluster_cdf,
    labels,
    mask,
):
    """Fill ``labels`` ``(n, R)``; for ``bernoulli`` also the secondaries' ``mask`` bits."""
    n_items = labels.shape[0]
    n_raters = labels.shape[1]
    if cluster_spread > 0.0:
        for cluster in range(n_clusters):
            delta = cluster_spread * (2.0 * uniform(state) - 1.0)
            _confusion_cdf(confusion, delta, cluster_cdf[cluster])
    mask[:, :] = False
    mask[:, 0] = True
    last = cluster_cdf.shape[3] - 1
    for i in range(n_items):
        cluster = i % n_clusters if cluster_spread > 0.0 else 0
        u = uniform(state)
        truth = 0
        for label in range(last):
            truth += u >= prevalence_cdf[label]
        for rater in range(n_raters):
            # Branch-free inverse CDF (the CDF is non-decreasing, so counting the entries
            # at or below u finds the label): the label draws are unpredictable, and
            # mispredicted branches cost more than the random numbers.
            u = uniform(state)
            label = 0
            for entry in range(last):
                label += u >= cluster_cdf[cluster, rater, truth, entry]
            labels[i, rater] = label
        if design == BERNOULLI:
            for secondary in range(1, n_humans):
                mask[i, secondary] = uniform(state) < rho


# --------------------------------------------------------------------------- designs


@jit
def _choose_uniform(state, items, count, take, mask, secondary):
    """Mark ``take`` of ``items[:count]`` for ``secondary``, uniformly (partial shuffle)."""
    for slot in range(take):
        pick = slot + below(state, count - slot)
        chosen = items[pick]
        items[pick] = items[slot]
        items[slot] = chosen
        mask[chosen, secondary] = True


@jit
def _stratum_of(labels, label_counts, i, n_labels):
    """Return the mode of the labels collected on item ``i``.

    A tie goes to the primary's label when it is among the tied labels, else to the smallest
    tied label.
    """
    best = 0
    for label in range(n_labels):
        if label_counts[i, label] > best:
            best = label_counts[i, label]
    primary = labels[i, 0]
    if label_counts[i, primary] == best:
        return primary
    for label in range(n_labels):
        if label_counts[i, label] == best:
            return label
    return primary


@jit
def _allocate(stratum_size, m, n_items, allocation, by_size):
    """Proportional allocation: ``floor(m n_s / n)``, leftover slots to the largest strata.

    Strata are ranked by size (largest first, ties to the smaller label) and the slots left
    over go one each down that ranking.
    """
    n_strata = stratum_size.shape[0]
    given = 0
    for s in range(n_strata):
        allocation[s] = (m * stratum_size[s]) // n_items
        given += allocation[s]
        by_size[s] = s
    for a in range(1, n_strata):  # insertion sort: size descending, label ascending
        current = by_size[a]
        b = a - 1
        while b >= 0 and stratum_size[by_size[b]] < stratum_size[current]:
            by_size[b + 1] = by_size[b]
            b -= 1
        by_size[b + 1] = current
    for rank in range(m - given):
        allocation[by_size[rank]] += 1


@jit
def design_scratch(n_items, n_labels):
    """Return the designs' scratch arrays as one tuple.

    Items, strata, label counts per item, coverage per item, stratum sizes, allocation,
    strata by size, items of one coverage level.
    """
    return (
        np.empty(n_items, dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
        np.empty((n_items, n_labels), dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
        np.empty(n_labels, dtype=np.int64),
        np.empty(n_labels, dtype=np.int64),
        np.empty(n_labels, dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
    )


@jit
def _draw_stratified(state, labels, n_humans, n_labels, design, m, mask, scratch):  # noqa: C901 (one numba loop over the trial)
    """Masks of the ``strat``, ``seq_refined`` and ``seq_coverage`` designs."""
    (
        scratch_items,
        stratum,
        label_counts,
        coverage_count,
        stratum_size,
        allocation,
        by_size,
        level_items,
    ) = scratch
    n_items = labels.shape[0]
    label_counts[:, :] = 0
    coverage_count[:] = 0
    for i in range(n_items):
        label_counts[i, labels[i, 0]] += 1
        stratum[i] = labels[i, 0]
    for secondary in range(1, n_humans):
        if design != STRAT:
            for i in range(n_items):
                stratum[i] = _stratum_of(labels, label_counts, i, n_labels)
        stratum_size[:] = 0
        for i in range(n_items):
            stratum_size[stratum[i]] += 1
        _allocate(stratum_size, m, n_items, allocation, by_size)
        for s in range(n_labels):
            if allocation[s] == 0:
                continue
            count = 0
            for i in range(n_items):  # the stratum's items in item order
                if stratum[i] == s:
                    scratch_items[count] = i
                    count += 1
            if design != SEQ_COVERAGE:
                _choose_uniform(state, scratch_items, count, allocation[s], mask, secondary)
                continue
            # Fewest secondary labels first: whole coverage levels while they fit, then a
            # uniform subset of the level that does not.
            left = allocation[s]
            level = 0
            while left > 0:
                size = 0
                for position in range(count):
                    item = scratch_items[position]
                    if coverage_count[item] == level:
                        level_items[size] = item
                        size += 1
                take = min(left, size)
                _choose_uniform(state, level_items, size, take, mask, secondary)
                left -= take
                level += 1
        for i in range(n_items):
            if mask[i, secondary]:
                coverage_count[i] += 1
                label_counts[i, labels[i, secondary]] += 1


@jit
def _draw_masks(state, labels, n_humans, n_labels, design, m, mask, scratch):
    """Fill the secondaries' columns of ``mask`` for every design but ``bernoulli``."""
    scratch_items = scratch[0]
    n_items = labels.shape[0]
    if design == EXACT_M:
        for secondary in range(1, n_humans):
            for i in range(n_items):
                scratch_items[i] = i
            _choose_uniform(state, scratch_items, n_items, m, mask, secondary)
    elif design == SHARED_PANEL:
        for i in range(n_items):
            scratch_items[i] = i
        _choose_uniform(state, scratch_items, n_items, m, mask, 1)
        for i in range(n_items):
            for secondary in range(2, n_humans):
                mask[i, secondary] = mask[i, 1]
    elif design != BERNOULLI:
        _draw_stratified(state, labels, n_humans, n_labels, design, m, mask, scratch)


@jit
def draw_trial(
    key,
    state,
    n_humans,
    confusion,
    prevalence_cdf,
    n_clusters,
    cluster_spread,
    design,
    rho,
    m,
    cluster_cdf,
    scratch,
    labels,
    mask,
):
    """Draw one trial's labels and masks from its ``key``, in the module's stream order.

    :func:`simcore.engine.kernels.simulate` and :func:`draw` both call this, so the drawn
    matrices a test inspects are the ones the simulation decides.
    """
    seed_state(key, state)
    _draw_labels(
        state,
        n_humans,
        confusion,
        prevalence_cdf,
        n_clusters,
        cluster_spread,
        design,
        rho,
        cluster_cdf,
        labels,
        mask,
    )
    _draw_masks(state, labels, n_humans, confusion.shape[1], design, m, mask, scratch)


@jit
def cluster_cdfs(confusion, n_clusters):
    """Return scratch for every cluster's confusion CDFs, cluster 0's filled unshifted.

    ``(max(n_clusters, 1), R, L, L)``; :func:`_draw_labels` overwrites every cluster's CDFs
    when the clusters' difficulty varies, and reads only cluster 0's otherwise.
    """
    n_raters, n_labels, _ = confusion.shape
    cdfs = np.empty((max(n_clusters, 1), n_raters, n_labels, n_labels))
    _confusion_cdf(confusion, 0.0, cdfs[0])
    return cdfs


# --------------------------------------------------------------------------- entry points


@jit(parallel=True)
def draw(
    trial_keys,
    n_items,
    n_humans,
    confusion,
    prevalence_cdf,
    n_clusters,
    cluster_spread,
    design,
    rho,
    m,
):
    """Return the labels ``(T, n, R)`` and mask ``(T, n, K)`` the simulation decides.

    Same streams and draw order as :func:`simcore.engine.kernels.simulate`; for tests and
    inspection.
    """
    n_trials = trial_keys.shape[0]
    n_raters = confusion.shape[0]
    n_labels = confusion.shape[1]
    labels = np.empty((n_trials, n_items, n_raters), dtype=np.int16)
    mask = np.empty((n_trials, n_items, n_humans), dtype=np.bool_)
    for t in prange(n_trials):
        state = np.empty(4, dtype=np.uint64)
        draw_trial(
            trial_keys[t],
            state,
            n_humans,
            confusion,
            prevalence_cdf,
            n_clusters,
            cluster_spread,
            design,
            rho,
            m,
            cluster_cdfs(confusion, n_clusters),
            design_scratch(n_items, n_labels),
            labels[t],
            mask[t],
        )
    return labels, mask


@jit(parallel=True)
def draw_masks(trial_keys, labels, n_humans, n_labels, design, m):
    """Draw the masks of a non-``bernoulli`` design for given labels ``(T, n, R)``.

    Trial ``t``'s stream starts fresh from ``trial_keys[t]``; for property tests of the
    designs (the simulation draws masks from the stream it used for the labels).
    """
    n_trials, n_items, _ = labels.shape
    mask = np.zeros((n_trials, n_items, n_humans), dtype=np.bool_)
    for t in prange(n_trials):
        state = np.empty(4, dtype=np.uint64)
        seed_state(trial_keys[t], state)
        mask[t, :, 0] = True
        _draw_masks(
            state,
            labels[t],
            n_humans,
            n_labels,
            design,
            m,
            mask[t],
            design_scratch(n_items, n_labels),
        )
    return mask
