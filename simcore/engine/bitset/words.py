"""Random 64-bit words and exact Bernoulli bitsets for the bitset engine.

A trial's random words come from SplitMix64 run as a counter: word ``c`` of the stream
keyed ``key`` is ``mix64(key + (c + 1) gamma)`` (:func:`stream_word`), so any word can be
computed on its own, in any order, on any thread. Each call of :func:`bernoulli_rows`
owns the counters ``base .. base + 64 R W - 1`` (``R`` rows of ``W`` words, 64 steps
each), so what a trial draws depends on its key and on the order of its calls, never on
how trials are split among threads or kernel calls.

A Bernoulli(q) bitset is drawn 64 lanes a word at a time, exactly: with ``Q = floor(q
2**64)``, lane ``b`` of a word is 1 when the 64-bit uniform ``U`` formed by bit ``b`` of
the step words ``r_0, r_1, ...`` (most significant first) is below ``Q``. Comparing
``U`` with ``Q`` from the top bit, a lane is decided at the first step where its random
bit differs from ``Q``'s bit (``r_j = 0 < 1 = Q_j``: 1; ``r_j = 1 > 0 = Q_j``: 0), so
``P(lane = 1) = Q / 2**64``, within ``2**-64`` of ``q``. A lane still equal to ``Q`` once
``Q``'s remaining bits are all 0 cannot fall below it: it is 0. All words of a call take
the first :data:`VECTOR_STEPS` steps together (the loop the compiler vectorises, every row
of the call at once so that one step's random words are computed side by side); each lane
is then undecided with probability ``2**-VECTOR_STEPS``, and the few words that still have
one finish alone, drawing the same counters they would have drawn in the shared loop. A
lane's threshold may depend on its class (its true label, for a confusion matrix): each
step's threshold bit is then chosen per lane from its class.
"""

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.rng import mix64

GAMMA = np.uint64(0x9E3779B97F4A7C15)
"""SplitMix64's increment (the odd integer nearest ``2**64 / golden ratio``)."""

ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
VECTOR_STEPS = 12
"""Steps every word of a Bernoulli call takes together before the rest finish one by one."""
STEPS_PER_CALL = 64
"""Counters a call owns per word: one per bit of the 64-bit threshold."""


@jit
def stream_word(key, counter):
    """Return word ``counter`` (uint64) of the SplitMix64 stream keyed ``key``."""
    return mix64(key + (counter + np.uint64(1)) * GAMMA)


@jit
def threshold(probability):
    """Return ``floor(probability 2**64)`` as uint64 (the lane probability is this / 2**64).

    ``probability <= 0`` gives 0; ``probability >= 1`` gives ``2**64 - 1``, which
    :func:`bernoulli_rows` treats as certain (every lane 1).
    """
    if not probability > 0.0:
        return np.uint64(0)
    if probability >= 1.0:
        return ALL_ONES
    high = int(probability * 4294967296.0)  # the top 32 bits, exact: a float's shift
    low = int((probability * 4294967296.0 - high) * 4294967296.0)
    return (np.uint64(high) << np.uint64(32)) | np.uint64(low)


@jit
def popcount(word):
    """Return the number of 1 bits of the uint64 ``word`` (SWAR; compiles to popcnt)."""
    x = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def bernoulli_rows(key, base, thresholds, classes, spans, out, scratch):
    """Fill ``out`` ``(R, W)``: lane ``w`` of row ``r`` is Bernoulli(``thresholds[r, c] / 2**64``).

    ``c`` is the lane's class: ``classes`` ``(C, W)`` are disjoint bitsets (lanes in no class
    come out 0); with one class the threshold is the row's. ``spans`` ``(W, 2)``, when not
    None, gives the classes ``spans[w, 0] .. spans[w, 1] - 1`` that word ``w``'s lanes can
    be in (many classes, each on a few words: clusters); None, every class is read (and
    the code for spans is not compiled).
    ``thresholds`` ``(R, C)`` uint64 (:func:`threshold`; ``2**64 - 1`` is certain, 0
    impossible). ``scratch`` is ``(undecided (R, W), step bits (2, R, C), lane bits (2,
    W))``. Step ``j`` of word ``(r, w)`` reads counter ``base + (j R + r) W + w``; the call
    owns ``64 R W`` counters and returns ``base + 64 R W``.
    """
    undecided, step_bits, lane_bits = scratch
    n_rows, n_words = out.shape
    n_classes = classes.shape[0]
    _start_rows(thresholds, classes, spans, out, undecided)
    steps = 0
    while steps < VECTOR_STEPS and _step_masks(thresholds, steps, step_bits):
        first = base + np.uint64(steps * n_rows * n_words)
        if n_classes == 1:  # one threshold per row: its bits are the same for every lane
            for r in range(n_rows):
                bits = step_bits[0, r, 0]
                alive = step_bits[1, r, 0]
                row_first = first + np.uint64(r * n_words)
                for w in range(n_words):
                    random = stream_word(key, row_first + np.uint64(w))
                    out[r, w] |= undecided[r, w] & ~random & bits
                    undecided[r, w] &= ~(random ^ bits) & alive
        else:  # each lane's threshold bit from its class, gathered class by class
            for r in range(n_rows):
                if spans is None:  # every class on every word: the loop vectorises
                    for w in range(n_words):
                        lane_bits[0, w] = 0
                        lane_bits[1, w] = 0
                    for c in range(n_classes):
                        bits = step_bits[0, r, c]
                        alive = step_bits[1, r, c]
                        for w in range(n_words):
                            lane_bits[0, w] |= classes[c, w] & bits
                            lane_bits[1, w] |= classes[c, w] & alive
                else:
                    _gather_spans(step_bits, r, classes, spans, lane_bits)
                row_first = first + np.uint64(r * n_words)
                for w in range(n_words):
                    random = stream_word(key, row_first + np.uint64(w))
                    out[r, w] |= undecided[r, w] & ~random & lane_bits[0, w]
                    undecided[r, w] &= ~(random ^ lane_bits[0, w]) & lane_bits[1, w]
        steps += 1
    for r in range(n_rows):
        for w in range(n_words):
            if undecided[r, w] == 0:
                continue
            where = (r, w, steps)
            out[r, w] = _finish_word(key, base, thresholds, classes, spans, where, out, undecided)
    return base + np.uint64(STEPS_PER_CALL * n_rows * n_words)


@jit
def _start_rows(thresholds, classes, spans, out, undecided):
    """Set the lanes of certain classes in ``out`` and mark those still to draw undecided."""
    n_rows, n_words = out.shape
    for r in range(n_rows):
        for w in range(n_words):
            out[r, w] = 0
            undecided[r, w] = 0
        if spans is None:
            for c in range(classes.shape[0]):
                if thresholds[r, c] == ALL_ONES:  # certain: every lane of the class is 1
                    for w in range(n_words):
                        out[r, w] |= classes[c, w]
                elif thresholds[r, c] != 0:
                    for w in range(n_words):
                        undecided[r, w] |= classes[c, w]
        else:
            for w in range(n_words):
                for c in range(spans[w, 0], spans[w, 1]):
                    if thresholds[r, c] == ALL_ONES:
                        out[r, w] |= classes[c, w]
                    elif thresholds[r, c] != 0:
                        undecided[r, w] |= classes[c, w]


@jit
def _class_span(spans, w, n_classes):
    """Return ``(first, stop)``: the classes word ``w``'s lanes can be in."""
    if spans is None:
        return 0, n_classes
    return spans[w, 0], spans[w, 1]


@jit
def _gather_spans(step_bits, r, classes, spans, lane_bits):
    """Write row ``r``'s step bits per lane from the classes each word can hold (``spans``)."""
    for w in range(classes.shape[1]):
        bits = np.uint64(0)
        alive = np.uint64(0)
        for c in range(spans[w, 0], spans[w, 1]):
            bits |= classes[c, w] & step_bits[0, r, c]
            alive |= classes[c, w] & step_bits[1, r, c]
        lane_bits[0, w] = bits
        lane_bits[1, w] = alive


@jit
def _step_masks(thresholds, step, step_bits):
    """Write step ``step``'s threshold bits, and whether a 1 bit follows, as all-ones words.

    Returns whether any threshold has a 1 bit at or after ``step`` (else every lane is
    decided).
    """
    any_left = False
    for r in range(thresholds.shape[0]):
        for c in range(thresholds.shape[1]):
            rest = thresholds[r, c] << np.uint64(step)
            step_bits[0, r, c] = ALL_ONES if rest >> np.uint64(63) else np.uint64(0)
            following = step < STEPS_PER_CALL - 1 and (rest << np.uint64(1)) != 0
            step_bits[1, r, c] = ALL_ONES if following else np.uint64(0)
            any_left = any_left or rest != 0
    return any_left


@jit
def _finish_word(key, base, thresholds, classes, spans, where, out, undecided):
    """Finish word ``(r, w)``'s undecided lanes from step ``steps`` on; return the word.

    ``where`` is ``(r, w, steps)``.
    """
    r, w, steps = where
    n_rows, n_words = out.shape
    word = out[r, w]
    open_lanes = undecided[r, w]
    step = steps
    while open_lanes != 0 and step < STEPS_PER_CALL:
        bits = np.uint64(0)
        alive = np.uint64(0)
        first, stop = _class_span(spans, w, classes.shape[0])
        for c in range(first, stop):
            rest = thresholds[r, c] << np.uint64(step)
            if rest >> np.uint64(63):
                bits |= classes[c, w]
            if step < STEPS_PER_CALL - 1 and (rest << np.uint64(1)) != 0:
                alive |= classes[c, w]
        random = stream_word(key, base + np.uint64((step * n_rows + r) * n_words + w))
        word |= open_lanes & ~random & bits
        open_lanes &= ~(random ^ bits) & alive
        step += 1
    return word
