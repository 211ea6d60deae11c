"""The humans' and one judge's confusion matrices against a latent true label (weighted EM).

What is fitted. A calibration panel: ``n`` items, ``H`` humans who label some of them (codes
in ``[0, L)``, ``-1`` where missing) and one judge who labels every item (codes in
``[0, L_j)``; ``L_j = L + 1`` when the judge has answers outside the label set, which take
the last code). Each item has a latent true label ``y_i ~ Categorical(prevalence)``; given
``y_i`` the raters answer independently, human ``h`` by the row ``human[h, y_i]`` of its
confusion matrix and the judge by ``judge[y_i]``:

``P(labels_i) = sum_y prevalence[y] prod_{h labels i} human[h, y, x_ih] judge[y, j_i]``.

The humans' channel is Dawid-Skene (a full ``L x L`` confusion matrix per human; Dawid and
Skene 1979) or one-coin (one accuracy ``a_h`` per human, the other ``L - 1`` labels sharing
``1 - a_h`` evenly), :func:`latent_model` chooses; the judge always has its full ``L x L_j``
confusion matrix, since it is the quantity measured and the judge labels every item.

Method. Maximum likelihood by expectation-maximisation with item weights ``w_i`` (1 for the
data, the multinomial counts of a bootstrap resample), many weight vectors at once:

- M-step: ``prevalence = (s + sum_i w_i post_i) / (L s + sum_i w_i)``; ``counts[r, y, l] =
  s + sum_i w_i post_i[y] [x_ir = l]``, rows normalised (``s`` = :data:`SMOOTHING`, the
  posterior mode under a ``Dirichlet(1 + s)`` prior, so no share or entry is exactly 0,
  even in a resample that lost every item of a class); one-coin ``a_h = (s +
  sum_i w_i post_i[x_ih]) / (2 s + sum_i w_i [h labels i])``.
- E-step: ``log post_i[y] = log prevalence[y] + sum_r log confusion[r, y, x_ir] + const``.

The point fit starts from the humans' vote shares (the judge's answer where no human
labels), then its latent classes are matched to the labels by the assignment that makes the
humans' confusion matrices most diagonal; a bootstrap refit starts from the point fit, so it
keeps the point fit's labelling (no label switching across replicates).
"""

from typing import NamedTuple

import numpy as np
from scipy.optimize import linear_sum_assignment

SMOOTHING = 0.01
"""Additive smoothing of every confusion count (as :func:`simcore.advisor.fit.fit_dawid_skene`)."""

TOLERANCE = 1e-8
"""Stop when every weight vector's log-likelihood moves by less than this share of itself."""

MAX_ITERATIONS = 2000
"""Most EM iterations of one fit."""

LABELS_PER_CLASS = 20
"""``model="auto"``: Dawid-Skene when every human labels at least this many items per label."""

MODELS = ("dawid-skene", "one-coin")
"""The humans' channels :func:`fit_latent_panel` fits."""

MODEL_CHOICES = ("auto", *MODELS)
"""``--model``'s choices: ``auto`` is :func:`latent_model`'s rule."""


class PanelCodes(NamedTuple):
    """A calibration panel as label codes.

    Attributes
    ----------
    human_codes : numpy.ndarray
        int ``(n, H)``: codes in ``[0, n_labels)``, ``-1`` where the human gave no label.
    judge_codes : numpy.ndarray
        int ``(n,)``: codes in ``[0, judge_labels)``.
    n_labels : int
        L, the labels of the scale (the latent classes).
    judge_labels : int
        ``L`` or ``L + 1`` (the last code: an answer outside the label set).
    shared_humans : bool
        The human columns are label positions, not people (``--slots``): every column
        shares one channel, fitted on all of their labels.
    """

    human_codes: np.ndarray
    judge_codes: np.ndarray
    n_labels: int
    judge_labels: int
    shared_humans: bool = False


class LatentFit(NamedTuple):
    """Fitted prevalence and confusion matrices, one row per weight vector.

    Attributes
    ----------
    prevalence : numpy.ndarray
        float64 ``(B, L)``.
    human : numpy.ndarray
        float64 ``(B, H, L, L)``: row = true label, column = reported label.
    judge : numpy.ndarray
        float64 ``(B, L, L_j)``: the judge's confusion matrix.
    posterior : numpy.ndarray
        float64 ``(B, n, L)``: ``P(y_i = y | labels)``.
    log_likelihood : numpy.ndarray
        float64 ``(B,)``: the weighted observed-data log-likelihood.
    iterations : int
        EM iterations run.
    converged : bool
        Whether every weight vector met the stopping rule.
    model : str
        The humans' channel, ``dawid-skene`` or ``one-coin``.
    """

    prevalence: np.ndarray
    human: np.ndarray
    judge: np.ndarray
    posterior: np.ndarray
    log_likelihood: np.ndarray
    iterations: int
    converged: bool
    model: str


def latent_model(human_codes, n_labels, model="auto", shared_humans=False):
    """Return ``(model, reason)``: the humans' channel to fit and why.

    ``auto`` fits Dawid-Skene when every human (every channel: one for all slot columns
    when ``shared_humans``) labels at least :data:`LABELS_PER_CLASS` items per label
    (``20 L``): below that a channel's ``L (L - 1)`` free confusion entries rest on a few
    labels each and are mostly smoothing, so the one-coin channel (one accuracy) is fitted
    instead. A named model is fitted as asked.
    """
    if model not in MODEL_CHOICES:
        raise ValueError(f"model: must be one of {', '.join(MODEL_CHOICES)} (got {model!r})")
    per_human = (np.asarray(human_codes) >= 0).sum(axis=0)
    if shared_humans:
        per_human = per_human.sum(keepdims=True)
    fewest = int(per_human.min()) if per_human.size else 0
    needed = LABELS_PER_CLASS * int(n_labels)
    if model != "auto":
        return model, f"asked for (model {model})"
    who = "the slot columns together label" if shared_humans else "a human labels"
    if fewest >= needed:
        every = "the slot columns together label" if shared_humans else "every human labels"
        return "dawid-skene", (
            f"{every} at least {needed} items ({LABELS_PER_CLASS} per label; the fewest: {fewest})"
        )
    return "one-coin", (
        f"{who} only {fewest} items, under the {needed} ({LABELS_PER_CLASS} per "
        "label) a full confusion matrix needs"
    )


def _design(codes):
    """Return the float ``(n, H L + L_j)`` one-hot of every rater's answer (humans, judge)."""
    n, n_humans = codes.human_codes.shape
    n_labels = codes.n_labels
    design = np.zeros((n, n_humans * n_labels + codes.judge_labels))
    items, humans = np.nonzero(codes.human_codes >= 0)
    design[items, humans * n_labels + codes.human_codes[items, humans]] = 1.0
    design[np.arange(n), n_humans * n_labels + codes.judge_codes] = 1.0
    return design


def _vote_posterior(codes):
    """Return ``(n, L)``: each item's share of human votes per label (the judge's where none)."""
    n, n_humans = codes.human_codes.shape
    votes = np.zeros((n, codes.n_labels))
    items, humans = np.nonzero(codes.human_codes >= 0)
    np.add.at(votes, (items, codes.human_codes[items, humans]), 1.0)
    empty = votes.sum(axis=1) == 0
    judged = np.minimum(codes.judge_codes, codes.n_labels - 1)
    votes[empty, judged[empty]] = 1.0
    return votes / votes.sum(axis=1, keepdims=True)


def _m_step(weighted, weights, design, shape, model):
    """Return ``(prevalence, human, judge)`` from the weighted posterior ``(B, n, L)``."""
    n_humans, n_labels, judge_labels, shared = shape
    prevalence = (weighted.sum(axis=1) + SMOOTHING) / (
        weights.sum(axis=1, keepdims=True) + n_labels * SMOOTHING
    )
    counts = np.matmul(weighted.transpose(0, 2, 1), design)  # (B, L, H L + L_j)
    split = n_humans * n_labels
    human = counts[:, :, :split].reshape(-1, n_labels, n_humans, n_labels).transpose(0, 2, 1, 3)
    if shared:
        human = np.broadcast_to(human.sum(axis=1, keepdims=True), human.shape)
    if model == "one-coin":
        right = np.trace(human, axis1=2, axis2=3)
        total = human.sum(axis=(2, 3))
        accuracy = (SMOOTHING + right) / (2.0 * SMOOTHING + total)
        wrong = (1.0 - accuracy) / (n_labels - 1)
        eye = np.eye(n_labels)
        human = accuracy[..., None, None] * eye + wrong[..., None, None] * (1.0 - eye)
    else:
        human = human + SMOOTHING
        human = human / human.sum(axis=3, keepdims=True)
    judge = counts[:, :, split:] + SMOOTHING
    judge = judge / judge.sum(axis=2, keepdims=True)
    return prevalence, human, judge


def _e_step(prevalence, human, judge, design, weights):
    """Return ``(posterior, log_likelihood)`` under the parameters (all batched over B)."""
    batch, n_humans, n_labels, _ = human.shape
    log_human = np.log(human).transpose(0, 1, 3, 2).reshape(batch, n_humans * n_labels, n_labels)
    log_judge = np.log(judge).transpose(0, 2, 1)
    log_rows = np.concatenate([log_human, log_judge], axis=1)  # (B, H L + L_j, L)
    log_joint = np.matmul(design, log_rows) + np.log(prevalence)[:, None, :]
    peak = log_joint.max(axis=2, keepdims=True)
    joint = np.exp(log_joint - peak)
    total = joint.sum(axis=2, keepdims=True)
    log_likelihood = ((peak + np.log(total))[..., 0] * weights).sum(axis=1)
    return joint / total, log_likelihood


def _run(posterior, weights, design, shape, model):
    """Alternate M- and E-steps, each weight vector until its own stopping rule.

    A weight vector stops when its log-likelihood moves by less than :data:`TOLERANCE` of
    itself, and is then left as it is: its numbers do not depend on the other vectors fitted
    beside it. Returns the parameters, posterior, log-likelihood (one row per vector), the
    most iterations run and whether every vector stopped.
    """
    batch = len(weights)
    prevalence, human, judge = _m_step(
        posterior * weights[..., None], weights, design, shape, model
    )
    posterior, log_likelihood = _e_step(prevalence, human, judge, design, weights)
    previous = np.full(batch, -np.inf)
    active = np.arange(batch)
    iterations = 1
    while iterations < MAX_ITERATIONS:
        moved = np.abs(log_likelihood[active] - previous[active])
        active = active[moved > TOLERANCE * np.abs(log_likelihood[active])]
        if not len(active):
            return prevalence, human, judge, posterior, log_likelihood, iterations, True
        iterations += 1
        previous[active] = log_likelihood[active]
        weights_now = weights[active]
        parameters = _m_step(
            posterior[active] * weights_now[..., None], weights_now, design, shape, model
        )
        prevalence[active], human[active], judge[active] = parameters
        posterior[active], log_likelihood[active] = _e_step(*parameters, design, weights_now)
    return prevalence, human, judge, posterior, log_likelihood, iterations, False


def _patterns(codes):
    """Return ``(design, counts, inverse)``: the distinct answer rows, how often, which item.

    Items that got the same answers from every rater have the same posterior, so the EM
    runs on the ``P`` distinct rows of the one-hot design with their item counts as weights
    (exactly the fit on the items, at a fraction of the cost); ``inverse[i]`` is item
    ``i``'s row.
    """
    design = _design(codes)
    rows, inverse, counts = np.unique(design, axis=0, return_inverse=True, return_counts=True)
    return rows, counts.astype(np.float64), np.asarray(inverse).reshape(-1)


def _aligned(prevalence, human, judge, posterior):
    """Reorder the latent classes so that the humans' confusion matrices are most diagonal.

    The assignment maximises ``sum_h sum_k human[h, k, perm[k]]``
    (:func:`scipy.optimize.linear_sum_assignment`); the identity is kept when it is among
    the best (within ``1e-12``).
    """
    score = human[0].sum(axis=0)
    rows, columns = linear_sum_assignment(score, maximize=True)
    if np.trace(score) >= score[rows, columns].sum() - 1e-12:
        return prevalence, human, judge, posterior
    permutation = np.empty(len(rows), dtype=np.int64)
    permutation[rows] = columns
    source = np.argsort(permutation)
    return (
        prevalence[:, source],
        human[:, :, source][:, :, :, source],
        judge[:, source],
        posterior[:, :, source],
    )


def _check(codes):
    """Refuse codes out of range (a programming error: the callers build them)."""
    human, judge = np.asarray(codes.human_codes), np.asarray(codes.judge_codes)
    if human.ndim != 2 or judge.shape != human.shape[:1]:
        raise ValueError(f"codes: human (n, H) and judge (n,) (got {human.shape}, {judge.shape})")
    if human.size and (human.max() >= codes.n_labels or human.min() < -1):
        raise ValueError(f"human_codes: must lie in [-1, {codes.n_labels - 1}]")
    if judge.size and (judge.max() >= codes.judge_labels or judge.min() < 0):
        raise ValueError(f"judge_codes: must lie in [0, {codes.judge_labels - 1}]")


def fit_latent_panel(codes, model, weights=None, start=None):
    """Fit the latent-class model of a calibration panel, once per weight vector.

    Parameters
    ----------
    codes : PanelCodes
        The panel.
    model : str
        The humans' channel: ``dawid-skene`` or ``one-coin`` (:func:`latent_model`).
    weights : numpy.ndarray, optional
        float ``(B, P)``: weights of the panel's distinct answer rows
        (:func:`answer_patterns`; a bootstrap's resampled counts, :func:`bootstrap_weights`);
        default one vector: each row's count of items, the data as they are.
    start : LatentFit, optional
        A fit whose first row's parameters the EM starts from (a bootstrap starts from the
        point fit); default: the humans' vote shares, then the classes are aligned.

    Returns
    -------
    LatentFit
        One row per weight vector; ``posterior`` is per item ``(B, n, L)`` for the default
        weights, per distinct answer row ``(B, P, L)`` otherwise.
    """
    _check(codes)
    if model not in MODELS:
        raise ValueError(f"model: must be one of {', '.join(MODELS)} (got {model!r})")
    design, counts, inverse = _patterns(codes)
    by_items = weights is None
    weights = counts[None] if by_items else np.asarray(weights, dtype=np.float64)
    shape = (codes.human_codes.shape[1], codes.n_labels, codes.judge_labels, codes.shared_humans)
    batch = len(weights)
    if start is None:
        first = np.zeros((len(counts), codes.n_labels))
        first[inverse] = _vote_posterior(codes)
        posterior = np.repeat(first[None], batch, axis=0)
    else:
        parameters = (
            np.repeat(start.prevalence[:1], batch, axis=0),
            np.repeat(start.human[:1], batch, axis=0),
            np.repeat(start.judge[:1], batch, axis=0),
        )
        posterior, _ = _e_step(*parameters, design, weights)
    prevalence, human, judge, posterior, log_likelihood, iterations, converged = _run(
        posterior, weights, design, shape, model
    )
    if start is None:
        prevalence, human, judge, posterior = _aligned(prevalence, human, judge, posterior)
    if by_items:
        posterior = posterior[:, inverse]
    return LatentFit(
        prevalence, human, judge, posterior, log_likelihood, iterations, converged, model
    )


def answer_patterns(codes):
    """Return ``(counts, inverse)``: each distinct answer row's item count, each item's row."""
    _, counts, inverse = _patterns(codes)
    return counts, inverse


def bootstrap_weights(counts, boot, seed):
    """Return float ``(boot, P)``: each distinct answer row's count in ``boot`` item resamples.

    Resampling ``n = sum(counts)`` items with replacement gives a row ``p`` a count drawn
    from ``Multinomial(n, counts / n)``; drawn from ``numpy.random.default_rng(seed)``, one
    multinomial per replicate, so the replicates depend only on ``seed``, the panel and
    ``boot``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = int(round(counts.sum()))
    rng = np.random.default_rng(seed)
    return rng.multinomial(total, counts / total, size=boot).astype(np.float64)


def fit_with_bootstrap(codes, model, boot, seed):
    """Return ``(point, replicates)``: the point fit and ``boot`` refits on resampled items.

    ``replicates`` holds each refit's parameters and log-likelihood (its ``posterior`` is
    per distinct answer row); None when ``boot`` is 0.
    """
    point = fit_latent_panel(codes, model)
    if boot == 0:
        return point, None
    counts, _ = answer_patterns(codes)
    replicates = fit_latent_panel(codes, model, bootstrap_weights(counts, boot, seed), start=point)
    return point, replicates
