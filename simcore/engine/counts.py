"""The counts engine: draw how many items fall in each category instead of every item.

When items are independent and exchangeable (no clusters) and the design treats them alike
(``bernoulli``, ``exact_m``, ``shared_panel``), every statistic the rules read is a sum over
items of a function of the item's *category*: every rater's label and which secondaries
labelled it. A trial is then described by the number of items in each category, and those
counts can be drawn directly (exactly, not approximately). Stream order within a trial:

1. Which items each secondary labels, secondary 1 first, as counts of *mask groups* (items
   sharing a mask pattern): under ``bernoulli`` every group splits by
   ``binomial(group size, rho)``; under ``exact_m`` the secondary's ``m`` items fall into the
   groups by one multivariate hypergeometric draw (a uniform ``m``-subset, independent of the
   other secondaries); under ``shared_panel`` secondary 1 does so and the others copy it.
   These designs do not look at the labels, so the masks can come first.
2. For each mask group in turn, the label pattern of its items (true label, then every
   rater, humans first). A group of at most :data:`PER_ITEM_LIMIT` items draws its items
   one by one (one uniform per label, inverse CDF, as the items engine does); a larger group
   splits depth first by conditional binomials: by true label, then by rater 1's label
   within each true label, and so on, so its cost grows with the number of non-empty label
   patterns, not with the group's size.

Within a mask group, items with the same raters' labels are merged whatever their true
label (the rules never read the truth), giving one weighted *row* per (mask pattern, label
pattern). A trial never holds more rows than items. The rows are decided by the same rule
code as the items engine (:func:`simcore.engine.decide.decide_rows`), each weighted by its item
count, so the engines compute identical statistics from a given set of counts and differ
only in how those counts are drawn (including the comparisons made under
``rule.min_pairs``, which the weighted pair margins count exactly). Each trial draws from
its own counter-based stream, so results do not depend on threads or batching.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit
from simcore.engine.decide import decide_rows, rule_scratch, trial_outputs
from simcore.engine.layout import BERNOULLI, SHARED_PANEL, TRIAL_CHUNK
from simcore.engine.rng import seed_state, uniform
from simcore.engine.samplers import binomial, log_factorial_table, multivariate_hypergeometric

PER_ITEM_LIMIT = 48
"""Mask groups of at most this many items draw their label patterns item by item."""


@jit
def conditional_shares(probabilities):
    """Return the conditional binomial shares of a multinomial over the last axis.

    ``share[..., l] = p[..., l] / (p[..., l] + ... + p[..., L - 1])`` (1 where nothing is
    left): drawing ``binomial(remaining, share[l])`` for ``l = 0, 1, ...`` and giving the rest
    to the last label is an exact multinomial draw. Computed once per cell.
    """
    shares = np.empty_like(probabilities)
    flat = probabilities.reshape(-1, probabilities.shape[-1])
    out = shares.reshape(-1, probabilities.shape[-1])
    for row in range(flat.shape[0]):
        rest = 0.0
        for label in range(flat.shape[1] - 1, -1, -1):
            rest += flat[row, label]
            out[row, label] = flat[row, label] / rest if rest > 0.0 else 1.0
    return shares


@jit
def _cumulative(probabilities):
    """Return the CDF over the last axis with the last entry set to 1."""
    cdf = np.empty_like(probabilities)
    flat = probabilities.reshape(-1, probabilities.shape[-1])
    out = cdf.reshape(-1, probabilities.shape[-1])
    for row in range(flat.shape[0]):
        running = 0.0
        for label in range(flat.shape[1]):
            running += flat[row, label]
            out[row, label] = running
        out[row, flat.shape[1] - 1] = 1.0
    return cdf


@jit
def mask_groups(state, n_items, n_humans, design, rho, m, sizes, mask, chosen, log_factorials):
    """Split the items into mask groups (stream step 1); return ``(generation, groups)``."""
    sizes[0, 0] = n_items
    mask[0, 0, :] = False
    mask[0, 0, 0] = True
    arguments = (n_humans, design, rho, m, log_factorials)
    return split_groups(state, 1, arguments, sizes, mask, chosen, sizes[:, :0])  # no origins


@jit
def split_groups(state, groups, arguments, sizes, mask, chosen, origins):
    """Split ``groups`` starting groups by each secondary's draw; return ``(generation, groups)``.

    The starting groups are rows ``0 .. groups - 1`` of ``sizes[0]`` and ``mask[0]`` (only
    the primary labels them). Secondary ``s`` takes ``binomial(size, rho)`` items of each
    group (``bernoulli``), or ``m`` items over all groups by a multivariate hypergeometric
    (``exact_m``; ``shared_panel`` draws secondary 1 so and copies it), and every group
    splits into the items it took and the rest, in that order, so a group's descendants stay
    contiguous and in its place. ``arguments`` is ``(K, design, rho, m, log factorials)``;
    ``origins`` ``(2, n)``, when not empty, carries each group's starting group along.
    """
    n_humans, design, rho, m, log_factorials = arguments
    generation = 0
    track = origins.shape[1] > 0
    for secondary in range(1, n_humans):
        if design == SHARED_PANEL and secondary > 1:
            for row in range(groups):
                mask[generation, row, secondary] = mask[generation, row, 1]
            continue
        if design == BERNOULLI:
            for row in range(groups):
                chosen[row] = binomial(state, sizes[generation, row], rho, log_factorials)
        else:
            multivariate_hypergeometric(
                state, sizes[generation, :groups], m, chosen[:groups], log_factorials
            )
        target = 1 - generation
        kept = 0
        for row in range(groups):
            for part in range(2):
                size = chosen[row] if part == 0 else sizes[generation, row] - chosen[row]
                if size == 0:
                    continue
                sizes[target, kept] = size
                for human in range(n_humans):
                    mask[target, kept, human] = mask[generation, row, human]
                mask[target, kept, secondary] = part == 0
                if track:
                    origins[target, kept] = origins[generation, row]
                kept += 1
        generation = target
        groups = kept
    return generation, groups


@jit
def _count_items(state, size, tables, histogram, touched, n_touched):
    """Add ``size`` items' label patterns to ``histogram``, drawing item by item.

    Stream step 2 for a mask group of at most :data:`PER_ITEM_LIMIT` items: one uniform for
    the true label, then one per rater, inverse CDF as the items engine. A pattern's code is
    ``sum_r label_r L**(R - 1 - r)``; codes that become non-zero are appended to
    ``touched``. ``tables`` is as in :func:`draw_rows`. Returns the new number of touched
    codes.
    """
    prevalence_cdf, confusion_cdf, _, _ = tables
    n_raters, n_labels, _ = confusion_cdf.shape
    last = n_labels - 1
    for _ in range(size):
        u = uniform(state)
        truth = 0
        for entry in range(last):  # branch-free inverse CDF, as the items engine
            truth += u >= prevalence_cdf[entry]
        code = 0
        for rater in range(n_raters):
            u = uniform(state)
            label = 0
            for entry in range(last):
                label += u >= confusion_cdf[rater, truth, entry]
            code = code * n_labels + label
        if histogram[code] == 0:
            touched[n_touched] = code
            n_touched += 1
        histogram[code] += 1
    return n_touched


@jit
def _split_patterns(state, size, tables, histogram, touched, n_touched, stack, log_factorials):
    """Add ``size`` items' label patterns to ``histogram``, splitting depth first.

    Stream step 2 for a larger mask group: by true label first, then by each rater's label
    in turn, with conditional binomials (:func:`conditional_shares`), children visited in
    label order. Codes and ``touched`` as :func:`_count_items`; ``stack`` is
    ``(R * L + L, 4)`` scratch: (items, truth, next rater, code). Returns the new number of
    touched codes.
    """
    _, _, prevalence_shares, confusion_shares = tables
    n_raters, n_labels, _ = confusion_shares.shape
    stack[0, 0] = size  # the root: split by true label first (rater -1)
    stack[0, 1] = 0
    stack[0, 2] = -1
    stack[0, 3] = 0
    depth = 1
    while depth > 0:
        depth -= 1
        items = stack[depth, 0]
        truth = stack[depth, 1]
        rater = stack[depth, 2]
        code = stack[depth, 3]
        if rater == n_raters:
            if histogram[code] == 0:
                touched[n_touched] = code
                n_touched += 1
            histogram[code] += items
            continue
        first = depth
        remaining = items
        for label in range(n_labels):
            if remaining == 0:
                break
            if label == n_labels - 1:
                count = remaining
            elif rater < 0:
                count = binomial(state, remaining, prevalence_shares[label], log_factorials)
            else:
                share = confusion_shares[rater, truth, label]
                count = binomial(state, remaining, share, log_factorials)
            remaining -= count
            if count > 0:
                stack[depth, 0] = count
                stack[depth, 1] = label if rater < 0 else truth
                stack[depth, 2] = rater + 1
                stack[depth, 3] = code if rater < 0 else code * n_labels + label
                depth += 1
        _reverse(stack, first, depth)
    return n_touched


@jit
def _reverse(stack, first, stop):
    """Reverse rows ``range(first, stop)`` of ``stack`` (children popped in label order)."""
    low = first
    high = stop - 1
    while low < high:
        for column in range(stack.shape[1]):
            value = stack[low, column]
            stack[low, column] = stack[high, column]
            stack[high, column] = value
        low += 1
        high -= 1


@jit
def _engine_scratch(n_items, n_raters, n_humans, n_labels):
    """Return the per-task scratch of the counts engine as one tuple.

    ``(group sizes (2, n), group masks (2, n, K), chosen (n,), histogram (L**R,), touched
    (L**R,), stack, row sizes (n,), row labels (n, R), row masks (n, K))``.
    """
    patterns = n_labels**n_raters
    return (
        np.empty((2, n_items), dtype=np.int64),
        np.zeros((2, n_items, n_humans), dtype=np.bool_),
        np.empty(n_items, dtype=np.int64),
        np.zeros(patterns, dtype=np.int64),
        np.empty(patterns, dtype=np.int64),
        np.empty(((n_raters + 1) * n_labels + 1, 4), dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
        np.empty((n_items, n_raters), dtype=np.int16),
        np.empty((n_items, n_humans), dtype=np.bool_),
    )


@jit
def draw_rows(state, n_items, n_humans, tables, design, rho, m, scratch, log_factorials):
    """Draw one trial's category counts as weighted rows; return the number of rows.

    Parameters
    ----------
    state : numpy.ndarray
        The trial's xoshiro256** state (seeded by the caller).
    n_items, n_humans : int
        n and K.
    tables : tuple
        ``(prevalence_cdf, confusion_cdf, prevalence_shares, confusion_shares)``: CDFs and
        :func:`conditional_shares` of the label probabilities ``(L,)`` and of every rater's
        confusion matrix ``(R, L, L)``, humans first.
    design : int
        :data:`simcore.engine.layout.BERNOULLI`, ``EXACT_M`` or ``SHARED_PANEL``.
    rho : float
        Bernoulli coverage of each secondary.
    m : int
        Items per secondary (``exact_m``, ``shared_panel``).
    scratch : tuple
        :func:`_engine_scratch`; rows land in its last three arrays.
    log_factorials : numpy.ndarray
        :func:`simcore.engine.samplers.log_factorial_table` up to ``n``.

    Returns
    -------
    int
        Rows ``0 .. rows - 1`` of the row sizes, labels ``(rows, R)`` and masks ``(rows, K)``
        (the primary's column all True); the sizes sum to ``n``.
    """
    sizes, masks, chosen, histogram, touched, stack = scratch[:6]
    _, confusion_cdf, _, _ = tables
    n_labels = confusion_cdf.shape[1]
    generation, groups = mask_groups(
        state, n_items, n_humans, design, rho, m, sizes, masks, chosen, log_factorials
    )
    rows = 0
    for group in range(groups):
        size = sizes[generation, group]
        if size <= PER_ITEM_LIMIT:
            n_touched = _count_items(state, size, tables, histogram, touched, 0)
        else:
            n_touched = _split_patterns(
                state, size, tables, histogram, touched, 0, stack, log_factorials
            )
        rows = _append_rows(
            histogram, touched, n_touched, masks, generation, group, n_labels, rows, scratch[6:]
        )
    return rows


@jit
def _append_rows(
    histogram, touched, n_touched, masks, generation, group, n_labels, rows, row_scratch
):
    """Append one mask group's touched label patterns as rows; return the new row count.

    Each touched code becomes row ``rows``, ``rows + 1``, ... of ``row_scratch`` (row sizes,
    labels, masks) with the mask ``masks[generation, group]`` of its group (read in place,
    not through a view: this runs once per group of every trial); its ``histogram`` slot is
    reset to 0.
    """
    row_sizes, row_labels, row_masks = row_scratch
    n_raters = row_labels.shape[1]
    for entry in range(n_touched):
        code = touched[entry]
        row_sizes[rows] = histogram[code]
        histogram[code] = 0
        for rater in range(n_raters - 1, -1, -1):
            row_labels[rows, rater] = code % n_labels
            code //= n_labels
        for human in range(row_masks.shape[1]):
            row_masks[rows, human] = masks[generation, group, human]
        rows += 1
    return rows


@jit
def merge_labels(row_sizes, row_labels, rows, n_labels, histogram, touched, merged):
    """Merge rows ``0 .. rows - 1`` by their labels alone; return the number of merged rows.

    The dense matrix ignores which humans labelled a row, so rows of different mask groups
    with the same labels add the same pairs: the point rule's dense side reads the merged
    rows (at most ``min(rows, L ** R)``, whatever ``n``) and gets the same integer sums.
    ``histogram`` and ``touched`` are the all-zero code scratch of :func:`draw_rows` (left
    zero); ``merged`` = ``(sizes, labels)`` receives the merged rows.
    """
    merged_sizes, merged_labels = merged
    n_raters = row_labels.shape[1]
    n_touched = 0
    for row in range(rows):
        code = 0
        for rater in range(n_raters):
            code = code * n_labels + row_labels[row, rater]
        if histogram[code] == 0:
            touched[n_touched] = row  # the first row with these labels
            n_touched += 1
        histogram[code] += row_sizes[row]
    for entry in range(n_touched):
        first = touched[entry]
        code = 0
        for rater in range(n_raters):
            label = row_labels[first, rater]
            merged_labels[entry, rater] = label
            code = code * n_labels + label
        merged_sizes[entry] = histogram[code]
        histogram[code] = 0
    return n_touched


@jit
def _model_tables(confusion, prevalence):
    """Return the CDFs and conditional shares :func:`draw_rows` reads (once per cell)."""
    return (
        _cumulative(prevalence),
        _cumulative(confusion),
        conditional_shares(prevalence),
        conditional_shares(confusion),
    )


@jit(parallel=True)
def simulate_counts(
    trial_keys, n_items, n_humans, confusion, prevalence, design, rho, m, rule, weighting=None
):
    """Draw and decide every trial of one cell with the counts engine.

    Takes the arguments of :func:`simcore.engine.kernels.simulate` without the cluster ones (the
    counts engine needs independent items) and with the prevalence as probabilities rather
    than a CDF; returns the same ten per-trial arrays, from the same rule code.

    Parameters
    ----------
    trial_keys : numpy.ndarray
        uint64 key per trial (:func:`simcore.engine.rng.trial_keys`).
    n_items, n_humans : int
        n and K.
    confusion : numpy.ndarray
        float64 ``(R, L, L)`` confusion matrix per rater, humans first then judges.
    prevalence : numpy.ndarray
        float64 ``(L,)`` label probabilities.
    design : int
        ``bernoulli``, ``exact_m`` or ``shared_panel`` (design codes of
        :mod:`simcore.engine.layout`).
    rho, m : float, int
        Bernoulli coverage; items per secondary for the other designs.
    rule : numpy.ndarray
        The rule array of :func:`simcore.engine.kernels.simulate`.
    weighting : tuple, optional
        A weighted coefficient's weights, as :func:`simcore.engine.kernels.simulate` takes
        them.

    Returns
    -------
    tuple
        ``favour, against, tested, reference_favour, reference_tested, counters, values,
        coverage, ranking, skipped`` as :func:`simcore.engine.kernels.simulate`.
    """
    n_trials = trial_keys.shape[0]
    n_raters, n_labels, _ = confusion.shape
    n_judges = n_raters - n_humans
    outputs = trial_outputs(n_trials, n_humans, n_judges)
    # read-only, shared by every task: computed once per cell, not once per task
    tables = _model_tables(confusion, prevalence)
    log_factorials = log_factorial_table(n_items)
    n_chunks = (n_trials + TRIAL_CHUNK - 1) // TRIAL_CHUNK
    for chunk in prange(n_chunks):
        state = np.empty(4, dtype=np.uint64)
        scratch = _engine_scratch(n_items, n_raters, n_humans, n_labels)
        decide_scratch = rule_scratch(n_humans, n_judges, n_labels, weighting)
        row_sizes, row_labels, row_masks = scratch[6], scratch[7], scratch[8]
        merged = (np.empty_like(row_sizes), np.empty_like(row_labels))
        for t in range(chunk * TRIAL_CHUNK, min(n_trials, (chunk + 1) * TRIAL_CHUNK)):
            seed_state(trial_keys[t], state)
            rows = draw_rows(
                state, n_items, n_humans, tables, design, rho, m, scratch, log_factorials
            )
            dense = merge_labels(
                row_sizes, row_labels, rows, n_labels, scratch[3], scratch[4], merged
            )
            decide_rows(
                row_labels[:rows],
                row_masks[:rows],
                row_sizes[:rows],
                (merged[1][:dense], merged[0][:dense]),
                n_humans,
                rule,
                decide_scratch,
                t,
                outputs,
            )
    return outputs


@jit(parallel=True)
def draw_counts(trial_keys, n_items, n_humans, confusion, prevalence, design, rho, m):
    """Return every trial's rows as padded arrays, for tests and inspection.

    Returns
    -------
    sizes : numpy.ndarray
        int64 ``(T, n)``: row item counts, 0 past the trial's last row.
    labels : numpy.ndarray
        int16 ``(T, n, R)``: each row's labels.
    mask : numpy.ndarray
        bool ``(T, n, K)``: which humans labelled each row's items.
    """
    n_trials = trial_keys.shape[0]
    n_raters, n_labels, _ = confusion.shape
    out_sizes = np.zeros((n_trials, n_items), dtype=np.int64)
    out_labels = np.zeros((n_trials, n_items, n_raters), dtype=np.int16)
    out_mask = np.zeros((n_trials, n_items, n_humans), dtype=np.bool_)
    tables = _model_tables(confusion, prevalence)
    log_factorials = log_factorial_table(n_items)
    for t in prange(n_trials):
        state = np.empty(4, dtype=np.uint64)
        scratch = _engine_scratch(n_items, n_raters, n_humans, n_labels)
        seed_state(trial_keys[t], state)
        rows = draw_rows(state, n_items, n_humans, tables, design, rho, m, scratch, log_factorials)
        out_sizes[t, :rows] = scratch[6][:rows]
        out_labels[t, :rows] = scratch[7][:rows]
        out_mask[t, :rows] = scratch[8][:rows]
    return out_sizes, out_labels, out_mask
