"""The latent-truth coverage study's cells: calibration panels and production streams, counted.

A cell is ``(n_humans, p_human, errors, n_labels, n_cal)``. Trial ``t`` draws from
``numpy.random.default_rng(key_t)`` with ``key_t`` the trial key of ``SeedSequence(root
seed, spawn_key = SHA-256 words of the cell's coordinates)`` (:func:`simcore.engine.trial_keys`),
so a trial's numbers are the same whether run alone or in a longer run, and every count and
(quantised, :func:`~simcore.studies.protocol.quantize`) sum is additive over trials.

One trial (:func:`panel_trial`): a calibration panel of ``n_cal`` items, each labelled by
``n_humans`` humans of accuracy ``p_human`` and by the judge, and a production stream of
``production`` items labelled by the judge, drawn from
:class:`~simcore.calibration.latent.PanelModel` (errors independent, or shared through the
item's difficulty with ``rho = shared_rho``); then, for each estimator of the judge's error,

- ``majority``: the humans' majority read as the truth (the gold column; ties left out);
- ``latent``: the truth latent, the panel fitted by EM with bootstrap refits
  (:mod:`simcore.calibration.latent`),

the judge's error against the true confusion matrix and whether the corrected production
rate's interval covers the stream's true rate. On two labels (class 0 FAIL) the error is that
of the TPR and the TNR and the interval the Lang-Reiczigel interval of the corrected FAIL
share (:func:`~simcore.calibration.statistics.corrected_failure_rate`); on five, the error is
the mean over labels of the estimated diagonal minus the true one (rows without an item
skipped) and the intervals the percentile intervals of the corrected distribution
(:func:`~simcore.calibration.latent.corrected_scale`), one per label.

Per cell: ``n_trials``; ``n_one_coin`` and ``n_unconverged``, the latent fits that gave
the humans one-coin channels and that did not converge; along ``estimator``: ``n_defined``
(trials whose error is defined) with the sums of the errors and of their squares over them
(``sum_tpr_error``, ``sum_tnr_error`` on two labels, ``sum_diagonal_error`` on five; the
others NaN), ``n_refused``, ``n_covered`` (trials covered on two labels, labels covered
summed over trials on five), and ``n_interval`` with ``sum_width``, the trials with an
interval and the sum of its width (the mean over labels on five).
"""

from typing import NamedTuple

import numpy as np
import xarray as xr

from simcore.calibration.latent import (
    LatentSettings,
    PanelCodes,
    PanelModel,
    binary_error,
    corrected_scale,
    draw_panel,
    draw_production,
    judge_confusion,
    latent_scale_error,
    majority_scale_error,
)
from simcore.calibration.statistics import corrected_failure_rate
from simcore.engine import stable_key, trial_keys
from simcore.studies.protocol import CellSpec, Layout, Variable, quantize

BINARY_PREVALENCE = (0.3, 0.7)
"""True label shares on two labels: class 0 is FAIL, so 30% of the items fail."""

SCALE_PREVALENCE = (0.1, 0.15, 0.25, 0.3, 0.2)
"""True label shares on the five-label scale (labels ``1`` .. ``5``)."""

PREVALENCE = {2: BINARY_PREVALENCE, 5: SCALE_PREVALENCE}
"""``n_labels -> prevalence``: the label scales a cell may have."""

FAIL = 0
"""The FAIL class on two labels."""

ESTIMATORS = ("majority", "latent")
"""The ``estimator`` axis: the humans' majority as the truth, and the latent truth."""

ESTIMATOR_LABELS = {
    "majority": "judge error against the humans' majority (gold column; ties left out)",
    "latent": "judge error against the latent truth (EM fit of the panel, bootstrap refits)",
}

ERRORS = {2: ("tpr", "tnr"), 5: ("diagonal",)}
"""The judge's error measures of a cell by its ``n_labels``."""

SHARED, INDEPENDENT = "shared", "independent"
"""The ``errors`` values: raters' errors shared through the item's difficulty, or not."""

COUNTS = {
    "n_trials": "trials run",
    "n_one_coin": "trials whose latent fit gave the humans one-coin channels (model auto: "
    "too few labels per human for Dawid-Skene)",
    "n_unconverged": "trials whose latent fit (the point fit or a bootstrap refit) did not "
    "converge",
}
ESTIMATOR_COUNTS = {
    "n_defined": "trials whose judge-error estimate is defined (two labels: TPR and TNR; "
    "five: at least one diagonal entry)",
    "n_refused": "trials whose production correction was refused (Youden floor, or the "
    "separation floor on five labels)",
    "n_covered": "two labels: trials whose interval covers the stream's true FAIL share; five: "
    "labels whose interval covers that label's true share, summed over trials",
    "n_interval": "trials with an interval (not refused, finite bounds)",
}
ESTIMATOR_SUMS = {
    "sum_tpr_error": "two labels: sum of estimated minus true TPR over the defined trials "
    "(NaN on five labels)",
    "sum_tpr_error_sq": "two labels: sum of the squared TPR error (NaN on five labels)",
    "sum_tnr_error": "two labels: sum of estimated minus true TNR over the defined trials "
    "(NaN on five labels)",
    "sum_tnr_error_sq": "two labels: sum of the squared TNR error (NaN on five labels)",
    "sum_diagonal_error": "five labels: sum over the defined trials of the mean over labels of "
    "the estimated minus the true diagonal (NaN on two labels)",
    "sum_diagonal_error_sq": "five labels: sum of the squared diagonal error (NaN on two labels)",
    "sum_width": "sum of the interval's width over the trials with an interval (five "
    "labels: the mean width over labels)",
}


def intervals_per_trial(n_labels):
    """Return the intervals a trial checks: the FAIL share's on two labels, one per label else."""
    return 1 if n_labels == 2 else n_labels


def _attrs(long_name, units):
    return {"long_name": long_name, "units": units}


def rho_of(scenario, errors):
    """Return the shared share ``rho`` of an ``errors`` value (0 for independent errors)."""
    return float(scenario.shared_rho) if errors == SHARED else 0.0


def panel_model(scenario, coords):
    """Return the :class:`~simcore.calibration.latent.PanelModel` of a cell."""
    return PanelModel(
        PREVALENCE[coords["n_labels"]],
        (coords["p_human"],) * coords["n_humans"],
        scenario.p_judge,
        rho_of(scenario, coords["errors"]),
    )


def latent_layout(scenario):
    """Return the cube's layout: the five swept dims, ``estimator`` for the per-estimator counts."""
    sweep = (
        ("n_humans", scenario.n_humans, "humans labelling every calibration item, H", "count"),
        ("p_human", scenario.p_human, "every human's accuracy", "1"),
        (
            "errors",
            scenario.errors,
            "the raters' errors: independent, or shared through the item's difficulty",
            "",
        ),
        ("n_labels", scenario.n_labels, "labels of the scale, L (2: FAIL/PASS)", "count"),
        ("n_cal", scenario.n_cal, "calibration items per trial", "count"),
    )
    coords = {
        "rho": xr.Variable(
            "errors",
            [rho_of(scenario, errors) for errors in scenario.errors],
            _attrs("share of an error's propensity that is the item's difficulty", "1"),
        ),
        "estimator": xr.Variable(
            "estimator", list(ESTIMATORS), _attrs("the truth the judge's error is read against", "")
        ),
        "estimator_label": xr.Variable(
            "estimator",
            [ESTIMATOR_LABELS[name] for name in ESTIMATORS],
            _attrs("the truth the judge's error is read against", ""),
        ),
    }
    per_estimator = {"extra_dims": ("estimator",), "shape": (len(ESTIMATORS),)}
    variables = [Variable(name, text, "count") for name, text in COUNTS.items()]
    variables += [
        Variable(name, text, "count", **per_estimator) for name, text in ESTIMATOR_COUNTS.items()
    ]
    variables += [
        Variable(name, text, "1", integer=False, **per_estimator)
        for name, text in ESTIMATOR_SUMS.items()
    ]
    attrs = {
        **{key: getattr(scenario, key) for key in ("production", "boot")},
        **{
            key: float(getattr(scenario, key))
            for key in ("p_judge", "shared_rho", "confidence", "youden_floor")
        },
        "prevalence_binary": list(BINARY_PREVALENCE),
        "prevalence_scale": list(SCALE_PREVALENCE),
        "latent_model": "auto (Dawid-Skene where every human labels 20 items per label, "
        "else one-coin); the judge's channel full",
        "coverage_definition": "the truth is the production stream's realised share (two "
        "labels: of FAIL; five: of each label); an interval covers when low <= truth <= high; "
        "a refused correction counts as not covered",
    }
    return Layout(sweep=sweep, variables=tuple(variables), coords=coords, attrs=attrs)


def latent_cells(scenario):
    """Return every cell with the coordinates that key its trials."""
    for index in np.ndindex(*scenario.shape):
        coords = {name: values[i] for (name, values), i in zip(scenario.sweep, index, strict=True)}
        yield CellSpec(index=tuple(int(i) for i in index), coords=coords)


def memory_need(scenario):
    """Return ``(bytes, advice)``: one trial's bootstrap refits of the largest panel."""
    labels, humans, n_cal = max(scenario.n_labels), max(scenario.n_humans), max(scenario.n_cal)
    fits = 8 * scenario.boot * n_cal * (8 * labels + humans)
    return fits + 64 * scenario.production, "lower boot or n_cal"


def majority_counts(human_codes, judge_codes):
    """Return ``(caught, missed, flagged, cleared)`` against the humans' majority.

    An item's truth is FAIL when more humans say FAIL than PASS, PASS when fewer; an item
    with a tie is left out.
    """
    fail_votes = (human_codes == FAIL).sum(axis=1)
    pass_votes = (human_codes >= 0).sum(axis=1) - fail_votes
    truth_fail, truth_pass = fail_votes > pass_votes, pass_votes > fail_votes
    judge_fail = judge_codes == FAIL
    return (
        int((truth_fail & judge_fail).sum()),
        int((truth_fail & ~judge_fail).sum()),
        int((truth_pass & judge_fail).sum()),
        int((truth_pass & ~judge_fail).sum()),
    )


def _rate(hits, total):
    return hits / total if total > 0 else np.nan


class Trial(NamedTuple):
    """One trial's draws and settings (:func:`draw_trial`)."""

    codes: PanelCodes
    production_judge: np.ndarray
    truth_shares: np.ndarray
    true_diagonal: np.ndarray
    settings: LatentSettings


def draw_trial(scenario, coords, rng):
    """Return the :class:`Trial` of a cell drawn from ``rng``.

    In this order: the calibration panel (:func:`~simcore.calibration.latent.draw_panel`),
    the production stream (:func:`~simcore.calibration.latent.draw_production`), then the
    seed of the fit's bootstrap refits.
    """
    n_labels = coords["n_labels"]
    model = panel_model(scenario, coords)
    _, human_codes, judge_codes = draw_panel(model, coords["n_cal"], rng)
    production_truth, production_judge = draw_production(model, scenario.production, rng)
    seed = int(rng.integers(2**63, dtype=np.uint64))
    return Trial(
        PanelCodes(human_codes, judge_codes, n_labels, n_labels),
        production_judge,
        np.bincount(production_truth, minlength=n_labels) / scenario.production,
        np.diag(judge_confusion(n_labels, scenario.p_judge)),
        LatentSettings("auto", scenario.boot, seed, scenario.confidence),
    )


def panel_trial(scenario, coords, rng):
    """Return ``(outcomes, fit)`` of one trial drawn from ``rng``.

    ``outcomes`` holds one ``(errors, covered, refused, width)`` per estimator
    (:data:`ESTIMATORS` order): the error measures of :data:`ERRORS` (NaN where undefined),
    the intervals covering (0/1 on two labels, the labels covered on five), whether the
    correction was refused, and the interval's width (NaN where there is none).
    ``fit`` is the latent fit's :class:`~simcore.calibration.latent.FitReport`.
    """
    trial = draw_trial(scenario, coords, rng)
    if coords["n_labels"] == 2:
        return _binary_outcomes(scenario, trial)
    return _scale_outcomes(scenario, trial)


def _binary_outcomes(scenario, trial):
    codes = trial.codes
    true_tpr, true_tnr = trial.true_diagonal  # FAIL is class 0: TPR = C[0, 0], TNR = C[1, 1]
    fails = int((trial.production_judge == FAIL).sum())
    fail_share = float(trial.truth_shares[FAIL])

    def outcome(tpr, tnr, counts):
        rate = corrected_failure_rate(
            fails,
            scenario.production,
            *counts,
            confidence=scenario.confidence,
            youden_floor=scenario.youden_floor,
        )
        refused = not bool(rate.corrected)
        low, high = float(rate.lr_low), float(rate.lr_high)
        covered = not refused and low <= fail_share <= high
        width = np.nan if refused else high - low
        return (tpr - true_tpr, tnr - true_tnr), int(covered), refused, width

    caught, missed, flagged, cleared = counts = majority_counts(
        codes.human_codes, codes.judge_codes
    )
    majority = outcome(_rate(caught, caught + missed), _rate(cleared, flagged + cleared), counts)
    error = binary_error(codes, trial.settings, "synthetic")
    latent = outcome(error.tpr.estimate, error.tnr.estimate, error.counts)
    return (majority, latent), error.fit


def _scale_outcomes(scenario, trial):
    codes = trial.codes
    classes = tuple(str(label + 1) for label in range(codes.n_labels))
    answers = np.bincount(trial.production_judge, minlength=codes.n_labels)

    def outcome(error):
        diagonal = np.diag(error.confusion) - trial.true_diagonal
        finite = np.isfinite(diagonal)
        mean = float(diagonal[finite].mean()) if finite.any() else np.nan
        corrected = corrected_scale(error, answers, trial.settings, scenario.youden_floor)
        if corrected.corrected is None:
            return (mean,), 0, True, np.nan
        low = np.array([share.low for share in corrected.corrected])
        high = np.array([share.high for share in corrected.corrected])
        covered = int(((low <= trial.truth_shares) & (trial.truth_shares <= high)).sum())
        return (mean,), covered, False, float(np.mean(high - low))

    majority = outcome(majority_scale_error(codes, classes, trial.settings))
    latent = latent_scale_error(codes, classes, trial.settings, "synthetic")
    return (majority, outcome(latent)), latent.fit


def cell_keys(root_seed, coords, start, stop):
    """Return the keys of trials ``range(start, stop)`` of the cell at ``coords``."""
    spawn_key = stable_key({name: repr(value) for name, value in coords.items()})
    return trial_keys(np.random.SeedSequence(root_seed, spawn_key=spawn_key), start, stop)


def run_latent_cell(scenario, cell, start, stop):
    """Return the counts and sums of trials ``range(start, stop)`` of ``cell`` (module doc)."""
    coords = cell.coords
    names = ERRORS[coords["n_labels"]]
    counts = {name: np.int64(0) for name in COUNTS}
    counts.update({name: np.zeros(len(ESTIMATORS), np.int64) for name in ESTIMATOR_COUNTS})
    counts.update({name: np.zeros(len(ESTIMATORS)) for name in ESTIMATOR_SUMS})
    for key in cell_keys(scenario.seed, coords, start, stop):
        outcomes, fit = panel_trial(scenario, coords, np.random.default_rng(int(key)))
        counts["n_trials"] += 1
        counts["n_one_coin"] += fit.model == "one-coin"
        counts["n_unconverged"] += not fit.converged
        for e, (errors, covered, refused, width) in enumerate(outcomes):
            if np.isfinite(errors).all():
                counts["n_defined"][e] += 1
                for name, error in zip(names, errors, strict=True):
                    value = quantize(error)
                    counts[f"sum_{name}_error"][e] += value
                    counts[f"sum_{name}_error_sq"][e] += quantize(value * value)
            counts["n_refused"][e] += refused
            counts["n_covered"][e] += covered
            if np.isfinite(width):
                counts["n_interval"][e] += 1
                counts["sum_width"][e] += quantize(width)
    for name in {measure for measures in ERRORS.values() for measure in measures} - set(names):
        counts[f"sum_{name}_error"][:] = np.nan
        counts[f"sum_{name}_error_sq"][:] = np.nan
    return {
        name: np.int64(value) if np.ndim(value) == 0 else value for name, value in counts.items()
    }


def _mean_and_se(total, squares, count):
    """Return the mean and its standard error from a sum and a sum of squares over ``count``."""
    count = count.where(count > 0)
    mean = total / count
    several = count.where(count > 1)
    variance = ((squares - count * mean**2) / (several - 1)).clip(min=0)
    return mean, np.sqrt(variance / several)


def derive_latent(cube):
    """Add the judge's error (bias) with SEs, coverage, refusal and width per estimator.

    Along ``estimator``: ``tpr_bias`` and ``tnr_bias`` (two labels) or ``diagonal_bias``
    (five), each the mean error over the defined trials with its standard error
    ``<name>_se``; ``coverage``, the covered share of the trials (two labels) or of the
    labels of the trials (five; the labels of one trial are not independent, so its binomial
    SE is a lower bound there), a refused trial counted as not covered; ``refusal``, the
    refused share; ``width``, the mean width over the trials with an interval. Per cell,
    ``latent_coverage_ok``: the latent coverage lies within 3 SEs of the confidence, with
    ``SE = sqrt(c (1 - c) / count)`` at ``c`` the confidence and ``count`` the trials (times
    five on five labels).
    """
    cube = cube.copy()
    trials = cube["n_trials"]
    texts = {
        "tpr": "mean estimated minus true TPR (two labels)",
        "tnr": "mean estimated minus true TNR (two labels)",
        "diagonal": "mean over trials of the mean over labels of the estimated minus the true "
        "diagonal of the judge's confusion matrix (five labels)",
    }
    for name, text in texts.items():
        mean, se = _mean_and_se(
            cube[f"sum_{name}_error"], cube[f"sum_{name}_error_sq"], cube["n_defined"]
        )
        cube[f"{name}_bias"] = mean.assign_attrs(_attrs(text, "1"))
        cube[f"{name}_bias_se"] = se.assign_attrs(_attrs(f"standard error of {name}_bias", "1"))
    per_trial = cube["n_labels"].where(cube["n_labels"] != 2, 1)  # intervals_per_trial
    slots = trials * per_trial
    coverage = cube["n_covered"] / slots
    cube["coverage"] = coverage.assign_attrs(
        _attrs(
            "share of the trials (two labels) or of the labels of the trials (five) whose "
            "interval covers the production stream's true share (refused: not covered)",
            "1",
        )
    )
    cube["coverage_se"] = np.sqrt(coverage * (1 - coverage) / slots).assign_attrs(
        _attrs("binomial standard error of coverage", "1")
    )
    refusal = cube["n_refused"] / trials
    cube["refusal"] = refusal.assign_attrs(
        _attrs("share of trials whose correction was refused", "1")
    )
    cube["refusal_se"] = np.sqrt(refusal * (1 - refusal) / trials).assign_attrs(
        _attrs("binomial standard error of refusal", "1")
    )
    intervals = cube["n_interval"].where(cube["n_interval"] > 0)
    cube["width"] = (cube["sum_width"] / intervals).assign_attrs(
        _attrs(
            "mean interval width over the trials with an interval (five labels: over labels)", "1"
        )
    )
    confidence = float(cube.attrs["confidence"])
    nominal_se = np.sqrt(confidence * (1 - confidence) / slots)
    latent = coverage.sel(estimator="latent", drop=True)
    cube["latent_coverage_ok"] = (abs(latent - confidence) <= 3 * nominal_se).assign_attrs(
        _attrs(
            "the latent coverage lies within 3 SE = 3 sqrt(c (1 - c) / count) of the "
            "confidence c (count: trials, times the labels on five)",
            "",
        )
    )
    return cube
