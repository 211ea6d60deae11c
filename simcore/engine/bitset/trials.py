"""The bitset engine: a trial's labels and masks as bitsets, the point rule as popcounts.

:func:`simulate_bitset` draws each trial's label (or offset) planes and masks as bitsets of
64-bit words (:mod:`simcore.engine.bitset.draws`), forms the point rule's margins by
popcounts (:mod:`simcore.engine.bitset.margins`) and decides them with the point rule's own
:func:`~simcore.engine.point_rule.count_passes` and
:func:`~simcore.engine.point_rule.pool_estimate`, writing the per-trial outputs of the
items engine (:func:`simcore.engine.decide.trial_outputs`). It runs the point rule, the
interval verdict and the alternative annotator test with categorical scores
(:mod:`simcore.engine.bitset.verdicts`) on the ``bernoulli``, ``exact_m`` and
``shared_panel`` designs, with independent or clustered items
(:mod:`simcore.engine.bitset.clusters`); numeric scores and the stratified and sequential
designs stay with the items and counts engines.

Each trial draws from its own key (:func:`simcore.engine.rng.trial_keys`) through its own
streams, so results do not depend on threads or on how trials are split into calls; the
streams differ from the other engines', so a cell's numbers depend on the engine too
(:data:`BITSET_STREAMS` names this engine's version). :func:`evaluate_bitsets` decides given
bitsets, for the tests and the oracle comparison; :func:`draw_bitsets` returns the draws.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.bitset.clusters import cluster_scratch
from simcore.engine.bitset.draws import (
    LABEL_PLANES,
    code_bits,
    draw_masks,
    draw_planes,
    draw_scratch,
    planes_model,
    valid_words,
    word_count,
)
from simcore.engine.bitset.margins import code_planes, fill_margins, margin_scratch
from simcore.engine.bitset.verdicts import alt_test_bitsets, interval_bitsets, verdict_scratch
from simcore.engine.bitset.words import popcount
from simcore.engine.decide import trial_outputs
from simcore.engine.layout import (
    DEGENERATE,
    DEGENERATE_DENSE,
    EMPTY,
    EXTRA_ITEMS,
    INTERVAL,
    N_RULE,
    PAIRWISE_OVERLAP,
    POINT,
    POOL_DENSE,
    POOL_SPARSE,
    POOL_UNDEFINED,
    POOL_UNDEFINED_DENSE,
    RULE_COEFFICIENT,
    RULE_EPSILON,
    RULE_KIND,
    RULE_MIN_PAIRS,
    RULE_SKIP,
    SHARED,
    SKIP_AGREEMENT,
    SKIP_OVERLAP,
    SKIP_RANKING,
    THIN,
    THIN_DENSE,
    TRIAL_CHUNK,
    UNDECIDED,
)
from simcore.engine.point_rule import count_passes, pair_tables, pool_estimate, ranking_scores
from simcore.engine.samplers import log_factorial_table
from simcore.engine.threads import thread_count

BITSET_STREAMS = 1
"""The bitset engine's stream version, recorded in every cube (``engine_streams``)."""


@jit
def _overlap(masks, valid, n_items, secondary_pairs, coverage, values, counters):
    """Each secondary's coverage, the mean pairwise overlap, and whether the panel is shared."""
    n_humans, n_words = masks.shape
    for s in range(1, n_humans):
        total = 0
        for w in range(n_words):
            total += popcount(masks[s, w])
        coverage[s - 1] = total / n_items
    pairs = (n_humans - 1) * (n_humans - 2) // 2
    values[PAIRWISE_OVERLAP] = secondary_pairs / pairs if pairs > 0 else np.nan
    shared = True
    for w in range(n_words):
        anyone = np.uint64(0)
        everyone = valid[0, w]
        for s in range(1, n_humans):
            anyone |= masks[s, w]
            everyone &= masks[s, w]
        if (anyone ^ everyone) & valid[0, w]:
            shared = False
            break
    counters[SHARED] = 1 if shared else 0


@jit
def _passes(margins, n_labels, rule_values, n_pass, counters, columns):
    """:func:`~simcore.engine.point_rule.count_passes` on one side, compiled once for both.

    ``count_passes`` is inlined where it is called; calling it through this function keeps
    one copy of it in the engine, not two (a copy is seconds of compilation on first use).
    """
    epsilon, coefficient, min_pairs = rule_values
    count_passes(margins, n_labels, epsilon, coefficient, min_pairs, n_pass, counters, columns)


@jit
def _pool(tables, side, coefficient, values, counters, columns):
    """:func:`~simcore.engine.point_rule.pool_estimate` on one side, compiled once for both."""
    pool_estimate(tables, side, coefficient, values, counters, columns[0], columns[1])


@jit(inline=True)
def decide_bitsets(
    planes, codes, masks, valid, n_items, labels, rule, scratch, t, outputs, verdicts
):
    """Run the cell's rule on one trial's bitsets and write trial ``t`` of ``outputs``.

    ``scratch`` is ``(pair_tables, margin_scratch, passes (2, J))``. Writes what
    :func:`simcore.engine.decide.decide_rows` writes: overlap statistics, the point rule's
    passes sparse and dense, the comparisons made, the pool's agreement and the ranking
    (each left out when ``rule[RULE_SKIP]`` says so), then, with ``verdicts`` (the scratch of
    :func:`~simcore.engine.bitset.verdicts.verdict_scratch`; None for the point rule, which
    then compiles without them), the alternative annotator test's (categorical scores) or
    the interval verdict's comparisons (:mod:`simcore.engine.bitset.verdicts`).

    Inlined where it is called: as a call of its own, taking its tuples of arrays apart
    (a reference count raised and dropped for each array) cost a third of the trial's
    decision at n = 500. Its callers pass the arguments one by one (numba cannot inline a
    call with ``*arguments``).
    """
    favour, against, tested, reference_favour, reference_tested = outputs[:5]
    counters, values, coverage, ranking = outputs[5], outputs[6], outputs[7], outputs[8]
    tables, margins, passes = scratch
    n_humans = masks.shape[0]
    n_labels = planes.shape[1]
    n_judges = planes.shape[0] - n_humans
    skip = int(rule[RULE_SKIP])
    epsilon = rule[RULE_EPSILON]
    coefficient = int(rule[RULE_COEFFICIENT])
    min_pairs = int(rule[RULE_MIN_PAIRS])
    secondary_pairs = fill_margins(planes, codes, masks, n_items, labels, tables, margins)
    if not skip & SKIP_OVERLAP:
        _overlap(masks, valid, n_items, secondary_pairs, coverage[t], values[t], counters[t])
    sparse_columns = (EMPTY, THIN, DEGENERATE)
    dense_columns = (-1, THIN_DENSE, DEGENERATE_DENSE)
    rule_values = (epsilon, coefficient, min_pairs)
    _passes(tables[0], n_labels, rule_values, passes[0], counters[t], sparse_columns)
    _passes(tables[1], n_labels, rule_values, passes[1], counters[t], dense_columns)
    if not skip & SKIP_AGREEMENT:
        _pool(tables, 0, coefficient, values[t], counters[t], (POOL_SPARSE, POOL_UNDEFINED))
        _pool(tables, 1, coefficient, values[t], counters[t], (POOL_DENSE, POOL_UNDEFINED_DENSE))
    if n_judges > 1 and not skip & SKIP_RANKING:
        ranking_scores(tables[0], n_labels, coefficient, min_pairs, ranking[t, 0])
        ranking_scores(tables[1], n_labels, coefficient, min_pairs, ranking[t, 1])
    reference_tested[t] = n_humans - counters[t, THIN_DENSE]
    tested[t] = n_humans - counters[t, THIN]
    for c in range(n_judges):
        reference_favour[t, c] = passes[1, c]
        favour[t, c] = passes[0, c]
        against[t, c] = tested[t] - passes[0, c]
    if verdicts is not None:
        kind = int(rule[RULE_KIND])
        if kind != POINT:
            _verdict(codes, masks, rule, kind, margins[0], verdicts, t, outputs)


@jit
def _verdict(codes, masks, rule, kind, judge_words, scratch, t, outputs):
    """Overwrite trial ``t``'s comparisons with the alternative annotator test or the interval.

    As :func:`simcore.engine.decide.decide_rows` does: the test's wins sparse and dense (the
    full masks of the verdicts' scratch), or the interval verdict's clearing and failing
    comparisons sparse (its reference stays the point rule's), its undecided comparisons and
    extra items.
    """
    favour, against, tested, reference_favour, reference_tested = outputs[:5]
    counters, values, skipped = outputs[5], outputs[6], outputs[9]
    n_judges = judge_words.shape[0]
    if kind == INTERVAL:
        undecided, extra = interval_bitsets(
            codes, judge_words, masks, rule, scratch, favour[t], against[t]
        )
        counters[t, UNDECIDED] = undecided
        values[t, EXTRA_ITEMS] = extra
        return
    full = scratch[5]
    tested[t] = alt_test_bitsets(codes, judge_words, masks, rule, scratch, favour[t], skipped[t])
    wins = scratch[6]
    reference_tested[t] = alt_test_bitsets(
        codes, judge_words, full, rule, scratch, wins, scratch[7]
    )
    for c in range(n_judges):
        reference_favour[t, c] = wins[c]
        against[t, c] = tested[t] - favour[t, c]


@jit
def _rule_scratch(n_humans, n_judges, n_labels, n_words):
    return (
        pair_tables(n_humans, n_judges, n_labels),
        margin_scratch(n_humans, n_judges, n_labels, n_words),
        np.empty((2, n_judges), dtype=np.int16),
    )


def simulate_bitset(
    trial_keys, n_items, n_humans, planes_model, design, rho, m, rule, clusters=None
):
    """Draw and decide every trial of one cell with the bitset engine.

    The trials are split into :data:`~simcore.engine.layout.TRIAL_CHUNK` blocks shared out
    to :func:`simcore.engine.threads.thread_count` threads, each running the compiled,
    GIL-free :func:`_simulate_part` on its own blocks (Python threads rather than a
    compiled parallel loop: numba's parallel loop took 15 of the engine's 40 s to compile on
    first use, and gave no more speed). Each trial draws from its own key, so the results
    do not depend on the threads.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 key per trial (:func:`simcore.engine.rng.trial_keys`).
    n_items, n_humans : int
        n and K.
    planes_model : tuple
        ``(mode, truth thresholds (L, 1, 1), rater thresholds (L, R, C))``: the plane kind
        (:data:`~simcore.engine.bitset.draws.LABEL_PLANES` or ``OFFSET_PLANES``) and the
        thresholds it draws with (:func:`simcore.engine.bitset.draws.planes_model`).
    design : int
        ``bernoulli``, ``exact_m`` or ``shared_panel`` (codes of :mod:`simcore.engine.layout`).
    rho, m : float, int
        Bernoulli coverage; items per secondary for the other designs.
    rule : numpy.ndarray
        The rule array of :func:`simcore.engine.kernels.simulate`: the point rule, the
        alternative annotator test (categorical scores) or the interval verdict.
    clusters : tuple, optional
        ``(confusion (R, L, L), n_clusters, cluster_spread)`` for clustered items
        (:mod:`simcore.engine.bitset.clusters`); None or a spread of 0 for none.

    Returns
    -------
    tuple
        The ten per-trial arrays of :func:`simcore.engine.kernels.simulate`.
    """
    rater_thresholds = planes_model[2]
    n_trials = trial_keys.shape[0]
    n_raters = rater_thresholds.shape[1]
    outputs = trial_outputs(n_trials, n_humans, n_raters - n_humans)
    log_factorials = log_factorial_table(n_items)
    design_values = (int(design), float(rho), int(m))
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    threads = max(1, min(thread_count(), n_chunks))

    arguments = (n_items, n_humans, planes_model, design_values, rule, log_factorials)
    variant = (None if rule[RULE_KIND] == POINT else True, cluster_arguments(clusters))
    if threads == 1:
        _simulate_part(trial_keys, 0, 1, arguments, outputs, *variant)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = [
                pool.submit(_simulate_part, trial_keys, part, threads, arguments, outputs, *variant)
                for part in range(threads)
            ]
            for part in parts:
                part.result()
    return outputs


@jit
def _simulate_part(trial_keys, part, parts, arguments, outputs, verdicts, clusters):
    """Run blocks ``part, part + parts, ...`` of :data:`~simcore.engine.layout.TRIAL_CHUNK` trials.

    One call per thread, so the arguments are unboxed and the scratch allocated once, not
    once per block. ``arguments`` is ``(n_items, n_humans, planes_model, design_values,
    rule, log_factorials)``; ``verdicts`` (None for the point rule, else True) and
    ``clusters`` (None, or ``(confusion, n_clusters, cluster_spread)``) are None where the
    cell needs neither, and the code for them is then not compiled (numba prunes a branch
    on an argument that is None): the point rule on independent items compiles as fast as
    before them.
    """
    n_items, n_humans, planes_model = arguments[:3]
    n_labels, n_raters, _ = planes_model[2].shape
    n_judges = n_raters - n_humans
    blocks = (part, parts)
    if clusters is None:
        scratch = draw_scratch(n_items, n_humans, n_raters, n_labels)
        if verdicts is None:
            _run_blocks(trial_keys, blocks, arguments, outputs, scratch, None, None)
        else:
            verdict = verdict_scratch(n_humans, n_judges, valid_words(n_items))
            _run_blocks(trial_keys, blocks, arguments, outputs, scratch, verdict, None)
    else:
        confusion, n_clusters, spread = clusters
        per_cluster = n_labels if planes_model[0] == LABEL_PLANES else 1
        scratch = draw_scratch(n_items, n_humans, n_raters, n_labels)
        cluster = cluster_scratch(n_items, n_clusters, n_raters, n_labels, per_cluster)
        drawn = (confusion, spread, cluster)
        if verdicts is None:
            _run_blocks(trial_keys, blocks, arguments, outputs, scratch, None, drawn)
        else:
            verdict = verdict_scratch(n_humans, n_judges, valid_words(n_items))
            _run_blocks(trial_keys, blocks, arguments, outputs, scratch, verdict, drawn)


@jit
def _run_blocks(trial_keys, blocks, arguments, outputs, scratch, verdicts, clusters):
    """Draw and decide the trials of blocks ``part, part + parts, ...`` (``blocks``).

    ``scratch`` is :func:`~simcore.engine.bitset.draws.draw_scratch`'s; ``clusters`` is None
    or ``(confusion, cluster_spread, cluster scratch)``, ``verdicts`` None or the verdicts'
    scratch. A function of its own, called once per thread: compiled as the body of a
    numba parallel loop the same code ran three times slower.
    """
    n_items, n_humans, planes_model, design_values, rule, log_factorials = arguments
    mode, truth_thresholds, rater_thresholds = planes_model
    design, rho, m = design_values
    n_labels, n_raters, _ = rater_thresholds.shape
    valid = valid_words(n_items)
    labels = mode == LABEL_PLANES
    mask_scratch, plane_scratch = scratch
    decide_scratch = _rule_scratch(n_humans, n_raters - n_humans, n_labels, word_count(n_items))
    n_trials = trial_keys.shape[0]
    part, parts = blocks
    for chunk in range(part, (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK, parts):
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            key = trial_keys[t]
            draw_masks(key, n_items, design, rho, m, valid, mask_scratch, log_factorials, clusters)
            draw_planes(
                key, mode, truth_thresholds, rater_thresholds, valid, plane_scratch, clusters
            )
            decide_bitsets(
                plane_scratch[0],
                plane_scratch[1],
                mask_scratch[4],
                valid,
                n_items,
                labels,
                rule,
                decide_scratch,
                t,
                outputs,
                verdicts,
            )


def cluster_arguments(clusters):
    """Return ``(confusion, n_clusters, cluster_spread)`` for the kernels, or None for none."""
    if clusters is None or not clusters[2] > 0:
        return None
    confusion, n_clusters, spread = clusters
    return np.ascontiguousarray(confusion, dtype=np.float64), int(n_clusters), float(spread)


def draw_bitsets(trial_keys, n_items, n_humans, planes_model, design, rho, m, clusters=None):
    """Return the planes ``(T, R, L, W)`` and masks ``(T, K, W)`` the engine draws.

    With ``clusters`` (as :func:`simcore.engine.bitset.trials.simulate_bitset`) also each trial's
    cluster of every lane, int ``(T, n)``.
    """
    arguments = cluster_arguments(clusters)
    drawn = _draw_bitsets(trial_keys, n_items, n_humans, planes_model, (design, rho, m), arguments)
    return drawn if clusters is not None else drawn[:2]


@jit
def _draw_bitsets(trial_keys, n_items, n_humans, planes_model, design_values, clusters):
    n_labels, n_raters, _ = planes_model[2].shape
    per_cluster = n_labels if planes_model[0] == LABEL_PLANES else 1
    if clusters is None:
        scratch = draw_scratch(n_items, n_humans, n_raters, n_labels)
        return _drawn(trial_keys, n_items, planes_model, design_values, scratch, None)
    confusion, n_clusters, spread = clusters
    scratch = draw_scratch(n_items, n_humans, n_raters, n_labels)
    cluster = cluster_scratch(n_items, n_clusters, n_raters, n_labels, per_cluster)
    drawn = (confusion, spread, cluster)
    return _drawn(trial_keys, n_items, planes_model, design_values, scratch, drawn)


@jit
def _drawn(trial_keys, n_items, planes_model, design_values, scratch, clusters):
    """Every trial's planes, masks and lanes' clusters (0 without clusters)."""
    mode, truth_thresholds, rater_thresholds = planes_model
    design, rho, m = design_values
    mask_scratch, plane_scratch = scratch
    n_trials = trial_keys.shape[0]
    n_words = word_count(n_items)
    planes = np.zeros((n_trials, *plane_scratch[0].shape), dtype=np.uint64)
    masks = np.zeros((n_trials, mask_scratch[4].shape[0], n_words), dtype=np.uint64)
    lane_clusters = np.zeros((n_trials, n_items), dtype=np.int64)
    log_factorials = log_factorial_table(n_items)
    valid = valid_words(n_items)
    for t in range(n_trials):
        key = trial_keys[t]
        draw_masks(key, n_items, design, rho, m, valid, mask_scratch, log_factorials, clusters)
        draw_planes(key, mode, truth_thresholds, rater_thresholds, valid, plane_scratch, clusters)
        planes[t] = plane_scratch[0]
        masks[t] = mask_scratch[4]
        if clusters is not None:
            start, stop = clusters[2][1], clusters[2][2]
            for g in range(start.shape[0]):
                lane_clusters[t, start[g] : stop[g]] = g
    return planes, masks, lane_clusters


@jit(parallel=True)
def evaluate_bitsets(planes, masks, n_items, labels, rule):
    """Decide given bitsets: planes ``(T, R, L, W)``, masks ``(T, K, W)``; ten outputs."""
    n_trials, n_raters, n_labels, n_words = planes.shape
    n_humans = masks.shape[1]
    outputs = trial_outputs(n_trials, n_humans, n_raters - n_humans)
    valid = valid_words(n_items)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        scratch = _rule_scratch(n_humans, n_raters - n_humans, n_labels, n_words)
        verdicts = verdict_scratch(n_humans, n_raters - n_humans, valid)
        codes = np.zeros((n_raters, code_bits(n_labels), n_words), dtype=np.uint64)
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            code_planes(planes[t], codes)
            decide_bitsets(
                planes[t],
                codes,
                masks[t],
                valid,
                n_items,
                labels,
                rule,
                scratch,
                t,
                outputs,
                verdicts,
            )
    return outputs


def warm(part):
    """Compile one part of the engine for the argument types a cell passes it.

    ``part`` is ``"draws"`` (:func:`~simcore.engine.bitset.draws.draw_masks` and
    :func:`~simcore.engine.bitset.draws.draw_planes`) or ``"decision"``
    (:func:`decide_bitsets`). Compiled code lands in numba's cache, where a process
    compiling the whole engine finds it: the functions these call (the samplers, the
    Bernoulli words, the margins, the rule), for the three are themselves inlined into the
    block loop, which compiles their bodies again. :func:`simcore.engine.warm.prepare`
    compiles the two parts in two processes at once, on a tiny trial whose values do not
    matter, with the types of the point rule on independent items (the other rules and
    clusters compile their own variants when a cell first needs them).
    """
    confusion = np.array([[[0.9, 0.1], [0.1, 0.9]]] * 3)
    mode, truth_thresholds, rater_thresholds = planes_model(confusion, np.full(2, 0.5), True)
    n_items, n_humans = 64, 2
    valid = valid_words(n_items)
    mask_scratch, plane_scratch = draw_scratch(n_items, n_humans, 3, 2)
    key = np.uint64(1)
    if part == "draws":
        log_factorials = log_factorial_table(n_items)
        draw_masks(key, n_items, 0, 0.5, 0, valid, mask_scratch, log_factorials, None)
        draw_planes(key, mode, truth_thresholds, rater_thresholds, valid, plane_scratch, None)
        return
    outputs = trial_outputs(1, n_humans, 1)
    scratch = _rule_scratch(n_humans, 1, 2, valid.shape[1])
    codes, masks = plane_scratch[1], mask_scratch[4]
    rule = np.zeros(N_RULE)
    decide_bitsets(
        plane_scratch[0], codes, masks, valid, n_items, True, rule, scratch, 0, outputs, None
    )
