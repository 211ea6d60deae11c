"""A readable description of an annotation matrix: sizes, groups, density and overlaps.

:func:`describe_matrix` is what ``simcore inspect`` prints: per human and per pair of humans
in full up to :data:`MAX_TABLE_HUMANS` humans, else a summary of the same numbers that fits
on a screen (the full pair table goes to a CSV file, :func:`write_overlap_csv`). Nothing in
it is ``L x L``: agreement comes from equality counts (:mod:`simcore.realdata.overlap`).
"""

import numpy as np

from simcore.realdata.annotation import NO_GROUPS, list_text
from simcore.realdata.data_shape import data_shape
from simcore.realdata.label_scale import EXACT_MATCH, SCALE_AWARE_TEXT, matrix_scale
from simcore.realdata.overlap import (
    agreement_counts,
    overlap_partners,
    pair_overlaps,
    pair_quantiles,
    write_overlap_csv,  # noqa: F401  (re-exported)
)

MAX_TABLE_HUMANS = 12
"""Above this many humans, inspect summarises the per-human and pairwise tables."""

LEAST_OVERLAP_ROWS = 5
"""Humans listed as those with the least overlap in the summary."""

QUARTILES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Quantiles shown for distributions: min, quartiles, max."""


def _table(header, rows):
    """Return text lines of a table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(cell).rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def describe_matrix(matrix, max_table_humans=MAX_TABLE_HUMANS, shape=None):
    """Return a readable multi-line description of an annotation matrix.

    Parameters
    ----------
    matrix : AnnotationMatrix
        The matrix to describe.
    max_table_humans : int, optional
        Up to this many humans, the per-human and pairwise tables are printed in full;
        above it, summarised (:func:`_summary_lines`).
    shape : simcore.realdata.data_shape.DataShape, optional
        The matrix's shape, when the caller has it (else computed here).

    Returns
    -------
    str
        Source; numbers of items, humans, judges and labels (and the scale); groups with
        their item counts; density; the shape
        (:func:`~simcore.realdata.data_shape.data_shape`); which humans (if any) label
        every item, i.e. whether the primary layer is complete; per-human items and
        coverage; the K x K table of items labelled by both humans (or its summary);
        min/median/max human labels per item; the humans' observed agreement ``P_o``
        (share of agreeing pairs of labels on the same item); per-judge coverage, or that
        the matrix is human-only.
    """
    lines = _size_lines(matrix)
    lines.append((shape or data_shape(matrix)).text())
    if matrix.n_humans > max_table_humans:
        lines += _summary_lines(matrix)
    else:
        lines += _human_lines(matrix)
    lines += _agreement_lines(matrix)
    lines += _judge_lines(matrix)
    return "\n".join(lines)


def _size_lines(matrix):
    """Return the lines on the source, the sizes, the groups and the density."""
    n = matrix.n_items
    scale = matrix_scale(matrix)
    shown = 20 if matrix.n_humans <= MAX_TABLE_HUMANS else 8
    shown_labels = 20 if matrix.n_labels <= 100 else 8
    lines = [
        f"source: {matrix.source}",
        f"items: {n}",
        f"humans: {matrix.n_humans} (primary first: {list_text(matrix.humans, shown)})",
        f"judges: {matrix.n_judges} ({list_text(matrix.judges)})"
        if matrix.n_judges
        else "judges: 0 (no judge: a human-only matrix; run and advise need a judge)",
        f"labels: {matrix.n_labels}, {'rating scale' if scale.is_rating else 'categories'} "
        f"({scale.basis}: {list_text(matrix.labels, shown_labels)})",
        f"scoring: {EXACT_MATCH} below"
        + (
            f"; on this rating scale advise and ceiling also decide under {SCALE_AWARE_TEXT} "
            "and say where the two differ"
            if scale.is_rating
            else ""
        ),
    ]
    if matrix.label_merges:
        merged = "; ".join(merge.text() for merge in matrix.label_merges)
        lines.append(f"labels merged, differing only in case (--merge-label-variants): {merged}")
    if matrix.item_ids != matrix.items:
        repeated = n - len(set(matrix.item_ids))
        lines.append(
            f"item ids: keyed by (item, group); {repeated} ids repeat across groups "
            "(matrix ids are GROUP/ITEM)"
        )
    if matrix.group_names == (NO_GROUPS,):
        lines.append("groups: none")
    else:
        counts = np.bincount(matrix.groups, minlength=len(matrix.group_names))
        shown = [
            f"{name} {count}"
            for name, count in zip(matrix.group_names, counts.tolist(), strict=True)
        ]
        lines.append(f"groups: {len(matrix.group_names)} ({list_text(shown)})")
    cells = int(matrix.available.sum())
    lines.append(
        f"density: {matrix.density:.3f} ({cells} of {n * matrix.n_humans} item-human cells "
        "labelled)"
    )
    return lines


def _primary_lines(matrix):
    """Return the lines on the humans who label every item and the primary's gaps."""
    available = matrix.available
    complete = [
        name for name, full in zip(matrix.humans, available.all(axis=0), strict=True) if full
    ]
    if complete:
        lines = [f"humans labelling every item: {list_text(complete)}"]
    else:
        lines = ["humans labelling every item: none (no single human labels every item)"]
    if matrix.n_items and matrix.n_humans and not available[:, 0].all():
        lines.append(
            f"primary layer: {matrix.humans[0]} misses {int((~available[:, 0]).sum())} items"
        )
    return lines


def _per_item_line(matrix):
    """Return the line on the min/median/max number of human labels per item."""
    per_item = matrix.available.sum(axis=1)
    if not matrix.n_items:
        return "human labels per item: no items"
    return (
        f"human labels per item: min {int(per_item.min())}, "
        f"median {float(np.median(per_item)):g}, max {int(per_item.max())}"
    )


def _human_lines(matrix):
    """Return the lines on the primary layer, each human, the overlaps and labels per item."""
    available = matrix.available
    lines = _primary_lines(matrix)
    lines.append("per human:")
    lines += _table(
        ["human", "items", "coverage"],
        [
            [name, int(count), f"{share:.3f}"]
            for name, count, share in zip(
                matrix.humans, available.sum(axis=0), matrix.coverage, strict=True
            )
        ],
    )
    lines.append("items labelled by both (pairwise overlap):")
    overlaps = matrix.overlaps
    lines += _table(
        ["", *matrix.humans],
        [[name, *overlaps[k].tolist()] for k, name in enumerate(matrix.humans)],
    )
    lines.append(_per_item_line(matrix))
    return lines


def _spread(values, digits=None):
    """Return ``min a, q1 b, median c, q3 d, max e`` of ``values`` (already quantiles or not)."""
    values = np.asarray(values, dtype=float)
    if values.size != len(QUARTILES):
        values = np.quantile(values, QUARTILES) if values.size else np.full(5, np.nan)
    shown = [f"{v:.{digits}f}" if digits is not None else f"{v:g}" for v in values]
    names = ("min", "q1", "median", "q3", "max")
    return ", ".join(f"{name} {value}" for name, value in zip(names, shown, strict=True))


def _summary_lines(matrix):
    """Return the summary of the per-human and pairwise tables for many humans.

    Items and coverage per human and the overlaps of the ``K (K - 1) / 2`` pairs are given
    as min, quartiles and max, with the share of pairs sharing no item; then the humans
    with the fewest overlap partners (ties: least shared labels) and how to get the table.
    """
    k = matrix.n_humans
    items = matrix.available.sum(axis=0)
    overlaps = pair_overlaps(matrix)
    pair_values, zero_share = pair_quantiles(overlaps, QUARTILES)
    partners = overlap_partners(overlaps)
    shared = agreement_counts(matrix).human_pairs
    lines = _primary_lines(matrix)
    lines += [
        f"per human ({k} humans): items {_spread(items)}",
        f"  coverage {_spread(matrix.coverage, 3)}",
        f"pairwise overlap ({k * (k - 1) // 2} pairs of humans): {_spread(pair_values)}; "
        f"{zero_share:.1%} of pairs share no item",
        f"overlap partners (other humans sharing an item) per human: {_spread(partners)}",
        f"least overlap ({LEAST_OVERLAP_ROWS} humans with the fewest partners, then the "
        "fewest labels shared):",
    ]
    order = sorted(range(k), key=lambda h: (partners[h], shared[h], matrix.humans[h]))
    lines += _table(
        ["human", "items", "partners", "shared"],
        [
            [matrix.humans[h], int(items[h]), int(partners[h]), int(shared[h])]
            for h in order[:LEAST_OVERLAP_ROWS]
        ],
    )
    lines.append(
        f"full {k} x {k} overlap table: not shown for more than {MAX_TABLE_HUMANS} humans; "
        "write it with simcore inspect ... --overlap-csv FILE"
    )
    lines.append(_per_item_line(matrix))
    return lines


def _agreement_lines(matrix):
    """Return the line on the humans' pooled observed agreement and its spread per human."""
    agreement = agreement_counts(matrix)
    if not agreement.pairs:
        return ["human agreement: no item has two human labels"]
    rates = agreement.human_rates
    rates = rates[np.isfinite(rates)]
    return [
        f"human agreement: {agreement.rate:.3f} observed ({agreement.agreeing} of "
        f"{agreement.pairs} pairs of labels on the same item agree); per human "
        f"min {rates.min():.3f}, median {float(np.median(rates)):.3f}, max {rates.max():.3f}"
    ]


def _judge_lines(matrix):
    """Return the lines on each judge's items and coverage."""
    if not matrix.n_judges:
        return ["per judge: none (human-only matrix)"]
    n = matrix.n_items
    judged = (matrix.judge_labels >= 0).sum(axis=0)
    return ["per judge:"] + _table(
        ["judge", "items", "coverage"],
        [
            [name, int(count), f"{count / n if n else 0.0:.3f}"]
            for name, count in zip(matrix.judges, judged, strict=True)
        ],
    )
