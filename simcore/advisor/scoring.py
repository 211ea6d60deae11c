"""The point rule's comparisons under a chosen coefficient: the verdict's and the draws'.

By default advise scores each leave-one-out comparison with the paper's observed agreement,
``d_k = sum_i D_i / sum_i c_i`` (:func:`simcore.advisor.verdict.held_out_comparison`). With
another coefficient, or weights, a comparison is the difference of two scores of pair
tables over the items held-out human ``k`` labelled with another human:

    ``d_k = S(T_j) - S(T_k)``, ``T_j[a, b] = sum_i [judge_i = a] n_i(b)``,
    ``T_k[a, b] = sum_i [h_ik = a] n_i(b)``,

``n_i(b)`` the other humans of item ``i`` who said ``b``, and ``S`` the coefficient
(:func:`simcore.model.weighted.table_scores`, the engine's own definitions; an undefined
score is 0, as the kernels count it). These are the tables the items and counts engines
keep (:mod:`simcore.engine.weighted_rule`), so a verdict, its simulated draws and a
scenario's cells score alike. Its SE:

- observed agreement with weights ``W`` stays a ratio estimator, ``D_i = sum_b n_i(b)
  (W[judge_i, b] - W[h_ik, b])``, with the same item-cluster SE;
- a chance-corrected coefficient (kappa, alpha, AC1/AC2) is a smooth function of the two
  tables; its SE is the delete-one-item jackknife, ``SE^2 = (n - 1)/n sum_i (d_(i) -
  dbar)^2`` over the ``n`` items, ``d_(i)`` the comparison without item ``i`` (items as
  clusters, as the ratio estimator's).

:func:`score_differences` is the simulated side: every draw's ``d_k`` under a mask, in
NumPy (batched matrix products of one-hot labels), for the anchored risk
(:mod:`simcore.advisor.anchored`).
"""

import numpy as np

from simcore.model.weighted import (
    scoring_of,
    table_scores,
    values_needed,
)
from simcore.realdata.agreement import label_values

NOMINAL = ("observed", "nominal", "identity")
"""The coefficient, level and weights by default: the paper's observed agreement."""

BLOCK_BYTES = 2**27
"""Most bytes of one-hot labels (or jackknife tables) held at once (128 MiB)."""


def coefficient_label(scoring):
    """Return the reports' name of ``scoring``'s coefficient (``observed`` for None).

    ``scoring`` is a :class:`simcore.model.weighted.Scoring`.
    """
    return "observed" if scoring is None else scoring.name


def advise_scoring(matrix, coefficient="observed", level="nominal", weights="identity"):
    """Return the :class:`Scoring` of the options, None for the paper's observed agreement.

    The label values come from the matrix (:func:`simcore.realdata.agreement.label_values`:
    numbers, else a declared order; refused, naming the file, when the level or weights
    need what the labels do not say).
    """
    if (coefficient, level, weights) == NOMINAL:
        return None
    values, _ = label_values(matrix, values_needed(level, weights))
    return scoring_of(coefficient, values, level, weights)


def is_ratio(scoring):
    """Whether the scoring's comparison is a ratio estimator (observed agreement)."""
    return scoring.coefficient == "observed"


def pair_contributions(human_labels, judge_column, k, n_labels):
    """Return each item's rows of the two pair tables of held-out human ``k``.

    ``(items, first_judge, first_human, pool)``: the items ``k`` labelled with another
    human, one-hot ``(m, L)`` rows of the judge's and of ``k``'s label, and ``n_i``, the
    ``(m, L)`` label counts of the other humans; the tables are ``first.T @ pool``.
    """
    observed = human_labels >= 0
    others = observed.copy()
    others[:, k] = False
    items = observed[:, k] & others.any(axis=1)
    codes = np.where(others[items], human_labels[items], n_labels)
    rows = np.repeat(np.arange(int(items.sum())), codes.shape[1])
    pool = np.zeros((int(items.sum()), n_labels + 1))
    np.add.at(pool, (rows, codes.ravel()), 1.0)
    identity = np.eye(n_labels)
    return (
        np.flatnonzero(items),
        identity[judge_column[items]],
        identity[human_labels[items, k]],
        pool[:, :n_labels],
    )


def scored_comparison(human_labels, judge_column, k, scoring):
    """Return ``(d, se, items, pairs, D, c)`` of held-out human ``k`` under ``scoring``.

    ``judge_column`` is the judge's ``(n,)`` codes. For observed agreement ``D`` and ``c``
    are the items' weighted differences and pairs (the ratio estimator, whose SE the
    verdict computes, ``d`` and ``se`` None); otherwise ``d`` and its jackknife ``se``
    (NaN below two items), ``D`` and ``c`` None.
    """
    _, judge_rows, human_rows, pool = pair_contributions(
        human_labels, judge_column, k, scoring.n_labels
    )
    pairs = pool.sum(axis=1)
    n = len(pairs)
    if is_ratio(scoring):
        weights = scoring.weighting[1]
        difference = ((judge_rows - human_rows) @ weights * pool).sum(axis=1)
        return None, None, n, pairs.sum(), difference, pairs
    if n == 0:
        return float("nan"), float("nan"), 0, 0.0, None, None
    judge_table, human_table = judge_rows.T @ pool, human_rows.T @ pool
    d = float(_difference(judge_table, human_table, scoring))
    return d, jackknife_se(judge_rows, human_rows, pool, scoring), n, pairs.sum(), None, None


def _difference(judge_tables, human_tables, scoring):
    """``S(T_j) - S(T_k)`` of tables ``(..., L, L)``."""
    return table_scores(judge_tables, scoring.coefficient, scoring.weighting) - table_scores(
        human_tables, scoring.coefficient, scoring.weighting
    )


def jackknife_se(judge_rows, human_rows, pool, scoring):
    """Return the delete-one-item jackknife SE of ``S(T_j) - S(T_k)`` (NaN below 2 items).

    ``SE^2 = (n - 1)/n sum_i (d_(i) - dbar)^2``, ``d_(i)`` scored on the tables less item
    ``i``'s outer products; items are taken in blocks of at most :data:`BLOCK_BYTES`.
    """
    n, n_labels = pool.shape
    if n < 2:
        return float("nan")
    judge_table, human_table = judge_rows.T @ pool, human_rows.T @ pool
    block = max(1, BLOCK_BYTES // (16 * n_labels * n_labels))
    leave_outs = np.empty(n)
    for start in range(0, n, block):
        chosen = slice(start, start + block)
        judge_less = judge_table - judge_rows[chosen, :, None] * pool[chosen, None, :]
        human_less = human_table - human_rows[chosen, :, None] * pool[chosen, None, :]
        leave_outs[chosen] = _difference(judge_less, human_less, scoring)
    spread = leave_outs - leave_outs.mean()
    return float(np.sqrt((n - 1) / n * (spread**2).sum()))


def score_differences(labels, mask, n_humans, scoring):
    """Return ``(d, pairs)``, ``(T, K)`` each: every draw's ``d_k`` under ``mask``.

    Parameters
    ----------
    labels : numpy.ndarray
        int ``(T, n, K + 1)`` label codes: the ``K`` humans, then the judge.
    mask : numpy.ndarray
        bool ``(T, n, K)`` or ``(1, n, K)`` (one mask for every draw).
    n_humans : int
        ``K``.
    scoring : Scoring
        The coefficient.

    Returns
    -------
    tuple of numpy.ndarray
        float64 ``d`` (NaN for a comparison without a pair) and int64 ``pairs``
        (``sum_i c_i``), as :func:`simcore.engine.margins.leave_one_out_differences` gives
        them for observed agreement.
    """
    n_trials, n_items = labels.shape[:2]
    n_labels = scoring.n_labels
    d = np.empty((n_trials, n_humans))
    pairs = np.zeros((n_trials, n_humans), dtype=np.int64)
    block = max(1, BLOCK_BYTES // (8 * n_items * (n_humans + 2) * n_labels))
    identity = np.eye(n_labels)
    for start in range(0, n_trials, block):
        stop = min(start + block, n_trials)
        chosen = mask[start:stop] if mask.shape[0] > 1 else mask[:1]
        onehot = identity[labels[start:stop]]  # (B, n, K + 1, L)
        humans = onehot[:, :, :n_humans] * chosen[..., None]
        counts = humans.sum(axis=2)
        several = chosen.sum(axis=2) >= 2
        judge = onehot[:, :, n_humans]
        for k in range(n_humans):
            used = (chosen[:, :, k] & several)[..., None]
            others = counts - humans[:, :, k]
            judge_table = np.swapaxes(judge * used, 1, 2) @ others
            human_table = np.swapaxes(humans[:, :, k] * used, 1, 2) @ others
            total = np.rint(judge_table.sum(axis=(1, 2))).astype(np.int64)
            difference = _difference(judge_table, human_table, scoring)
            d[start:stop, k] = np.where(total > 0, difference, np.nan)
            pairs[start:stop, k] = total
    return d, pairs
