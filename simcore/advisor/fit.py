"""Fit the synthetic model to a sparse annotation matrix (Dawid-Skene EM).

What is fitted. The generative model of :mod:`simcore.model.generative` without item
clusters: a latent
true label ``y_i ~ Categorical(prevalence)`` per item and, for every rater column ``r``, a
row-stochastic confusion matrix ``confusion[r, y, l] = P(rater r reports l | truth y)``,
raters conditionally independent given ``y``. The fit gives the prevalence ``(L,)``, the
confusions ``(R, L, L)``, each rater's accuracy ``sum_y prevalence[y] confusion[r, y, y]``
and the posterior ``P(y_i = y | labels)`` of every item. Rater columns are ordered humans
first, then judges, as everywhere in the package.

Method. Maximum likelihood by expectation-maximisation, Dawid, A. P. and Skene, A. M.
(1979), "Maximum likelihood estimation of observer error-rates using the EM algorithm",
*Applied Statistics* 28(1):20-28. Cells that a rater did not label are simply left out of
the likelihood (missing at random). The posterior starts from the per-item majority vote;
each iteration re-estimates the prevalence and the confusions from the posterior (M-step)
and the posterior from them (E-step, in log space). Confusion counts get an additive
smoothing (see :func:`fit_dawid_skene`) so that no entry is ever exactly 0.

Identifiability caveat. With sparse secondary humans most items carry a single human label,
so the humans alone say little about the latent truth of an item. **The judges are included
in the E-step like any other rater**: they label every item, so they carry much of the
information about the latent truth. The fitted "truth" is therefore what humans and judges
*jointly* agree on, not a human-only gold standard, and a judge's fitted accuracy partly
measures its agreement with the other judges. Judges whose errors are correlated (the same
model family, the same prompt) violate conditional independence and pull the latent truth
towards their shared errors; :func:`simcore.advisor.diagnostics.agreement_diagnostics` and
:func:`simcore.advisor.diagnostics.poor_fit` look for such pairs.

Label switching. The likelihood does not change when the latent classes are permuted, so EM
can converge to a permuted solution. After fitting, the classes are matched to the label
values by the assignment that maximises the summed diagonal of the humans' confusion
matrices (the identity is kept whenever it is among the best assignments); see
:func:`fit_dawid_skene`.
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.optimize import linear_sum_assignment

from simcore.advisor.diagnostics import (  # noqa: F401  (re-exported)
    agreement_diagnostics,
    fitted_agreement,
    poor_fit,
)

ALIGNMENT_TOLERANCE = 1e-12
"""Slack under which the identity counts as a best label assignment."""


class ModelFit(NamedTuple):
    """A fitted Dawid-Skene model.

    Attributes
    ----------
    prevalence : numpy.ndarray
        float64 ``(L,)``: probability of each true label.
    confusions : numpy.ndarray
        float64 ``(R, L, L)``: row = true label, column = reported label; rows sum to 1.
    accuracies : numpy.ndarray
        float64 ``(R,)``: ``sum_y prevalence[y] confusions[r, y, y]``.
    posterior : numpy.ndarray
        float64 ``(n, L)``: ``P(y_i = y | labels)`` under the fitted parameters.
    log_likelihood : float
        Observed-data log-likelihood of the fitted parameters (without the smoothing term).
    iterations : int
        Number of EM iterations run (M-steps).
    converged : bool
        Whether the stopping rule was met before ``max_iterations``.
    permutation : numpy.ndarray
        int64 ``(L,)``: EM's latent class ``k`` is reported as label ``permutation[k]``;
        the identity unless label switching was corrected.
    """

    prevalence: np.ndarray
    confusions: np.ndarray
    accuracies: np.ndarray
    posterior: np.ndarray
    log_likelihood: float
    iterations: int
    converged: bool
    permutation: np.ndarray

    @property
    def raters(self):
        """The channels: the confusions ``(R, L, L)`` (see :mod:`simcore.advisor.channels`)."""
        return self.confusions


class FitErrors(NamedTuple):
    """Bootstrap standard errors of a :class:`ModelFit` (sample SD over the refits).

    Attributes
    ----------
    accuracies : numpy.ndarray
        float64 ``(R,)``.
    prevalence : numpy.ndarray
        float64 ``(L,)``.
    confusions : numpy.ndarray or None
        float64 ``(R, L, L)``; None for a one-coin fit.
    """

    accuracies: np.ndarray
    prevalence: np.ndarray
    confusions: np.ndarray | None


# --------------------------------------------------------------------------- EM pieces


def _check_input(labels, observed, n_labels):
    """Return ``(codes, observed)`` as int64 and bool arrays, validated."""
    labels = np.asarray(labels)
    observed = np.asarray(observed, dtype=bool)
    if labels.ndim != 2:
        raise ValueError(f"labels: must be a 2-d array (items, raters) (got shape {labels.shape})")
    if observed.shape != labels.shape:
        raise ValueError(
            f"observed: must have the shape of labels {labels.shape} (got {observed.shape})"
        )
    if labels.dtype.kind not in "iu":
        raise ValueError(f"labels: must hold integer codes (got dtype {labels.dtype})")
    if int(n_labels) != n_labels or n_labels < 2:
        raise ValueError(f"n_labels: must be an integer >= 2 (got {n_labels!r})")
    codes = np.where(observed, labels, 0).astype(np.int64)
    if codes.size and (codes.min() < 0 or codes.max() >= n_labels):
        raise ValueError(
            f"labels: observed codes must lie in [0, {int(n_labels) - 1}] "
            f"(got {int(codes.min())} to {int(codes.max())})"
        )
    return codes, observed


def _one_hot(codes, observed, n_labels):
    """Return bool ``(n, R, L)``: True where rater ``r`` reported ``l`` on item ``i``."""
    return (codes[..., None] == np.arange(n_labels)) & observed[..., None]


def majority_posterior(labels, observed, n_labels):
    """Return the majority-vote posterior that starts the EM.

    Parameters
    ----------
    labels : numpy.ndarray
        int ``(n, R)`` label codes (any value where not observed).
    observed : numpy.ndarray
        bool ``(n, R)``: which cells hold a label.
    n_labels : int
        L.

    Returns
    -------
    numpy.ndarray
        float64 ``(n, L)``: each item's mass split evenly over its most frequent observed
        labels; an item nobody labelled gets the uniform distribution.
    """
    codes, observed = _check_input(labels, observed, n_labels)
    votes = _one_hot(codes, observed, n_labels).sum(axis=1)
    top = votes == votes.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)


def _rater_label_rows(codes, observed, n_labels):
    """Return the sparse ``(R L, n)`` indicator: row ``r L + l`` marks the items r labelled l."""
    items, raters = np.nonzero(observed)
    rows = raters * n_labels + codes[items, raters]
    ones = np.ones(len(items))
    shape = (codes.shape[1] * n_labels, codes.shape[0])
    return sparse.csr_matrix((ones, (rows, items)), shape=shape)


def _m_step(posterior, indicator, smoothing):
    """Return ``(prevalence, confusions)`` from the posterior and the label indicators.

    ``counts[r, y, l] = sum_i post[i, y] [label_ir = l]`` is the sparse product of the
    ``(R L, n)`` indicator (:func:`_rater_label_rows`) with the posterior: O(labels x L),
    never an ``(n, R, L)`` array.
    """
    n_labels = posterior.shape[1]
    prevalence = posterior.mean(axis=0)
    by_label = np.asarray(indicator @ posterior)  # (R L, L): row r L + l, column y
    counts = by_label.reshape(-1, n_labels, n_labels).transpose(0, 2, 1) + smoothing
    totals = counts.sum(axis=2, keepdims=True)
    uniform = np.full_like(counts, 1.0 / n_labels)
    confusions = np.divide(counts, totals, out=uniform, where=totals > 0)
    return prevalence, confusions


def _e_step(prevalence, confusions, indicator):
    """Return ``(posterior, log_likelihood)`` under the given parameters.

    ``log_joint[i, y] = log prevalence[y] + sum_r log confusions[r, y, label_ir]`` over the
    observed labels is one sparse product: the transposed ``(R L, n)`` indicator
    (:func:`_rater_label_rows`) times ``log confusions`` laid out as ``(R L, L)``.
    """
    n_raters, n_labels, _ = confusions.shape
    with np.errstate(divide="ignore"):
        log_confusions = np.log(confusions).transpose(0, 2, 1).reshape(n_raters * n_labels, -1)
        log_joint = np.asarray(indicator.T @ log_confusions) + np.log(prevalence)
    peak = log_joint.max(axis=1, keepdims=True)
    weights = np.exp(log_joint - peak)
    totals = weights.sum(axis=1, keepdims=True)
    log_likelihood = float((peak + np.log(totals)).sum())
    return weights / totals, log_likelihood


def _accuracies(prevalence, confusions):
    """Return ``sum_y prevalence[y] confusions[r, y, y]`` for every rater."""
    return np.einsum("y,ryy->r", prevalence, confusions)


def align_labels(prevalence, confusions, posterior, n_humans):
    """Permute the latent classes so that the humans' confusions are most diagonal.

    Parameters
    ----------
    prevalence : numpy.ndarray
        ``(L,)`` fitted prevalence, indexed by latent class.
    confusions : numpy.ndarray
        ``(R, L, L)`` fitted confusions, rows indexed by latent class.
    posterior : numpy.ndarray
        ``(n, L)`` posterior, columns indexed by latent class.
    n_humans : int
        The first ``n_humans`` raters are the humans whose confusions decide; 0 keeps the
        classes as they are.

    Returns
    -------
    prevalence, confusions, posterior : numpy.ndarray
        The same arrays with the latent classes reordered.
    permutation : numpy.ndarray
        int64 ``(L,)``: latent class ``k`` became label ``permutation[k]``.

    Notes
    -----
    The assignment maximises ``sum_h sum_k confusions[h, k, permutation[k]]`` over the
    humans ``h`` (:func:`scipy.optimize.linear_sum_assignment`). The identity is kept when
    its summed diagonal is within :data:`ALIGNMENT_TOLERANCE` of the best, so a fit whose
    classes already match the labels is never reordered.
    """
    n_labels = len(prevalence)
    identity = np.arange(n_labels)
    if n_humans <= 0:
        return prevalence, confusions, posterior, identity
    score = confusions[:n_humans].sum(axis=0)  # score[k, l]: mass of class k on label l
    rows, columns = linear_sum_assignment(score, maximize=True)
    best = score[rows, columns].sum()
    if np.trace(score) >= best - ALIGNMENT_TOLERANCE:
        return prevalence, confusions, posterior, identity
    permutation = np.empty(n_labels, dtype=np.int64)
    permutation[rows] = columns
    source = np.argsort(permutation)  # label j comes from latent class source[j]
    return prevalence[source], confusions[:, source, :], posterior[:, source], permutation


def _check_settings(max_iterations, tolerance, smoothing, n_humans, n_raters):
    """Validate the EM's settings; return ``n_humans`` as an int (default: every rater)."""
    if not smoothing >= 0:
        raise ValueError(f"smoothing: must be >= 0 (got {smoothing!r})")
    if not tolerance >= 0:
        raise ValueError(f"tolerance: must be >= 0 (got {tolerance!r})")
    if int(max_iterations) != max_iterations or max_iterations < 1:
        raise ValueError(f"max_iterations: must be an integer >= 1 (got {max_iterations!r})")
    n_humans = n_raters if n_humans is None else int(n_humans)
    if not 0 <= n_humans <= n_raters:
        raise ValueError(f"n_humans: must lie in [0, {n_raters}] (got {n_humans})")
    return n_humans


def _starting_posterior(initial_posterior, codes, observed, n_labels):
    """Return the posterior the EM starts from: the given one, checked, or the majority vote."""
    if initial_posterior is None:
        return majority_posterior(codes, observed, n_labels)
    posterior = np.asarray(initial_posterior, dtype=np.float64)
    if posterior.shape != (codes.shape[0], n_labels):
        raise ValueError(
            f"initial_posterior: must have shape {(codes.shape[0], n_labels)} "
            f"(got {posterior.shape})"
        )
    return posterior


def _run_em(posterior, indicator, smoothing, tolerance, max_iterations):
    """Alternate M- and E-steps from ``posterior`` until the stopping rule or the last iteration.

    Returns ``(prevalence, confusions, posterior, log_likelihood, iterations, converged)``,
    the classes as EM found them (not yet aligned).
    """
    previous = -np.inf
    converged = False
    iterations = 0
    while iterations < max_iterations:
        iterations += 1
        prevalence, confusions = _m_step(posterior, indicator, smoothing)
        posterior, log_likelihood = _e_step(prevalence, confusions, indicator)
        if abs(log_likelihood - previous) < tolerance * abs(log_likelihood):
            converged = True
            break
        previous = log_likelihood
    return prevalence, confusions, posterior, log_likelihood, iterations, converged


# --------------------------------------------------------------------------- the fit


def fit_dawid_skene(
    labels,
    observed,
    n_labels,
    max_iterations=500,
    tolerance=1e-8,
    smoothing=0.01,
    *,
    n_humans=None,
    initial_posterior=None,
):
    """Fit the Dawid-Skene model by EM to a sparse label matrix.

    Parameters
    ----------
    labels : array_like
        int ``(n, R)`` label codes in ``[0, L)``; any value where not ``observed``.
    observed : array_like
        bool ``(n, R)``: which (item, rater) cells hold a label. Raters are all columns,
        humans first, then judges.
    n_labels : int
        L, the number of labels (>= 2).
    max_iterations : int, default 500
        Most EM iterations to run.
    tolerance : float, default 1e-8
        Relative stopping rule: stop when the log-likelihood changes by less than
        ``tolerance * |log_likelihood|`` between iterations.
    smoothing : float, default 0.01
        Additive (Laplace-type) smoothing of the confusion counts:
        ``confusion[r, y, l] = (smoothing + sum_i post[i, y] [label_ir = l, observed_ir]) /
        (L * smoothing + sum_i post[i, y] observed_ir)``. It keeps every entry positive, so
        no label is ever impossible and the log stays finite; it is the posterior mode
        under a ``Dirichlet(1 + smoothing)`` prior on every row and shrinks a row with
        little data towards uniform. 0 gives plain maximum likelihood.
    n_humans : int, optional
        Number of leading columns that are humans, used for label alignment. Default: all
        raters; 0 turns alignment off.
    initial_posterior : array_like, optional
        ``(n, L)`` posterior to start from. Default: the majority vote
        (:func:`majority_posterior`).

    Returns
    -------
    ModelFit
        The fitted parameters, after label alignment.

    Raises
    ------
    ValueError
        On shapes, codes or settings that do not fit together.

    Notes
    -----
    Each iteration is an M-step (``prevalence = mean posterior``, confusions as above)
    followed by an E-step in log space (``log post[i, y] = log prevalence[y] + sum_r
    observed_ir log confusion[r, y, label_ir] + const``). The log-likelihood used for the
    stopping rule is the observed-data one, without the smoothing term; with
    ``smoothing > 0`` it may fall by a rounding-sized amount near convergence, which the
    rule (on the absolute change) also treats as converged.

    Label switching: EM is blind to a permutation of the latent classes and can converge to
    a permuted solution. After the last E-step the classes are reordered by
    :func:`align_labels` so that the summed diagonal of the humans' confusion matrices is
    maximal; ``permutation`` records what was done.
    """
    codes, observed = _check_input(labels, observed, n_labels)
    n_labels = int(n_labels)
    n_humans = _check_settings(max_iterations, tolerance, smoothing, n_humans, codes.shape[1])
    indicator = _rater_label_rows(codes, observed, n_labels)
    posterior = _starting_posterior(initial_posterior, codes, observed, n_labels)
    prevalence, confusions, posterior, log_likelihood, iterations, converged = _run_em(
        posterior, indicator, smoothing, tolerance, max_iterations
    )
    prevalence, confusions, posterior, permutation = align_labels(
        prevalence, confusions, posterior, n_humans
    )
    return ModelFit(
        prevalence=prevalence,
        confusions=confusions,
        accuracies=_accuracies(prevalence, confusions),
        posterior=posterior,
        log_likelihood=log_likelihood,
        iterations=iterations,
        converged=converged,
        permutation=permutation,
    )
