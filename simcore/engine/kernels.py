"""Numba kernels: draw trials and run the leave-one-out rule on them.

Everything here takes arrays and scalars and returns arrays; configuration, seeding and
storage live elsewhere. Each trial ``t`` draws from its own counter-based stream seeded by
``trial_keys[t]`` (:mod:`simcore.engine.rng`), so results do not depend on the number of threads.
Outer kernels run ``prange`` over chunks of trials; each chunk allocates its scratch once
and writes only its own trials' slots.

Draw order inside a trial (this order defines the stream and must not change silently):

1. With ``cluster_spread > 0``: one uniform per cluster, its difficulty
   ``delta_c = spread (2u - 1)``.
2. For each item: the true label (inverse CDF of the prevalence), then each rater's label
   (one uniform, inverse CDF of its confusion row), then, for ``bernoulli`` only, one uniform
   per secondary against ``rho``.
3. Other designs, after all labels: the secondaries' items, secondary 1 first
   (:func:`_draw_masks`).
"""

import math

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.coefficients import OBSERVED, table_score
from simcore.engine.rng import below, seed_state, uniform
from simcore.engine.stats_kernels import benjamini_yekutieli_rejections, one_sided_t_pvalue

TIE_TOLERANCE = 1e-9
"""Slack in the count comparison; far below 1 / n_pairs for any realistic corpus."""

SCORE_TOLERANCE = 1e-12
"""Slack in score comparisons of the chance-corrected coefficients."""

BERNOULLI, EXACT_M, SHARED_PANEL, STRAT, SEQ_REFINED, SEQ_COVERAGE = range(6)
"""Design codes, in the order of :data:`simcore.model.designs.DESIGNS`."""

# Columns of the per-trial integer counters returned by simulate/evaluate.
EMPTY, DEGENERATE, DEGENERATE_DENSE, SHARED, POOL_UNDEFINED, POOL_UNDEFINED_DENSE = range(6)
UNDECIDED = 6
N_COUNTERS = 7
# Columns of the per-trial float values.
POOL_SPARSE, POOL_DENSE, PAIRWISE_OVERLAP, EXTRA_ITEMS = range(4)
N_VALUES = 4

POINT, ALT_TEST, INTERVAL = range(3)
"""Rule codes, in the order of :data:`simcore.studies.config.RULE_KINDS`."""
# Entries of the ``rule`` parameter array of :func:`simulate`.
(
    RULE_KIND,
    RULE_EPSILON,
    RULE_COEFFICIENT,
    RULE_Z,
    RULE_MIN_HUMANS,
    RULE_MIN_ITEMS,
    RULE_Q,
    RULE_NUMERIC,
) = range(8)
N_RULE = 8
EXTRA_ITEMS_CAP = 1_000_000
"""Largest number of extra items recorded for one undecided comparison."""

MAX_MERGED_CATEGORIES = 1 << 16
"""Most (label pattern x mask pattern) categories for which a trial's items are merged."""

TRIAL_CHUNK = 64
"""Trials per parallel task: each task allocates its scratch once for this many trials."""


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
def _design_scratch(n_items, n_labels):
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
def _draw_stratified(state, labels, n_humans, n_labels, design, m, mask, scratch):
    """Masks of the ``strat``, ``seq_refined`` and ``seq_coverage`` designs (SPEC §3)."""
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
def _overlap_statistics(mask, weights, coverage_row, values, counters):
    """Record each secondary's coverage, the mean pairwise overlap and a shared panel.

    Row ``i`` of ``mask`` stands for ``weights[i]`` items.
    """
    n_rows, n_humans = mask.shape
    n_items = 0
    for i in range(n_rows):
        n_items += weights[i]
    for secondary in range(1, n_humans):
        count = 0
        for i in range(n_rows):
            if mask[i, secondary]:
                count += weights[i]
        coverage_row[secondary - 1] = count / n_items
    total = 0
    pairs = 0
    shared = True
    for a in range(1, n_humans):
        for b in range(a + 1, n_humans):
            pairs += 1
            for i in range(n_rows):
                if mask[i, a] and mask[i, b]:
                    total += weights[i]
                if mask[i, a] != mask[i, b] and weights[i] > 0:
                    shared = False
    values[PAIRWISE_OVERLAP] = total / pairs if pairs > 0 else np.nan
    counters[SHARED] = 1 if shared else 0


@jit
def _draw_trial(
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

    :func:`simulate` and :func:`draw` both call this, so the drawn matrices a test inspects
    are the ones the simulation decides.
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


# --------------------------------------------------------------------------- the rule


@jit
def _fill_tables(labels, mask, weights, n_humans, tables):
    """Accumulate the pair tables of every comparison and of the human pool into ``tables``.

    ``tables[k, c, a, b]`` counts pairs of held-out human ``k`` whose candidate label is
    ``a`` and pool label is ``b``; candidate ``c < J`` is judge ``c`` and ``c = J`` is
    human ``k`` itself. ``pool[a, b]`` counts every pair of humans ``q < r`` who both
    labelled an item, oriented (``q``'s label, ``r``'s label). Row ``i`` stands for
    ``weights[i]`` identical items (1 per item for the items engine, a category count for
    the counts engine). ``tables`` is :func:`_tables`.
    """
    sparse_tables, dense_tables, sparse_pool, dense_pool, label_counts = tables
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    n_labels = dense_tables.shape[2]
    sparse_tables[:] = 0
    dense_tables[:] = 0
    sparse_pool[:] = 0
    dense_pool[:] = 0
    # Per row, count the humans' labels (all of them, and those who labelled the item): the
    # pool of held-out human k holds every other human, so its label counts are these minus
    # k's own label, and a table row gains them at once: O(K L (J + 1)) per row, not
    # O(K^2 (J + 1)).
    every = label_counts[0]
    labelled = label_counts[1]
    for i in range(n_items):
        weight = weights[i]
        if weight == 0:
            continue
        every[:] = 0
        labelled[:] = 0
        for r in range(n_humans):
            label = labels[i, r]
            # the pool's pairs (q < r): r's label against the labels of the humans before it
            for a in range(n_labels):
                dense_pool[a, label] += weight * every[a]
                if mask[i, r]:
                    sparse_pool[a, label] += weight * labelled[a]
            every[label] += 1
            if mask[i, r]:
                labelled[label] += 1
        for k in range(n_humans):
            own = labels[i, k]
            observed = mask[i, k]
            for b in range(n_labels):
                dense_pairs = weight * (every[b] - (1 if own == b else 0))
                sparse_pairs = weight * (labelled[b] - (1 if own == b else 0)) if observed else 0
                if dense_pairs > 0:
                    for c in range(n_judges):
                        dense_tables[k, c, labels[i, n_humans + c], b] += dense_pairs
                    dense_tables[k, n_judges, own, b] += dense_pairs
                if sparse_pairs > 0:
                    for c in range(n_judges):
                        sparse_tables[k, c, labels[i, n_humans + c], b] += sparse_pairs
                    sparse_tables[k, n_judges, own, b] += sparse_pairs


@jit
def _count_passes(tables, epsilon, coefficient, n_pass, counters, empty_column, degenerate_column):
    """Write each judge's passed comparisons into ``n_pass``; count empty and degenerate.

    Observed agreement compares on counts, ``judge_agree - human_agree + eps n_pairs >=
    -TIE_TOLERANCE``; other coefficients compare scores with a 1e-12 tolerance.
    """
    n_humans = tables.shape[0]
    n_judges = tables.shape[1] - 1
    n_labels = tables.shape[2]
    for c in range(n_judges):
        n_pass[c] = 0
    for k in range(n_humans):
        total = 0
        human_agree = 0
        for a in range(n_labels):
            human_agree += tables[k, n_judges, a, a]
            for b in range(n_labels):
                total += tables[k, n_judges, a, b]
        if total == 0:
            if empty_column >= 0:
                counters[empty_column] += 1
            for c in range(n_judges):
                n_pass[c] += 1
            continue
        if coefficient == OBSERVED:
            for c in range(n_judges):
                judge_agree = 0
                for a in range(n_labels):
                    judge_agree += tables[k, c, a, a]
                if judge_agree - human_agree + epsilon * total >= -TIE_TOLERANCE:
                    n_pass[c] += 1
            continue
        human_score, human_degenerate = table_score(tables[k, n_judges], coefficient)
        if human_degenerate:
            counters[degenerate_column] += 1
        for c in range(n_judges):
            judge_score, judge_degenerate = table_score(tables[k, c], coefficient)
            if judge_degenerate:
                counters[degenerate_column] += 1
            if judge_score - human_score + epsilon >= -SCORE_TOLERANCE:
                n_pass[c] += 1


@jit
def _pool_estimate(pool, coefficient, values, counters, value_column, undefined_column):
    """Score the human pool's table; an empty or degenerate table is counted undefined."""
    total = 0
    for a in range(pool.shape[0]):
        for b in range(pool.shape[1]):
            total += pool[a, b]
    score, degenerate = table_score(pool, coefficient)
    values[value_column] = score
    if total == 0 or degenerate:
        counters[undefined_column] += 1


@jit
def _decide_trial(
    labels, mask, weights, n_humans, epsilon, coefficient, tables, passes, counters, values
):
    """Run the rule and the pool estimate on one trial, sparse and dense."""
    _fill_tables(labels, mask, weights, n_humans, tables)
    sparse_tables, dense_tables, sparse_pool, dense_pool, _ = tables
    _count_passes(sparse_tables, epsilon, coefficient, passes[0], counters, EMPTY, DEGENERATE)
    _count_passes(dense_tables, epsilon, coefficient, passes[1], counters, -1, DEGENERATE_DENSE)
    _pool_estimate(sparse_pool, coefficient, values, counters, POOL_SPARSE, POOL_UNDEFINED)
    _pool_estimate(dense_pool, coefficient, values, counters, POOL_DENSE, POOL_UNDEFINED_DENSE)


@jit
def _tables(n_humans, n_judges, n_labels):
    """Return the rule's scratch tables, allocated once per task.

    Sparse and dense comparison tables, sparse and dense pool tables, and the per-row label
    counts (all humans, labelling humans) :func:`_fill_tables` works in.
    """
    sparse_tables = np.empty((n_humans, n_judges + 1, n_labels, n_labels), dtype=np.int64)
    dense_tables = np.empty_like(sparse_tables)
    sparse_pool = np.empty((n_labels, n_labels), dtype=np.int64)
    dense_pool = np.empty_like(sparse_pool)
    label_counts = np.empty((2, n_labels), dtype=np.int64)
    return sparse_tables, dense_tables, sparse_pool, dense_pool, label_counts


# --------------------------------------------------------------------------- other rules


@jit
def _item_score(labels, mask, use_mask, i, candidate_label, exclude, n_humans, numeric):
    """Return ``(score, humans)``: agreement of a label with the other humans on item ``i``.

    The score is the mean agreement with (or minus the RMSE from) the humans who labelled
    item ``i``, ``exclude`` left out.
    """
    total = 0.0
    count = 0
    for q in range(n_humans):
        if q == exclude or (use_mask and not mask[i, q]):
            continue
        if numeric:
            gap = float(candidate_label - labels[i, q])
            total += gap * gap
        elif candidate_label == labels[i, q]:
            total += 1.0
        count += 1
    if count == 0:
        return 0.0, 0
    if numeric:
        return -math.sqrt(total / count), count
    return total / count, count


@jit
def _alt_test_scratch(n_judges, n_humans):
    """Return the alternative annotator test's scratch: p-values, an order, sums."""
    return np.empty((n_judges, n_humans)), np.empty(n_humans), np.empty((n_judges, 2))


@jit
def _alt_test(labels, mask, weights, use_mask, n_humans, rule, scratch, wins, skipped):
    """Run the alternative annotator test (SPEC §5b); return the number of humans tested.

    Items labelled by fewer than ``min_humans`` humans are dropped. For held-out human ``h``
    and each item ``h`` labelled, the judge's and ``h``'s scores are their mean agreement
    with (or minus the RMSE from) the other humans on the item; ``d_i = [s_h >= s_j] -
    [s_j >= s_h]``; ``p_h`` is the one-sided t-test of ``mean(d) >= eps`` against
    ``< eps``. A human with fewer than ``min_items`` items is skipped. Benjamini-Yekutieli at
    ``level`` over the tested humans' p-values: each rejection is a win for the judge.
    ``wins[c]`` receives judge ``c``'s wins; ``pvalues[c, h]`` the p-value of judge ``c``
    against human ``h`` (NaN for a skipped human). ``rule`` is the kernel's rule array
    (eps, minimum humans per item and items per human, BY level, numeric scores);
    ``scratch`` is ``(pvalues (J, K), order (K,), sums (J, 2))``
    (:func:`_alt_test_scratch`). Row ``i`` stands for ``weights[i]`` identical items.
    """
    pvalues, order, sums = scratch
    epsilon = rule[RULE_EPSILON]
    min_humans = int(rule[RULE_MIN_HUMANS])
    min_items = int(rule[RULE_MIN_ITEMS])
    level = rule[RULE_Q]
    numeric = rule[RULE_NUMERIC] > 0.5
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    tested = 0
    for h in range(n_humans):
        skipped[h] = 0
        count = 0
        sums[:, :] = 0.0
        for i in range(n_items):
            weight = weights[i]
            if weight == 0 or (use_mask and not mask[i, h]):
                continue
            labelled = 0
            for q in range(n_humans):
                if not use_mask or mask[i, q]:
                    labelled += 1
            if labelled < min_humans:
                continue
            count += weight
            human, _ = _item_score(labels, mask, use_mask, i, labels[i, h], h, n_humans, numeric)
            for c in range(n_judges):
                judge, _ = _item_score(
                    labels, mask, use_mask, i, labels[i, n_humans + c], h, n_humans, numeric
                )
                d = (1.0 if human >= judge else 0.0) - (1.0 if judge >= human else 0.0)
                sums[c, 0] += weight * d
                sums[c, 1] += weight * d * d
        if count < min_items or count < 2:
            skipped[h] = 1
            for c in range(n_judges):
                pvalues[c, h] = np.nan
            continue
        for c in range(n_judges):
            pvalues[c, h] = one_sided_t_pvalue(count, sums[c, 0], sums[c, 1], epsilon)
        tested += 1
    for c in range(n_judges):
        gathered = 0
        for h in range(n_humans):
            if skipped[h] == 0:
                order[gathered] = pvalues[c, h]
                gathered += 1
        wins[c] = benjamini_yekutieli_rejections(order, tested, level, order) if tested else 0
    return tested


@jit
def _interval(labels, mask, weights, use_mask, n_humans, epsilon, z, sums, clears, fails):
    """Run the interval verdict's comparisons; return ``(undecided, extra items)``.

    For comparison ``k`` and judge ``c``, item ``i`` (labelled by ``k``) contributes
    ``D_i = sum_q [judge == q] - [k == q]`` over its ``c_i`` pool labels; ``d_k + eps =
    sum D / sum c + eps`` with the cluster (item) robust standard error
    ``sqrt(n/(n-1) sum (D_i - d c_i)^2) / sum c``. A comparison clears the bar when the lower
    end of ``d_k + eps -/+ z SE`` is >= 0, fails it when the upper end is < 0, and is
    undecided otherwise (also with fewer than two items). An undecided comparison would be
    settled, by the Gaussian recipe with the same per-item variance, after
    ``n (z SE / (d_k + eps))^2 - n`` more items (capped at :data:`EXTRA_ITEMS_CAP`).
    ``sums`` is ``(K, J, 6)`` scratch. Row ``i`` stands for ``weights[i]`` identical items.
    """
    n_items = labels.shape[0]
    n_judges = labels.shape[1] - n_humans
    sums[:] = 0.0
    for i in range(n_items):
        weight = weights[i]
        if weight == 0:
            continue
        for k in range(n_humans):
            if use_mask and not mask[i, k]:
                continue
            pool = 0
            own = 0
            for q in range(n_humans):
                if q == k or (use_mask and not mask[i, q]):
                    continue
                pool += 1
                if labels[i, k] == labels[i, q]:
                    own += 1
            if pool == 0:
                continue
            for c in range(n_judges):
                agree = 0
                for q in range(n_humans):
                    if q == k or (use_mask and not mask[i, q]):
                        continue
                    if labels[i, n_humans + c] == labels[i, q]:
                        agree += 1
                difference = float(agree - own)
                sums[k, c, 0] += weight
                sums[k, c, 1] += weight * pool
                sums[k, c, 2] += weight * pool * pool
                sums[k, c, 3] += weight * difference
                sums[k, c, 4] += weight * difference * difference
                sums[k, c, 5] += weight * difference * pool
    undecided = 0
    extra = 0.0
    for c in range(n_judges):
        clears[c] = 0
        fails[c] = 0
    for k in range(n_humans):
        for c in range(n_judges):
            n, pairs, pairs_sq, total, total_sq, cross = sums[k, c]
            if n < 2:
                undecided += 1
                extra += EXTRA_ITEMS_CAP
                continue
            mean = total / pairs
            residual = total_sq - 2.0 * mean * cross + mean * mean * pairs_sq
            se = math.sqrt(max(residual, 0.0) * n / (n - 1.0)) / pairs
            centre = mean + epsilon
            if centre - z * se >= -TIE_TOLERANCE:
                clears[c] += 1
            elif centre + z * se < -TIE_TOLERANCE:
                fails[c] += 1
            else:
                undecided += 1
                needed = n * (z * se / centre) ** 2 if centre != 0.0 else 1e300
                extra += math.ceil(min(max(needed - n, 0.0), EXTRA_ITEMS_CAP))
    return undecided, extra


# --------------------------------------------------------------------------- one trial


@jit
def trial_outputs(n_trials, n_humans, n_judges):
    """Allocate the per-trial outputs of :func:`simulate` (zeros), in its return order."""
    return (
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros(n_trials, dtype=np.int16),
        np.zeros((n_trials, n_judges), dtype=np.int16),
        np.zeros(n_trials, dtype=np.int16),
        np.zeros((n_trials, N_COUNTERS), dtype=np.int32),
        np.zeros((n_trials, N_VALUES), dtype=np.float64),
        np.zeros((n_trials, n_humans - 1), dtype=np.float64),
        np.zeros((n_trials, 2, n_judges), dtype=np.float64),
        np.zeros((n_trials, n_humans), dtype=np.int8),
    )


@jit
def rule_scratch(n_humans, n_judges, n_labels):
    """Return the scratch :func:`decide_rows` needs, allocated once per chunk of trials."""
    return (
        _tables(n_humans, n_judges, n_labels),
        np.empty((2, n_judges), dtype=np.int16),
        np.empty(n_judges, dtype=np.int16),
        _alt_test_scratch(n_judges, n_humans),
        np.empty(n_humans, dtype=np.int8),
        np.empty((n_humans, n_judges, 6)),
    )


@jit
def decide_rows(labels, mask, weights, n_humans, rule, scratch, t, outputs):
    """Run the cell's rule on one drawn trial and write trial ``t`` of ``outputs``.

    Row ``i`` of ``labels`` ``(rows, R)`` and ``mask`` ``(rows, K)`` stands for
    ``weights[i]`` identical items: one item each for the items engine, one category of
    items for the counts engine. Both engines share this function, so they decide alike.
    """
    (
        favour,
        against,
        tested,
        reference_favour,
        reference_tested,
        counters,
        values,
        coverage,
        ranking,
        skipped,
    ) = outputs
    tables, point, wins, alt_scratch, reference_skipped, interval_sums = scratch
    kind = int(rule[RULE_KIND])
    epsilon = rule[RULE_EPSILON]
    coefficient = int(rule[RULE_COEFFICIENT])
    n_judges = labels.shape[1] - n_humans
    _overlap_statistics(mask, weights, coverage[t], values[t], counters[t])
    _decide_trial(
        labels, mask, weights, n_humans, epsilon, coefficient, tables, point, counters[t], values[t]
    )
    if n_judges > 1:  # a ranking needs two judges
        _ranking_scores(tables[0], coefficient, ranking[t, 0])
        _ranking_scores(tables[1], coefficient, ranking[t, 1])
    reference_tested[t] = n_humans
    tested[t] = n_humans
    for c in range(n_judges):
        reference_favour[t, c] = point[1, c]
        favour[t, c] = point[0, c]
        against[t, c] = n_humans - point[0, c]
    if kind == ALT_TEST:
        tested[t] = _alt_test(
            labels, mask, weights, True, n_humans, rule, alt_scratch, favour[t], skipped[t]
        )
        reference_tested[t] = _alt_test(
            labels, mask, weights, False, n_humans, rule, alt_scratch, wins, reference_skipped
        )
        for c in range(n_judges):
            reference_favour[t, c] = wins[c]
            against[t, c] = tested[t] - favour[t, c]
    elif kind == INTERVAL:
        undecided, extra = _interval(
            labels,
            mask,
            weights,
            True,
            n_humans,
            epsilon,
            rule[RULE_Z],
            interval_sums,
            favour[t],
            against[t],
        )
        counters[t, UNDECIDED] = undecided
        values[t, EXTRA_ITEMS] = extra


# --------------------------------------------------------------------------- entry points


@jit
def alternative_annotator_test(
    labels, mask, n_humans, epsilon, min_humans_per_item, min_items_per_human, level, numeric
):
    """Run the alternative annotator test (SPEC §5b) on one matrix.

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(n, K + J)``, humans first; unobserved entries may hold any code.
    mask : numpy.ndarray
        bool ``(n, K)``: which human labels exist.
    n_humans : int
        K.
    epsilon, level : float
        The test's eps and the Benjamini-Yekutieli level q.
    min_humans_per_item, min_items_per_human : int
        Items with fewer human labels are dropped; humans with fewer items are skipped.
    numeric : bool
        Score items by minus the RMSE of the label codes instead of accuracy.

    Returns
    -------
    wins : numpy.ndarray
        int16 ``(J,)``: humans each judge wins against.
    tested : int
        Humans tested (the effective K); the winning rate is ``wins / tested``.
    skipped : numpy.ndarray
        int8 ``(K,)``: 1 for a skipped human.
    pvalues : numpy.ndarray
        ``(J, K)``: p-value per judge and human, NaN where skipped.
    """
    n_judges = labels.shape[1] - n_humans
    wins = np.zeros(n_judges, dtype=np.int16)
    skipped = np.zeros(n_humans, dtype=np.int8)
    rule = np.zeros(N_RULE)
    rule[RULE_EPSILON] = epsilon
    rule[RULE_MIN_HUMANS] = min_humans_per_item
    rule[RULE_MIN_ITEMS] = min_items_per_human
    rule[RULE_Q] = level
    rule[RULE_NUMERIC] = 1.0 if numeric else 0.0
    scratch = _alt_test_scratch(n_judges, n_humans)
    weights = np.ones(labels.shape[0], dtype=np.int64)
    tested = _alt_test(labels, mask, weights, True, n_humans, rule, scratch, wins, skipped)
    pvalues = scratch[0]
    return wins, tested, skipped, pvalues


@jit(parallel=True)
def simulate(
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
    rule,
):
    """Draw and decide every trial of one cell.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 key per trial (:func:`simcore.engine.rng.trial_keys`).
    n_items, n_humans : int
        n and K.
    confusion : numpy.ndarray
        float64 ``(R, L, L)`` confusion matrix per rater, humans first then judges.
    prevalence_cdf : numpy.ndarray
        float64 cumulative prevalence (length L, last entry 1).
    n_clusters : int
        Item clusters (item ``i`` in cluster ``i % n_clusters``); 1 for none.
    cluster_spread : float
        Half-width of each cluster's uniform difficulty shift; 0 for none.
    design : int
        Design code (:data:`BERNOULLI` ...).
    rho : float
        Bernoulli coverage of each secondary.
    m : int
        Items per secondary for the other designs.
    rule : numpy.ndarray
        float64 ``(N_RULE,)``: kind (:data:`POINT`, :data:`ALT_TEST`, :data:`INTERVAL`),
        eps, coefficient code, z of the interval verdict, the alternative annotator test's
        minimum humans per item and items per human, its BY level, and 1 for numeric labels.

    Returns
    -------
    favour, against : numpy.ndarray
        int16 ``(T, J)``: comparisons for and against each judge on the sparse matrix (point
        rule: passes and fails; alt_test: humans won and not won; interval: comparisons
        that clear and fail the bar with confidence).
    tested : numpy.ndarray
        int16 ``(T,)``: comparisons made (K; alt_test: the humans tested).
    reference_favour : numpy.ndarray
        int16 ``(T, J)``: the same on the dense matrix (the interval verdict's reference is
        the point rule's).
    reference_tested : numpy.ndarray
        int16 ``(T,)``.
    counters : numpy.ndarray
        int32 ``(T, N_COUNTERS)``.
    values : numpy.ndarray
        float64 ``(T, N_VALUES)``.
    coverage : numpy.ndarray
        float64 ``(T, K - 1)``: each secondary's share of the items.
    ranking : numpy.ndarray
        float64 ``(T, 2, J)``: each judge's mean score over the comparisons, sparse and dense
        (left at 0 with a single judge: there is nothing to rank).
    skipped : numpy.ndarray
        int8 ``(T, K)``: humans the alternative annotator test skipped (sparse).
    """
    n_trials = trial_keys.shape[0]
    n_raters = confusion.shape[0]
    n_labels = confusion.shape[1]
    n_judges = n_raters - n_humans
    outputs = trial_outputs(n_trials, n_humans, n_judges)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        labels = np.empty((n_items, n_raters), dtype=np.int16)
        mask = np.empty((n_items, n_humans), dtype=np.bool_)
        cluster_cdf = np.empty((max(n_clusters, 1), n_raters, n_labels, n_labels))
        _confusion_cdf(confusion, 0.0, cluster_cdf[0])
        scratch = _design_scratch(n_items, n_labels)
        weights = np.ones(n_items, dtype=np.int64)
        decide_scratch = rule_scratch(n_humans, n_judges, n_labels)
        categories = _merged_categories(n_labels, n_raters, n_humans)
        merge = categories <= MAX_MERGED_CATEGORIES
        histogram = np.zeros(categories if merge else 1, dtype=np.int64)
        touched = np.empty(min(categories, n_items) if merge else 1, dtype=np.int64)
        row_sizes = np.empty(n_items, dtype=np.int64)
        row_labels = np.empty((n_items, n_raters), dtype=np.int16)
        row_masks = np.empty((n_items, n_humans), dtype=np.bool_)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            _draw_trial(
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
                cluster_cdf,
                scratch,
                labels,
                mask,
            )
            if merge:
                rows = merge_rows(
                    labels, mask, n_labels, histogram, touched, row_sizes, row_labels, row_masks
                )
                decide_rows(
                    row_labels[:rows],
                    row_masks[:rows],
                    row_sizes[:rows],
                    n_humans,
                    rule,
                    decide_scratch,
                    t,
                    outputs,
                )
            else:
                decide_rows(labels, mask, weights, n_humans, rule, decide_scratch, t, outputs)
    return outputs


@jit
def _merged_categories(n_labels, n_raters, n_humans):
    """Return ``L**R 2**(K - 1)``, or ``MAX_MERGED_CATEGORIES + 1`` once it exceeds it."""
    categories = 1
    for _ in range(n_raters):
        categories *= n_labels
        if categories > MAX_MERGED_CATEGORIES:
            return MAX_MERGED_CATEGORIES + 1
    for _ in range(n_humans - 1):
        categories *= 2
        if categories > MAX_MERGED_CATEGORIES:
            return MAX_MERGED_CATEGORIES + 1
    return categories


@jit
def merge_rows(labels, mask, n_labels, histogram, touched, row_sizes, row_labels, row_masks):
    """Merge items with identical labels and mask into weighted rows; return the row count.

    Item ``i``'s category code is ``(sum_r labels[i, r] L**(R - 1 - r)) 2**(K - 1) +
    sum_s mask[i, s] 2**(s - 1)`` (secondaries ``s = 1 .. K - 1``). ``histogram`` (one slot
    per code, all zero on entry and on return) counts items per code; rows come out in order
    of each code's first item. Every statistic the rules read is a sum over items of a
    function of the category, with integer-valued terms, so deciding the merged rows gives
    exactly the numbers of deciding the items one by one, for the cost of one pass over the
    items.
    """
    n_items, n_raters = labels.shape
    n_humans = mask.shape[1]
    n_touched = 0
    for i in range(n_items):
        code = 0
        for rater in range(n_raters):
            code = code * n_labels + labels[i, rater]
        for secondary in range(1, n_humans):
            code = code * 2 + (1 if mask[i, secondary] else 0)
        if histogram[code] == 0:
            touched[n_touched] = code
            n_touched += 1
        histogram[code] += 1
    for row in range(n_touched):
        code = touched[row]
        row_sizes[row] = histogram[code]
        histogram[code] = 0
        for secondary in range(n_humans - 1, 0, -1):
            row_masks[row, secondary] = code % 2 == 1
            code //= 2
        row_masks[row, 0] = True
        for rater in range(n_raters - 1, -1, -1):
            row_labels[row, rater] = code % n_labels
            code //= n_labels
    return n_touched


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
    """Return the labels ``(T, n, R)`` and mask ``(T, n, K)`` that :func:`simulate` uses.

    Same streams and draw order as :func:`simulate`; for tests and inspection.
    """
    n_trials = trial_keys.shape[0]
    n_raters = confusion.shape[0]
    n_labels = confusion.shape[1]
    labels = np.empty((n_trials, n_items, n_raters), dtype=np.int16)
    mask = np.empty((n_trials, n_items, n_humans), dtype=np.bool_)
    for t in prange(n_trials):
        state = np.empty(4, dtype=np.uint64)
        cluster_cdf = np.empty((max(n_clusters, 1), n_raters, n_labels, n_labels))
        _confusion_cdf(confusion, 0.0, cluster_cdf[0])
        _draw_trial(
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
            cluster_cdf,
            _design_scratch(n_items, n_labels),
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
            _design_scratch(n_items, n_labels),
        )
    return mask


@jit(parallel=True)
def evaluate(labels, mask, n_humans, n_labels, epsilon, coefficient):
    """Run the rule on given label tensors: ``(T, n, R)`` labels and ``(T, n, K)`` mask.

    Returns ``passes``, ``counters`` and ``values`` as :func:`simulate` does (the overlap
    columns are left at 0).
    """
    n_trials = labels.shape[0]
    n_judges = labels.shape[2] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = _tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            _decide_trial(
                labels[t],
                mask[t],
                weights,
                n_humans,
                epsilon,
                coefficient,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
    return passes, counters, values


@jit
def _ranking_scores(tables, coefficient, out):
    """Write each judge's mean score over the non-empty comparisons (0 if all are empty)."""
    n_humans = tables.shape[0]
    n_judges = tables.shape[1] - 1
    for c in range(n_judges):
        total = 0.0
        count = 0
        for k in range(n_humans):
            pairs = 0
            for a in range(tables.shape[2]):
                for b in range(tables.shape[3]):
                    pairs += tables[k, c, a, b]
            if pairs > 0:
                total += table_score(tables[k, c], coefficient)[0]
                count += 1
        out[c] = total / count if count > 0 else 0.0


@jit(parallel=True)
def evaluate_masks(labels, masks, n_humans, n_labels, epsilon, coefficient):
    """Run the rule on one label matrix under many masks (real data thinned per trial).

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(n, K + J)``; unobserved human entries may hold any label code.
    masks : numpy.ndarray
        bool ``(T, n, K)``: which human labels each trial keeps.
    n_humans, n_labels : int
        K and L.
    epsilon : float
        Tolerance eps.
    coefficient : int
        Agreement coefficient code.

    Returns
    -------
    passes : numpy.ndarray
        int16 ``(T, J)``: comparisons each judge passes.
    counters : numpy.ndarray
        int32 ``(T, N_COUNTERS)``: as :func:`simulate` (the dense columns are unused).
    pool : numpy.ndarray
        float64 ``(T,)``: the human pool's agreement under the mask.
    ranking : numpy.ndarray
        float64 ``(T, J)``: each judge's mean score over the non-empty comparisons.
    """
    n_trials = masks.shape[0]
    n_judges = labels.shape[1] - n_humans
    passes = np.zeros((n_trials, 2, n_judges), dtype=np.int16)
    counters = np.zeros((n_trials, N_COUNTERS), dtype=np.int32)
    values = np.zeros((n_trials, N_VALUES), dtype=np.float64)
    ranking = np.zeros((n_trials, n_judges), dtype=np.float64)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        tables = _tables(n_humans, n_judges, n_labels)
        weights = np.ones(labels.shape[-2], dtype=np.int64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            _decide_trial(
                labels,
                masks[t],
                weights,
                n_humans,
                epsilon,
                coefficient,
                tables,
                passes[t],
                counters[t],
                values[t],
            )
            _ranking_scores(tables[0], coefficient, ranking[t])
    return passes[:, 0], counters, values[:, POOL_SPARSE].copy(), ranking
