"""Drawing one trial of the bitset engine: label planes and masks as bitsets of 64-bit words.

Item ``i`` is lane ``i % 64`` of word ``i // 64``; a trial of ``n`` items has ``W =
ceil(n / 64)`` words per bitset and ``valid`` marks the lanes that are items. Each rater
``r`` has ``L`` disjoint *planes* ``planes[r, v]`` covering the valid lanes (two raters
agree on an item exactly where they share a plane) and their binary *codes* ``codes[r,
b]`` (bit ``b`` of the plane number; :func:`simcore.engine.bitset.margins.code_planes`).

Two kinds of planes (``mode``):

- :data:`LABEL_PLANES`: plane ``v`` holds the items rater ``r`` labelled ``v``. The true
  label is drawn first, plane by plane (lane ``i`` joins plane ``l`` with the conditional
  probability ``p_l / (p_l + ... + p_{L-1})`` among the lanes not yet placed), then every
  rater's label the same way from its confusion row, the threshold of each lane chosen by
  its true label (:func:`simcore.engine.bitset.words.bernoulli_rows` with the truth planes as
  classes). Exact for any prevalence and any confusion matrices; every coefficient can be
  computed.
- :data:`OFFSET_PLANES`: for symmetric channels (right with probability ``p_r``, else a
  label drawn uniformly from the other ``L - 1``) the reported label is ``(truth + o) mod
  L`` with offset ``o = 0`` with probability ``p_r``, else uniform on ``1 .. L - 1``, so
  two raters agree exactly when their offsets are equal and the truth drops out. Plane
  ``v`` holds the items where the offset is ``v``; only observed agreement can be computed
  (the label counts are not known).

The masks cost no per-item random bits: items are exchangeable under the ``bernoulli``,
``exact_m`` and ``shared_panel`` designs (the labels do not depend on the mask), so the
trial draws how many items fall in each mask pattern exactly
(:func:`simcore.engine.counts.mask_groups`: binomials, or multivariate hypergeometrics) and
lays the items out sorted by pattern, group 0 first.

Stream order in a trial (it defines the engine's streams,
:data:`simcore.engine.bitset.trials.BITSET_STREAMS`):
the mask groups from the xoshiro256** stream seeded by ``mix64(key ^ MASK_SALT)`` (for
clustered items, split from one group per cluster, then each cluster's difficulty from the
same stream: :mod:`simcore.engine.bitset.clusters`); then,
from the counter stream keyed ``key`` (:mod:`simcore.engine.bitset.words`), the truth's planes
``0 .. L - 2`` (label mode), then every rater's plane ``v`` for ``v = 0 .. L - 2``, one
:func:`~simcore.engine.bitset.words.bernoulli_rows` call per plane with a row per rater.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.bitset.clusters import cluster_classes, cluster_layout, cluster_thresholds
from simcore.engine.bitset.margins import code_planes
from simcore.engine.bitset.words import ALL_ONES, bernoulli_rows, row_scratch
from simcore.engine.counts import mask_groups
from simcore.engine.rng import mix64, seed_state

LABEL_PLANES, OFFSET_PLANES = 0, 1
"""Plane kinds (``mode``): labels, or offsets from the truth of symmetric channels."""

MASK_SALT = np.uint64(0x6D61736B67726F75)
"""Mixed into a trial's key to seed the stream its mask groups are drawn from."""


@jit
def word_count(n_items):
    """Return ``W = ceil(n / 64)``, the words of one bitset of ``n`` items."""
    return (n_items + 63) // 64


@jit
def code_bits(n_labels):
    """Return ``B``, the bits of a plane number ``0 .. L - 1`` (at least 1)."""
    bits = 1
    while (1 << bits) < n_labels:
        bits += 1
    return bits


@jit
def valid_words(n_items):
    """Return the bitset of the ``n`` valid lanes, ``(1, W)`` uint64."""
    valid = np.zeros((1, word_count(n_items)), dtype=np.uint64)
    set_range(valid[0], 0, n_items)
    return valid


@jit
def set_range(words, start, stop):
    """Set lanes ``start .. stop - 1`` of ``words``."""
    lane = start
    while lane < stop:
        w = lane // 64
        low = lane % 64
        high = min(64, low + (stop - lane))
        span = high - low
        bits = ALL_ONES if span == 64 else ((np.uint64(1) << np.uint64(span)) - np.uint64(1))
        words[w] |= bits << np.uint64(low)
        lane += span


@jit
def draw_scratch(n_items, n_humans, n_raters, n_labels):
    """Return one task's scratch: ``(mask scratch, plane scratch)``.

    Masks: ``(state (4,), sizes (2, n), group masks (2, n, K), chosen (n,), masks (K,
    W))``. Planes: ``(planes (R, L, W), codes (R, B, W), truth (L, W), remaining (R, W),
    drawn (R, W), row scratch, truth scratch)``, the truth's scratch its own one-row
    ``(remaining, drawn, row scratch)`` (row scratch:
    :func:`~simcore.engine.bitset.words.row_scratch`).
    """
    n_words = word_count(n_items)
    masks = (
        np.empty(4, dtype=np.uint64),
        np.empty((2, n_items), dtype=np.int64),
        np.zeros((2, n_items, n_humans), dtype=np.bool_),
        np.empty(n_items, dtype=np.int64),
        np.zeros((n_humans, n_words), dtype=np.uint64),
    )
    truth = (
        np.empty((1, n_words), dtype=np.uint64),
        np.empty((1, n_words), dtype=np.uint64),
        row_scratch(1, n_words),
    )
    planes = (
        np.zeros((n_raters, n_labels, n_words), dtype=np.uint64),
        np.zeros((n_raters, code_bits(n_labels), n_words), dtype=np.uint64),
        np.zeros((n_labels, n_words), dtype=np.uint64),
        np.empty((n_raters, n_words), dtype=np.uint64),
        np.empty((n_raters, n_words), dtype=np.uint64),
        row_scratch(n_raters, n_words),
        truth,
    )
    return masks, planes


@jit(inline=True)
def draw_masks(key, n_items, design, rho, m, valid, scratch, log_factorials, clusters):
    """Draw the trial's mask groups and write each human's mask bitset into ``scratch``.

    ``clusters`` is None, or for a clustered cell ``(confusion, cluster_spread, cluster
    scratch)`` (:func:`simcore.engine.bitset.clusters.cluster_scratch`): the groups are then
    split from one per cluster and each cluster's lanes and difficulty recorded in its
    scratch (:func:`~simcore.engine.bitset.clusters.cluster_layout`).
    """
    state, sizes, group_masks, chosen, masks = scratch
    n_humans = masks.shape[0]
    seed_state(mix64(key ^ MASK_SALT), state)
    if clusters is not None:
        arguments = (n_humans, design, rho, m, log_factorials)
        generation, groups = cluster_layout(
            state, n_items, arguments, (sizes, group_masks, chosen), clusters[2]
        )
    else:
        generation, groups = mask_groups(
            state, n_items, n_humans, design, rho, m, sizes, group_masks, chosen, log_factorials
        )
    for w in range(masks.shape[1]):
        masks[0, w] = valid[0, w]
        for h in range(1, n_humans):
            masks[h, w] = 0
    start = 0
    for group in range(groups):
        stop = start + sizes[generation, group]
        for h in range(1, n_humans):
            if group_masks[generation, group, h]:
                set_range(masks[h], start, stop)
        start = stop


@jit
def _split_planes(key, counter, thresholds, classes, spans, valid, planes, words):
    """Split the valid lanes of every row into its planes; return the next counter.

    ``planes`` ``(R, L, W)``; ``thresholds`` ``(L, R, C)``: plane ``v < L - 1`` of row ``r``
    takes each lane not yet placed with its class's threshold ``thresholds[v, r, class]``
    (one call of :func:`~simcore.engine.bitset.words.bernoulli_rows` for every row); the last
    plane takes the rest. ``words`` is ``(remaining (R, W), drawn (R, W), row scratch)``.
    """
    remaining, drawn, rows = words
    n_rows, n_planes, n_words = planes.shape
    for r in range(n_rows):
        for w in range(n_words):
            remaining[r, w] = valid[0, w]
    for v in range(n_planes - 1):
        counter = bernoulli_rows(key, counter, thresholds[v], classes, spans, drawn, rows)
        for r in range(n_rows):
            for w in range(n_words):
                bits = drawn[r, w] & remaining[r, w]
                planes[r, v, w] = bits
                remaining[r, w] &= ~bits
    for r in range(n_rows):
        for w in range(n_words):
            planes[r, n_planes - 1, w] = remaining[r, w]
    return counter


@jit(inline=True)
def draw_planes(key, mode, truth_thresholds, rater_thresholds, valid, scratch, clusters):
    """Draw every rater's planes and codes into ``scratch``, in the module's stream order.

    ``truth_thresholds`` ``(L, 1, 1)`` and ``rater_thresholds`` ``(L, R, C)`` are
    :func:`simcore.engine.bitset.words.threshold` of the conditional shares (plane, rater,
    class; :func:`planes_model`). Offset planes are drawn with one class (the valid lanes);
    label planes draw the truth first and use its planes as the classes. ``clusters`` is
    None, or for a clustered cell ``(confusion (R, L, L), cluster_spread, cluster
    scratch)`` (:func:`draw_masks` drawn): the raters' classes and thresholds are then the
    clusters' (:mod:`simcore.engine.bitset.clusters`) and ``rater_thresholds`` is not read.
    Inlined where it is called, as :func:`draw_masks` is: once a trial, a call of its own
    raised and dropped a reference count for every array of its scratch.
    """
    planes, codes, truth, remaining, drawn, row_words, truth_scratch = scratch
    rows = (remaining, drawn, row_words)
    counter = np.uint64(0)
    labels = mode == LABEL_PLANES
    if labels:
        truth_planes = truth.reshape(1, truth.shape[0], truth.shape[1])
        counter = _split_planes(
            key, counter, truth_thresholds, valid, None, valid, truth_planes, truth_scratch
        )
    if clusters is not None:
        confusion, spread, cluster = clusters
        cluster_thresholds(confusion, spread, cluster, labels)
        cluster_classes(truth, cluster, labels)
        _split_planes(key, counter, cluster[5], cluster[4], cluster[6], valid, planes, rows)
    elif labels:
        _split_planes(key, counter, rater_thresholds, truth, None, valid, planes, rows)
    else:
        _split_planes(key, counter, rater_thresholds, valid, None, valid, planes, rows)
    code_planes(planes, codes)


def symmetric_accuracies(confusion, tolerance=1e-14):
    """Return each rater's accuracy if every confusion matrix is a symmetric channel, else None.

    A symmetric channel has ``p`` on the diagonal and ``(1 - p) / (L - 1)`` everywhere else
    (within ``tolerance``); only then can the bitset engine draw offsets instead of labels.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    n_labels = confusion.shape[1]
    accuracies = np.array([np.diag(matrix).mean() for matrix in confusion])
    for matrix, accuracy in zip(confusion, accuracies, strict=True):
        expected = np.full((n_labels, n_labels), (1.0 - accuracy) / (n_labels - 1))
        np.fill_diagonal(expected, accuracy)
        if np.abs(matrix - expected).max() > tolerance:
            return None
    return accuracies


def planes_model(confusion, prevalence, offsets):
    """Return the ``planes_model`` of :func:`simcore.engine.bitset.trials.simulate_bitset`.

    Parameters
    ----------
    confusion : numpy.ndarray
        ``(R, L, L)`` confusion matrix per rater, humans first.
    prevalence : numpy.ndarray
        ``(L,)`` label probabilities.
    offsets : bool
        Draw offset planes (every channel symmetric: :func:`symmetric_accuracies`; only
        observed agreement reads them) rather than label planes.

    Returns
    -------
    tuple
        ``(mode, truth thresholds (L, 1, 1), rater thresholds (L, R, C))``: uint64
        :func:`~simcore.engine.bitset.words.threshold` of the conditional shares ``p_l / (p_l +
        ... + p_{L-1})`` (:func:`simcore.engine.counts.conditional_shares`) by plane, rater
        and class. Label planes have a class per true label (``C = L``); offset planes one
        class, rater ``r``'s offsets ``(p_r, (1 - p_r) / (L - 1), ...)``.
    """
    from simcore.engine.bitset.words import threshold
    from simcore.engine.counts import conditional_shares

    confusion = np.asarray(confusion, dtype=np.float64)
    n_raters, n_labels, _ = confusion.shape
    if offsets:
        accuracies = symmetric_accuracies(confusion)
        if accuracies is None:
            raise ValueError("offset planes need symmetric channels")
        offset = np.repeat(((1.0 - accuracies) / (n_labels - 1))[:, None], n_labels, axis=1)
        offset[:, 0] = accuracies
        shares = conditional_shares(offset)[:, None, :]  # (R, 1 class, L planes)
    else:
        shares = conditional_shares(confusion)  # (R, L classes, L planes)
    thresholds = np.vectorize(threshold, otypes=[np.uint64])
    truth = conditional_shares(np.asarray(prevalence, dtype=np.float64))
    mode = OFFSET_PLANES if offsets else LABEL_PLANES
    rater = np.ascontiguousarray(thresholds(shares).transpose(2, 0, 1))
    return mode, np.ascontiguousarray(thresholds(truth).reshape(n_labels, 1, 1)), rater
