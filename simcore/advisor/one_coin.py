"""Fit the one-coin (symmetric channel) model to a sparse label matrix by EM.

What is fitted. A latent true label ``y_i ~ Categorical(pi)`` over the L labels and, for
every rater ``r``, one accuracy ``a_r``: the rater reports ``y_i`` with probability ``a_r``
and each of the other ``L - 1`` labels with ``e_r = (1 - a_r) / (L - 1)``
(:class:`simcore.advisor.channels.OneCoin`). It has ``R + L - 1`` parameters where
Dawid-Skene has ``R L (L - 1) + L - 1``: with free-text labels (thousands of them) or raters
who each label a handful of items, a confusion matrix per rater cannot be estimated, and
its ``(R, L, L)`` arrays do not fit in memory. :func:`simcore.advisor.fit.fit_matrix` picks it
automatically above :data:`simcore.advisor.fit.ONE_COIN_ABOVE` labels.

Method. EM, with arrays of the number of labels given, n, R or L (the dense ``(n, L)``
posterior is built once, for the result):

- E-step: ``log post[i, y] = log pi_y + sum_{r labels i} log e_r
  + sum_{r labels i with y} (log a_r - log e_r) + const``. The last sum is zero for every
  label nobody gave on item ``i``, so there the posterior is ``pi_y`` times one number per
  item: the posterior is kept as that number plus its values at the (item, label) cells
  given, and each step costs ``O(entries + n + L)``, not ``O(n L)``.
- M-step: ``a_r = (s + sum_{i labelled by r} post[i, label_ir]) / (2 s + n_r)`` (a
  ``Beta(1 + s, 1 + s)`` posterior mode, so no accuracy is exactly 0 or 1) and
  ``pi = (s + sum_i post[i]) / (L s + n)``.

It starts from the majority-vote posterior, so the latent class of a label is that label:
there is no label switching to undo as long as the raters are better than chance.
"""

from typing import NamedTuple

import numpy as np

from simcore.advisor.channels import OneCoin


class OneCoinFit(NamedTuple):
    """A fitted one-coin model.

    Attributes
    ----------
    prevalence : numpy.ndarray
        float64 ``(L,)``.
    accuracies : numpy.ndarray
        float64 ``(R,)``: ``P(rater r reports the true label)``.
    posterior : numpy.ndarray
        float64 ``(n, L)``.
    log_likelihood : float
        Observed-data log-likelihood.
    iterations : int
        EM iterations run.
    converged : bool
        Whether the stopping rule was met.
    """

    prevalence: np.ndarray
    accuracies: np.ndarray
    posterior: np.ndarray
    log_likelihood: float
    iterations: int
    converged: bool

    @property
    def raters(self):
        """The channels (:class:`simcore.advisor.channels.OneCoin`)."""
        return OneCoin(self.accuracies, len(self.prevalence))


def _entries(codes, observed):
    """Return the observed labels as ``(items, raters, labels)`` int64 index arrays."""
    items, raters = np.nonzero(observed)
    return items, raters, codes[items, raters].astype(np.int64)


def one_coin_majority(entries, n_items, n_labels):
    """Return the majority-vote posterior ``(n, L)`` from the observed ``entries``.

    Each item's mass is split evenly over its most frequent labels; an unlabelled item gets
    the uniform distribution.
    """
    items, _, labels = entries
    votes = np.zeros((n_items, n_labels))
    np.add.at(votes, (items, labels), 1.0)
    top = votes == votes.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)


def _m_step(posterior, entries, n_raters, smoothing):
    """Return ``(prevalence, accuracies)`` from a dense ``(n, L)`` posterior (the start)."""
    items, raters, labels = entries
    n_items, n_labels = posterior.shape
    prevalence = (posterior.sum(axis=0) + smoothing) / (n_items + n_labels * smoothing)
    right = np.bincount(raters, weights=posterior[items, labels], minlength=n_raters)
    return prevalence, _accuracies(right, raters, n_raters, smoothing)


def _accuracies(right, raters, n_raters, smoothing):
    """Return ``a_r = (s + right_r) / (2 s + n_r)``, kept inside (0, 1)."""
    given = np.bincount(raters, minlength=n_raters)
    accuracies = (right + smoothing) / (given + 2.0 * smoothing)
    return np.clip(accuracies, 1e-12, 1.0 - 1e-12)


class _Cells(NamedTuple):
    """The distinct (item, label) cells given: ``items``, ``labels``, each entry's ``cell``."""

    items: np.ndarray
    labels: np.ndarray
    cell: np.ndarray


def _cells(entries, n_labels):
    """Return the :class:`_Cells` of the observed ``entries``."""
    items, _, labels = entries
    unique, cell = np.unique(items * n_labels + labels, return_inverse=True)
    return _Cells(unique // n_labels, unique % n_labels, cell.ravel())


class _SparsePosterior(NamedTuple):
    """``post[i, y] = scale[i] pi_y``, except at the given cells, where it is ``cell_post``.

    A label nobody gave on item ``i`` gets the same likelihood factor as every other such
    label, so its posterior is the prior times one number per item.
    """

    prevalence: np.ndarray
    scale: np.ndarray
    cell_post: np.ndarray

    def dense(self, cells):
        """Return the ``(n, L)`` posterior."""
        posterior = np.outer(self.scale, self.prevalence)
        posterior[cells.items, cells.labels] = self.cell_post
        return posterior


def _e_step(prevalence, accuracies, entries, cells, n_items):
    """Return ``(posterior, log_likelihood)``, the posterior as :class:`_SparsePosterior`.

    ``log post[i, y] = base_i + log pi_y + bonus_iy - log Z_i`` with ``base_i = sum_{r
    labels i} log e_r`` and ``bonus_iy = sum_{r labels i with y} (log a_r - log e_r)``,
    zero off the given cells; so ``Z_i = (1 - sum_{y given} pi_y) + sum_{y given} pi_y
    exp(bonus_iy)`` and the log-likelihood is ``sum_i (base_i + log Z_i)``: ``O(entries +
    n + L)``, never ``n L``.
    """
    items, raters, _ = entries
    log_wrong = np.log((1.0 - accuracies) / (len(prevalence) - 1))
    base = np.bincount(items, weights=log_wrong[raters], minlength=n_items)
    bonus = np.bincount(
        cells.cell, weights=(np.log(accuracies) - log_wrong)[raters], minlength=len(cells.items)
    )
    log_cell = np.log(prevalence[cells.labels]) + bonus
    given = np.bincount(cells.items, weights=prevalence[cells.labels], minlength=n_items)
    with np.errstate(divide="ignore"):
        log_background = np.log(np.clip(1.0 - given, 0.0, None))
    peak = log_background.copy()
    np.maximum.at(peak, cells.items, log_cell)
    total = np.exp(log_background - peak) + np.bincount(
        cells.items, weights=np.exp(log_cell - peak[cells.items]), minlength=n_items
    )
    log_total = peak + np.log(total)
    posterior = _SparsePosterior(
        prevalence, np.exp(-log_total), np.exp(log_cell - log_total[cells.items])
    )
    return posterior, float((base + log_total).sum())


def _sparse_m_step(posterior, entries, cells, n_raters, smoothing):
    """Return ``(prevalence, accuracies)`` from a :class:`_SparsePosterior` (no ``n L`` array).

    ``sum_i post[i, y] = pi_y (sum_i scale_i - sum_{i given y} scale_i) + sum_{i given y}
    cell_post[i, y]``; the accuracies read the posterior at the given cells only.
    """
    _, raters, _ = entries
    prior, scale, cell_post = posterior
    n_labels = len(prior)
    at_cells = np.bincount(cells.labels, weights=scale[cells.items], minlength=n_labels)
    given = np.bincount(cells.labels, weights=cell_post, minlength=n_labels)
    columns = prior * (scale.sum() - at_cells) + given
    prevalence = (columns + smoothing) / (len(scale) + n_labels * smoothing)
    right = np.bincount(raters, weights=cell_post[cells.cell], minlength=n_raters)
    return prevalence, _accuracies(right, raters, n_raters, smoothing)


def fit_one_coin(
    labels,
    observed,
    n_labels,
    max_iterations=500,
    tolerance=1e-8,
    smoothing=0.01,
    *,
    initial_posterior=None,
):
    """Fit the one-coin model by EM (see the module notes for the steps).

    Parameters
    ----------
    labels : array_like
        int ``(n, R)`` codes in ``[0, L)``; anything where not ``observed``.
    observed : array_like
        bool ``(n, R)``.
    n_labels : int
        L (>= 2).
    max_iterations, tolerance : int, float
        Stop after ``max_iterations`` or when the log-likelihood changes by less than
        ``tolerance * |log_likelihood|``.
    smoothing : float
        ``s`` of the M-step's Beta and Dirichlet priors.
    initial_posterior : array_like, optional
        ``(n, L)`` posterior to start from; default the majority vote.

    Returns
    -------
    OneCoinFit
    """
    codes = np.asarray(labels)
    observed = np.asarray(observed, dtype=bool)
    if codes.shape != observed.shape or codes.ndim != 2:
        raise ValueError(
            f"labels, observed: must be 2-d of one shape (got {codes.shape}, {observed.shape})"
        )
    n_items, n_raters = codes.shape
    entries = _entries(codes, observed)
    if entries[2].size and (entries[2].min() < 0 or entries[2].max() >= n_labels):
        raise ValueError(f"labels: observed codes must lie in [0, {n_labels - 1}]")
    if initial_posterior is None:
        posterior = one_coin_majority(entries, n_items, n_labels)
    else:
        posterior = np.asarray(initial_posterior, dtype=np.float64)
    cells = _cells(entries, n_labels)
    previous, converged, iterations = -np.inf, False, 0
    while iterations < max_iterations:
        iterations += 1
        if iterations == 1:
            prevalence, accuracies = _m_step(posterior, entries, n_raters, smoothing)
        else:
            prevalence, accuracies = _sparse_m_step(posterior, entries, cells, n_raters, smoothing)
        posterior, log_likelihood = _e_step(prevalence, accuracies, entries, cells, n_items)
        if abs(log_likelihood - previous) < tolerance * abs(log_likelihood):
            converged = True
            break
        previous = log_likelihood
    return OneCoinFit(
        prevalence, accuracies, posterior.dense(cells), log_likelihood, iterations, converged
    )
