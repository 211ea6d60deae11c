"""A real run's full-matrix verdicts under the other scoring of a rating scale.

A ``kind: real`` run keeps the published protocol's scoring (observed agreement, exact
match) unless the scenario names another. On a rating scale
(:func:`simcore.realdata.label_scale.label_scale`) that scoring is blind to how far apart two
ratings are, so the run also decides every judge on the full matrix under the scale-aware
scoring (Krippendorff's alpha at the ordinal level) and records, in the cube's attributes,
each judge whose full-matrix decision differs: such a reference verdict, against which the
run counts wrong decisions, is settled only under the scoring the scenario chose. A run
already scored by a scale-aware coefficient is checked against exact match. The
alternative annotator test is not checked (its per-item scale is ``rule.scale``).
"""

import dataclasses
import json

from simcore.realdata.label_scale import EXACT_MATCH, SCALE_AWARE, SCALE_AWARE_TEXT, label_scale
from simcore.studies.rule_section import WEIGHTED_MAX_LABELS


def other_rule(rule):
    """Return ``(rule, words)``: the other defensible scoring of a point rule on a rating scale."""
    if rule.level != "nominal" or rule.weights != "identity":
        return dataclasses.replace(rule, coefficient="observed", level="nominal"), EXACT_MATCH
    coefficient, level = SCALE_AWARE
    return dataclasses.replace(rule, coefficient=coefficient, level=level), SCALE_AWARE_TEXT


def scale_check(scenario, matrix, groups, decide):
    """Return the attrs of the full-matrix verdicts under the other scoring.

    Parameters
    ----------
    scenario : RealScenario
        The run's scenario (its ``data.scale`` and ``rule``).
    matrix : AnnotationMatrix
        The whole matrix.
    groups : tuple of GroupMatrix
        The run's groups, with their full-matrix decisions under the scenario's rule.
    decide : callable
        ``decide(scenario, group_matrix) -> GroupMatrix``: the full-matrix decisions of one
        group's matrix (:func:`simcore.studies.real.cells.group_matrix`).

    Returns
    -------
    dict
        ``label_scale`` (the scale in words) and, on a rating scale under the point rule,
        ``other_scoring`` (its words) and ``scale_check`` (JSON: one row per judge and group,
        ``group``, ``judge``, ``accept``, ``other_omega``, ``other_accept``).
    """
    scale = label_scale(matrix.labels, scenario.data.get("scale") == "ordinal")
    attrs = {"label_scale": scale.text()}
    rule = scenario.rule
    if not scale.is_rating or rule.kind != "point" or matrix.n_labels > WEIGHTED_MAX_LABELS:
        return attrs
    changed, words = other_rule(rule)
    other = dataclasses.replace(scenario, rule=changed)
    names = matrix.group_names
    rows = []
    for group in groups:
        again = decide(other, matrix.subset(group.name) if len(names) > 1 else matrix)
        for judge, name in enumerate(matrix.judges):
            rows.append(
                {
                    "group": group.name,
                    "judge": name,
                    "accept": bool(group.full_accept[judge]),
                    "other_omega": float(again.full_omega[judge]),
                    "other_accept": bool(again.full_accept[judge]),
                }
            )
    return {**attrs, "other_scoring": words, "scale_check": json.dumps(rows)}


def scale_check_lines(attrs, scoring):
    """Return the summary's lines on full-matrix verdicts that differ under the other scoring."""
    if "scale_check" not in attrs:
        return []
    rows = json.loads(attrs["scale_check"])
    other = attrs["other_scoring"]
    flipped = [row for row in rows if row["accept"] != row["other_accept"]]
    if not flipped:
        return [f"every full-matrix verdict is the same under {other}"]

    def word(accept):
        return "accept" if accept else "reject"

    return [
        f"full-matrix verdicts that differ under {other} (settled only under {scoring}): "
        + "; ".join(
            f"{row['judge']}{'' if row['group'] == 'all' else ' (' + row['group'] + ')'} "
            f"{word(row['accept'])}, {word(row['other_accept'])} under it "
            f"(omega {row['other_omega']:.2f})"
            for row in flipped
        )
    ]
