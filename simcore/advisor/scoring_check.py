"""The verdict under the other defensible scoring of a rating scale.

On a rating scale (:func:`simcore.realdata.label_scale.matrix_scale`) two scorings are
defensible: exact match (the paper's observed agreement, every disagreement alike, the
default because published numbers use it) and a scale-aware one (Krippendorff's alpha at
the ordinal level, disagreements weighted by their distance in ranks). advise decides
every verdict under the scoring asked for and, on a rating scale, again under the other
one (:func:`other_scoring`); a verdict whose decision differs between the two is *settled
only under* the scoring asked for: no amount of sparse-overlap risk analysis settles it,
since the data support both answers. On categories nothing is checked.

Under the alternative annotator test the other scoring is the test's per-item score on
the label values (``scale: numeric``, minus the RMSE) against accuracy (``categorical``),
and back.
"""

import dataclasses

import numpy as np

from simcore.advisor.scoring import advise_scoring, coefficient_label
from simcore.advisor.verdict import numeric_label_values, verdicts
from simcore.markdown_table import markdown_table
from simcore.realdata.label_scale import (
    EXACT_MATCH,
    SCALE_AWARE,
    SCALE_AWARE_TEXT,
    matrix_scale,
)


def scoring_text(rule, scoring, scale="categorical"):
    """Return the scoring of a verdict in words, as every output names it.

    ``scoring`` is a :class:`simcore.model.weighted.Scoring` (None: exact match); under
    ``alt_test`` the per-item ``scale`` names it.
    """
    if rule == "alt_test":
        return {
            "categorical": "per-item accuracy (exact match)",
            "numeric": "per-item minus RMSE of the label values (scale-aware)",
        }.get(scale, f"per-item mean agreement weight ({coefficient_label(scoring)})")
    if scoring is None:
        return EXACT_MATCH
    return coefficient_label(scoring)


def _scale_aware(scoring):
    """Whether a point rule's scoring reads the scale (a level or weights beyond nominal)."""
    return scoring is not None and (scoring.level != "nominal" or scoring.weights != "identity")


def other_scoring(matrix, rule, scoring, scale):
    """Return ``(scoring, scale, text)`` of the other defensible scoring of a rating scale.

    Point rule: exact match (or a nominal coefficient) is checked against
    :data:`~simcore.realdata.label_scale.SCALE_AWARE`, a scale-aware scoring against exact
    match. ``alt_test``: ``categorical`` against ``numeric`` where every label is a number
    (else None: no other scoring to check), anything else against ``categorical``.
    """
    if rule == "alt_test":
        if scale == "categorical":
            try:
                numeric_label_values(matrix.labels)
            except ValueError:
                return None
            return None, "numeric", scoring_text(rule, None, "numeric")
        return None, "categorical", scoring_text(rule, None, "categorical")
    if _scale_aware(scoring):
        return None, scale, EXACT_MATCH
    coefficient, level = SCALE_AWARE
    other = advise_scoring(matrix, coefficient, level, "identity")
    return other, scale, SCALE_AWARE_TEXT


def scoring_check(matrix, names, rule, label_scale):
    """Return ``{judge: row}``: each verdict again under the other scoring, or None.

    ``rule`` is the audit's :class:`~simcore.advisor.settings.AuditRule`; ``label_scale`` the
    matrix's :class:`~simcore.realdata.label_scale.LabelScale`. Each row holds ``scoring`` (the
    other scoring in words), ``omega``, ``decision``. None
    on categories, or where no other scoring applies.
    """
    if not label_scale.is_rating:
        return None
    other = other_scoring(matrix, rule.kind, rule.scoring, rule.scale)
    if other is None:
        return None
    other_scoring_, other_scale, text = other
    values = numeric_label_values(matrix.labels) if other_scale == "numeric" else None
    columns = [matrix.judges.index(name) for name in names]
    rows = verdicts(
        np.asarray(matrix.human_labels, dtype=np.int64),
        np.asarray(matrix.judge_labels, dtype=np.int64)[:, columns],
        names,
        dataclasses.replace(rule, scoring=other_scoring_, scale=other_scale, label_values=values),
    )
    return {
        row["judge"]: {"scoring": text, "omega": float(row["omega"]), "decision": row["decision"]}
        for row in rows
    }


def settled_text(row, check, scoring):
    """Return the verdict line's clause on the other scoring ("" where there is none).

    ``; settled only under observed agreement (exact match): under Krippendorff's alpha,
    ordinal level, omega 0.62, reject`` where the decisions differ; ``; the same under
    ...`` where they agree.
    """
    if check is None or row["judge"] not in check:
        return ""
    other = check[row["judge"]]
    if other["decision"] == row["decision"]:
        return f"; the same decision under {other['scoring']}"
    return (
        f"; settled only under {scoring}: under {other['scoring']} omega "
        f"{other['omega']:.2f}, {other['decision']}"
    )


def unsettled_judges(verdict_rows, check):
    """Return the judges whose decision differs under the other scoring."""
    if check is None:
        return []
    return [
        row["judge"]
        for row in verdict_rows
        if row["judge"] in check and check[row["judge"]]["decision"] != row["decision"]
    ]


def attach_scoring_check(advice, matrix, names, rule):
    """Record the scale, the scoring and the other scoring's verdicts on ``advice``.

    A judge whose verdict flips under the other scoring is not settled, whatever its
    sampling risk: the recommendation's text says so (labels settle the sampling risk, not
    the choice of scoring). Returns ``advice``.
    """
    advice.label_scale = matrix_scale(matrix)
    advice.scoring = scoring_text(rule.kind, rule.scoring, rule.scale)
    advice.scoring_check = scoring_check(matrix, names, rule, advice.label_scale)
    note = unsettled_note(advice)
    if note and advice.recommendation is not None:
        advice.recommendation = advice.recommendation._replace(
            text=advice.recommendation.text + note
        )
    return advice


def unsettled_note(advice):
    """Return the recommendation's clause on verdicts that flip with the scoring, or ""."""
    flipped = unsettled_judges(advice.verdicts, advice.scoring_check)
    if not flipped:
        return ""
    other = next(iter(advice.scoring_check.values()))["scoring"]
    return (
        f"; not settled for {', '.join(flipped)}: the verdict differs under {other}, so it "
        f"holds only under {advice.scoring}; more labels reduce the sampling risk, not the "
        "choice of scoring: choose the scoring the validation is to use and state it"
    )


def unsettled_lines(advice):
    """Return report.md's paragraph under the recommendation on scoring-dependent verdicts."""
    note = unsettled_note(advice)
    return [f"**Not settled{note.removeprefix('; not settled')}.**", ""] if note else []


def scoring_check_lines(advice):
    """Return report.md's lines on each verdict under the other scoring ([] on categories)."""
    check = advice.scoring_check
    if not check:
        return []
    other = next(iter(check.values()))["scoring"]
    lines = [
        f"The labels are a {advice.label_scale.text()}: each verdict was also decided under "
        f"{other}. A verdict that differs is settled only under {advice.scoring}, whatever "
        "its risk below: the data support both answers, and more labels do not choose "
        "between the scorings.",
        "",
    ]
    header = ("judge", f"decision ({advice.scoring})", f"omega under {other}")
    header += (f"decision under {other}", "settled across scorings")
    rows = []
    for row in advice.verdicts:
        if row["judge"] not in check:
            continue
        again = check[row["judge"]]
        same = again["decision"] == row["decision"]
        settled = "yes" if same else f"no: settled only under {advice.scoring}"
        rows.append((row["judge"], row["decision"], f"{again['omega']:.2f}"))
        rows[-1] += (again["decision"], settled)
    return [*lines, *markdown_table(header, rows), ""]


def scoring_document(advice):
    """Return ``--json``'s ``scale``: the labels' scale, the scoring, the other verdicts.

    ``{"kind", "basis", "labels", "scoring", "other_scoring", "verdicts_under_other"}``:
    ``verdicts_under_other`` maps each judge to ``omega``, ``decision`` and
    ``settled_across_scorings``; None (with ``other_scoring`` None) on categories.
    """
    if advice.label_scale is None:
        return None
    check = advice.scoring_check
    decisions = {row["judge"]: row["decision"] for row in advice.verdicts}
    return {
        **advice.label_scale.to_dict(),
        "scoring": advice.scoring,
        "other_scoring": next(iter(check.values()))["scoring"] if check else None,
        "verdicts_under_other": None
        if not check
        else {
            judge: {
                "omega": row["omega"],
                "decision": row["decision"],
                "settled_across_scorings": row["decision"] == decisions.get(judge),
            }
            for judge, row in check.items()
        },
    }
