"""A judge's error against the latent truth of its calibration panel, beside the majority's.

The gold-column practice reads the humans' majority as the truth of each item and counts
the judge's errors against it. The majority is itself wrong on some items, and not at
random, so the judge's TPR and TNR come out biased. Here the truth is latent: a model of the
humans and the judge (:mod:`simcore.calibration.latent.panel_fit`) is fitted to the panel and
the judge's confusion matrix is read from the fit, with intervals from refits on items
resampled with replacement (percentile bootstrap), which carry the fit's uncertainty.

Two scales:

- **binary** (:func:`binary_error`): the labels binarised by a FAIL definition; the judge's
  TPR ``= judge[FAIL, FAIL]`` and TNR ``= judge[PASS, PASS]``. An answer outside the label
  set is a third judge answer, so it is an error whichever the truth, as on a majority card.
  ``counts`` are the effective counts: per truth, the binomial rows ``m = r (1 - r) / v``
  (``r`` the rate, ``v`` its bootstrap variance, at most the posterior's expected rows of
  that truth) and hits ``round(r m)``: the whole counts with the latent estimate's rate and
  variance, which every count-based step downstream (Lang-Reiczigel's interval, a card, its
  transport check) then reads as it reads a majority card's counts.
- **scale** (:func:`scale_error`): every label of the humans' scale is a class; the judge's
  ``L x L`` confusion matrix, and the majority-gold one (plurality of the humans' labels, a
  tie left out) beside it, each with its bootstrap replicates, from which
  :func:`corrected_scale` corrects a production distribution.
"""

from typing import NamedTuple

import numpy as np

from simcore.calibration.latent.inversion import corrected_distributions, separation
from simcore.calibration.latent.panel_fit import PanelCodes, fit_with_bootstrap, latent_model

FAIL, PASS, OUTSIDE = 0, 1, 2
"""The binary panel's codes: FAIL is class 0, PASS class 1, a judge answer outside the set 2."""


class LatentSettings(NamedTuple):
    """How the latent truth is fitted and its intervals drawn.

    Attributes
    ----------
    model : str
        The humans' channel: ``auto``, ``dawid-skene`` or ``one-coin``
        (:func:`~simcore.calibration.latent.panel_fit.latent_model`).
    boot : int
        Bootstrap refits over items (at least 100 for the intervals).
    seed : int
        Root seed of the resamples.
    confidence : float
        Two-sided confidence of the percentile intervals.
    """

    model: str = "auto"
    boot: int = 1000
    seed: int = 2026
    confidence: float = 0.95


class Estimate(NamedTuple):
    """A number with its interval (NaN where undefined)."""

    estimate: float
    low: float
    high: float

    def to_dict(self):
        """Return ``{"estimate", "low", "high"}`` with None for NaN."""
        return {key: _plain(value) for key, value in self._asdict().items()}


def _plain(value):
    value = float(value)
    return value if np.isfinite(value) else None


def percentile(point, replicates, confidence):
    """Return the :class:`Estimate` of ``point`` with the percentile interval of ``replicates``."""
    tail = (1.0 - confidence) / 2.0
    replicates = np.asarray(replicates, dtype=np.float64)
    if replicates.size == 0:
        return Estimate(float(point), np.nan, np.nan)
    low, high = np.quantile(replicates, [tail, 1.0 - tail])
    return Estimate(float(point), float(low), float(high))


class FitReport(NamedTuple):
    """Which model was fitted to the panel and how it went.

    Attributes
    ----------
    model : str
        ``dawid-skene`` or ``one-coin`` (the humans' channel; the judge's is always full).
    reason : str
        Why that model (:func:`~simcore.calibration.latent.panel_fit.latent_model`).
    items : int
        Calibration items in the fit (those with at least one human label).
    humans : int
        Human columns.
    shared_humans : bool
        One channel for every human column (``--slots``).
    converged : bool
        Whether the point fit and every refit met the stopping rule.
    iterations : int
        EM iterations of the point fit.
    boot, seed : int
        The refits and their seed.
    """

    model: str
    reason: str
    items: int
    humans: int
    shared_humans: bool
    converged: bool
    iterations: int
    boot: int
    seed: int

    def describe(self):
        """Return one line: the model fitted, why, on what, and whether it converged."""
        channel = "one channel for all slot columns" if self.shared_humans else "per human"
        state = "converged" if self.converged else "did NOT converge (numbers unreliable)"
        return (
            f"latent truth: {self.model} fit of {self.humans} human columns ({channel}) and "
            f"the judge on {self.items} items ({self.reason}); EM {state}; intervals from "
            f"{self.boot} bootstrap refits over items (seed {self.seed})"
        )

    def to_dict(self):
        """Return the report as a JSON-ready mapping."""
        return {
            key: (bool(v) if isinstance(v, np.bool_) else v) for key, v in self._asdict().items()
        }


class BinaryError(NamedTuple):
    """A judge's TPR and TNR against the latent truth.

    Attributes
    ----------
    tpr, tnr, youden_j, fail_prevalence : Estimate
        The rates, ``J = TPR + TNR - 1`` and the latent FAIL share of the calibration items.
    counts : tuple of int
        ``(caught, missed, flagged, cleared)``: the effective counts (module docstring).
    fit : FitReport
        The fit.
    audit_tpr, audit_tnr : Estimate
        The rates the fit predicts against one human's label instead of the truth
        (:func:`audit_rates`): what an audit by a single human measures.
    audit_counts : tuple of int
        Their effective counts, as ``counts``.
    """

    tpr: Estimate
    tnr: Estimate
    youden_j: Estimate
    fail_prevalence: Estimate
    counts: tuple
    fit: FitReport
    audit_tpr: Estimate
    audit_tnr: Estimate
    audit_counts: tuple


class ScaleError(NamedTuple):
    """A judge's confusion matrix on the label scale against one truth, with replicates.

    Attributes
    ----------
    classes : tuple of str
        The labels (the humans' scale, in the matrix's order).
    truth : str
        ``latent`` or ``majority``.
    confusion : numpy.ndarray
        ``(L, L)``: row = true label, column = the judge's answer.
    replicates : numpy.ndarray
        ``(B, L, L)``: the bootstrap refits' confusion matrices.
    rows : numpy.ndarray
        ``(L,)``: calibration items of each true label (posterior sums under the latent truth).
    fit : FitReport or None
        The latent fit (None for the majority).
    excluded : int
        Items left out (ties of the plurality, or items with no human label).
    """

    classes: tuple
    truth: str
    confusion: np.ndarray
    replicates: np.ndarray
    rows: np.ndarray
    fit: FitReport | None
    excluded: int


def binary_panel(matrix, judge, fail_of_code, parsed_of_code, shared_humans=False):
    """Return ``(codes, kept)``: the binarised panel of ``judge`` and the items kept.

    ``fail_of_code`` and ``parsed_of_code`` (bool ``(L,)`` over ``matrix.labels``) say which
    label texts are FAIL and which a judge answer may be; the items kept are those with at
    least one human label.
    """
    humans = np.asarray(matrix.human_labels)
    kept = (humans >= 0).any(axis=1)
    humans = humans[kept]
    human_codes = np.where(
        humans >= 0, np.where(fail_of_code[np.maximum(humans, 0)], FAIL, PASS), -1
    )
    answers = np.asarray(matrix.judge_labels)[kept, matrix.judges.index(judge)]
    judge_codes = np.where(
        parsed_of_code[answers], np.where(fail_of_code[answers], FAIL, PASS), OUTSIDE
    )
    judge_labels = 3 if (judge_codes == OUTSIDE).any() else 2
    return PanelCodes(human_codes, judge_codes, 2, judge_labels, shared_humans), kept


def _check_panel(codes, source):
    """Refuse a panel that identifies no latent truth: fewer than two humans on any item."""
    from simcore.realdata.annotation import DataError

    per_item = (codes.human_codes >= 0).sum(axis=1)
    if codes.human_codes.shape[1] < 2 or not (per_item >= 2).any():
        raise DataError(
            [
                f"{source}: truth latent: needs items labelled by at least two humans, so that "
                "the humans' errors can be told from the truth (got at most "
                f"{int(per_item.max()) if per_item.size else 0} human label per item); use "
                "truth majority"
            ]
        )


def _fit(codes, settings, source):
    """Return ``(point, replicates, report)`` of the panel's latent fit."""
    _check_panel(codes, source)
    model, reason = latent_model(
        codes.human_codes, codes.n_labels, settings.model, codes.shared_humans
    )
    point, replicates = fit_with_bootstrap(codes, model, settings.boot, settings.seed)
    converged = point.converged and (replicates is None or replicates.converged)
    report = FitReport(
        model,
        reason,
        int(len(codes.judge_codes)),
        int(codes.human_codes.shape[1]),
        bool(codes.shared_humans),
        bool(converged),
        int(point.iterations),
        int(settings.boot),
        int(settings.seed),
    )
    return point, replicates, report


def effective_rows(rate, replicates, expected_rows):
    """Return ``(hits, rows)``: whole binomial counts with ``rate`` and the replicates' variance.

    ``rows = round(min(expected_rows, rate (1 - rate) / var))`` (``expected_rows`` alone when
    the variance or ``rate (1 - rate)`` is 0), at least 1; ``hits = round(rate rows)``.
    """
    variance = float(np.var(replicates, ddof=1)) if len(replicates) > 1 else 0.0
    spread = rate * (1.0 - rate)
    rows = expected_rows if variance <= 0 or spread <= 0 else min(expected_rows, spread / variance)
    rows = max(1, int(round(rows)))
    return int(round(rate * rows)), rows


def audit_rates(prevalence, human, judge):
    """Return ``(tpr, tnr)`` of the judge against one human's label, under fitted parameters.

    Parameters
    ----------
    prevalence : numpy.ndarray
        ``(B, 2)``.
    human : numpy.ndarray
        ``(B, H, 2, 2)``: the humans' confusion matrices.
    judge : numpy.ndarray
        ``(B, 2, L_j)``.

    Returns
    -------
    tpr, tnr : numpy.ndarray
        ``(B,)``: with a human ``h`` drawn uniformly and the raters independent given the
        truth, ``TPR_audit = sum_h sum_y pi_y H_h[y, F] C[y, F] / sum_h sum_y pi_y
        H_h[y, F]`` (the judge fails an item the human failed), ``TNR_audit`` likewise on
        PASS. These are the rates an audit by one human per item measures when the judge
        has not changed and the prevalence is the calibration set's.
    """
    says = np.einsum("by,bhyl->bl", prevalence, human)  # (B, 2): sum over humans
    both = np.einsum("by,bhyl,byl->bl", prevalence, human, judge[:, :, :2])
    return both[:, FAIL] / says[:, FAIL], both[:, PASS] / says[:, PASS]


def binary_error(codes, settings, source):
    """Return the judge's :class:`BinaryError` against the latent truth of a binarised panel."""
    point, replicates, report = _fit(codes, settings, source)
    judge, boot_judge = point.judge[0], replicates.judge
    tpr_point, tnr_point = judge[FAIL, FAIL], judge[PASS, PASS]
    tpr_reps, tnr_reps = boot_judge[:, FAIL, FAIL], boot_judge[:, PASS, PASS]
    rows_fail = float(point.posterior[0][:, FAIL].sum())
    rows_pass = float(point.posterior[0][:, PASS].sum())
    caught, fail_rows = effective_rows(tpr_point, tpr_reps, rows_fail)
    cleared, pass_rows = effective_rows(tnr_point, tnr_reps, rows_pass)
    confidence = settings.confidence
    audit_point = audit_rates(point.prevalence, point.human, point.judge)
    audit_reps = audit_rates(replicates.prevalence, replicates.human, replicates.judge)
    says = np.einsum("y,hyl->l", point.prevalence[0], point.human[0]) / codes.human_codes.shape[1]
    audited = (codes.human_codes >= 0).sum()
    audit_caught, audit_fail = effective_rows(
        audit_point[0][0], audit_reps[0], float(audited * says[FAIL])
    )
    audit_cleared, audit_pass = effective_rows(
        audit_point[1][0], audit_reps[1], float(audited * says[PASS])
    )
    return BinaryError(
        tpr=percentile(tpr_point, tpr_reps, confidence),
        tnr=percentile(tnr_point, tnr_reps, confidence),
        youden_j=percentile(tpr_point + tnr_point - 1.0, tpr_reps + tnr_reps - 1.0, confidence),
        fail_prevalence=percentile(
            point.prevalence[0, FAIL], replicates.prevalence[:, FAIL], confidence
        ),
        counts=(caught, fail_rows - caught, pass_rows - cleared, cleared),
        fit=report,
        audit_tpr=percentile(audit_point[0][0], audit_reps[0], confidence),
        audit_tnr=percentile(audit_point[1][0], audit_reps[1], confidence),
        audit_counts=(
            audit_caught,
            audit_fail - audit_caught,
            audit_pass - audit_cleared,
            audit_cleared,
        ),
    )


def scale_panel(matrix, judge, shared_humans=False):
    """Return ``(codes, kept, classes)``: the panel on the humans' label scale.

    The classes are the labels the humans use, in the matrix's order. Raises
    :class:`~simcore.realdata.annotation.DataError` naming the answers when the judge gives
    a label outside them: on the scale every answer must be a class.
    """
    from simcore.realdata.annotation import DataError, got_text

    humans = np.asarray(matrix.human_labels)
    kept = (humans >= 0).any(axis=1)
    used = np.unique(humans[humans >= 0])
    class_of = np.full(len(matrix.labels), -1)
    class_of[used] = np.arange(len(used))
    answers = np.asarray(matrix.judge_labels)[kept, matrix.judges.index(judge)]
    outside = sorted({matrix.labels[code] for code in np.unique(answers) if class_of[code] < 0})
    if outside:
        raise DataError(
            [
                f"{matrix.source}: judge {judge}: answers outside the humans' labels "
                f"({', '.join(matrix.labels[c] for c in used)}); on the label scale every "
                f"answer must be one of them (got {got_text(outside)})"
            ]
        )
    humans = humans[kept]
    human_codes = np.where(humans >= 0, class_of[np.maximum(humans, 0)], -1)
    codes = PanelCodes(human_codes, class_of[answers], len(used), len(used), shared_humans)
    return codes, kept, tuple(matrix.labels[code] for code in used)


def latent_scale_error(codes, classes, settings, source):
    """Return the judge's :class:`ScaleError` against the latent truth."""
    point, replicates, report = _fit(codes, settings, source)
    return ScaleError(
        tuple(classes),
        "latent",
        point.judge[0],
        replicates.judge,
        point.posterior[0].sum(axis=0),
        report,
        0,
    )


def plurality(codes):
    """Return ``(truth, has_truth)``: each item's most frequent human class, ties left out."""
    votes = np.zeros((len(codes.judge_codes), codes.n_labels))
    items, humans = np.nonzero(codes.human_codes >= 0)
    np.add.at(votes, (items, codes.human_codes[items, humans]), 1.0)
    top = votes.max(axis=1, keepdims=True)
    winners = (votes == top) & (top > 0)
    return votes.argmax(axis=1), winners.sum(axis=1) == 1


def majority_scale_error(codes, classes, settings):
    """Return the judge's :class:`ScaleError` against the plurality of the humans.

    The replicates resample the items with a truth (``numpy.random.default_rng(seed)``); a
    row of a replicate with no item is NaN.
    """
    truth, has_truth = plurality(codes)
    truth, answers = truth[has_truth], codes.judge_codes[has_truth]
    n_labels = codes.n_labels
    cells = np.zeros((len(truth), n_labels * n_labels))
    cells[np.arange(len(truth)), truth * n_labels + answers] = 1.0

    def confusion(counts):
        counts = counts.reshape(-1, n_labels, n_labels)
        totals = counts.sum(axis=2, keepdims=True)
        return np.divide(counts, totals, out=np.full_like(counts, np.nan), where=totals > 0)

    point = confusion(cells.sum(axis=0)[None])[0]
    rng = np.random.default_rng(settings.seed)
    weights = rng.multinomial(len(truth), np.full(len(truth), 1.0 / len(truth)), size=settings.boot)
    replicates = confusion(weights @ cells)
    rows = np.bincount(truth, minlength=n_labels).astype(np.float64)
    return ScaleError(
        tuple(classes), "majority", point, replicates, rows, None, int((~has_truth).sum())
    )


class CorrectedScale(NamedTuple):
    """A production distribution of the judge's answers, corrected to the true labels.

    Attributes
    ----------
    classes : tuple of str
        The labels.
    observed : list of Estimate
        The judge's answer shares in production, each with its Wilson interval.
    corrected : list of Estimate or None
        The true-label shares (:func:`~simcore.calibration.latent.inversion
        .corrected_distribution`) with percentile intervals over the calibration refits and
        a multinomial resample of production each; None when refused.
    separation : Estimate
        :func:`~simcore.calibration.latent.inversion.separation` of the confusion matrix.
    refusal : str
        Why the correction was refused ("" when it was not).
    """

    classes: tuple
    observed: list
    corrected: list | None
    separation: Estimate
    refusal: str


def corrected_scale(error, answers, settings, floor):
    """Return the :class:`CorrectedScale` of production ``answers`` under ``error``.

    Parameters
    ----------
    error : ScaleError
        The judge's confusion matrix and its replicates.
    answers : array_like
        int ``(L,)``: the judge's production answers per class.
    settings : LatentSettings
        ``confidence`` and ``seed`` (the production resamples use ``seed + 1``).
    floor : float
        The correction is refused when the confusion matrix's separation is at or below it
        (for ``L = 2`` the Youden floor).

    Notes
    -----
    Replicate ``b`` corrects ``Multinomial(N, answers / N)`` through the ``b``-th refit's
    confusion matrix; the interval of each share is the percentile interval of the
    replicates' shares, so it carries the calibration set's and production's sampling error
    both. A replicate whose confusion matrix has an empty row (no calibration item of that
    truth) is left out.
    """
    from simcore.calibration.statistics import wilson_interval

    answers = np.asarray(answers, dtype=np.int64)
    total = int(answers.sum())
    observed = []
    for count in answers:
        low, high = wilson_interval(int(count), total, settings.confidence)
        observed.append(Estimate(count / total, float(low), float(high)))
    point_separation = separation(error.confusion) if np.isfinite(error.confusion).all() else 0.0
    usable = np.isfinite(error.replicates).all(axis=(1, 2))
    separations = [separation(matrix) for matrix in error.replicates[usable]]
    spread = percentile(point_separation, separations, settings.confidence)
    if not point_separation > floor:
        refusal = (
            f"the confusion matrix's separation {point_separation:.3f} is not above the floor "
            f"{floor:g} (the L-class Youden J): it is too close to singular to invert"
        )
        return CorrectedScale(error.classes, observed, None, spread, refusal)
    point = corrected_distributions(error.confusion[None], answers[None])[0]
    rng = np.random.default_rng(settings.seed + 1)
    resampled = rng.multinomial(total, answers / total, size=len(error.replicates))[usable]
    shares = corrected_distributions(error.replicates[usable], resampled)
    corrected = [
        percentile(point[label], shares[:, label], settings.confidence)
        for label in range(len(point))
    ]
    return CorrectedScale(error.classes, observed, corrected, spread, "")
