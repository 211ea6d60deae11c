"""The point rule's decisions on simulated matrices, anchored at the observed comparisons.

A fitted latent-class model places each comparison ``d_k`` where its parameters say; on
real data that place can be off by about one standard error of ``d_k`` even when the model
is fitted to a dense matrix (correlated rater errors, items that differ in difficulty), and
a risk simulated from the model's own ``d_k`` then trusts the model's placement over the
data's. The anchored decisions keep the data's placement and take from the model only what
the data cannot show: how far the comparisons move when labels are added. In draw ``t``,
with ``s_k(t)``, ``p_k(t)`` and ``D_k(t)`` the simulated ``d_k`` under the current mask,
the mask after a proposal and the dense mask, and ``d_k`` the observed comparison,

    sparse ``d_k + (p_k(t) - s_k(t)) - E[p_k - s_k]``,  dense ``d_k + (D_k(t) - s_k(t)) -
    E[D_k - s_k]``

(a parametric bootstrap of the estimator's error, centred on the estimate), and the point
rule decides on each. The expected changes ``E[.]`` (:func:`expected_changes`, over a
separate set of draws) are taken out: the model's drift of ``d_k`` from the current mask to
the dense one (a pool of other raters) rests on the very rater-level structure a
misspecified model gets wrong, and on the shipped matrices keeping it made the risk worse
(README, *Is advise's risk calibrated?*); the model supplies the spread and the dependence
of the changes, the data their centre. With no proposal the sparse side is the observed
``d_k`` itself, so the sparse decision is the observed one. A comparison empty under the
current mask (no pair, no observed ``d_k``) takes the simulated value.
"""

import numpy as np

from simcore.engine.margins import leave_one_out_differences
from simcore.model.rule import decide

PASS_TOLERANCE = 1e-9
"""A comparison passes when ``d_k + eps >= -PASS_TOLERANCE``, as the verdict's do."""


def judge_anchor(verdict_row):
    """Return the observed ``d_k`` of a verdict row, ``(K,)`` (NaN for an empty comparison).

    ``verdict_row`` is one of :func:`simcore.advise.verdict.verdicts`'s rows.
    """
    return np.array([row["d"] for row in verdict_row["comparisons"]], dtype=np.float64)


def simulated_differences(labels, mask, n_humans, n_labels):
    """Return ``(d, pairs)``, ``(T, K)`` each: every draw's ``d_k`` under ``mask``.

    :func:`simcore.engine.margins.leave_one_out_differences` on ``labels`` ``(T, n, K +
    1)`` (humans, then the judge) and a ``(T, n, K)`` mask, or a ``(1, n, K)`` one shared
    by every draw.
    """
    n_trials = labels.shape[0]
    d = np.empty((n_trials, n_humans), dtype=np.float64)
    pairs = np.empty((n_trials, n_humans), dtype=np.int64)
    leave_one_out_differences(
        np.ascontiguousarray(labels, dtype=np.int16),
        np.ascontiguousarray(mask, dtype=np.bool_),
        n_humans,
        n_labels,
        d,
        pairs,
    )
    return d, pairs


def point_decisions(d, pairs, epsilon, tau, min_pairs=0):
    """Return the point rule's decisions on ``(T, K)`` comparisons.

    A comparison passes when empty (NaN) or ``d_k + eps >= 0``; those with fewer than
    ``min_pairs`` pairs are left out (``tested`` counts the rest;
    :func:`simcore.model.rule.decide`).
    """
    kept = pairs >= min_pairs
    passes = (np.isnan(d) | (d + epsilon >= -PASS_TOLERANCE)) & kept
    return decide(passes.sum(axis=1), d.shape[1], tau, tested=kept.sum(axis=1))


def comparison_changes(labels, proposal, available, n_labels):
    """Return every draw's ``d_k`` now, after the proposal and dense, with their pairs.

    ``(now, after, after_pairs, dense, dense_pairs)``, each ``(T, K)``: the simulated
    comparisons under ``available`` (``(n, K)``, the matrix as it is), ``proposal``
    (``(T, n, K)``, the current matrix plus each draw's proposal; None for no proposal,
    when ``after`` is ``now``) and every human on every item (:func:`simulated_differences`).
    """
    n_items, n_humans = available.shape
    now, now_pairs = simulated_differences(labels, available[None], n_humans, n_labels)
    after, after_pairs = (
        (now, now_pairs)
        if proposal is None
        else simulated_differences(labels, proposal, n_humans, n_labels)
    )
    full = np.ones((1, n_items, n_humans), dtype=np.bool_)
    dense, dense_pairs = simulated_differences(labels, full, n_humans, n_labels)
    return now, after, after_pairs, dense, dense_pairs


def expected_changes(labels, proposal, available, n_labels):
    """Return ``(E[p_k - s_k], E[D_k - s_k])``, ``(K,)`` each, as means over the draws.

    The model's expected change of each comparison from the current mask to the proposal's
    and to the dense one (:func:`comparison_changes`); 0 where no draw defines it.
    """
    now, after, _, dense, _ = comparison_changes(labels, proposal, available, n_labels)
    return _column_mean(after - now), _column_mean(dense - now)


def _column_mean(values):
    """Mean of each column over its finite entries; 0 for a column with none."""
    finite = np.isfinite(values)
    count = finite.sum(axis=0)
    total = np.where(finite, values, 0.0).sum(axis=0)
    return np.divide(total, count, out=np.zeros(values.shape[1]), where=count > 0)


def anchored_decisions(
    labels, proposal, available, anchor, n_labels, epsilon, tau, min_pairs=0, centre=None
):
    """Return ``(sparse, dense)`` decisions of every draw, anchored at ``anchor``.

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(T, n, K + 1)`` simulated labels: the humans, then the judge.
    proposal : numpy.ndarray or None
        bool ``(T, n, K)``: the sparse matrix of each draw, the current one plus its
        proposal; None for no proposal (the sparse matrix is ``available``).
    available : numpy.ndarray
        bool ``(n, K)``: the matrix as it is, under which ``anchor`` was observed.
    anchor : numpy.ndarray
        float64 ``(K,)``: the observed ``d_k`` (NaN for an empty comparison).
    n_labels : int
        Label codes in use.
    epsilon, tau : float
        The point rule's tolerance and threshold.
    min_pairs : int
        The point rule's ``rule.min_pairs``.
    centre : tuple of numpy.ndarray, optional
        The expected changes taken out (:func:`expected_changes`); default none.

    Returns
    -------
    tuple of numpy.ndarray
        int8 ``(T,)`` sparse and dense decisions (module docstring).
    """
    now, after, after_pairs, dense, dense_pairs = comparison_changes(
        labels, proposal, available, n_labels
    )
    to_proposal, to_dense = (0.0, 0.0) if centre is None else centre
    anchor = np.asarray(anchor, dtype=np.float64)[None, :]
    sparse_d = np.where(np.isnan(now), after, anchor + (after - now) - to_proposal)
    dense_d = np.where(np.isnan(now), dense, anchor + (dense - now) - to_dense)
    return (
        point_decisions(sparse_d, after_pairs, epsilon, tau, min_pairs),
        point_decisions(dense_d, dense_pairs, epsilon, tau, min_pairs),
    )
