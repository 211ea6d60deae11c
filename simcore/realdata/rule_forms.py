"""Forms of the leave-one-out rule for crowds: who the rule holds out, chosen from the shape.

The rule holds out each human in turn and compares the judge with that human on the items
the human shares with the others. On a panel (a few humans, each on many items) every
comparison rests on many items. On a crowd (many raters, a few items each) most rest on one
or two items or none, an empty comparison passes, and a judge of any quality is approved.
The literature on crowd labels validates against *virtual raters* instead, and simcore
offers the forms below as ``rule.form`` (``advise --form``); each is a map from the
matrix's humans to the raters the rule compares, built from who labelled what and applied
before the rule, so the rule itself, its coefficients and its engines are unchanged:

- ``raters``: every human is a rater (the published rule);
- ``slots``: virtual raters by label position: on item ``i``, the ``s``-th label in the
  human order (the primary's first) belongs to slot ``s``, ``s = 1 .. max_i m_i``; so
  ``slot 1`` is the primary layer and slot ``s`` the ``s``-th opinion on every item that
  has one. A slot sharing fewer than ``min_items`` items with the others is dropped with
  its labels: where a few items carry most raters, those are the deep slots of those
  items, whose comparisons (and pairs) would rest on them alone (:func:`slot_raters`);
- ``pooled``: thin comparisons pooled: a human sharing fewer than ``min_items`` items with
  the others is merged with other such humans who labelled none of its items into one
  virtual rater, until the pool shares at least ``min_items`` items; humans sharing no
  item are left out (:func:`pooled_raters`);
- ``auto`` (the default): ``slots`` on a matrix where a few items carry most pairs
  (``concentrated``, :mod:`~simcore.realdata.data_shape`), else ``pooled`` on a crowd, and
  ``raters`` on every other shape; on a matrix declared ``slots`` (its columns are already
  label positions) the slots are the raters.

Beside the form, ``min_pairs`` leaves a comparison with fewer pairs out of omega, and
``min_comparisons`` makes a verdict with fewer comparisons made inconclusive (no answer rather than
one resting on next to nothing; :data:`CROWD_MIN_COMPARISONS` under ``auto`` on a crowd unless
given). The tables of docs/explanation/rule.md show what each form does to false approval against a
dense panel of the same items: on a crowd ``pooled`` keeps it near the panel's and ``raters``
approves nearly every judge; where a few items carry most raters ``slots`` keeps it there and
``raters`` and ``pooled`` do not.
"""

import dataclasses

import numpy as np

from simcore.engine import point_rule as engine_point_rule
from simcore.engine.threads import threads_for_trials
from simcore.engine.weighted_rule import evaluate_masks_weighted
from simcore.model.rule import INCONCLUSIVE, decide
from simcore.model.rule_form import MIN_ITEMS
from simcore.realdata.data_shape import shared_items


def slot_raters(available, min_items=0):
    """Return the slot map: ``(n, S)`` int32, the human column of slot ``s`` on item ``i``.

    With ``m_i`` the humans on item ``i`` in column order, slot ``s`` (0-based) holds the
    ``s``-th of them, ``-1`` where ``m_i <= s``; ``S = max_i m_i``. Slots sharing fewer than
    ``min_items`` items with the other slots (``#{i : slot s on i and m_i >= 2}``) are
    dropped.
    """
    available = np.asarray(available, dtype=bool)
    n_items = available.shape[0]
    per_item = available.sum(axis=1)
    raters = np.full((n_items, int(per_item.max(initial=0))), -1, dtype=np.int32)
    rows, cols = np.nonzero(available)
    position = np.cumsum(available, axis=1)[rows, cols] - 1
    raters[rows, position] = cols
    return raters[:, shared_items(raters >= 0) >= min_items]


def pooled_groups(available, min_items=MIN_ITEMS):
    """Return the humans of each virtual rater of the ``pooled`` form, a list of lists.

    In column order, a human with ``c_k >= min_items`` is a rater of its own; one with
    ``0 < c_k < min_items`` joins the first open pool none of whose members labelled any
    of its items (a new pool when there is none), and a pool closes once the ``c_k`` of its
    members (disjoint items, so they add) reach ``min_items``; pools still open at the end
    are kept, thin. A human with ``c_k = 0`` shares nothing and is left out.
    """
    available = np.asarray(available, dtype=bool)
    shared = shared_items(available)
    groups, pools = [], []  # pools: [members, items labelled, items shared]
    for k, count in enumerate(shared):
        if count >= min_items:
            groups.append([k])
            continue
        if count == 0:
            continue
        own = available[:, k]
        pool = next((p for p in pools if not (p[1] & own).any()), None)
        if pool is None:
            pool = [[], np.zeros_like(own), 0]
            pools.append(pool)
        pool[0].append(k)
        pool[1] |= own
        pool[2] += int(count)
        if pool[2] >= min_items:
            groups.append(pool[0])
            pools.remove(pool)
    groups.extend(pool[0] for pool in pools)
    return sorted(groups, key=lambda members: members[0])


def pooled_raters(available, min_items=MIN_ITEMS):
    """Return the pooled map: ``(n, V)`` int32, the member of virtual rater ``v`` on item ``i``.

    The members of a virtual rater (:func:`pooled_groups`) label disjoint items, so at most
    one of them labelled item ``i``; ``-1`` where none did.
    """
    available = np.asarray(available, dtype=bool)
    groups = pooled_groups(available, min_items)
    raters = np.full((available.shape[0], len(groups)), -1, dtype=np.int32)
    for v, members in enumerate(groups):
        for k in members:
            raters[available[:, k], v] = k
    return raters


def form_raters(form, available, min_items=MIN_ITEMS):
    """Return the map of ``form`` (``raters``: the identity, ``(n, K)``)."""
    available = np.asarray(available, dtype=bool)
    if form == "slots":
        return slot_raters(available, min_items)
    if form == "pooled":
        return pooled_raters(available, min_items)
    if form == "raters":
        columns = np.arange(available.shape[1], dtype=np.int32)
        return np.where(available, columns[None, :], -1).astype(np.int32)
    raise ValueError(f"rule form must be raters, slots or pooled (got {form!r})")


def virtual_matrix(human_codes, raters):
    """Return ``(codes, available)`` of the virtual raters: ``codes[i, v] = human_codes[i, r]``.

    ``r = raters[i, v]``; where ``r = -1`` the code is 0 and the cell unavailable.
    """
    available = raters >= 0
    rows = np.arange(raters.shape[0])[:, None]
    codes = np.where(available, np.asarray(human_codes)[rows, np.maximum(raters, 0)], 0)
    return codes, available


def form_decisions(passes, tested, tau, form):
    """Return the point rule's decisions ``(T, J)`` in ``form``.

    ``passes`` ``(T, J)`` and ``tested`` (broadcast against it) as the kernel returns them:
    omega = passes / tested against ``tau``, none made inconclusive, then fewer than the
    form's ``min_comparisons`` made inconclusive (:func:`apply_min_comparisons`).
    """
    tested = np.asarray(tested)
    decision = decide(passes, None, tau, tested=tested)
    return apply_min_comparisons(decision, tested, form.min_comparisons)


def apply_min_comparisons(decision, tested, min_comparisons):
    """Return ``decision`` with verdicts on fewer than ``min_comparisons`` comparisons inconclusive.

    ``tested`` (broadcast against ``decision``) counts the comparisons made.
    """
    decision = np.array(decision, copy=True)
    tested = np.broadcast_to(np.asarray(tested), decision.shape)
    decision[tested < min_comparisons] = INCONCLUSIVE
    return decision


def evaluate_form(  # noqa: PLR0913 (a value object is still to come)
    labels, masks, n_humans, n_labels, epsilon, coefficient, form, min_items, weighting=None
):
    """Run the point rule's kernel on the virtual raters of ``form`` under each mask.

    Same arguments and returns as :func:`simcore.engine.point_rule.evaluate_masks` (with
    ``form`` a :class:`RuleForm` for ``min_pairs``), the humans of ``labels`` replaced, mask
    by mask, by the virtual raters :func:`form_raters` builds from that mask, so the number
    of raters compared may differ between masks (``tested`` counts them). The ``raters``
    form runs the kernel once on every mask. A weighted coefficient's ``weighting``
    (:func:`simcore.engine.weighted_scores.weighting_of`) runs the weighted rule
    (:func:`simcore.engine.weighted_rule.evaluate_masks_weighted`).
    """
    masks = np.asarray(masks, dtype=bool)
    rule = (epsilon, coefficient, form.min_pairs)

    def run(labels, masks, n_humans):
        if weighting is None:
            return engine_point_rule.evaluate_masks(labels, masks, n_humans, n_labels, *rule)
        return evaluate_masks_weighted(labels, masks, n_humans, n_labels, rule, weighting)

    if form.form == "raters":
        with threads_for_trials(len(masks)):
            return run(labels, masks, n_humans)
    human_codes, judge_codes = labels[:, :n_humans], labels[:, n_humans:]
    results = []
    for mask in masks:
        codes, available = virtual_matrix(human_codes, form_raters(form.form, mask, min_items))
        virtual = np.concatenate([codes, judge_codes], axis=1).astype(labels.dtype)
        with threads_for_trials(1):  # one mask: waking other threads only costs time
            results.append(run(virtual, available[None], codes.shape[1]))
    return tuple(np.concatenate(parts) for parts in zip(*results, strict=True))


def virtual_names(form, humans, raters):
    """Return a name per virtual rater: ``slot s``, a human's own, or ``pool v (a, b, +n)``."""
    if form == "slots":
        return tuple(f"slot {s + 1}" for s in range(raters.shape[1]))
    names = []
    for v in range(raters.shape[1]):
        members = [humans[k] for k in dict.fromkeys(raters[raters[:, v] >= 0, v].tolist())]
        if len(members) == 1:
            names.append(members[0])
            continue
        shown = ", ".join(members[:2]) + (f", +{len(members) - 2}" if len(members) > 2 else "")
        names.append(f"pool {v + 1} ({shown})")
    return tuple(names)


def virtual_annotation(matrix, form, min_items=MIN_ITEMS):
    """Return ``matrix`` with its humans replaced by the virtual raters of ``form``.

    ``form`` is a :class:`RuleForm` (``raters`` returns ``matrix`` itself). The judges,
    items, labels and groups are kept; the virtual raters are built on the whole matrix
    (:func:`form_raters`) and named by :func:`virtual_names`, and the matrix keeps the
    shape it was read with (``slots`` stays declared).
    """
    if form.form == "raters":
        return matrix
    available = matrix.human_labels >= 0
    raters = form_raters(form.form, available, min_items)
    codes, kept = virtual_matrix(matrix.human_labels, raters)
    return dataclasses.replace(
        matrix,
        humans=virtual_names(form.form, matrix.humans, raters),
        human_labels=np.where(kept, codes, -1).astype(np.int16),
    )
