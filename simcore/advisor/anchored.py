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
(docs/explanation/advise-risk.md); the model supplies the spread and the dependence
of the changes, the data their centre. With no proposal the sparse side is the observed
``d_k`` itself, so the sparse decision is the observed one. A comparison empty under the
current mask (no pair, no observed ``d_k``) takes the simulated value.

That full anchoring trusts every observed ``d_k`` as the centre of its dense value. A
comparison on a few items (a crowd's) says little about where its dense value sits: pinned
there, the dense comparisons of a crowd become as many independent coins around their noisy
observed values, their share passing is nearly fixed, and a knife-edge verdict gets a risk
near 0. So each comparison is weighted between the data and the model
(:func:`shrinkage`), as a normal prior from the model updated by the observation:

    dense ``D_k(t) + beta_k (d_k - s_k(t) - E[D_k - s_k]) + (1 - beta_k) tau z_k(t)``

with ``beta_k = (Cov(D_k, s_k) + tau^2) / (Var(s_k) + tau^2)`` over the model's draws,
``tau^2`` the variance of the model's misplacement of a comparison estimated from how far
the observed ``d_k`` lie from the model's (:func:`misplacement`), and ``z_k(t)`` a standard
normal per draw and comparison (the misplacement the draws lack); the proposal's side the
same with ``p_k`` for ``D_k``. Its mean is ``E[D_k] + beta_k (d_k - E[D_k])`` and its
variance the posterior's. A comparison on many items has ``Var(s_k)`` close to ``Cov(D_k,
s_k)``, ``beta_k`` close to 1 and the full anchoring above; a thin one leans on the model,
whose fit pools every comparison's items. ``tau`` is estimated over the comparisons, so
only a verdict of at least :data:`MIN_COMPARISONS` observed comparisons (a crowd's) is
weighted (:func:`shrinks`); fewer stay fully anchored.
"""

from typing import NamedTuple

import numpy as np

from simcore.advisor.scoring import score_differences
from simcore.engine.margins import leave_one_out_differences
from simcore.model.rule import decide
from simcore.realdata.data_shape import CROWD_HUMANS

PASS_TOLERANCE = 1e-9
"""A comparison passes when ``d_k + eps >= -PASS_TOLERANCE``, as the verdict's do."""


def judge_anchor(verdict_row):
    """Return the observed ``d_k`` of a verdict row, ``(K,)`` (NaN for an empty comparison).

    ``verdict_row`` is one of :func:`simcore.advisor.verdict.verdicts`'s rows.
    """
    return np.array([row["d"] for row in verdict_row["comparisons"]], dtype=np.float64)


def simulated_differences(labels, mask, n_humans, n_labels, scoring=None):
    """Return ``(d, pairs)``, ``(T, K)`` each: every draw's ``d_k`` under ``mask``.

    :func:`simcore.engine.margins.leave_one_out_differences` on ``labels`` ``(T, n, K +
    1)`` (humans, then the judge) and a ``(T, n, K)`` mask, or a ``(1, n, K)`` one shared
    by every draw; under another coefficient (``scoring``),
    :func:`simcore.advisor.scoring.score_differences`.
    """
    if scoring is not None:
        return score_differences(labels, mask, n_humans, scoring)
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


def comparison_changes(labels, proposal, available, n_labels, scoring=None):
    """Return every draw's ``d_k`` now, after the proposal and dense, with their pairs.

    ``(now, after, after_pairs, dense, dense_pairs)``, each ``(T, K)``: the simulated
    comparisons under ``available`` (``(n, K)``, the matrix as it is), ``proposal``
    (``(T, n, K)``, the current matrix plus each draw's proposal; None for no proposal,
    when ``after`` is ``now``) and every human on every item (:func:`simulated_differences`,
    under ``scoring``).
    """
    n_items, n_humans = available.shape
    now, now_pairs = simulated_differences(labels, available[None], n_humans, n_labels, scoring)
    after, after_pairs = (
        (now, now_pairs)
        if proposal is None
        else simulated_differences(labels, proposal, n_humans, n_labels, scoring)
    )
    full = np.ones((1, n_items, n_humans), dtype=np.bool_)
    dense, dense_pairs = simulated_differences(labels, full, n_humans, n_labels, scoring)
    return now, after, after_pairs, dense, dense_pairs


def expected_changes(labels, proposal, available, n_labels, scoring=None):
    """Return ``(E[p_k - s_k], E[D_k - s_k])``, ``(K,)`` each, as means over the draws.

    The model's expected change of each comparison from the current mask to the proposal's
    and to the dense one (:func:`comparison_changes`); 0 where no draw defines it.
    """
    now, after, _, dense, _ = comparison_changes(labels, proposal, available, n_labels, scoring)
    return _column_mean(after - now), _column_mean(dense - now)


MIN_COMPARISONS = CROWD_HUMANS
"""Observed comparisons needed to weigh them against the model (:func:`shrinks`): a crowd's."""


def shrinks(anchor):
    """Whether the comparisons ``anchor`` are weighed against the model (:func:`shrinkage`).

    The model's misplacement ``tau^2`` (:func:`misplacement`) is a moment estimate over the
    observed comparisons; over fewer than :data:`MIN_COMPARISONS` (3 to 10 on the shipped
    matrices) it is often 0 by chance, and leaning on a misspecified model then made the
    risk overconfident (docs/explanation/advise-risk.md): those stay fully anchored.
    """
    return int(np.isfinite(np.asarray(anchor, dtype=np.float64)).sum()) >= MIN_COMPARISONS


class Shrinkage(NamedTuple):
    """How far each anchored draw trusts the observed comparison (:func:`shrinkage`).

    Attributes
    ----------
    to_proposal, to_dense : numpy.ndarray
        ``E[p_k - s_k]`` and ``E[D_k - s_k]``, ``(K,)``: the model's expected changes,
        taken out.
    weight_proposal, weight_dense : numpy.ndarray
        ``beta_k``, ``(K,)`` in [0, 1]: the weight of the observed comparison in the
        proposal's and the dense comparison (1: anchored at it, 0: the model's own draw).
    misplacement : float
        ``tau``, the SD of the model's misplacement of a comparison (0: none detected).
    """

    to_proposal: np.ndarray
    to_dense: np.ndarray
    weight_proposal: np.ndarray
    weight_dense: np.ndarray
    misplacement: float


def misplacement(anchor, mean, variance, draws=None):
    """Return ``tau^2``, the variance of the model's misplacement of the comparisons.

    With ``r_k = d_k - E[s_k]`` (the observed comparison against the model's mean of it)
    and ``v_k = Var(s_k)`` over the model's draws, ``E[r_k^2] = v_k + tau^2`` when each
    comparison is misplaced by an independent ``N(0, tau^2)``; the moment estimator
    weighted by ``w_k = 1 / v_k`` is ``tau^2 = max(0, (sum_k w_k r_k^2 - K) / sum_k w_k)``
    over the ``K`` comparisons with an observed value and ``v_k > 0`` (0 without one).
    With ``v_k`` the unbiased variance of ``draws = n`` draws, ``w_k = (n - 3) / ((n - 1)
    v_k)``, the unbiased estimate of ``1 / v_k`` under normality (``1 / v_k`` itself would
    read the noise of ``v_k`` as misplacement).
    """
    anchor, mean, variance = (np.asarray(x, dtype=np.float64) for x in (anchor, mean, variance))
    used = np.isfinite(anchor) & np.isfinite(mean) & (variance > 0)
    if not used.any():
        return 0.0
    factor = 1.0 if draws is None or draws <= 3 else (draws - 3) / (draws - 1)
    weights = factor / variance[used]
    excess = float((weights * (anchor[used] - mean[used]) ** 2).sum()) - int(used.sum())
    return max(0.0, excess / float(weights.sum()))


def shrinkage(labels, proposal, available, n_labels, anchor, scoring=None):
    """Return the :class:`Shrinkage` of ``anchor`` under the model's draws ``labels``.

    From the draws' comparisons now ``s_k``, after the proposal ``p_k`` and dense ``D_k``
    (:func:`comparison_changes`), with ``tau^2`` the model's misplacement
    (:func:`misplacement`), the weight of the observed comparison in the dense one is the
    regression slope of ``D_k`` on ``s_k`` when both are shifted by the misplacement,
    ``beta_k = (Cov(D_k, s_k) + tau^2) / (Var(s_k) + tau^2)`` (clipped to [0, 1]; 1 when
    the denominator is 0), and likewise for ``p_k``. A comparison on many items has
    ``Var(s_k)`` near ``Cov(D_k, s_k)`` and ``beta_k`` near 1 (anchored at the data); a thin
    one, with ``Var(s_k)`` far above it, leans on the model, which pools every comparison.
    ``scoring`` is the comparisons' coefficient (:func:`comparison_changes`).
    """
    now, after, _, dense, _ = comparison_changes(labels, proposal, available, n_labels, scoring)
    mean_now = _column_mean(now)
    n = len(now)
    spread = _column_mean((now - mean_now) ** 2) * (n / (n - 1) if n > 1 else 1.0)
    tau2 = misplacement(anchor, mean_now, spread, draws=n)
    return Shrinkage(
        _column_mean(after - now),
        _column_mean(dense - now),
        _slope(after, now, tau2),
        _slope(dense, now, tau2),
        float(np.sqrt(tau2)),
    )


def _slope(target, now, tau2):
    """``(Cov(target, now) + tau2) / (Var(now) + tau2)`` per column, in [0, 1] (1 at 0 / 0)."""
    centred_now = now - _column_mean(now)
    covariance = _column_mean((target - _column_mean(target)) * centred_now) + tau2
    variance = _column_mean(centred_now**2) + tau2
    slope = np.divide(covariance, variance, out=np.ones_like(variance), where=variance > 0)
    return np.clip(slope, 0.0, 1.0)


def _column_mean(values):
    """Mean of each column over its finite entries; 0 for a column with none."""
    finite = np.isfinite(values)
    count = finite.sum(axis=0)
    total = np.where(finite, values, 0.0).sum(axis=0)
    return np.divide(total, count, out=np.zeros(values.shape[1]), where=count > 0)


def _shrunk(target, now, anchor, change, weight, misplaced):
    """``target + beta (d - now - change) + (1 - beta) tau z``; the draw where ``d`` is NaN."""
    moved = target + weight * (anchor - now - change) + (1.0 - weight) * misplaced
    return np.where(np.isnan(now) | np.isnan(anchor), target, moved)


def anchored_decisions(
    labels, proposal, available, anchor, n_labels, rule, centre=None, shift=None
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
    rule : simcore.advisor.settings.AuditRule
        The point rule: its ``epsilon``, ``tau``, ``min_pairs`` and the comparisons'
        coefficient (``scoring``; None: observed agreement).
    centre : tuple of numpy.ndarray or Shrinkage, optional
        The expected changes taken out (:func:`expected_changes`), every comparison
        anchored at the data; or a :class:`Shrinkage`, each comparison weighted between the
        data and the model (module docstring); default none.
    shift : numpy.ndarray, optional
        ``(T, K)`` standard normals ``z``: each draw's misplacement of each comparison is
        ``tau z`` (with a :class:`Shrinkage`; default none).

    Returns
    -------
    tuple of numpy.ndarray
        int8 ``(T,)`` sparse and dense decisions (module docstring).
    """
    epsilon, tau, min_pairs = rule.epsilon, rule.tau, rule.min_pairs
    now, after, after_pairs, dense, dense_pairs = comparison_changes(
        labels, proposal, available, n_labels, rule.scoring
    )
    anchor = np.asarray(anchor, dtype=np.float64)[None, :]
    if isinstance(centre, Shrinkage):
        misplaced = 0.0 if shift is None else centre.misplacement * shift
        sparse_d = _shrunk(
            after, now, anchor, centre.to_proposal, centre.weight_proposal, misplaced
        )
        dense_d = _shrunk(dense, now, anchor, centre.to_dense, centre.weight_dense, misplaced)
    else:
        to_proposal, to_dense = (0.0, 0.0) if centre is None else centre
        sparse_d = np.where(np.isnan(now), after, anchor + (after - now) - to_proposal)
        dense_d = np.where(np.isnan(now), dense, anchor + (dense - now) - to_dense)
    return (
        point_decisions(sparse_d, after_pairs, epsilon, tau, min_pairs),
        point_decisions(dense_d, dense_pairs, epsilon, tau, min_pairs),
    )
