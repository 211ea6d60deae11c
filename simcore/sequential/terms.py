"""Each comparison's per-item terms, frozen at the look where the item entered it.

A sequential verdict reads the co-labelled items of a comparison as a sequence. Item ``i``
*enters* the comparison of held-out human ``k`` at the first look where ``k`` and at least one
other human have labelled it; its term is computed from the labels present at that look and
never changes afterwards (labels added later to an item already entered are not read by that
comparison), so the evidence of a look cannot be rewritten by a later one. Within a look items
enter in the order of a hash of their id: an order that depends neither on the labels nor on
the look the sequence is read at.

**Leave-one-out terms** (the rule of docs/explanation/rule.md, observed agreement). With
``c_i`` other humans on the item and ``D_i = sum_q [judge == y_q] - [y_k == y_q]`` over them::

    v_i = (D_i + eps c_i) / (K - 1)   in [-(1 - eps), 1 + eps],   x_i = (v_i + 1 - eps) / 2

The rule's population margin is ``d_k = E[D] / E[c]``, so ``d_k >= -eps`` exactly when
``E[v] >= 0``, i.e. ``E[x] >= (1 - eps) / 2``: the pairs are weighted as the rule weights
them (an item with more pool labels carries more), and the divisor ``K - 1`` is a constant.

**Alternative annotator test terms** (Calderon et al. 2025, categorical accuracy). With
``s`` the share of the other humans a label agrees with, ``W_j = [s_judge >= s_k]``,
``W_h = [s_k >= s_judge]`` and ``d_i = W_h - W_j`` in {-1, 0, 1}; the judge wins against
``k`` when ``E[d] < eps``, i.e. ``E[x] > (1 - eps) / 2`` with ``x_i = (1 - d_i) / 2``.
"""

import hashlib

import numpy as np

RULES = ("point", "alt_test")
"""The sequential verdicts: the leave-one-out rule and the alternative annotator test."""


def item_order(item_ids):
    """Return each item's rank in the hash order (sha256 of the id; ties by the id itself)."""
    keys = [(hashlib.sha256(str(item).encode()).hexdigest(), str(item)) for item in item_ids]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    ranks = np.empty(len(keys), dtype=np.int64)
    ranks[order] = np.arange(len(keys))
    return ranks


def entry_looks(snapshots, k):
    """Return the look (0-based) at which each item entered comparison ``k``; -1 if never.

    ``snapshots`` is ``(T, n, K)`` human codes after each look (negative: not labelled).
    """
    observed = snapshots >= 0
    others = observed.sum(axis=2) - observed[:, :, k]
    eligible = observed[:, :, k] & (others > 0)
    first = eligible.argmax(axis=0)
    return np.where(eligible.any(axis=0), first, -1)


def item_terms(humans, judge, k, epsilon, rule):
    """Return ``x_i`` in [0, 1] of comparison ``k`` on every item (module docstring).

    ``humans`` is ``(n, K)`` codes (negative: not labelled), ``judge`` ``(n,)`` codes. Items
    where the judge, ``k`` or every other human is missing hold NaN.
    """
    observed = humans >= 0
    n_humans = humans.shape[1]
    others = observed & (np.arange(n_humans) != k)
    count = others.sum(axis=1)
    own = ((humans == humans[:, [k]]) & others).sum(axis=1)
    agree = ((humans == judge[:, None]) & others).sum(axis=1)
    valid = observed[:, k] & (count > 0) & (judge >= 0)
    if rule == "point":
        margin = (agree - own + epsilon * count) / (n_humans - 1)
        x = (margin + 1.0 - epsilon) / 2.0
    else:
        difference = (own >= agree).astype(float) - (agree >= own).astype(float)
        x = (1.0 - difference) / 2.0
    return np.where(valid, np.clip(x, 0.0, 1.0), np.nan)


def comparison_sequence(snapshots, judge, k, epsilon, rule, ranks):
    """Return comparison ``k``'s terms in entry order and the look each entered at.

    Parameters
    ----------
    snapshots : numpy.ndarray
        ``(T, n, K)`` human codes after each look (a later look holds every earlier label).
    judge : numpy.ndarray
        ``(n,)`` the judge's codes.
    k : int
        The held-out human.
    epsilon : float
        The tolerance eps.
    rule : str
        ``point`` or ``alt_test`` (:data:`RULES`).
    ranks : numpy.ndarray
        Each item's rank in the hash order (:func:`item_order`).

    Returns
    -------
    values : numpy.ndarray
        ``x_i`` of the items that entered, ordered by (entry look, hash rank).
    looks : numpy.ndarray
        The 0-based look each entered at, non-decreasing.
    items : numpy.ndarray
        Their item indices.
    """
    entered = entry_looks(snapshots, k)
    items = np.flatnonzero(entered >= 0)
    items = items[np.lexsort((ranks[items], entered[items]))]
    values = np.empty(items.size)
    for look in np.unique(entered[items]):
        at = entered[items] == look
        values[at] = item_terms(snapshots[look], judge, k, epsilon, rule)[items[at]]
    return values, entered[items], items
