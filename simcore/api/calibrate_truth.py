"""``simcore.calibrate`` against the latent truth, and on the whole label scale.

``truth="latent"`` measures the judge's TPR and TNR against the true label of a latent-class
fit of the humans and the judge (:mod:`simcore.calibration.latent`), corrects the production
failure rate through them (Rogan-Gladen with the Lang-Reiczigel interval on the fit's
effective counts, so the interval carries the fit's uncertainty) and keeps the majority-gold
figures beside them. ``all_labels=True`` corrects the production distribution of every label
of the humans' scale through the judge's confusion matrix, against either truth.
"""

from __future__ import annotations

import numpy as np

from simcore.api.results import CalibrationResult, ScaleCalibrationResult
from simcore.calibration.errors import CalibrationInputError
from simcore.instrument.card.truth import LATENT_TEXT, truth_statement


def read_panel_matrix(data, judge, roles):
    """Return the annotation matrix of a calibration set (the one reader, roles required)."""
    from simcore.realdata.readers import read_annotations, reader_for

    roles = {key: value for key, value in roles.items() if value is not None}
    if not roles.get("humans") and not roles.get("judges") and reader_for(data).declares_roles:
        roles["judges"] = [judge]
    return read_annotations(data, require_roles=True, **roles)


def _difference(latent, majority):
    if latent is None or majority is None:
        return None
    return latent - majority


def latent_binary_calibration(data, judge, definition, production, settings, roles):
    """Return :func:`simcore.calibrate`'s result against the latent truth (a FAIL rate).

    ``production`` is ``(fails, of)``; ``settings`` holds ``method``, ``confidence``,
    ``youden_floor`` and ``latent`` (:class:`~simcore.calibration.latent.LatentSettings`).
    """
    from simcore.api.calibration_report import report_of_counts
    from simcore.instrument.card.latent import binary_against_truths
    from simcore.instrument.card.measure import human_label_set

    matrix = read_panel_matrix(data, judge, roles)
    majority, n_tied, error = binary_against_truths(
        matrix, judge, definition, settings["latent"], human_label_set(matrix)
    )
    fails, of = production
    confidence = settings["confidence"]
    result = report_of_counts(error.counts, fails, of, "lr", confidence, settings["youden_floor"])
    gold = report_of_counts(majority.table, fails, of, "lr", confidence, settings["youden_floor"])
    document = result.to_dict()
    document.pop("command")
    document["tpr"] = error.tpr.to_dict()
    document["tnr"] = error.tnr.to_dict()
    document["youden_j"] = error.youden_j.estimate
    document["truth"] = truth_statement("latent", error.fit)
    document["truth"]["fail_prevalence"] = error.fail_prevalence.to_dict()
    document["truth"]["effective_counts"] = document["calibration"]
    gold_document = gold.to_dict()
    document["majority"] = {
        "calibration": gold_document["calibration"],
        "n_tied_excluded": int(n_tied),
        "tpr": gold_document["tpr"],
        "tnr": gold_document["tnr"],
        "estimate": gold_document["estimate"],
        "interval": gold_document["interval"],
        "difference": {
            "tpr": _difference(error.tpr.estimate, gold_document["tpr"]["estimate"]),
            "tnr": _difference(error.tnr.estimate, gold_document["tnr"]["estimate"]),
            "estimate": _difference(document["estimate"], gold_document["estimate"]),
        },
    }
    text = "\n".join(
        [
            f"truth: latent: {LATENT_TEXT}",
            error.fit.describe(),
            *_binary_lines(error, document["majority"], confidence),
            "effective counts (the latent rates with their bootstrap variance, as whole "
            "binomial counts; the interval below reads them):",
            result.to_markdown(),
            _majority_line(document["majority"], confidence),
        ]
    )
    return CalibrationResult("calibrate", document, text, {"methods": "methods"})


def _binary_lines(error, majority, confidence):
    """Return the TPR/TNR lines: latent (percentile bootstrap) beside majority (Wilson)."""
    from simcore.instrument.card.measure import interval_text

    level = f"{100 * confidence:g}%"
    lines = []
    for name, latent, gold in (
        ("TPR (FAIL caught)", error.tpr.to_dict(), majority["tpr"]),
        ("TNR (PASS cleared)", error.tnr.to_dict(), majority["tnr"]),
    ):
        difference = _difference(latent["estimate"], gold["estimate"])
        shift = "n/a" if difference is None else f"{difference:+.3f}"
        lines.append(
            f"{name}: latent {interval_text(latent)} (percentile bootstrap {level}); majority gold "
            f"{interval_text(gold)} (Wilson); latent - majority {shift}"
        )
    return lines


def _majority_line(majority, confidence):
    """Return the majority-gold corrected rate, labelled as such, with the difference."""
    if majority["estimate"] is None:
        return "majority gold (for comparison): not corrected"
    interval = majority["interval"]
    difference = majority["difference"]["estimate"]
    shift = "" if difference is None else f"; latent - majority {difference:+.4f}"
    return (
        f"majority gold (for comparison): corrected failure rate {majority['estimate']:.4f} "
        f"[{interval['low']:.3f}, {interval['high']:.3f}] ({100 * confidence:g}% "
        f"Lang-Reiczigel){shift}"
    )


def _production_answers(production, judge, classes):
    """Return int ``(L,)``: the judge's production answers per class; refuse other labels."""
    from simcore.realdata.annotation import DataError, got_text
    from simcore.realdata.readers import read_judge_labels

    labels = read_judge_labels(production, judge)
    index = {label: position for position, label in enumerate(classes)}
    outside = sorted({label for label in labels if label not in index})
    if outside:
        raise DataError(
            [
                f"{production}: judge {judge}: production answers outside the humans' labels "
                f"({', '.join(classes)}); on the label scale every answer must be one of them "
                f"(got {got_text(outside)})"
            ]
        )
    return np.bincount([index[label] for label in labels], minlength=len(classes))


def _confusion_rows(error, confidence):
    """Return one row per (true label, answer): the confusion entry and its interval."""
    from simcore.calibration.latent import percentile

    rows = []
    for truth, true_label in enumerate(error.classes):
        for answer, label in enumerate(error.classes):
            replicates = error.replicates[:, truth, answer]
            estimate = percentile(
                error.confusion[truth, answer], replicates[np.isfinite(replicates)], confidence
            )
            rows.append({"truth": true_label, "answer": label, **estimate.to_dict()})
    return rows


def scale_calibration(data, judge, production, settings, roles):
    """Return :func:`simcore.calibrate`'s result on the label scale (``all_labels``).

    ``settings`` holds ``truth``, ``confidence``, ``youden_floor`` and ``latent``.
    """
    from simcore.calibration.latent import (
        corrected_scale,
        latent_scale_error,
        majority_scale_error,
        scale_panel,
    )
    from simcore.realdata.label_scale import label_scale

    if production is None:
        raise CalibrationInputError(
            "all_labels: needs the judge's production labels as a file (production=..., "
            "--production FILE), not counts"
        )
    latent = settings["latent"]
    matrix = read_panel_matrix(data, judge, roles)
    codes, _, classes = scale_panel(matrix, judge, matrix.slots)
    answers = _production_answers(production, judge, classes)
    floor = settings["youden_floor"]
    gold_error = majority_scale_error(codes, classes, latent)
    gold = corrected_scale(gold_error, answers, latent, floor)
    if settings["truth"] == "latent":
        error = latent_scale_error(codes, classes, latent, matrix.source)
        corrected = corrected_scale(error, answers, latent, floor)
    else:
        error, corrected = gold_error, gold
    scale = label_scale(matrix.labels, matrix.ordinal)
    document = {
        "truth": truth_statement(error.truth, error.fit),
        "scale": {**scale.to_dict(), "classes": list(classes)},
        "confusion": _confusion_rows(error, latent.confidence),
        "separation": corrected.separation.to_dict(),
        "production": {"of": int(answers.sum())},
        "corrected": corrected.corrected is not None,
        "refusal": corrected.refusal,
        "distribution": _distribution_rows(corrected, gold if error.truth == "latent" else None),
        "boot": latent.boot,
        "seed": latent.seed,
        "confidence": latent.confidence,
    }
    if error.truth == "latent":
        document["majority"] = {
            "n_tied_excluded": gold_error.excluded,
            "confusion": _confusion_rows(gold_error, latent.confidence),
            "separation": gold.separation.to_dict(),
            "refusal": gold.refusal,
        }
    text = _scale_text(error, corrected, document, gold if error.truth == "latent" else None)
    return ScaleCalibrationResult(
        "calibrate", document, text, {"distribution": "distribution", "confusion": "confusion"}
    )


def _distribution_rows(corrected, gold):
    """Return one row per label: observed share, corrected share, and the majority's beside."""
    rows = []
    for position, label in enumerate(corrected.classes):
        observed = corrected.observed[position]
        row = {
            "label": label,
            "observed": observed.estimate,
            "observed_low": observed.low,
            "observed_high": observed.high,
        }
        for prefix, source in (("", corrected), ("majority_", gold)):
            if source is None:
                continue
            share = None if source.corrected is None else source.corrected[position]
            row[f"{prefix}estimate"] = None if share is None else share.estimate
            row[f"{prefix}low"] = None if share is None else share.low
            row[f"{prefix}high"] = None if share is None else share.high
        rows.append(row)
    return rows


def _scale_text(error, corrected, document, gold):
    """Return the report of a corrected label distribution."""
    level = f"{100 * document['confidence']:g}%"
    truth = "latent" if error.truth == "latent" else "majority"
    lines = [
        f"labels: {', '.join(error.classes)}; each label its own class (exact match); "
        f"production: {document['production']['of']} judge answers",
        f"truth: {truth}: {document['truth']['text']}",
    ]
    if error.fit is not None:
        lines.append(error.fit.describe())
    else:
        lines.append(
            f"{error.excluded} tied items left out; intervals from {document['boot']} bootstrap "
            f"resamples of the items (seed {document['seed']})"
        )
    separation = corrected.separation
    lines.append(
        f"separation of the judge's confusion matrix (the L-class Youden J): "
        f"{separation.estimate:.3f} [{separation.low:.3f}, {separation.high:.3f}]"
    )
    lines.append(
        f"the judge's confusion matrix against the {truth} truth (row: true label; columns: "
        f"its answers {', '.join(error.classes)}):"
    )
    for label, row in zip(error.classes, error.confusion, strict=True):
        cells = " ".join("  n/a" if not np.isfinite(value) else f"{value:.3f}" for value in row)
        lines.append(f"  {label}: {cells}")
    if corrected.corrected is None:
        lines.append(f"not corrected: {corrected.refusal}; the observed distribution is:")
    else:
        lines.append(
            f"corrected distribution of true labels (constrained least squares on the simplex; "
            f"{level} percentile intervals over calibration refits and production resamples):"
        )
    for row in document["distribution"]:
        line = (
            f"  {row['label']}: observed {row['observed']:.3f} "
            f"[{row['observed_low']:.3f}, {row['observed_high']:.3f}]"
        )
        if row.get("estimate") is not None:
            line += f", corrected {row['estimate']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"
        if gold is not None and row.get("majority_estimate") is not None:
            line += f"; majority gold {row['majority_estimate']:.3f}"
        lines.append(line)
    if gold is not None and gold.corrected is None:
        lines.append(f"majority gold (for comparison): not corrected: {gold.refusal}")
    return "\n".join(lines)
