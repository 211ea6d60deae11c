"""Fit a latent-class model to a matrix, with bootstrap refits for its standard errors.

Two models (:data:`MODELS`): Dawid-Skene (:func:`simcore.advisor.fit.fit_dawid_skene`, a
confusion matrix per rater) and one-coin (:func:`simcore.advisor.one_coin.fit_one_coin`, one
accuracy per rater); ``auto`` picks by the size of the label set (:func:`choose_model`).
The bootstrap resamples items and refits from the full fit's posterior
(:func:`bootstrap_refits`, :class:`Bootstrap`); the refits are also the models the risk
draws its matrices from (:func:`simcore.advisor.risk.posterior.simulate_risk`), so no model is
fitted twice.
"""

import numpy as np

from simcore.advisor.fit import FitErrors, _check_input, fit_dawid_skene
from simcore.advisor.one_coin import fit_one_coin
from simcore.realdata.annotation import unknown_names
from simcore.realdata.matrix import DataError

REFIT_TOLERANCE = 1e-6
"""Relative log-likelihood change at which a bootstrap refit stops (:func:`bootstrap_refits`)."""

ONE_COIN_ABOVE = 10
"""``--model auto`` fits one-coin above this many labels, Dawid-Skene up to it."""

MODELS = ("dawid-skene", "one-coin")
"""The latent-class models :func:`fit_matrix` fits."""


def bootstrap_fit(labels, observed, n_labels, n_boot=30, seed=0, **kwargs):
    """Fit the model and estimate standard errors by resampling items.

    Parameters
    ----------
    labels, observed, n_labels
        As for :func:`fit_dawid_skene`.
    n_boot : int, default 30
        Number of bootstrap resamples (>= 2).
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng` that draws the resamples.
    **kwargs
        ``model`` (``dawid-skene``, the default, or ``one-coin``) and what
        :func:`fit_dawid_skene` or :func:`simcore.advisor.one_coin.fit_one_coin` take
        (``max_iterations``, ``tolerance``, ``smoothing``, ``n_humans``;
        ``initial_posterior`` applies to the full-data fit).

    Returns
    -------
    fit : ModelFit or simcore.advisor.one_coin.OneCoinFit
        The fit on all the data.
    errors : FitErrors
        Sample standard deviations (``ddof=1``) over the ``n_boot`` refits.

    Notes
    -----
    Each resample draws ``n`` items with replacement. Its refit starts from the full-data
    fit's posterior of the drawn items (not from the majority vote), so the refit begins
    next to the full-data solution, with the same class order, and cannot drift to a
    permuted one; the humans-based alignment is then applied as for any fit. Refits that
    stop at ``max_iterations`` are kept. :func:`bootstrap_refits` returns the refits too.
    """
    fit, errors, _ = bootstrap_refits(labels, observed, n_labels, n_boot, seed, **kwargs)
    return fit, errors


def _fit_any(codes, observed, n_labels, model, **kwargs):
    """Fit ``model`` (``dawid-skene`` or ``one-coin``) with the given settings."""
    if model == "one-coin":
        kwargs.pop("n_humans", None)
        return fit_one_coin(codes, observed, n_labels, **kwargs)
    return fit_dawid_skene(codes, observed, n_labels, **kwargs)


class Bootstrap:
    """Bootstrap refits of one fit, drawn on demand from one stream.

    Refit ``b`` resamples the items with the ``b``-th draw of ``default_rng(seed)``, so the
    first ``n`` refits are the same however many are asked for, and in what steps
    (:meth:`draw`). A refit starts from the full-data posterior of its items and converges
    in a few iterations; it stops at ``tolerance`` (default :data:`REFIT_TOLERANCE`, looser
    than the full fit's 1e-8: a bootstrap SE needs two digits, not eight).
    """

    def __init__(self, codes, observed, n_labels, model, fit, seed, **kwargs):
        self.codes, self.observed, self.n_labels, self.model = codes, observed, n_labels, model
        self.fit = fit
        kwargs.pop("initial_posterior", None)
        kwargs.setdefault("tolerance", REFIT_TOLERANCE)
        self.kwargs = kwargs
        self.rng = np.random.default_rng(seed)
        self.refits = []

    def draw(self, count):
        """Return the first ``count`` refits, fitting those not fitted yet."""
        n_items = self.codes.shape[0]
        while len(self.refits) < count:
            drawn = self.rng.integers(0, n_items, size=n_items)
            refit = _fit_any(
                self.codes[drawn],
                self.observed[drawn],
                self.n_labels,
                self.model,
                initial_posterior=self.fit.posterior[drawn],
                **self.kwargs,
            )
            self.refits.append(refit._replace(posterior=None))  # keep O(R + L) per refit
        return self.refits[:count]


def bootstrap_refits(labels, observed, n_labels, n_boot=30, seed=0, model="dawid-skene", **kwargs):
    """Return ``(fit, errors, bootstrap)``: :func:`bootstrap_fit` and its :class:`Bootstrap`.

    ``bootstrap.refits`` holds the ``n_boot`` refits behind the errors; more can be drawn
    (:meth:`Bootstrap.draw`).
    """
    if int(n_boot) != n_boot or n_boot < 2:
        raise ValueError(f"n_boot: must be an integer >= 2 (got {n_boot!r})")
    codes, observed = _check_input(labels, observed, n_labels)
    fit = _fit_any(codes, observed, n_labels, model, **kwargs)
    bootstrap = Bootstrap(codes, observed, n_labels, model, fit, seed, **kwargs)
    refits = bootstrap.draw(int(n_boot))
    errors = FitErrors(
        accuracies=np.std([r.accuracies for r in refits], axis=0, ddof=1),
        prevalence=np.std([r.prevalence for r in refits], axis=0, ddof=1),
        confusions=None
        if model == "one-coin"
        else np.std([r.confusions for r in refits], axis=0, ddof=1),
    )
    return fit, errors, bootstrap


def choose_model(model, n_labels):
    """Return the model ``auto`` stands for: ``one-coin`` above :data:`ONE_COIN_ABOVE` labels.

    Dawid-Skene has ``L (L - 1)`` free parameters per rater, one-coin one; above about ten
    labels the confusions of a rater with a few hundred labels are mostly smoothing, and
    their ``(R, L, L)`` arrays grow with the square of the label set (4,400 free-text
    labels and 54 raters make 8 GB per array). Any other value is returned checked.
    """
    if model == "auto":
        return "one-coin" if n_labels > ONE_COIN_ABOVE else "dawid-skene"
    if model not in MODELS:
        raise ValueError(f"--model: must be one of auto, {', '.join(MODELS)} (got {model!r})")
    return model


def matrix_columns(matrix, judges):
    """Return ``(labels, observed, names)``: the humans, then the chosen judges, as columns."""
    chosen = list(matrix.judges) if judges is None else [str(name) for name in judges]
    problems = unknown_names(chosen, matrix.judges, matrix.source, "judges", "judge", "judges")
    if problems:
        raise DataError(problems)
    columns = [matrix.judges.index(name) for name in chosen]
    judge_labels = matrix.judge_labels[:, columns]
    labels = np.concatenate([np.maximum(matrix.human_labels, 0), judge_labels], axis=1)
    observed = np.concatenate([matrix.available, np.ones(judge_labels.shape, dtype=bool)], axis=1)
    return labels.astype(np.int64), observed, tuple(matrix.humans) + tuple(chosen)


def check_fit_fits(matrix, n_raters, model, n_boot):
    """Refuse a fit whose ``items x labels`` arrays cannot fit in memory (DataError).

    Every fit keeps its ``n x L`` float64 posterior, and the fit and each of the ``n_boot``
    refits are kept; three more ``n x L`` arrays are alive while one is fitted. Dawid-Skene
    also keeps ``R x L x L`` confusions per fit, and about four while it is fitted.
    """
    from simcore.realdata.allocation import check_memory

    n_items, n_labels = matrix.n_items, matrix.n_labels
    per_fit = n_items * n_labels
    if model == "dawid-skene":
        per_fit += n_raters * n_labels**2
    check_memory(
        8 * (per_fit * (int(n_boot) + 1 + 4)),
        f"{matrix.source}: labels",
        f"the {model} fit and its {n_boot} bootstrap refits over {n_labels:,} distinct labels",
        "merge labels, or read fewer items or raters",
        f"{n_labels:,} labels, {n_items:,} items, {n_raters} raters",
    )


def fit_matrix(matrix, judges=None, n_boot=30, seed=0, model="dawid-skene", with_refits=False):
    """Fit the model to an annotation matrix, humans then judges, with bootstrap errors.

    Parameters
    ----------
    matrix : simcore.realdata.matrix.AnnotationMatrix
        The labels.
    judges : sequence of str, optional
        Names of the judges to include, in this order. Default: all of them.
    n_boot : int, default 30
        Bootstrap resamples (see :func:`bootstrap_fit`).
    seed : int, default 0
        Bootstrap seed.
    model : str, default ``dawid-skene``
        ``dawid-skene``, ``one-coin`` or ``auto`` (:func:`choose_model`).
    with_refits : bool, default False
        Also return the :class:`Bootstrap` (its refits, and more on demand) as a fourth value.

    Returns
    -------
    fit : ModelFit or simcore.advisor.one_coin.OneCoinFit
        Fitted on all humans and the chosen judges; label alignment uses the humans.
    errors : FitErrors
        Bootstrap standard errors.
    rater_names : tuple of str
        The column names: the humans, then the chosen judges.

    Raises
    ------
    DataError
        When a requested judge is not in the matrix.
    """
    labels, observed, names = matrix_columns(matrix, judges)
    model = choose_model(model, matrix.n_labels)
    check_fit_fits(matrix, labels.shape[1], model, n_boot)
    fit, errors, bootstrap = bootstrap_refits(
        labels, observed, matrix.n_labels, n_boot, seed, model, n_humans=matrix.n_humans
    )
    return (fit, errors, names, bootstrap) if with_refits else (fit, errors, names)
