"""The interval verdict and the alternative annotator test from bitsets: per-item counts sliced.

Both rules read, for held-out human ``k`` and each item ``i`` of ``M_k``, three small
counts over the other humans ``q`` who labelled it: the pool ``c_i = sum_q m_q(i)``, the
held-out human's agreements ``o_i = sum_q m_q(i) a_kq(i)`` and judge ``c``'s
``g_i = sum_q m_q(i) a_cq(i)`` (``a`` an agreement bit, the complement of
:func:`~simcore.engine.bitset.margins.disagreement_word`). Each count is kept *bit-sliced*:
slice ``s`` is the bitset of the items whose count has bit ``s`` set, and adding a bitset
is a ripple carry over the slices (:func:`_add_word`), so a count costs ``O(K log K)``
word operations per 64 items. Sums over items are then popcounts:
``sum_i x_i = sum_s 2**s |x_s|`` and ``sum_i x_i y_i = sum_{s, t} 2**(s + t) |x_s & y_t|``,
and per-item comparisons (``o_i > g_i``, ``c_i >= t``) are bitwise comparators from the
top slice down. With these,

- the interval verdict's sums (:func:`simcore.engine.interval.interval_verdict`) are
  ``(|c > 0|, sum c, sum c**2, sum D, sum D**2, sum D c)`` with ``D = g - o``, expanded
  into the products of ``g``, ``o`` and ``c``;
- the alternative annotator test's (:func:`simcore.engine.alt_test.alt_test`, categorical
  scores) are, over the items ``E`` of ``M_k`` with ``1 + c_i >= min_humans``:
  ``count = |E|``, ``sum d = |o > g| - |o < g|``, ``sum d**2 = |o != g|`` and
  ``sum W = count - |o > g|`` (the scores ``o / c`` and ``g / c`` share their denominator,
  and an item only ``k`` labelled scores 0 for both).

The counts are integers, so the sums equal the per-item loops' exactly and the same
:func:`~simcore.engine.interval.interval_verdicts`, :func:`~simcore.engine.alt_test.record_held_out`
and :func:`~simcore.engine.alt_test.judge_wins` decide them.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.alt_test import alt_test_scratch, judge_wins, record_held_out
from simcore.engine.bitset.margins import disagreement_word
from simcore.engine.bitset.words import ALL_ONES, popcount
from simcore.engine.interval import interval_verdicts
from simcore.engine.layout import RULE_EPSILON, RULE_MIN_HUMANS, RULE_MIN_ITEMS, RULE_Q, RULE_Z


@jit
def slice_count(n_humans):
    """Return the slices a count of up to ``K - 1`` other humans needs (at least 1)."""
    slices = 1
    while (1 << slices) <= n_humans - 1:
        slices += 1
    return slices


@jit
def verdict_scratch(n_humans, n_judges, valid):
    """Return the scratch of :func:`interval_bitsets` and :func:`alt_test_bitsets`.

    ``(pool (S, W), own (S, W), agree (J, S, W), interval sums (K, J, 6), alt_test scratch,
    full masks (K, W), dense wins (J,), dense skipped (K,))`` with ``S``
    :func:`slice_count`; the full masks (every human labels every valid lane of ``valid``
    ``(1, W)``, the dense matrix) are filled here, once.
    """
    slices = slice_count(n_humans)
    n_words = valid.shape[1]
    full = np.empty((n_humans, n_words), dtype=np.uint64)
    for h in range(n_humans):
        full[h] = valid[0]
    return (
        np.empty((slices, n_words), dtype=np.uint64),
        np.empty((slices, n_words), dtype=np.uint64),
        np.empty((n_judges, slices, n_words), dtype=np.uint64),
        np.empty((n_humans, n_judges, 6)),
        alt_test_scratch(n_judges, n_humans),
        full,
        np.empty(n_judges, dtype=np.int16),
        np.empty(n_humans, dtype=np.int8),
    )


@jit
def _add_word(slices, w, word):
    """Add the bitset ``word`` to the bit-sliced counts at word ``w`` (a ripple carry)."""
    carry = word
    for s in range(slices.shape[0]):
        if carry == 0:
            break
        high = slices[s, w] & carry
        slices[s, w] ^= carry
        carry = high


@jit
def _held_out_counts(codes, judge_words, masks, k, pool, own, agree):
    """Fill the bit-sliced ``c``, ``o`` and every judge's ``g`` of held-out human ``k``.

    ``judge_words`` ``(J, K, W)`` are the judges' disagreement words with each human
    (:func:`~simcore.engine.bitset.margins.fill_margins` leaves them in its scratch).
    """
    n_humans, n_words = masks.shape
    n_judges = judge_words.shape[0]
    for w in range(n_words):
        for s in range(pool.shape[0]):
            pool[s, w] = 0
            own[s, w] = 0
            for c in range(n_judges):
                agree[c, s, w] = 0
        for q in range(n_humans):
            if q == k:
                continue
            both = masks[k, w] & masks[q, w]
            if both == 0:
                continue
            _add_word(pool, w, both)
            _add_word(own, w, both & ~disagreement_word(codes, k, q, w))
            for c in range(n_judges):
                _add_word(agree[c], w, both & ~judge_words[c, q, w])


@jit
def _sliced_sum(x):
    """Return ``sum_i x_i`` of bit-sliced counts ``x`` ``(S, W)``."""
    total = 0
    for s in range(x.shape[0]):
        for w in range(x.shape[1]):
            total += np.int64(popcount(x[s, w])) << s
    return total


@jit
def _sliced_dot(x, y):
    """Return ``sum_i x_i y_i`` of bit-sliced counts ``x`` and ``y`` ``(S, W)``."""
    total = 0
    for s in range(x.shape[0]):
        for t in range(y.shape[0]):
            for w in range(x.shape[1]):
                total += np.int64(popcount(x[s, w] & y[t, w])) << (s + t)
    return total


@jit
def interval_bitsets(codes, judge_words, masks, rule, scratch, clears, fails):
    """Run the interval verdict on one trial's bitsets; return ``(undecided, extra items)``.

    The sums of :func:`simcore.engine.interval.interval_verdict` (module docstring) from the
    sparse masks ``(K, W)``, decided by :func:`~simcore.engine.interval.interval_verdicts`;
    ``clears[c]`` and ``fails[c]`` receive judge ``c``'s counts.
    """
    pool, own, agree, sums = scratch[0], scratch[1], scratch[2], scratch[3]
    n_humans, n_words = masks.shape
    n_judges = judge_words.shape[0]
    for k in range(n_humans):
        _held_out_counts(codes, judge_words, masks, k, pool, own, agree)
        labelled = 0
        for w in range(n_words):
            anyone = np.uint64(0)
            for s in range(pool.shape[0]):
                anyone |= pool[s, w]
            labelled += np.int64(popcount(anyone))
        pairs = _sliced_sum(pool)
        pairs_sq = _sliced_dot(pool, pool)
        own_total = _sliced_sum(own)
        own_sq = _sliced_dot(own, own)
        own_pool = _sliced_dot(own, pool)
        for c in range(n_judges):
            agree_total = _sliced_sum(agree[c])
            cross = _sliced_dot(agree[c], own)
            sums[k, c, 0] = labelled
            sums[k, c, 1] = pairs
            sums[k, c, 2] = pairs_sq
            sums[k, c, 3] = agree_total - own_total
            sums[k, c, 4] = _sliced_dot(agree[c], agree[c]) - 2 * cross + own_sq
            sums[k, c, 5] = _sliced_dot(agree[c], pool) - own_pool
    return interval_verdicts(sums, rule[RULE_EPSILON], rule[RULE_Z], clears, fails)


@jit
def _at_least(x, w, bound):
    """Return word ``w`` of the items whose bit-sliced count ``x`` is at least ``bound``."""
    if bound <= 0:
        return ALL_ONES
    if bound >= 1 << x.shape[0]:
        return np.uint64(0)
    above = np.uint64(0)
    equal = ALL_ONES
    for s in range(x.shape[0] - 1, -1, -1):
        if (bound >> s) & 1:
            equal &= x[s, w]
        else:
            above |= equal & x[s, w]
            equal &= ~x[s, w]
    return above | equal


@jit
def alt_test_bitsets(codes, judge_words, masks, rule, scratch, wins, skipped):
    """Run the alternative annotator test on one trial's bitsets; return the humans tested.

    Categorical scores only (the module docstring's sums), decided as
    :func:`simcore.engine.alt_test.alt_test` decides them: ``wins[c]`` receives judge
    ``c``'s wins and ``skipped[h]`` marks the humans left out. ``masks`` ``(K, W)`` are the
    sparse masks or, for the dense reference, every human's full mask.
    """
    pool, own, agree, alt_scratch = scratch[0], scratch[1], scratch[2], scratch[4]
    pvalues, order, sums, _ = alt_scratch
    n_humans, n_words = masks.shape
    n_judges = judge_words.shape[0]
    epsilon = rule[RULE_EPSILON]
    bound = int(rule[RULE_MIN_HUMANS]) - 1
    tested = 0
    for h in range(n_humans):
        _held_out_counts(codes, judge_words, masks, h, pool, own, agree)
        count = 0
        for c in range(n_judges):
            sums[c, 0] = 0.0
            sums[c, 1] = 0.0
            sums[c, 2] = 0.0
        for w in range(n_words):
            eligible = masks[h, w] & _at_least(pool, w, bound)
            count += np.int64(popcount(eligible))
            for c in range(n_judges):
                higher = np.uint64(0)  # o > g
                lower = np.uint64(0)  # o < g
                equal = eligible
                for s in range(pool.shape[0] - 1, -1, -1):
                    o = own[s, w]
                    g = agree[c, s, w]
                    higher |= equal & o & ~g
                    lower |= equal & g & ~o
                    equal &= ~(o ^ g)
                above = np.int64(popcount(higher))
                below = np.int64(popcount(lower))
                sums[c, 0] += above - below
                sums[c, 1] += above + below
                sums[c, 2] -= above
        for c in range(n_judges):
            sums[c, 2] += count
        tested += record_held_out(
            h, count, sums, epsilon, int(rule[RULE_MIN_ITEMS]), alt_scratch, skipped
        )
    judge_wins(pvalues, skipped, tested, rule[RULE_Q], order, wins)
    return tested
