"""The distribution of true labels behind a judge's production labels, and when it is refused.

A judge with confusion matrix ``C`` (``L x L_j``, row = true label, column = the judge's
answer, rows summing to 1) turns a production population whose true labels are distributed
as ``pi`` into answers distributed as ``q = C^T pi``. :func:`corrected_distribution` inverts
this on the simplex; :func:`separation` says how far ``C`` is from singular, the ``L``-class
analogue of Youden's ``J`` below which the inversion is refused.
"""

import numpy as np

SUM_WEIGHT = 1e4
"""Weight of the sum-to-one row appended to the non-negative least squares."""


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
    """Return the distribution of true labels behind the judge's answers, on the simplex.

    Parameters
    ----------
    confusion : array_like
        ``(L, L_j)`` row-stochastic confusion matrix of the judge (row = true label).
    answers : array_like
        ``(L_j,)`` counts (or shares) of the judge's production answers.

    Returns
    -------
    numpy.ndarray
        float64 ``(L,)``: ``pi`` minimising ``||C^T pi - q||^2`` over the simplex (``q`` the
        answers' shares): constrained least squares.

    Notes
    -----
    When ``C`` is square and well conditioned and ``pi = C^-T q`` has no negative share, it
    fits the answers exactly: it is the constrained least-squares solution and also the
    maximum-likelihood one, and it is returned as solved. For ``L = 2`` that is the
    Rogan-Gladen rate, and outside ``[0, 1]`` the answer is the rate clipped to it (the
    squared error is a parabola in ``pi_FAIL``), again Rogan-Gladen's convention.
    Otherwise the non-negative least squares of ``C^T pi = q`` with the row
    ``w 1^T pi = w`` appended (``w`` = :data:`SUM_WEIGHT`; :func:`scipy.optimize.nnls`,
    Lawson and Hanson's active-set method) is solved and normalised to sum to 1.
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
        solvable = np.linalg.cond(confusions) < 1e12
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
    for row in np.flatnonzero(open_rows):
        result[row] = _simplex_least_squares(confusions[row], shares[row])
    return result


def _simplex_least_squares(confusion, shares):
    """Return the non-negative least squares of ``C^T pi = q`` with ``sum(pi) = 1`` weighted in."""
    from scipy.optimize import nnls

    n_labels = confusion.shape[0]
    system = np.vstack([confusion.T, np.full((1, n_labels), SUM_WEIGHT)])
    target = np.append(shares, SUM_WEIGHT)
    solution, _ = nnls(system, target)
    total = solution.sum()
    return solution / total if total > 0 else np.full(n_labels, 1.0 / n_labels)
