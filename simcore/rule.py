"""The leave-one-out decision rule (SPEC §5; P Eqs. 3-6; Calderon et al.).

For each held-out human ``k``, the pairs are ``(i, q)`` for every item ``i`` that ``k``
labelled and every other human ``q != k`` who labelled ``i``; items with more pool labels
contribute more pairs. On those pairs the judge scores ``S_j(k)`` and human ``k`` scores
``S_h(k)`` against the pool labels, ``d_k = S_j(k) - S_h(k)``, and the comparison passes
when ``T_k = 1[d_k >= -eps]``. ``omega = mean_k T_k``; the judge is accepted when
``omega >= tau``.

Exact ties pass. With observed agreement the comparison is made on counts,
``n_judge_agree - n_human_agree + eps * n_pairs >= -TIE_TOLERANCE``, so that ties such as
20 pairs with the judge one agreement behind at eps = 0.05 pass despite floating point.
A comparison with no pairs passes (both scores are 0) and is counted as empty.

This module holds the plain NumPy implementation (the test oracle for the kernels), the
aggregation of passes into decisions, and the analytic ``population`` reference.
"""

from dataclasses import dataclass

import numpy as np

TIE_TOLERANCE = 1e-9
"""Slack in the count comparison; far below 1 / n_pairs for any realistic corpus."""

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
        Share of comparisons passed, shape ``(J,)``.
    accept : numpy.ndarray
        ``omega >= tau``, bool, shape ``(J,)``.
    """

    judge_score: np.ndarray
    human_score: np.ndarray
    n_pairs: np.ndarray
    passes: np.ndarray
    omega: np.ndarray
    accept: np.ndarray

    @property
    def difference(self):
        """``d_k = S_j(k) - S_h(k)``, shape ``(J, K)``."""
        return self.judge_score - self.human_score

    @property
    def empty(self):
        """Comparisons with no eligible pair, bool, shape ``(K,)``."""
        return self.n_pairs == 0


def pair_counts(labels, mask, n_humans):
    """Count pairs and agreements of every leave-one-out comparison (observed agreement).

    Parameters
    ----------
    labels : numpy.ndarray
        ``(T, n, K + J)`` integer labels, humans first then judges; unobserved human
        entries may hold anything.
    mask : numpy.ndarray
        ``(T, n, K)`` bool, True where a human labelled the item.
    n_humans : int
        K.

    Returns
    -------
    n_pairs : numpy.ndarray
        ``(T, K)`` int64: pairs of comparison ``k``.
    human_agree : numpy.ndarray
        ``(T, K)`` int64: pairs on which held-out human ``k`` agrees with the pool.
    judge_agree : numpy.ndarray
        ``(T, J, K)`` int64: pairs on which judge ``j`` agrees with the pool.
    """
    humans = labels[..., :n_humans]
    judges = labels[..., n_humans:]
    not_self = ~np.eye(n_humans, dtype=bool)
    # pair[t, i, k, q]: item i gives a (held-out k, pool q) pair.
    pair = mask[..., :, None] & mask[..., None, :] & not_self
    human_same = humans[..., :, None] == humans[..., None, :]
    judge_same = judges[..., :, None] == humans[..., None, :]  # (T, n, J, q)
    n_pairs = pair.sum(axis=(-3, -1), dtype=np.int64)
    human_agree = (pair & human_same).sum(axis=(-3, -1), dtype=np.int64)
    judge_agree = np.einsum("tikq,tijq->tjk", pair.astype(np.int64), judge_same.astype(np.int64))
    return n_pairs, human_agree, judge_agree


def passes_from_counts(n_pairs, human_agree, judge_agree, epsilon):
    """Return ``T_k`` from counts: ``judge_agree - human_agree + eps * n_pairs >= 0``.

    Broadcasts ``(..., K)`` human arrays against ``(..., J, K)`` judge arrays. Ties pass
    (up to :data:`TIE_TOLERANCE`); empty comparisons pass.
    """
    margin = judge_agree - human_agree[..., None, :] + epsilon * n_pairs[..., None, :]
    return margin >= -TIE_TOLERANCE


def count_passes(labels, mask, n_humans, epsilon):
    """Run the rule on a batch of trials with NumPy: the oracle for the kernels.

    Parameters
    ----------
    labels, mask, n_humans
        As in :func:`pair_counts`.
    epsilon : float
        Tolerance eps.

    Returns
    -------
    n_pass : numpy.ndarray
        ``(T, J)`` int64: comparisons passed by each judge (``omega * K``).
    n_empty : numpy.ndarray
        ``(T,)`` int64: comparisons with no eligible pair.
    """
    n_pairs, human_agree, judge_agree = pair_counts(labels, mask, n_humans)
    passes = passes_from_counts(n_pairs, human_agree, judge_agree, epsilon)
    return passes.sum(axis=-1, dtype=np.int64), (n_pairs == 0).sum(axis=-1, dtype=np.int64)


def leave_one_out(human_labels, judge_labels, epsilon=0.05, tau=0.5):
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
    labels = np.concatenate([humans, judges], axis=1)[None]
    mask = (humans >= 0)[None]
    n_pairs, human_agree, judge_agree = (a[0] for a in pair_counts(labels, mask, n_humans))
    passes = passes_from_counts(n_pairs, human_agree, judge_agree, epsilon)
    safe = np.maximum(n_pairs, 1)
    omega = passes.mean(axis=-1)
    return LeaveOneOutResult(
        judge_score=judge_agree / safe,
        human_score=human_agree / safe,
        n_pairs=n_pairs,
        passes=passes,
        omega=omega,
        accept=omega_accepts(passes.sum(axis=-1), n_humans, tau),
    )


def omega_accepts(n_pass, n_humans, tau):
    """Return ``omega >= tau`` computed on counts, ``n_pass >= tau * K`` (ties accept)."""
    return np.asarray(n_pass) >= tau * n_humans - TIE_TOLERANCE


def decide(n_pass, n_humans, tau, inconclusive=None):
    """Turn comparisons passed into decisions.

    Parameters
    ----------
    n_pass : array_like
        Comparisons passed (``omega * K``).
    n_humans : int
        K.
    tau : float
        Accept when ``omega >= tau``.
    inconclusive : tuple of float, optional
        ``(low, high)``: ``omega`` in ``[low, high)`` is inconclusive; outside it the
        decision is accept/reject by ``tau``.

    Returns
    -------
    numpy.ndarray
        int8 codes :data:`REJECT`, :data:`ACCEPT` or :data:`INCONCLUSIVE`.
    """
    n_pass = np.asarray(n_pass)
    decision = np.where(omega_accepts(n_pass, n_humans, tau), ACCEPT, REJECT).astype(np.int8)
    if inconclusive is not None:
        low, high = inconclusive
        in_band = (n_pass >= low * n_humans - TIE_TOLERANCE) & (
            n_pass < high * n_humans - TIE_TOLERANCE
        )
        decision[in_band] = INCONCLUSIVE
    return decision


def population_passes(accuracies, n_humans, n_labels, epsilon, coverage):
    """Comparisons each judge passes as ``n -> infinity`` (the ``population`` reference).

    Under symmetric noise with observed agreement, pool human ``q`` enters comparison
    ``k`` with weight ``coverage[k] * coverage[q]`` (its expected share of pairs), and

    ``S_j(k) = sum_q w_kq A(j, q)``, ``S_h(k) = sum_q w_kq A(k, q)``,
    ``A(a, b) = p_a p_b + (1 - p_a)(1 - p_b) / (L - 1)``.

    With equal human accuracies this is SPEC §6's margin
    ``S_j - S_h + eps = p_j p_h + (1-p_j)(1-p_h)/(L-1) - p_h^2 - (1-p_h)^2/(L-1) + eps``.

    Parameters
    ----------
    accuracies : numpy.ndarray
        Rater accuracies, humans first then judges.
    n_humans, n_labels : int
        K and L.
    epsilon : float
        Tolerance.
    coverage : numpy.ndarray
        Expected share of items each human labels (primary first).

    Returns
    -------
    numpy.ndarray
        int64 ``(J,)``: comparisons passed in the limit.
    """
    from simcore.model import pair_agreement

    humans = accuracies[:n_humans]
    judges = accuracies[n_humans:]
    weight = np.outer(coverage, coverage)
    np.fill_diagonal(weight, 0.0)
    weight = weight / weight.sum(axis=1, keepdims=True)
    human_score = (weight * pair_agreement(humans[:, None], humans[None, :], n_labels)).sum(1)
    judge_agree = pair_agreement(judges[:, None], humans[None, :], n_labels)  # (J, q)
    judge_score = judge_agree @ weight.T  # (J, k)
    margin = judge_score - human_score[None, :] + epsilon
    return (margin >= -TIE_TOLERANCE).sum(axis=1)
