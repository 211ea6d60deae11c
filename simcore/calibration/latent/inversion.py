"""The distribution of true labels behind a judge's production labels, and when it is refused.

A judge with confusion matrix ``C`` (``L x L_j``, row = true label, column = the judge's
answer, rows summing to 1) turns a production population whose true labels are distributed
as ``pi`` into answers distributed as ``q = C^T pi``. :func:`corrected_distribution` inverts
this on the simplex; :func:`separation` says how far ``C`` is from singular, the ``L``-class
analogue of Youden's ``J`` below which the inversion is refused.
"""

import numpy as np

ML_TOLERANCE = 1e-12
"""The simplex EM stops when no share moves by more than this."""

ML_ITERATIONS = 100_000
"""Most iterations of the simplex EM."""


def separation(confusion):
    """Return the smallest gain of ``C^T`` on the differences of distributions.

    Parameters
    ----------
    confusion : array_like
        ``(L, L)`` row-stochastic confusion matrix (row = true label).

    Returns
    -------
    float
        ``min ||C^T v|| / ||v||`` over the vectors ``v`` that sum to 0 (the directions in
        which two distributions of true labels differ): the smallest singular value of
        ``Q^T C^T Q`` with ``Q`` an orthonormal basis of those vectors (``C^T`` maps them to
        vectors that sum to 0, since ``C`` has unit row sums). A production shift of size
        ``d`` in the answers is one of at most ``d / separation`` in the corrected
        distribution. For ``L = 2``, ``C = [[Se, 1 - Se], [1 - Sp, Sp]]`` and the value is
        ``|Se + Sp - 1|``, Youden's J: the floor that refuses a binary correction refuses
        an ``L``-class one by the same number.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    n_labels = confusion.shape[0]
    basis = np.linalg.qr(np.eye(n_labels) - 1.0 / n_labels)[0][:, : n_labels - 1]
    reduced = basis.T @ confusion.T @ basis
    return float(np.linalg.svd(reduced, compute_uv=False).min())


def corrected_distribution(confusion, answers):
    """Return the maximum-likelihood distribution of true labels, on the simplex.

    Parameters
    ----------
    confusion : array_like
        ``(L, L_j)`` row-stochastic confusion matrix of the judge (row = true label).
    answers : array_like
        ``(L_j,)`` counts (or shares) of the judge's production answers.

    Returns
    -------
    numpy.ndarray
        float64 ``(L,)``: ``pi`` maximising ``sum_l answers_l log (C^T pi)_l`` over the
        simplex.

    Notes
    -----
    When ``C`` is square and ``pi = C^-T q`` (``q`` the answers' shares) has no negative
    share, it is the maximum (the answers are fitted exactly) and is returned as solved.
    For ``L = 2`` the maximum is the Rogan-Gladen rate clipped to ``[0, 1]`` (the
    likelihood is unimodal in ``pi_FAIL``, and ``(C^T pi)_FAIL`` is linear in it).
    Otherwise the EM of the mixture weights, ``pi_y <- pi_y sum_l q_l C[y, l] / (C^T
    pi)_l``, runs from the uniform distribution until no share moves by more than
    :data:`ML_TOLERANCE`: it never lowers the likelihood and stays on the simplex (Vardi
    and Lee 1993).
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    return corrected_distributions(confusion[None], np.asarray(answers, dtype=np.float64)[None])[0]


def corrected_distributions(confusions, answers):
    """Return :func:`corrected_distribution` of each row: ``(B, L, L_j)``, ``(B, L_j)`` in."""
    confusions = np.asarray(confusions, dtype=np.float64)
    shares = np.asarray(answers, dtype=np.float64)
    shares = shares / shares.sum(axis=1, keepdims=True)
    batch, n_labels, judge_labels = confusions.shape
    result = np.full((batch, n_labels), np.nan)
    open_rows = np.ones(batch, dtype=bool)
    if n_labels == judge_labels:
        determinants = np.linalg.det(confusions)
        solvable = np.abs(determinants) > 1e-300
        solved = np.full((batch, n_labels), np.nan)
        if solvable.any():
            solved[solvable] = np.linalg.solve(
                confusions[solvable].transpose(0, 2, 1), shares[solvable][..., None]
            )[..., 0]
        if n_labels == 2:
            fail = np.clip(solved[:, 0], 0.0, 1.0)
            solved = np.stack([fail, 1.0 - fail], axis=1)
        feasible = solvable & (np.nan_to_num(solved, nan=-1.0).min(axis=1) >= 0.0)
        result[feasible] = solved[feasible] / solved[feasible].sum(axis=1, keepdims=True)
        open_rows = ~feasible
    if open_rows.any():
        result[open_rows] = _simplex_em(confusions[open_rows], shares[open_rows])
    return result


def _simplex_em(confusions, shares):
    """Run the mixture-weight EM on every row until none moves by more than the tolerance."""
    current = np.full(confusions.shape[:2], 1.0 / confusions.shape[1])
    for _ in range(ML_ITERATIONS):
        expected = np.einsum("byl,by->bl", confusions, current)
        ratio = np.divide(shares, expected, out=np.zeros_like(shares), where=expected > 0)
        updated = current * np.einsum("byl,bl->by", confusions, ratio)
        updated /= updated.sum(axis=1, keepdims=True)
        if np.abs(updated - current).max() <= ML_TOLERANCE:
            return updated
        current = updated
    return current
