"""The leave-one-out decision rule (docs/explanation/rule.md; P Eqs. 3-6; Calderon et al.).

For each held-out human ``k``, the pairs are ``(i, q)`` for every item ``i`` that ``k``
labelled and every other human ``q != k`` who labelled ``i``; items with more pool labels
contribute more pairs. On those pairs the judge scores ``S_j(k)`` and human ``k`` scores
``S_h(k)`` against the pool labels, ``d_k = S_j(k) - S_h(k)``, and the comparison passes
when ``T_k = 1[d_k >= -eps]``. ``omega = mean_k T_k``; the judge is accepted when
``omega >= tau``.

Exact ties pass. With observed agreement the comparison is made on counts,
``n_judge_agree - n_human_agree + eps * n_pairs >= -TIE_TOLERANCE``, so that ties such as
20 pairs with the judge one agreement behind at eps = 0.05 pass despite floating point.
A comparison with no pairs passes (both scores are 0) and is counted as empty. Other
coefficients compare scores, ``S_j - S_h + eps >= -SCORE_TOLERANCE``.

``min_pairs`` (``rule.min_pairs``, default 0): a comparison with fewer pairs says nothing
about the judge and is left out of omega, neither for nor against; then ``omega = passes /
tested`` with ``tested`` the comparisons made (the effective K), and a judge with no
comparison left is inconclusive. With ``min_pairs = 0`` every comparison is made and an
empty one passes (the paper's convention); ``min_pairs = 1`` leaves out the empty ones.

This module holds the plain NumPy implementation (the test oracle for the kernels), the
aggregation of passes into decisions, and the analytic ``population`` reference.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcore.engine.coefficients import coefficient_code, score_table
from simcore.engine.layout import SCORE_TOLERANCE, TIE_TOLERANCE
from simcore.model.weighted import table_scores

REJECT, ACCEPT, INCONCLUSIVE = 0, 1, 2
"""Decision codes."""


@dataclass(frozen=True)
class LeaveOneOutResult:
    """Everything the rule computed on one label matrix.

    Attributes
    ----------
    judge_score : numpy.ndarray
        ``S_j(k)``, shape ``(J, K)``.
    human_score : numpy.ndarray
        ``S_h(k)``, shape ``(K,)``.
    n_pairs : numpy.ndarray
        Pairs behind comparison ``k``, shape ``(K,)``.
    passes : numpy.ndarray
        ``T_k``, bool, shape ``(J, K)``.
    omega : numpy.ndarray
        Share of the comparisons made that the judge passes, shape ``(J,)`` (0 when none
        is made).
    accept : numpy.ndarray
        ``omega >= tau`` with a comparison made, bool, shape ``(J,)``.
    made : numpy.ndarray
        Comparisons with at least ``min_pairs`` pairs, bool, shape ``(K,)``.
    decision : numpy.ndarray
        int8 :data:`REJECT`, :data:`ACCEPT` or :data:`INCONCLUSIVE` (no comparison made),
        shape ``(J,)``.
    """

    judge_score: np.ndarray
    human_score: np.ndarray
    n_pairs: np.ndarray
    passes: np.ndarray
    omega: np.ndarray
    accept: np.ndarray
    made: np.ndarray
    decision: np.ndarray

    @property
    def tested(self):
        """Comparisons made (the effective K)."""
        return int(self.made.sum())

    @property
    def difference(self):
        """``d_k = S_j(k) - S_h(k)``, shape ``(J, K)``."""
        return self.judge_score - self.human_score

    @property
    def empty(self):
        """Comparisons with no eligible pair, bool, shape ``(K,)``."""
        return self.n_pairs == 0


class RuleCounts(NamedTuple):
    """Per-trial outcome of the rule on a batch: what the kernels return, in NumPy."""

    n_pass: np.ndarray
    """``(T, J)`` comparisons each judge passes (``omega * tested``)."""
    n_empty: np.ndarray
    """``(T,)`` comparisons with no eligible pair."""
    n_degenerate: np.ndarray
    """``(T,)`` scores whose coefficient had a zero denominator (judges' and humans')."""
    n_tested: np.ndarray
    """``(T,)`` comparisons made: those with at least ``min_pairs`` pairs."""
    n_thin: np.ndarray
    """``(T,)`` comparisons left out, with fewer than ``min_pairs`` pairs."""


def comparison_tables(labels, mask, n_humans, n_labels):
    """Pair tables of every leave-one-out comparison and of the human pool, with NumPy.

    Parameters
    ----------
    labels : numpy.ndarray
        ``(T, n, K + J)`` integer labels, humans first then judges; unobserved human
        entries may hold anything in ``0 .. L - 1``.
    mask : numpy.ndarray
        ``(T, n, K)`` bool, True where a human labelled the item.
    n_humans, n_labels : int
        K and L.

    Returns
    -------
    judge_tables : numpy.ndarray
        ``(T, J, K, L, L)`` int64: pairs (judge label, pool label) of comparison ``k``.
    human_tables : numpy.ndarray
        ``(T, K, L, L)`` int64: pairs (human ``k``'s label, pool label).
    pool_table : numpy.ndarray
        ``(T, L, L)`` int64: every pair of humans ``q < r`` on an item both labelled,
        oriented (``q``'s label, ``r``'s label).
    """
    onehot = (labels[..., None] == np.arange(n_labels)).astype(np.int64)  # (T, n, R, L)
    humans = onehot[:, :, :n_humans]
    judges = onehot[:, :, n_humans:]
    pair = (mask[..., :, None] & mask[..., None, :] & ~np.eye(n_humans, dtype=bool)).astype(
        np.int64
    )  # (T, n, k, q)
    judge_tables = np.einsum("tikq,tija,tiqb->tjkab", pair, judges, humans)
    human_tables = np.einsum("tikq,tika,tiqb->tkab", pair, humans, humans)
    upper = pair * np.triu(np.ones((n_humans, n_humans), dtype=np.int64), 1)
    pool_table = np.einsum("tiqr,tiqa,tirb->tab", upper, humans, humans)
    return judge_tables, human_tables, pool_table


def comparison_passes(judge_tables, human_tables, epsilon, coefficient="observed", min_pairs=0):
    """Return ``T_k`` for every judge and comparison from the pair tables.

    Observed agreement compares counts (ties pass up to :data:`TIE_TOLERANCE`); other
    coefficients compare scores, ``S_j - S_h + eps >= -1e-12``. An empty comparison
    passes. A comparison with fewer than ``min_pairs`` pairs is not made
    (:func:`comparisons_made`) and does not pass; its degenerate scores are not counted.

    Returns
    -------
    passes : numpy.ndarray
        bool ``(..., J, K)``.
    degenerate : numpy.ndarray
        int64 ``(...)``: non-empty scores with a zero denominator.
    """
    n_pairs = human_tables.sum(axis=(-2, -1))  # (..., K)
    made = comparisons_made(human_tables, min_pairs)
    empty = n_pairs == 0
    if coefficient == "observed":
        human_agree = np.trace(human_tables, axis1=-2, axis2=-1)
        judge_agree = np.trace(judge_tables, axis1=-2, axis2=-1)
        margin = judge_agree - human_agree[..., None, :] + epsilon * n_pairs[..., None, :]
        passes = margin >= -TIE_TOLERANCE
        degenerate = np.zeros(n_pairs.shape[:-1], dtype=np.int64)
    else:
        code = coefficient_code(coefficient)
        judge_score, judge_degenerate = score_table(judge_tables, code)
        human_score, human_degenerate = score_table(human_tables, code)
        passes = judge_score - human_score[..., None, :] + epsilon >= -SCORE_TOLERANCE
        counted = made & ~empty
        degenerate = (judge_degenerate & counted[..., None, :]).sum(axis=(-2, -1)) + (
            human_degenerate & counted
        ).sum(axis=-1)
    return (passes | empty[..., None, :]) & made[..., None, :], degenerate


def comparisons_made(human_tables, min_pairs=0):
    """Return which comparisons are made: those with at least ``min_pairs`` pairs.

    Parameters
    ----------
    human_tables : numpy.ndarray
        ``(..., K, L, L)`` pair tables of the held-out humans (:func:`comparison_tables`).
    min_pairs : int
        Fewest pairs for a comparison to count (0: every comparison is made).

    Returns
    -------
    numpy.ndarray
        bool ``(..., K)``.
    """
    return human_tables.sum(axis=(-2, -1)) >= min_pairs


def count_passes(
    labels, mask, n_humans, epsilon, coefficient="observed", n_labels=None, min_pairs=0
):
    """Run the rule on a batch of trials with NumPy: the oracle for the kernels.

    Parameters
    ----------
    labels, mask, n_humans
        As in :func:`comparison_tables`.
    epsilon : float
        Tolerance eps.
    coefficient : str
        Agreement coefficient (:data:`simcore.engine.coefficients.COEFFICIENTS`).
    n_labels : int, optional
        L; by default one more than the largest label.
    min_pairs : int
        Comparisons with fewer pairs are left out (``rule.min_pairs``).

    Returns
    -------
    RuleCounts
    """
    n_labels = n_labels or max(int(labels.max()) + 1, 2)
    judge_tables, human_tables, _ = comparison_tables(labels, mask, n_humans, n_labels)
    passes, degenerate = comparison_passes(
        judge_tables, human_tables, epsilon, coefficient, min_pairs
    )
    n_empty = (human_tables.sum(axis=(-2, -1)) == 0).sum(axis=-1)
    n_tested = comparisons_made(human_tables, min_pairs).sum(axis=-1)
    return RuleCounts(passes.sum(axis=-1), n_empty, degenerate, n_tested, n_humans - n_tested)


def leave_one_out(
    human_labels,
    judge_labels,
    epsilon=0.05,
    tau=0.5,
    coefficient="observed",
    n_labels=None,
    min_pairs=0,
):
    """Run the leave-one-out rule on one label matrix.

    Parameters
    ----------
    human_labels : array_like
        ``(n, K)`` integer labels; a negative value means the human did not label the
        item.
    judge_labels : array_like
        ``(n,)`` or ``(n, J)`` integer labels; judges label every item.
    epsilon : float
        Tolerance: comparison ``k`` passes when ``d_k >= -epsilon``.
    tau : float
        Acceptance threshold on ``omega``.
    coefficient : str
        Agreement coefficient (:data:`simcore.engine.coefficients.COEFFICIENTS`).
    n_labels : int, optional
        L; by default one more than the largest label.
    min_pairs : int
        Comparisons with fewer pairs are left out of omega (``rule.min_pairs``).

    Returns
    -------
    LeaveOneOutResult
        Scores, pair counts, passes, omega and the decision of every judge.
    """
    humans = np.asarray(human_labels)
    judges = np.asarray(judge_labels)
    if judges.ndim == 1:
        judges = judges[:, None]
    n_humans = humans.shape[1]
    labels = np.concatenate([np.maximum(humans, 0), judges], axis=1)[None]
    mask = (humans >= 0)[None]
    n_labels = n_labels or max(int(labels.max()) + 1, 2)
    judge_tables, human_tables, _ = (
        a[0] for a in comparison_tables(labels, mask, n_humans, n_labels)
    )
    passes, _ = comparison_passes(judge_tables, human_tables, epsilon, coefficient, min_pairs)
    code = coefficient_code(coefficient)
    made = comparisons_made(human_tables, min_pairs)
    tested = int(made.sum())
    n_pass = passes.sum(axis=-1)
    decision = decide(n_pass, n_humans, tau, tested=tested)
    return LeaveOneOutResult(
        judge_score=score_table(judge_tables, code)[0],
        human_score=score_table(human_tables, code)[0],
        n_pairs=human_tables.sum(axis=(-2, -1)),
        passes=passes,
        omega=n_pass / max(tested, 1),
        accept=decision == ACCEPT,
        made=made,
        decision=decision,
    )


def omega_accepts(n_pass, n_humans, tau, strict=False):
    """Return ``omega >= tau`` (or ``> tau`` when ``strict``) computed on counts.

    ``n_pass >= tau K`` up to :data:`TIE_TOLERANCE`: with K = 4 and tau = 0.5 a 2-2 split
    accepts; a strict majority needs 3 of 4.
    """
    needed = tau * np.asarray(n_humans)
    n_pass = np.asarray(n_pass)
    if strict:
        return n_pass > needed + TIE_TOLERANCE
    return n_pass >= needed - TIE_TOLERANCE


def decide_counts(favour, against, tested, tau, strict=False, inconclusive=None, kind="point"):
    """Turn comparisons for and against a judge into decisions, for every rule kind.

    Parameters
    ----------
    favour, against : array_like
        Comparisons for and against the judge (point rule: passes and fails; alt_test:
        humans won and not won; interval: comparisons that clear and that fail the bar
        with confidence).
    tested : array_like
        Comparisons made (broadcast against ``favour``): K, or the humans alt_test tested.
    tau : float
        Accept when ``favour / tested >= tau`` (``>`` when ``strict``).
    strict : bool
        Strict inequality (``tau = 0.5`` and ``strict``: a strict majority).
    inconclusive : tuple of float, optional
        Point rule: ``omega`` in ``[low, high)`` is inconclusive.
    kind : str
        ``point`` (no comparison made, ``tested = 0``: inconclusive, which only
        ``rule.min_pairs`` can cause), ``alt_test`` (no human tested: reject) or
        ``interval`` (reject when the
        comparisons that fail with confidence make ``tau`` unreachable; inconclusive when
        neither accept nor reject is certain).

    Returns
    -------
    numpy.ndarray
        int8 codes :data:`REJECT`, :data:`ACCEPT` or :data:`INCONCLUSIVE`.
    """
    favour = np.asarray(favour)
    tested = np.broadcast_to(np.asarray(tested), favour.shape)
    accept = omega_accepts(favour, tested, tau, strict) & (tested > 0)
    decision = np.where(accept, ACCEPT, REJECT).astype(np.int8)
    if kind == "interval":
        reachable = tested - np.asarray(against)
        undecided = ~accept & omega_accepts(reachable, tested, tau, strict)
        decision[undecided] = INCONCLUSIVE
    if kind == "point":
        decision[tested == 0] = INCONCLUSIVE
    if inconclusive is not None:
        low, high = inconclusive
        in_band = (favour >= low * tested - TIE_TOLERANCE) & (
            favour < high * tested - TIE_TOLERANCE
        )
        decision[in_band] = INCONCLUSIVE
    return decision


def decide(n_pass, n_humans, tau, inconclusive=None, strict=False, tested=None):
    """Turn the point rule's comparisons passed into decisions (:func:`decide_counts`).

    Parameters
    ----------
    n_pass : array_like
        Comparisons passed (``omega * tested``).
    n_humans : int
        K.
    tau : float
        Accept when ``omega >= tau`` (``> tau`` when ``strict``).
    inconclusive : tuple of float, optional
        ``(low, high)``: ``omega`` in ``[low, high)`` is inconclusive; outside it the
        decision is accept/reject by ``tau``.
    strict : bool
        Strict inequality.
    tested : array_like, optional
        Comparisons made (broadcast against ``n_pass``; default K): ``omega = n_pass /
        tested``, and none made (0) is inconclusive.

    Returns
    -------
    numpy.ndarray
        int8 codes :data:`REJECT`, :data:`ACCEPT` or :data:`INCONCLUSIVE`.
    """
    n_pass = np.asarray(n_pass)
    tested = n_humans if tested is None else np.asarray(tested)
    return decide_counts(n_pass, tested - n_pass, tested, tau, strict, inconclusive)


def population_scores(
    pair_probabilities, n_humans, weights, coefficient="observed", weighting=None
):
    """Limit scores ``S_j(k)`` of every judge and ``S_h(k)`` of every human (n -> infinity).

    Comparison ``k``'s pooled pair table is ``sum_{q != k} w_kq P[c, q]`` for candidate
    ``c`` (a judge, or human ``k``), scored by the coefficient (tables scaled to 1e9 pairs,
    so that Krippendorff's small-sample factor n / (n - 1) is 1 to nine digits).

    Returns
    -------
    judge_score : numpy.ndarray
        ``(J, K)``.
    human_score : numpy.ndarray
        ``(K,)``.
    """
    weights = np.array(weights, dtype=np.float64)
    np.fill_diagonal(weights, 0.0)
    humans = pair_probabilities[:n_humans, :n_humans]  # (k, q, L, L)
    judges = pair_probabilities[n_humans:, :n_humans]  # (j, q, L, L)
    scale = 1e9
    human_tables = scale * np.einsum("kq,kqab->kab", weights, humans)
    judge_tables = scale * np.einsum("kq,jqab->jkab", weights, judges)
    return (
        table_scores(judge_tables, coefficient, weighting),
        table_scores(human_tables, coefficient, weighting),
    )


def population_passes(
    pair_probabilities, n_humans, weights, epsilon, coefficient="observed", weighting=None
):
    """Comparisons each judge passes as ``n -> infinity`` (the ``population`` reference).

    In the limit, comparison ``k``'s pooled pair table is ``sum_{q != k} w_kq P[c, q]`` for
    candidate ``c`` (a judge, or human ``k``), where ``P[a, b]`` is the joint distribution of raters
    ``a`` and ``b``'s labels (:func:`simcore.model.generative.pair_tables`) and ``w_kq`` the
    expected share of items that ``k`` and ``q`` both label
    (:func:`simcore.model.designs.pair_weights`). The coefficient is applied to those tables (scaled
    to 1e9 pairs, so that Krippendorff's small-sample factor n / (n - 1) is 1 to nine digits), and
    comparison ``k`` passes when ``S_j - S_h + eps >= 0``. Under symmetric noise with observed
    agreement and equal humans this is the population margin (docs/explanation/model.md) ``p_j p_h +
    (1-p_j)(1-p_h)/(L-1) - p_h^2 - (1-p_h)^2/(L-1) + eps``.

    Parameters
    ----------
    pair_probabilities : numpy.ndarray
        ``(R, R, L, L)`` joint label distributions, humans first then judges.
    n_humans : int
        K.
    weights : numpy.ndarray
        ``(K, K)`` expected shared share of items per pair of humans (diagonal ignored).
    epsilon : float
        Tolerance.
    coefficient : str
        Agreement coefficient.
    weighting : tuple, optional
        :func:`simcore.model.weighted.rule_weighting`'s, for a weighted coefficient.

    Returns
    -------
    numpy.ndarray
        int64 ``(J,)``: comparisons passed in the limit.
    """
    judge_score, human_score = population_scores(
        pair_probabilities, n_humans, weights, coefficient, weighting
    )
    margin = judge_score - human_score[None, :] + epsilon
    return (margin >= -SCORE_TOLERANCE).sum(axis=1)
