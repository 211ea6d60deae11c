"""Clustered items on the bitset engine: each cluster's items, difficulty and lane classes.

Item ``i`` of the generative model is in cluster ``i mod G``; each trial draws one
difficulty ``delta_g = s (2 u - 1)`` per cluster and shifts every rater's diagonal by it
(:func:`simcore.model.generative.shift_accuracy`). Under the ``bernoulli``, ``exact_m``
and ``shared_panel`` designs items are exchangeable apart from their cluster, so a trial
only needs how many items of each cluster fall in each mask pattern: the mask groups are
split from one starting group per cluster (:func:`simcore.engine.counts.split_groups`, which
keeps a group's descendants together), so cluster ``g``'s items are the contiguous lanes
``start[g] .. stop[g] - 1``, laid out by mask pattern inside (:func:`cluster_layout`). A
word then holds the items of a few clusters only (``spans``).

A lane's label threshold depends on its class: ``(cluster, true label)`` for label planes
(class ``g L + t``), the cluster for offset planes (class ``g``), with the thresholds of the
cluster's shifted confusion matrices (:func:`cluster_thresholds`). The difficulties come
from the mask stream, after the mask groups, cluster 0 first.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.bitset.words import ALL_ONES, threshold
from simcore.engine.counts import split_groups
from simcore.engine.rng import uniform

CLUSTER_WORDS_LIMIT = 1 << 20
"""Most class words ``G C W`` (per thread) the engine holds for a clustered cell."""


def class_words(n_items, n_clusters, n_labels):
    """Return the class words a clustered cell needs: ``G L ceil(n / 64)`` (at most).

    Plain Python: the engine choice reads it for every cell, before anything compiles.
    """
    return n_clusters * n_labels * ((n_items + 63) // 64)


@jit
def cluster_scratch(n_items, n_clusters, n_raters, n_labels, per_cluster):
    """Return the scratch of a clustered cell.

    ``(origins (2, n), start (G,), stop (G,), deltas (G,), classes (G C, W), thresholds
    (L, R, G C), spans (W, 2), row (L,))`` with ``C = per_cluster`` classes per cluster.
    """
    n_words = (n_items + 63) // 64
    n_classes = n_clusters * per_cluster
    return (
        np.empty((2, n_items), dtype=np.int64),
        np.zeros(n_clusters, dtype=np.int64),
        np.zeros(n_clusters, dtype=np.int64),
        np.zeros(n_clusters),
        np.empty((n_classes, n_words), dtype=np.uint64),
        np.empty((n_labels, n_raters, n_classes), dtype=np.uint64),
        np.zeros((n_words, 2), dtype=np.int64),
        np.empty(n_labels),
    )


@jit
def cluster_layout(state, n_items, arguments, groups_scratch, scratch):
    """Draw the mask groups cluster by cluster; return ``(generation, groups)``.

    ``arguments`` as :func:`simcore.engine.counts.split_groups`; ``groups_scratch`` is
    ``(sizes, group masks, chosen)``. Fills ``start``, ``stop`` and ``spans`` of
    ``scratch`` (:func:`cluster_scratch`; word ``w`` holds classes ``spans[w, 0] ..
    spans[w, 1] - 1``), then draws each cluster's difficulty into ``deltas`` (the
    ``cluster_spread`` is applied by :func:`cluster_thresholds`).
    """
    sizes, group_masks, chosen = groups_scratch
    origins, start, stop, deltas, _, _, spans, _ = scratch
    n_clusters = start.shape[0]
    per_cluster = scratch[4].shape[0] // n_clusters
    groups = 0
    for g in range(n_clusters):
        size = n_items // n_clusters + (1 if g < n_items % n_clusters else 0)
        if size == 0:
            continue
        sizes[0, groups] = size
        group_masks[0, groups, :] = False
        group_masks[0, groups, 0] = True
        origins[0, groups] = g
        groups += 1
    generation, groups = split_groups(state, groups, arguments, sizes, group_masks, chosen, origins)
    for w in range(spans.shape[0]):
        spans[w, 0] = n_clusters * per_cluster
        spans[w, 1] = 0
    lane = 0
    for group in range(groups):
        g = origins[generation, group]
        end = lane + sizes[generation, group]
        if group == 0 or origins[generation, group - 1] != g:
            start[g] = lane
        stop[g] = end
        for w in range(lane // 64, (end - 1) // 64 + 1):
            spans[w, 0] = min(spans[w, 0], g * per_cluster)
            spans[w, 1] = max(spans[w, 1], (g + 1) * per_cluster)
        lane = end
    for g in range(n_clusters):
        deltas[g] = 2.0 * uniform(state) - 1.0
    return generation, groups


@jit
def _range_word(w, first, stop):
    """Return word ``w`` of the bitset of lanes ``first .. stop - 1``."""
    low = max(first, 64 * w) - 64 * w
    high = min(stop, 64 * w + 64) - 64 * w
    if high <= low:
        return np.uint64(0)
    if high - low == 64:
        return ALL_ONES
    return ((np.uint64(1) << np.uint64(high - low)) - np.uint64(1)) << np.uint64(low)


@jit
def cluster_classes(truth, scratch, labels):
    """Fill the lane classes each word can hold: ``(cluster, true label)`` or the cluster."""
    _, start, stop, _, classes, _, spans, _ = scratch
    n_labels = truth.shape[0]
    for w in range(spans.shape[0]):
        for c in range(spans[w, 0], spans[w, 1]):
            if labels:
                g, t = c // n_labels, c % n_labels
                classes[c, w] = truth[t, w] & _range_word(w, start[g], stop[g])
            else:
                classes[c, w] = _range_word(w, start[c], stop[c])


@jit
def cluster_thresholds(confusion, spread, scratch, labels):
    """Fill each class's plane thresholds ``(L, R, G C)`` from the shifted confusion rows.

    Cluster ``g``'s row ``(r, t)`` has ``min(1, max(0, C[r, t, t] + s delta_g))`` on the
    diagonal and the off-diagonal entries rescaled to the rest (spread evenly where the
    row has none), as the items engine shifts it. Label planes take row ``(r, t)`` for
    class ``g L + t``; offset planes (symmetric channels) the offsets ``(p', (1 - p') / (L -
    1), ...)`` of row ``(r, 0)`` for class ``g`` (offset 0 is the right label). Each
    plane's threshold is that of the conditional share ``p_v / (p_v + ... + p_{L-1})``.
    """
    deltas, thresholds, row = scratch[3], scratch[5], scratch[7]
    n_raters, n_labels, _ = confusion.shape
    for g in range(deltas.shape[0]):
        delta = spread * deltas[g]
        for r in range(n_raters):
            for t in range(n_labels if labels else 1):
                diagonal = min(1.0, max(0.0, confusion[r, t, t] + delta))
                off_sum = 0.0
                for v in range(n_labels):
                    if v != t:
                        off_sum += confusion[r, t, v]
                for v in range(n_labels):
                    if v == t:
                        row[v] = diagonal
                    elif off_sum > 0.0:
                        row[v] = confusion[r, t, v] * ((1.0 - diagonal) / off_sum)
                    else:
                        row[v] = (1.0 - diagonal) / (n_labels - 1)
                column = g * n_labels + t if labels else g
                rest = 0.0
                for v in range(n_labels - 1, -1, -1):
                    rest += row[v]
                    share = row[v] / rest if rest > 0.0 else 1.0
                    thresholds[v, r, column] = threshold(share)
