"""The point rule's pair margins from bitsets: every count a popcount of ANDs.

With each rater's planes ``P[r, v]`` and each human's mask ``M[h]``
(:mod:`simcore.engine.bitset.draws`), raters ``a`` and ``b`` agree on the items of
``A_ab = OR_v (P[a, v] & P[b, v])``, computed as the complement of the lanes where the
binary codes of their planes differ (:func:`disagreement_word`: one XOR per code bit, a
single XOR for two labels), and the pairs of held-out human ``k`` with another
human ``q`` are the items of ``M_k & M_q``. So, with ``|x|`` the popcount,

- ``totals[k] = sum_{q != k} |M_k & M_q|``,
- ``traces[k, c] = sum_{q != k} |M_k & M_q & A_cq|`` (judge ``c``) and
  ``traces[k, J] = sum_{q != k} |M_k & M_q & A_kq|`` (the held-out human),
- ``rows[k, c, l] = sum_{q != k} |M_k & M_q & P[c, l]|`` and ``cols[k, l] = sum_{q != k}
  |M_k & M_q & P[q, l]|`` (label planes only),
- the pool's pairs, agreeing pairs and label counts over ``q < r`` the same way,

and the dense side is the same with every mask full. These are the margins
:mod:`simcore.engine.point_rule` keeps (its :func:`~simcore.engine.point_rule.pair_tables`
layout), equal to the per-item sums of its :func:`_fill_margins` on the same matrix, so
the same :func:`~simcore.engine.point_rule.count_passes` decides them. Each unordered pair
of humans is visited once and credited to both of its members.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.bitset.words import popcount


@jit
def margin_scratch(n_humans, n_judges, n_labels, n_words):
    """Return the scratch of :func:`fill_margins`, allocated once per task.

    ``(judge disagreement words (J, K, W), dense judge agreements (J, K), label counts
    (K + J, L), per-pair sums (4 + 2 J + (2 + J) L,))``.
    """
    return (
        np.empty((n_judges, n_humans, n_words), dtype=np.uint64),
        np.empty((n_judges, n_humans), dtype=np.int64),
        np.empty((n_humans + n_judges, n_labels), dtype=np.int64),
        np.empty(4 + 2 * n_judges + (2 + n_judges) * n_labels, dtype=np.int64),
    )


@jit
def _clear_side(side):
    totals, traces, rows, cols = side
    totals[:] = 0
    traces[:] = 0
    rows[:] = 0
    cols[:] = 0


@jit
def _clear(tables):
    _clear_side(tables[0])
    _clear_side(tables[1])
    tables[2][:] = 0
    tables[3][:] = 0


@jit
def disagreement_word(codes, a, b, w):
    """Return word ``w`` of ``~A_ab``: the lanes where raters ``a`` and ``b`` differ.

    ``codes`` ``(R, B, W)`` hold each lane's plane number in binary (:func:`code_planes`),
    so two raters differ where any bit differs: ``OR_b (codes[a, b] ^ codes[b, b])``. The
    first three bits (L <= 8) are spelled out: a loop over the bits inside the loop over
    the words cost three times the popcounts.
    """
    n_bits = codes.shape[1]
    word = codes[a, 0, w] ^ codes[b, 0, w]
    if n_bits > 1:
        word |= codes[a, 1, w] ^ codes[b, 1, w]
        if n_bits > 2:
            word |= codes[a, 2, w] ^ codes[b, 2, w]
            for bit in range(3, n_bits):
                word |= codes[a, bit, w] ^ codes[b, bit, w]
    return word


@jit
def code_planes(planes, codes):
    """Write each lane's plane number in binary: ``codes[r, b] = OR_{v has bit b} planes[r, v]``."""
    n_raters, n_labels, n_words = planes.shape
    for r in range(n_raters):
        for bit in range(codes.shape[1]):
            for w in range(n_words):
                codes[r, bit, w] = 0
            for v in range(n_labels):
                if (v >> bit) & 1:
                    for w in range(n_words):
                        codes[r, bit, w] |= planes[r, v, w]


@jit
def _differ_words(codes, a, b, out):
    """Write ``~A_ab`` (:func:`disagreement_word`) of every word into ``out``; return its popcount.

    Bit by bit over one-dimensional rows, so that the loop over words is vectorised.
    """
    code_a = codes[a, 0]
    code_b = codes[b, 0]
    for w in range(out.shape[0]):
        out[w] = code_a[w] ^ code_b[w]
    for bit in range(1, codes.shape[1]):
        code_a = codes[a, bit]
        code_b = codes[b, bit]
        for w in range(out.shape[0]):
            out[w] |= code_a[w] ^ code_b[w]
    total = 0
    for w in range(out.shape[0]):
        total += popcount(out[w])
    return total


@jit
def _judge_agreements(
    planes, codes, n_items, n_humans, judge_words, dense_judge, label_counts, labels
):
    """Fill every judge's disagreement words with each human, its dense agreements, label counts."""
    n_raters, n_labels, n_words = planes.shape
    for c in range(n_raters - n_humans):
        for h in range(n_humans):
            dense_judge[c, h] = n_items - _differ_words(codes, n_humans + c, h, judge_words[c, h])
    if labels:
        for r in range(n_raters):
            for v in range(n_labels):
                plane = planes[r, v]
                total = 0
                for w in range(n_words):
                    total += popcount(plane[w])
                label_counts[r, v] = total


@jit
def _xor_counts(mask_a, mask_b, code_a, code_b):
    """Pairs, disagreeing pairs and dense disagreements of two raters of one code bit."""
    pairs = 0
    differing = 0
    dense_differing = 0
    for w in range(mask_a.shape[0]):
        pair = mask_a[w] & mask_b[w]
        differ = code_a[w] ^ code_b[w]
        pairs += popcount(pair)
        differing += popcount(pair & differ)
        dense_differing += popcount(differ)
    return pairs, differing, dense_differing


@jit
def _code_counts(mask_a, mask_b, codes, a, b):
    """As :func:`_xor_counts` for codes of several bits (:func:`disagreement_word`)."""
    pairs = 0
    differing = 0
    dense_differing = 0
    for w in range(mask_a.shape[0]):
        pair = mask_a[w] & mask_b[w]
        differ = disagreement_word(codes, a, b, w)
        pairs += popcount(pair)
        differing += popcount(pair & differ)
        dense_differing += popcount(differ)
    return pairs, differing, dense_differing


@jit
def _masked_counts(mask_a, mask_b, word_a, word_b):
    """``(|M_a & M_b & word_b|, |M_a & M_b & word_a|)``."""
    with_b = 0
    with_a = 0
    for w in range(mask_a.shape[0]):
        pair = mask_a[w] & mask_b[w]
        with_b += popcount(pair & word_b[w])
        with_a += popcount(pair & word_a[w])
    return with_b, with_a


@jit
def _masked_count(mask_a, mask_b, word):
    """``|M_a & M_b & word|``."""
    count = 0
    for w in range(mask_a.shape[0]):
        count += popcount(mask_a[w] & mask_b[w] & word[w])
    return count


@jit
def _pair_sums(planes, codes, masks, n_items, a, b, judge_words, labels, sums):
    """Sum pair ``(a, b)``'s popcounts into ``sums`` (layout of :func:`margin_scratch`).

    ``sums``: ``[pairs, agreeing pairs, dense agreeing pairs, unused, judge c with b
    (J), judge c with a (J), a's labels (L), b's labels (L), judge c's labels (J L)]``,
    the label counts over the pairs only when ``labels``. Agreements are the pairs less the
    disagreements. The word loops take one-dimensional rows: indexing the 3-d arrays inside
    them kept the compiler from unrolling them and cost three times the popcounts.
    """
    n_labels = planes.shape[1]
    n_humans = masks.shape[0]
    n_judges = planes.shape[0] - n_humans
    mask_a = masks[a]
    mask_b = masks[b]
    if codes.shape[1] == 1:
        pairs, differing, dense_differing = _xor_counts(mask_a, mask_b, codes[a, 0], codes[b, 0])
    else:
        pairs, differing, dense_differing = _code_counts(mask_a, mask_b, codes, a, b)
    sums[0] = pairs
    sums[1] = pairs - differing
    sums[2] = n_items - dense_differing
    for c in range(n_judges):
        with_b, with_a = _masked_counts(mask_a, mask_b, judge_words[c, a], judge_words[c, b])
        sums[4 + c] = pairs - with_b
        sums[4 + n_judges + c] = pairs - with_a
    if labels:
        first = 4 + 2 * n_judges
        for v in range(n_labels):
            own_b, own_a = _masked_counts(mask_a, mask_b, planes[a, v], planes[b, v])
            sums[first + v] = own_a
            sums[first + n_labels + v] = own_b
            for c in range(n_judges):
                judge = _masked_count(mask_a, mask_b, planes[n_humans + c, v])
                sums[first + (2 + c) * n_labels + v] = judge


@jit
def _credit_pair(tables, a, b, sums, n_judges, n_labels, labels):
    """Credit pair ``(a, b)``'s sums to both humans' comparisons and to the pool."""
    totals, traces, rows, cols = tables[0]
    dense_traces = tables[1][1]
    pool_sums, pool_margins = tables[2], tables[3]
    for k in (a, b):
        totals[k] += sums[0]
        traces[k, n_judges] += sums[1]
        dense_traces[k, n_judges] += sums[2]
    for c in range(n_judges):
        traces[a, c] += sums[4 + c]
        traces[b, c] += sums[4 + n_judges + c]
    pool_sums[0, 0] += sums[0]
    pool_sums[0, 1] += sums[1]
    pool_sums[1, 1] += sums[2]
    if labels:
        first = 4 + 2 * n_judges
        for v in range(n_labels):
            own_a = sums[first + v]
            own_b = sums[first + n_labels + v]
            rows[a, n_judges, v] += own_a
            rows[b, n_judges, v] += own_b
            cols[a, v] += own_b
            cols[b, v] += own_a
            pool_margins[0, 0, v] += own_a
            pool_margins[0, 1, v] += own_b
            for c in range(n_judges):
                judge = sums[first + (2 + c) * n_labels + v]
                rows[a, c, v] += judge
                rows[b, c, v] += judge


@jit
def _binary_pairs(flips, masks, n_items, judge_words, tables):
    """Credit every pair of humans for one-bit codes without label margins (the common case).

    ``flips`` ``(R, W)`` are the codes' one bit. The same sums as :func:`_pair_sums` and
    :func:`_credit_pair`, written as one loop nest over 2-d arrays with scalar accumulators:
    the general path's helpers cost three times as much here. Returns the secondaries'
    summed pairs.
    """
    totals, traces = tables[0][0], tables[0][1]
    dense_traces = tables[1][1]
    pool_sums = tables[2]
    n_humans, n_words = masks.shape
    n_judges = flips.shape[0] - n_humans
    secondary_pairs = 0
    for a in range(n_humans):
        mask_a, flip_a = masks[a], flips[a]
        for b in range(a + 1, n_humans):
            mask_b, flip_b = masks[b], flips[b]
            pairs = 0
            differing = 0
            dense_differing = 0
            for w in range(n_words):
                pair = mask_a[w] & mask_b[w]
                differ = flip_a[w] ^ flip_b[w]
                pairs += popcount(pair)
                differing += popcount(pair & differ)
                dense_differing += popcount(differ)
            totals[a] += pairs
            totals[b] += pairs
            traces[a, n_judges] += pairs - differing
            traces[b, n_judges] += pairs - differing
            dense_traces[a, n_judges] += n_items - dense_differing
            dense_traces[b, n_judges] += n_items - dense_differing
            pool_sums[0, 0] += pairs
            pool_sums[0, 1] += pairs - differing
            pool_sums[1, 1] += n_items - dense_differing
            if a > 0:
                secondary_pairs += pairs
            for c in range(n_judges):
                judge_a, judge_b = judge_words[c, a], judge_words[c, b]
                with_b = 0
                with_a = 0
                for w in range(n_words):
                    pair = mask_a[w] & mask_b[w]
                    with_b += popcount(pair & judge_b[w])
                    with_a += popcount(pair & judge_a[w])
                traces[a, c] += pairs - with_b
                traces[b, c] += pairs - with_a
    return secondary_pairs


@jit
def fill_margins(planes, codes, masks, n_items, labels, tables, scratch):
    """Fill the sparse and dense margins and the pool's sums of one trial into ``tables``.

    ``planes`` ``(R, L, W)`` and their binary ``codes`` ``(R, B, W)`` (:func:`code_planes`),
    ``masks`` ``(K, W)``. ``tables`` is :func:`simcore.engine.point_rule.pair_tables`, ``scratch``
    :func:`margin_scratch`. The label margins (``rows``, ``cols``, the pool's label counts)
    are filled only when ``labels`` (label planes); otherwise they stay 0, which observed
    agreement never reads. Returns the summed pairs of the secondaries ``1 <= q < r``.
    """
    judge_words, dense_judge, label_counts, sums = scratch
    n_raters, n_labels, _ = planes.shape
    n_humans = masks.shape[0]
    n_judges = n_raters - n_humans
    _clear(tables)
    _judge_agreements(
        planes, codes, n_items, n_humans, judge_words, dense_judge, label_counts, labels
    )
    if codes.shape[1] == 1 and not labels:
        flips = codes.reshape(n_raters, codes.shape[2])
        secondary_pairs = _binary_pairs(flips, masks, n_items, judge_words, tables)
    else:
        secondary_pairs = 0
        for a in range(n_humans):
            for b in range(a + 1, n_humans):
                _pair_sums(planes, codes, masks, n_items, a, b, judge_words, labels, sums)
                _credit_pair(tables, a, b, sums, n_judges, n_labels, labels)
                if a > 0:
                    secondary_pairs += sums[0]
    _fill_dense(tables, n_items, n_humans, dense_judge, label_counts, labels)
    return secondary_pairs


@jit
def _fill_dense(tables, n_items, n_humans, dense_judge, label_counts, labels):
    """Fill the dense side's totals, judge traces and label margins (all humans label all)."""
    dense_totals, dense_traces, dense_rows, dense_cols = tables[1]
    pool_sums, pool_margins = tables[2], tables[3]
    n_judges = dense_judge.shape[0]
    n_labels = label_counts.shape[1]
    pool_sums[1, 0] = n_items * (n_humans * (n_humans - 1) // 2)
    for k in range(n_humans):
        dense_totals[k] = n_items * (n_humans - 1)
        for c in range(n_judges):
            for q in range(n_humans):
                if q != k:
                    dense_traces[k, c] += dense_judge[c, q]
        if labels:
            for v in range(n_labels):
                dense_rows[k, n_judges, v] = (n_humans - 1) * label_counts[k, v]
                for c in range(n_judges):
                    dense_rows[k, c, v] = (n_humans - 1) * label_counts[n_humans + c, v]
                for q in range(n_humans):
                    if q != k:
                        dense_cols[k, v] += label_counts[q, v]
                pool_margins[1, 0, v] += label_counts[k, v] * (n_humans - 1 - k)
                pool_margins[1, 1, v] += label_counts[k, v] * k
