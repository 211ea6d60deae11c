"""The one Markdown table renderer: every table simcore prints or writes goes through it.

A table is a header, the alignment of each column (``"l"`` or ``"r"``: the rule ``---``
or ``---:``) and rows of cells already formatted as text; :func:`markdown_table` returns
its lines, ``| a | b |`` with one space inside each bar. Like :mod:`simcore.options`, this
module imports nothing, so every layer may use it.
"""

__all__ = ["markdown_table", "table_row"]


def table_row(cells):
    """Return one table line, ``| a | b |``, of ``cells`` (each shown with ``str``)."""
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def markdown_table(header, rows, align=None):
    """Return the lines of a Markdown table: the header, its rule, then one line per row.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : iterable of sequences
        The cells of each row, formatted (each is shown with ``str``).
    align : str, optional
        One letter per column, ``l`` (the rule ``---``) or ``r`` (``---:``); default every
        column ``l``.

    Returns
    -------
    list of str
        ``[header line, rule, row lines...]``.
    """
    align = "l" * len(header) if align is None else align
    if len(align) != len(header) or set(align) - {"l", "r"}:
        raise ValueError(f"align: one of l or r per column (got {align!r} for {len(header)})")
    rule = "|" + "".join("---:|" if side == "r" else "---|" for side in align)
    return [table_row(header), rule, *(table_row(row) for row in rows)]
