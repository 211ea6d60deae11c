"""A judge's place against the human ceiling under both scorings of a rating scale.

On a rating scale (:func:`simcore.realdata.label_scale.matrix_scale`) the ceiling is
measured by Spearman's rho by default (the scale-aware statistic) and can be measured by
Cohen's kappa (exact match, every disagreement alike). A judge's position (below, within or
above the ceiling's interval) that differs between the two is a reading the data support
only under one scoring; :func:`position_check` measures it both ways and
:func:`position_lines` says where they differ. On categories nothing is checked, and a
chosen ``--coefficient`` is the user's one scoring.
"""

from simcore.instrument.ceiling.report import group_ceilings, statistic_name
from simcore.realdata.label_scale import scale_line


def scoring_words(graded):
    """Return the ceiling's scoring in words: scale-aware or exact match, and its statistic."""
    if isinstance(graded, bool):
        kind = "scale-aware" if graded else "exact match"
        return f"{statistic_name(graded)} ({kind})"
    return statistic_name(graded)


def position_check(matrix, graded, results, **options):
    """Return each judge's position under the other scoring, or None where none applies.

    Parameters
    ----------
    matrix : AnnotationMatrix
        The matrix the ``results`` were measured on.
    graded : bool
        The scoring used (True: Spearman; False: Cohen's kappa); a coefficient is not checked.
    results : list of GroupCeiling
        The ceilings under ``graded``.
    **options
        :func:`~simcore.instrument.ceiling.report.group_ceilings`'s ``groups``,
        ``judge_scores``, ``n_boot``, ``seed``, ``min_shared``.

    Returns
    -------
    list of dict or None
        ``{"group", "judge", "position", "other_position", "settled_across_scorings"}``
        per judge measured from the data, None when ``graded`` is a coefficient or no judge
        is read from the data.
    """
    measured = [j for result in results for j in result.judges if j.source == "data"]
    if not isinstance(graded, bool) or not measured:
        return None
    others = group_ceilings(matrix, not graded, **options)
    rows = []
    for result, other in zip(results, others, strict=True):
        again = {judge.judge: judge.position for judge in other.judges}
        for judge in result.judges:
            if judge.judge not in again or judge.source != "data":
                continue
            rows.append(
                {
                    "group": result.group,
                    "judge": judge.judge,
                    "position": judge.position,
                    "other_position": again[judge.judge],
                    "settled_across_scorings": judge.position == again[judge.judge],
                }
            )
    return rows


def position_lines(rows, graded):
    """Return the report's lines on the judges whose position differs under the other scoring."""
    if not rows:
        return []
    used, other = scoring_words(graded), scoring_words(not graded)
    flipped = [row for row in rows if not row["settled_across_scorings"]]
    if not flipped:
        return [f"Every judge's position is the same under {other}.", ""]
    lines = [
        f"Positions that differ under {other} (settled only under {used}, the data "
        "support both readings):",
        "",
    ]
    lines += [
        f"- {row['group']}: {row['judge']} {row['position']} under {used}, "
        f"{row['other_position']} under {other}"
        for row in flipped
    ]
    return [*lines, ""]


def ceiling_scale(matrix, scale, measure, results, settings):
    """Return the ceiling's ``scale`` document, its first line and the lines on positions.

    ``scale`` is the matrix's :class:`~simcore.realdata.label_scale.LabelScale`,
    ``measure`` the scoring used (bool or a coefficient's Scoring), ``results`` the
    ceilings under it and ``settings`` :func:`position_check`'s options.
    """
    checked = position_check(matrix, measure, results, **settings) if scale.is_rating else None
    other = None if checked is None else scoring_words(not measure)
    document = {
        **scale.to_dict(),
        "scoring": scoring_words(measure),
        "other_scoring": other,
        "positions_under_other": checked,
    }
    check = None if checked is None else f"judges' positions also read under {other}"
    return (
        document,
        scale_line(scale, scoring_words(measure), check),
        position_lines(checked, measure),
    )
