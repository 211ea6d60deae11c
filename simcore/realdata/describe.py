"""A readable description of an annotation matrix: sizes, groups, density and overlaps.

:func:`describe_matrix` is what ``simcore inspect`` prints.
"""

import numpy as np

from simcore.realdata.annotation import NO_GROUPS, _list_text


def _table(header, rows):
    """Return text lines of a table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(cell).rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def describe_matrix(matrix):
    """Return a readable multi-line description of an annotation matrix.

    Parameters
    ----------
    matrix : AnnotationMatrix
        The matrix to describe.

    Returns
    -------
    str
        Source; numbers of items, humans, judges and labels (and the scale); groups with
        their item counts; density; which humans (if any) label every item, i.e. whether the
        primary layer is complete; per-human items and coverage; the K x K table of items
        labelled by both humans; min/median/max human labels per item; per-judge coverage.
    """
    lines = _size_lines(matrix)
    lines += _human_lines(matrix)
    lines += _judge_lines(matrix)
    return "\n".join(lines)


def _size_lines(matrix):
    """Return the lines on the source, the sizes, the groups and the density."""
    n = matrix.n_items
    scale = "ordinal" if matrix.ordinal else "nominal"
    lines = [
        f"source: {matrix.source}",
        f"items: {n}",
        f"humans: {matrix.n_humans} (primary first: {_list_text(matrix.humans)})",
        f"judges: {matrix.n_judges} ({_list_text(matrix.judges)})",
        f"labels: {matrix.n_labels}, {scale} ({_list_text(matrix.labels)})",
    ]
    if matrix.group_names == (NO_GROUPS,):
        lines.append("groups: none")
    else:
        counts = np.bincount(matrix.groups, minlength=len(matrix.group_names))
        shown = [
            f"{name} {count}"
            for name, count in zip(matrix.group_names, counts.tolist(), strict=True)
        ]
        lines.append(f"groups: {len(matrix.group_names)} ({_list_text(shown)})")
    cells = int(matrix.available.sum())
    lines.append(
        f"density: {matrix.density:.3f} ({cells} of {n * matrix.n_humans} item-human cells "
        "labelled)"
    )
    return lines


def _human_lines(matrix):
    """Return the lines on the primary layer, each human, the overlaps and labels per item."""
    available = matrix.available
    n = matrix.n_items
    complete = [
        name for name, full in zip(matrix.humans, available.all(axis=0), strict=True) if full
    ]
    if complete:
        lines = [f"humans labelling every item: {', '.join(complete)}"]
    else:
        lines = ["humans labelling every item: none (no single human labels every item)"]
    if n and not available[:, 0].all():
        lines.append(
            f"primary layer: {matrix.humans[0]} misses {int((~available[:, 0]).sum())} items"
        )
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
    per_item = available.sum(axis=1)
    if n:
        lines.append(
            f"human labels per item: min {int(per_item.min())}, "
            f"median {float(np.median(per_item)):g}, max {int(per_item.max())}"
        )
    else:
        lines.append("human labels per item: no items")
    return lines


def _judge_lines(matrix):
    """Return the lines on each judge's items and coverage."""
    n = matrix.n_items
    judged = (matrix.judge_labels >= 0).sum(axis=0)
    return ["per judge:"] + _table(
        ["judge", "items", "coverage"],
        [
            [name, int(count), f"{count / n if n else 0.0:.3f}"]
            for name, count in zip(matrix.judges, judged, strict=True)
        ],
    )
