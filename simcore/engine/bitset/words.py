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
``Q``'s remaining bits are all 0 cannot fall below it: it is 0. Every word of a call
takes the first :data:`VECTOR_STEPS` steps in one loop over the words with the steps
unrolled, its lanes held in registers from step to step (the loop the compiler vectorises);
each lane is then undecided with probability ``2**-VECTOR_STEPS``, and the few words that
still have one finish alone. Which counter a step reads depends only on its step, row and
word, so the order of the loops changes the cost, never the draws. A
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
    impossible). ``scratch`` is ``(undecided (R, W), lanes (max(R, VECTOR_STEPS), W))``
    (:func:`row_scratch`). Step ``j`` of word ``(r, w)`` reads counter ``base + (j R + r) W
    + w``; the call owns ``64 R W`` counters and returns ``base + 64 R W``.
    """
    undecided, lanes = scratch
    n_rows, n_words = out.shape
    _start_rows(thresholds, classes, spans, out, undecided)
    if classes.shape[0] == 1:
        lane_thresholds = lanes[:n_rows].reshape(n_rows * n_words)
        _vector_steps_one_class(key, base, thresholds, out, undecided, lane_thresholds)
    else:
        step_lanes = lanes[:VECTOR_STEPS]
        _vector_steps_classes(key, base, thresholds, classes, spans, out, undecided, step_lanes)
    for r in range(n_rows):
        for w in range(n_words):
            if undecided[r, w] == 0:
                continue
            where = (r, w, VECTOR_STEPS)
            out[r, w] = _finish_word(key, base, thresholds, classes, spans, where, out, undecided)
    return base + np.uint64(STEPS_PER_CALL * n_rows * n_words)


@jit(inline=True)
def _step(random, bits, word, open_lanes):
    """One bit-slicing step of a word: return ``(word, open lanes)`` after it.

    ``random`` is the step's random word, ``bits`` each lane's threshold bit as all-ones or
    0: an open lane whose random bit is 0 where the threshold's is 1 is decided 1, one whose
    bits differ otherwise is decided 0, one whose bits agree stays open.
    """
    return word | (open_lanes & ~random & bits), open_lanes & ~(random ^ bits)


@jit
def _vector_steps_one_class(key, base, thresholds, out, undecided, lane_thresholds):
    """Take the first :data:`VECTOR_STEPS` steps of every word of a one-class call.

    One loop over all the call's words, rows after rows, with the steps unrolled, so that a
    word's lanes stay in registers from step to step and the loop is vectorised with
    several words in flight (a row of a few words alone would wait on each multiply);
    ``lane_thresholds`` ``(R W,)`` is scratch for each word's threshold. Step ``j`` of word
    ``(r, w)`` reads counter ``base + (j R + r) W + w`` as :func:`bernoulli_rows` says, so
    the order of the loops changes the cost, never the draws. Lanes still equal to a
    threshold whose remaining bits are all 0 stay open here (they can only come out 0, as
    :func:`_finish_word` decides them at once).
    """
    n_rows, n_words = out.shape
    n_lanes = n_rows * n_words
    for r in range(n_rows):
        for w in range(n_words):
            lane_thresholds[r * n_words + w] = thresholds[r, 0]
    words = out.reshape(n_lanes)
    open_words = undecided.reshape(n_lanes)
    stride = np.uint64(n_lanes) * GAMMA
    first = key + (base + np.uint64(1)) * GAMMA
    for lane in range(n_lanes):
        threshold = lane_thresholds[lane]
        counter = first + np.uint64(lane) * GAMMA
        word = words[lane]
        open_lanes = open_words[lane]
        for step in range(VECTOR_STEPS):
            bits = np.uint64(0) - ((threshold >> np.uint64(63 - step)) & np.uint64(1))
            word, open_lanes = _step(
                mix64(counter + np.uint64(step) * stride), bits, word, open_lanes
            )
        words[lane] = word
        open_words[lane] = open_lanes


@jit
def _vector_steps_classes(key, base, thresholds, classes, spans, out, undecided, step_lanes):
    """As :func:`_vector_steps_one_class` where each lane's threshold is its class's.

    Row by row: first each step's threshold bit of every lane, gathered from the classes
    into ``step_lanes`` ``(VECTOR_STEPS, W)`` (one pass over the words per class and step,
    or per word over the classes ``spans[w]`` it can hold), then the steps word by word
    with the lanes in registers, as for one class.
    """
    n_rows, n_words = out.shape
    n_classes = classes.shape[0]
    stride = np.uint64(n_rows * n_words) * GAMMA
    for r in range(n_rows):
        for step in range(VECTOR_STEPS):
            for w in range(n_words):
                step_lanes[step, w] = 0
        if spans is None:
            for c in range(n_classes):
                threshold = thresholds[r, c]
                for step in range(VECTOR_STEPS):
                    if (threshold >> np.uint64(63 - step)) & np.uint64(1):
                        for w in range(n_words):
                            step_lanes[step, w] |= classes[c, w]
        else:
            for w in range(n_words):
                for c in range(spans[w, 0], spans[w, 1]):
                    threshold = thresholds[r, c]
                    for step in range(VECTOR_STEPS):
                        if (threshold >> np.uint64(63 - step)) & np.uint64(1):
                            step_lanes[step, w] |= classes[c, w]
        first = key + (base + np.uint64(r * n_words + 1)) * GAMMA
        out_row = out[r]
        open_row = undecided[r]
        for w in range(n_words):
            counter = first + np.uint64(w) * GAMMA
            word = out_row[w]
            open_lanes = open_row[w]
            for step in range(VECTOR_STEPS):
                random = mix64(counter + np.uint64(step) * stride)
                word, open_lanes = _step(random, step_lanes[step, w], word, open_lanes)
            out_row[w] = word
            open_row[w] = open_lanes


@jit
def row_scratch(n_rows, n_words):
    """Return the scratch of :func:`bernoulli_rows` for ``R`` rows of ``W`` words."""
    return (
        np.empty((n_rows, n_words), dtype=np.uint64),
        np.empty((max(n_rows, VECTOR_STEPS), n_words), dtype=np.uint64),
    )


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
        word, open_lanes = _step(random, bits, word, open_lanes)
        open_lanes &= alive
        step += 1
    return word
