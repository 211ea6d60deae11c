"""The table of ``simcore wellposed``: judge agreement per group, as Markdown and CSV rows."""

import csv
import math
import sys
from pathlib import Path

from simcore.markdown_table import markdown_table


def _number(value, digits=3):
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _pair_name(judges, pair):
    return f"{judges[pair[0]]}~{judges[pair[1]]}"


def _extreme_pairs(agreement, judges):
    """Return ``(weakest, strongest)`` as ``"a~b 0.123"`` texts (``"n/a"`` when none)."""
    scored = [
        (float(value), _pair_name(judges, pair))
        for pair, value in zip(agreement.pairs, agreement.values, strict=True)
        if math.isfinite(value)
    ]
    if not scored:
        return "n/a", "n/a"
    low, high = min(scored), max(scored)
    return f"{low[1]} {low[0]:.3f}", f"{high[1]} {high[0]:.3f}"


def agreement_lines(agreements, judges, confidence=0.95):
    """Return the Markdown table lines of ``{group: JudgeAgreement}``."""
    header = ("group", "items", "measure", "mean pairwise agreement")
    header += (f"{confidence:.0%} bootstrap interval", "weakest pair", "strongest pair")
    rows = []
    for group, agreement in agreements.items():
        weakest, strongest = _extreme_pairs(agreement, judges)
        interval = f"[{_number(agreement.low)}, {_number(agreement.high)}]"
        cells = (group, agreement.n_items, agreement.measure, _number(agreement.mean))
        rows.append((*cells, interval, weakest, strongest))
    return markdown_table(header, rows, "lrlrlll")


def agreement_rows(agreements, judges, seed):
    """Return one CSV row (dict) per group, with a column per judge pair."""
    rows = []
    for group, agreement in agreements.items():
        row = {
            "group": group,
            "n_items": agreement.n_items,
            "n_judges": len(judges),
            "judges": ";".join(judges),
            "measure": agreement.measure,
            "agreement": agreement.mean,
            "low": agreement.low,
            "high": agreement.high,
            "n_boot": agreement.n_boot,
            "n_boot_defined": agreement.n_boot_defined,
            "seed": seed,
        }
        for pair, value in zip(agreement.pairs, agreement.values, strict=True):
            row[f"pair:{_pair_name(judges, pair)}"] = float(value)
        rows.append(row)
    return rows


def write_study(program, out, text, rows):
    """Write a study's ``PREFIX.md`` (``text``) and ``PREFIX.csv`` (``rows``), print ``text``.

    Both are written together, atomically (:func:`simcore.output_files.write_together`);
    never through a symbolic link. Returns the exit status: 0, or 2 (after one line naming
    the file on stderr) when ``out`` cannot be written.
    """
    from simcore.output_files import OutputError, check_output_file, write_together

    out = Path(out)
    markdown, table = out.with_suffix(".md"), out.with_suffix(".csv")
    try:
        check_output_file(markdown, "--out", "data", overwrite=True)
        check_output_file(table, "--out", "data", overwrite=True)
        write_together(
            [
                (markdown, lambda stream: stream.write(text), False),
                (table, rows_writer(rows), False),
            ]
        )
    except OutputError as error:
        print(f"{program}: {error}", file=sys.stderr)
        return 2
    print(text)
    return 0


def rows_writer(rows):
    """Return ``write(stream)`` writing dict ``rows`` as CSV (columns: the union of the keys)."""
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def write(stream):
        writer = csv.DictWriter(stream, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)

    return write


def write_csv(rows, path):
    """Write dict rows to ``path`` atomically (columns: the union of the rows' keys)."""
    from simcore.output_files import write_atomically

    return write_atomically(path, rows_writer(rows))
