"""The ``simcore ceiling`` report: human ceilings per group of a matrix, and judges against them.

:func:`group_ceilings` measures :func:`~simcore.instrument.ceiling.human_ceilings` on every
group (criterion) of an :class:`~simcore.realdata.annotation.AnnotationMatrix`, scores the
matrix's own judges against each group's full human consensus
(:func:`~simcore.instrument.ceiling.human_ceilings.agreement_with_consensus`), adds the scores of a
published table (:func:`read_judge_scores`), and places every judge below, within or above
the symmetric ceiling's interval (:mod:`~simcore.instrument.ceiling.position`), naming the
items that carry most of the pair weight when a few do
(:mod:`~simcore.instrument.ceiling.evidence`). :func:`markdown_report` and :func:`csv_rows`
write the result.
"""

import csv
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from simcore.instrument.ceiling.evidence import (
    MIN_CONSENSUS_RATERS,
    MIN_SHARED,
    weight_warning,
)
from simcore.instrument.ceiling.human_ceilings import human_ceilings
from simcore.instrument.ceiling.position import (
    POSITIONS,
    is_wide,
    judge_position,
    position_reading,
    separation_note,
)
from simcore.instrument.grouped_scores import averaged
from simcore.markdown_table import markdown_table
from simcore.model.weighted import Scoring
from simcore.realdata.annotation import MAX_CODES, DataError, got_text, label_numbers
from simcore.realdata.files import missing_path

JUDGE_COLUMNS = ("model", "judge")
"""Columns a published judge table may name its judges by, tried in order."""

GROUP_COLUMNS = ("criterion", "group")
"""Columns a published judge table may name its groups by, tried in order (optional)."""


class JudgeScore(NamedTuple):
    """One judge's agreement with a group's human consensus, where it lies, and the reading."""

    judge: str
    score: float
    source: str
    position: str
    reading: str = ""


class GroupCeiling(NamedTuple):
    """The ceilings of one group, the judges read against them, the items named by id.

    ``heavy_items`` are the ids of the items carrying most of the pair weight (empty when
    the weight is spread) and ``warning`` the sentence that names them (None without).
    """

    group: str
    ceilings: object
    judges: tuple
    heavy_items: tuple = ()
    warning: object = None

    def count(self, position):
        """Return how many judges lie at ``position`` (below, within, above)."""
        return sum(judge.position == position for judge in self.judges)

    def separation(self):
        """Return the note that the data cannot separate the judges within (or None)."""
        return separation_note(self.judges, self.ceilings)


def scored_codes(matrix, graded):
    """Return ``(human, judge)`` code arrays whose mean is meaningful when ``graded``.

    Graded labels that are all integers become ``value - smallest value`` (so a consensus
    is the mean of the label values); otherwise the matrix's codes (label ranks) are kept.
    ``-1`` stays missing.

    Raises
    ------
    simcore.realdata.annotation.DataError
        When integer labels span more than 32767 (their values would be counted in one
        counter per value): such a scale is not a rating scale.
    """
    human = matrix.human_labels.astype(np.int64)
    judge = matrix.judge_labels.astype(np.int64)
    if not averaged(graded):  # categories, or a coefficient's codes
        return human, judge
    values = label_numbers(matrix.labels)
    if values is None or not np.all(values == np.round(values)):
        return human, judge
    if values.max() - values.min() > MAX_CODES:
        raise DataError(
            [
                f"{matrix.source}: labels: graded integer labels must span at most {MAX_CODES} "
                f"(got {values.min():g} to {values.max():g}); give --categorical for "
                "categories"
            ]
        )
    shifted = (values - values.min()).astype(np.int64)
    return (np.where(human >= 0, shifted[np.maximum(human, 0)], -1), shifted[judge])


def read_judge_scores(path, score_column="spearman"):
    """Return ``{group or None: {judge: score}}`` of a published per-judge table.

    Parameters
    ----------
    path : str or pathlib.Path
        CSV with a judge column (``model`` or ``judge``), an optional group column
        (``criterion`` or ``group``; without one, a score applies to every group reported)
        and ``score_column``.
    score_column : str
        The column holding the agreement score (default ``spearman``).

    Raises
    ------
    DataError
        A missing file or column, or a score that is not a number, naming the file, the
        row and the value.
    """
    file = Path(path)
    if not file.is_file():
        raise DataError([missing_path(file, "judge_scores")])
    from simcore.realdata.files import READ_ERRORS, open_text

    try:
        with open_text(file, encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (*READ_ERRORS, csv.Error) as error:
        raise DataError([f"{file}: unreadable: {error} (got {str(file)!r})"]) from None
    header = list(rows[0]) if rows else []
    judge_column = next((c for c in JUDGE_COLUMNS if c in header), None)
    group_column = next((c for c in GROUP_COLUMNS if c in header), None)
    problems = []
    if judge_column is None:
        problems.append(
            f"{file}: header: missing judge column (looked for {', '.join(JUDGE_COLUMNS)}) "
            f"(got {got_text(','.join(header))})"
        )
    if score_column not in header:
        problems.append(
            f"{file}: header: missing score column {score_column!r} "
            f"(got {got_text(','.join(header))})"
        )
    if problems:
        raise DataError(problems)
    scores = {}
    for number, row in enumerate(rows, start=2):
        try:
            value = float(row[score_column])
        except (TypeError, ValueError):
            problems.append(
                f"{file}: row {number}: {score_column}: not a number "
                f"(got {got_text(row[score_column])})"
            )
            continue
        group = row[group_column] if group_column else None
        scores.setdefault(group, {})[row[judge_column]] = value
    if problems:
        raise DataError(problems)
    return scores


def check_judge_groups(scores, group_names, path):
    """Raise :class:`DataError` when a judge table's groups miss every group of the data.

    ``scores`` is :func:`read_judge_scores`'s result for the file ``path``; a table without
    a group column always fits.
    """
    named = sorted(group for group in scores if group is not None)
    if named and not set(named) & set(group_names):
        raise DataError(
            [
                f"{path}: criterion: no group of the data (valid: {', '.join(group_names)}) "
                f"(got {got_text(named[:5])})"
            ]
        )


def _judges_of_group(matrix, rows, human, judge, graded, published):
    """Return ``[(judge, score, source)]``: the matrix's judges, then the published table's."""
    from simcore.instrument.ceiling.human_ceilings import agreement_with_consensus

    found = [
        (
            name,
            agreement_with_consensus(
                judge[rows, j], human[rows], graded, min_raters=MIN_CONSENSUS_RATERS
            ),
            "data",
        )
        for j, name in enumerate(matrix.judges)
    ]
    return found + [(name, score, "published") for name, score in published.items()]


def _placed(name, score, source, ceilings):
    """Return the :class:`JudgeScore` of one judge against ``ceilings``."""
    if not math.isfinite(ceilings.symmetric.value):
        return JudgeScore(name, score, source, "n/a", "")
    return JudgeScore(
        name, score, source, judge_position(score, ceilings), position_reading(score, ceilings)
    )


def group_ceilings(
    matrix,
    graded,
    groups=None,
    judge_scores=None,
    n_boot=1000,
    seed=2026,
    min_shared=MIN_SHARED,
):
    """Return one :class:`GroupCeiling` per group of ``matrix``.

    Parameters
    ----------
    matrix : AnnotationMatrix
        Human labels (and optionally judge labels), with groups.
    graded : bool or simcore.model.weighted.Scoring
        Spearman on ordered scores (True), Cohen's kappa on categories (False) or a chosen
        coefficient (:func:`simcore.instrument.ceiling.human_ceilings`).
    groups : list of str, optional
        Groups to report (default every group, in the matrix's order).
    judge_scores : dict, optional
        ``{group or None: {judge: score}}`` from :func:`read_judge_scores`.
    n_boot, seed : int
        Bootstrap replicates and root seed; every group uses the same seed, so a group's
        numbers do not depend on which other groups are reported.
    min_shared : int, optional
        Fewest shared items of a scored rater pair
        (:data:`~simcore.instrument.ceiling.evidence.MIN_SHARED`).

    Notes
    -----
    The matrix's own judges are scored against the human consensus on the items with at
    least ``MIN_CONSENSUS_RATERS`` (2) humans, the items ``k`` is taken from.

    Raises
    ------
    DataError
        A group name the matrix does not have.
    """
    names = list(matrix.group_names)
    unknown = [g for g in groups or [] if g not in names]
    if unknown:
        raise DataError(
            [
                f"{matrix.source}: criterion: no such group (valid: {', '.join(names)}) "
                f"(got {got_text(unknown[0])})"
            ]
        )
    human, judge = scored_codes(matrix, graded)
    judge_scores = judge_scores or {}
    results = []
    for group in groups or names:
        rows = np.flatnonzero(matrix.groups == names.index(group))
        ceilings = human_ceilings(
            human[rows], graded, n_boot=n_boot, seed=seed, min_shared=min_shared
        )
        published = {**judge_scores.get(None, {}), **judge_scores.get(group, {})}
        judges = tuple(
            _placed(name, score, source, ceilings)
            for name, score, source in _judges_of_group(
                matrix, rows, human, judge, graded, published
            )
            if math.isfinite(score)
        )
        heavy = tuple(str(matrix.item_ids[rows[i]]) for i in ceilings.heavy_items)
        warning = weight_warning(heavy, ceilings.heavy_share, ceilings.weighted_items)
        results.append(GroupCeiling(group, ceilings, judges, heavy, warning))
    return results


def _estimate_text(estimate):
    """Return ``0.123 [0.045, 0.190]`` (``n/a`` when undefined, no interval when none)."""
    if not math.isfinite(estimate.value):
        return "n/a"
    if not math.isfinite(estimate.low):
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


def _evidence_lines(results):
    """Return the lines that say what the numbers rest on, and the weight warnings."""
    c = results[0].ceilings
    lines = [
        "",
        f"r̂: rater pairs sharing at least {c.min_shared} items, each weighted by its shared "
        "items (benchmark and LOO: raters weighted by their scored items); r̂ unweighted: "
        "every pair sharing 2 items weighing the same, for comparison only. k: harmonic "
        "mean of the humans per item over the items with at least 2.",
    ]
    warned = [result for result in results if result.warning]
    if warned:
        lines.append("")
        lines += [f"Warning ({result.group}): {result.warning}." for result in warned]
    return lines


def statistic_name(graded):
    """Return the reports' name of the pair statistic: Spearman, Cohen's kappa or a coefficient."""
    if isinstance(graded, Scoring):
        return graded.name
    return "Spearman" if graded else "Cohen's kappa"


CEILING_COLUMNS = (
    *("group", "items", "raters", "k", "r̂", "r̂ unweighted", "benchmark", "LOO measured"),
    *("LOO predicted c_(k-1)", "symmetric c_k", "judges below/within/above"),
)
"""The columns of the report's table of ceilings, one row per group."""


def markdown_report(results, graded, command=None):
    """Return the Markdown report: one table row per group, then each group's judges."""
    c = results[0].ceilings if results else None
    statistic = statistic_name(graded)
    level = f"{100 * c.level:g}%" if c else "95%"
    lines = [
        f"Human ceilings ({statistic}; [{level} bootstrap interval over items, "
        f"{c.n_boot if c else 0} replicates])",
        "",
    ]
    rows = []
    for result in results:
        c = result.ceilings
        counts = "/".join(str(result.count(p)) for p in POSITIONS)
        estimates = (c.reliability, c.unweighted_reliability, c.benchmark, c.leave_one_out)
        estimates += (c.predicted_leave_one_out, c.symmetric)
        rows.append(
            (result.group, c.n_items, c.n_raters, f"{c.k:.3g}")
            + tuple(_estimate_text(e) for e in estimates)
            + (counts if result.judges else "-",)
        )
    lines += markdown_table(CEILING_COLUMNS, rows)
    if results:
        lines += _evidence_lines(results)
    for result in results:
        lines += _judge_lines(result)
    if command:
        lines += ["", f"Reproduce: `{command}`"]
    return "\n".join(lines) + "\n"


def _judge_lines(result):
    """Return the Markdown lines of one group's judges, best first."""
    if not result.judges:
        return []
    ranked = sorted(result.judges, key=lambda judge: -judge.score)
    c = result.ceilings
    lines = [
        "",
        f"### {result.group}: {result.count('above')} of {len(ranked)} judges above "
        f"c_{c.k:.3g} = {_estimate_text(c.symmetric)} "
        f"({sum(j.score > c.symmetric.value for j in ranked)} above its point value)",
        "",
    ]
    rows = [(j.judge, f"{j.score:.3f}", j.source, j.position) for j in ranked]
    lines += markdown_table(("judge", "score", "source", "position"), rows)
    if ranked[0].position != "n/a":
        lines += ["", f"Best judge ({ranked[0].judge}): {ranked[0].reading}."]
    if result.separation():
        lines += ["", f"Thin data: {result.separation()}."]
    return lines


ESTIMATES = (
    "reliability",
    "unweighted_reliability",
    "benchmark",
    "leave_one_out",
    "predicted_leave_one_out",
    "symmetric",
)
"""The :class:`~simcore.instrument.ceiling.human_ceilings.Ceilings` fields a report row carries."""

CSV_FIELDS = (
    "group",
    "n_items",
    "n_raters",
    "k",
    "k_others",
    "min_shared",
    *(f"{name}{suffix}" for name in ESTIMATES for suffix in ("", "_low", "_high")),
    "interval_wide",
    "weighted_items",
    "heavy_share",
    "warning",
    "judges_below",
    "judges_within",
    "judges_above",
)
"""Columns of the ``--csv`` table, one row per group (the JSON rows add ``heavy_items``,
the ids of the items the warning names, ``separation`` and ``judges``)."""


def csv_rows(results):
    """Return one ``{CSV_FIELDS: value}`` row per group, with ``heavy_items`` and ``separation``."""
    rows = []
    for result in results:
        c = result.ceilings
        row = {"group": result.group, "n_items": c.n_items, "n_raters": c.n_raters, "k": c.k}
        row.update({"k_others": c.k_others, "min_shared": c.min_shared})
        for name in ESTIMATES:
            estimate = getattr(c, name)
            row.update(
                {name: estimate.value, f"{name}_low": estimate.low, f"{name}_high": estimate.high}
            )
        row.update(
            {
                "interval_wide": is_wide(c),
                "weighted_items": c.weighted_items,
                "heavy_share": c.heavy_share,
                "warning": result.warning,
                "heavy_items": list(result.heavy_items),
                "separation": result.separation(),
            }
        )
        row.update({f"judges_{p}": result.count(p) for p in POSITIONS})
        rows.append(row)
    return rows
