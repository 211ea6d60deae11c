"""The outputs of ``simcore advise`` on a matrix with groups, one section per group.

:func:`simcore.advisor.advice.advise_groups` audits each group on its own items (or pools
them); :func:`write_group_outputs` writes the results into one ``next_round.csv`` with a
``group`` column and one ``report.md`` with a section per group, :func:`group_summary`
prints them.
"""

import re
from pathlib import Path

from simcore.advisor.report.figure import figure_writer
from simcore.advisor.report.files import (
    OUTPUT_FILES,
    next_round_rows,
    report_markdown,
    rows_writer,
    summary,
    write_outputs,
)

GROUP_FIGURE = re.compile(r"report_\d+\.png")
"""The figures of a grouped report: ``report_<n>.png``."""


def output_files(directory):
    """Return ``{name: kind}`` of the files ``advise --out directory`` may replace there.

    :data:`~simcore.advisor.report.files.OUTPUT_FILES` and every ``report_<n>.png`` already
    in the folder (a grouped report's figures), for
    :func:`simcore.output_files.check_output_folder`.
    """
    files = dict(OUTPUT_FILES)
    directory = Path(directory)
    if directory.is_dir() and not directory.is_symlink():
        for entry in directory.iterdir():
            if GROUP_FIGURE.fullmatch(entry.name):
                files[entry.name] = "figure"
    return files


def write_group_outputs(advices, directory):
    """Write the outputs of ``{group: Advice}`` (:func:`simcore.advisor.advice.advise_groups`).

    One advice (no groups, or pooled) is written by :func:`write_outputs`. Several give
    ``next_round.csv`` with a fourth column ``group``, ``report.md`` with one section per
    group (the single report's sections one level down) and ``report_<n>.png`` for the
    ``n``-th group. Returns the directory.
    """
    if len(advices) == 1:
        return write_outputs(next(iter(advices.values())), directory)
    from simcore.output_files import write_together

    directory = Path(directory)
    rows = [row + [name] for name, advice in advices.items() for row in next_round_rows(advice)]
    header = ["human", "item", "design", "group"]
    lines = ["# simcore advise, group by group", ""]
    lines.append(
        "Each group is audited on its own items (pass `--pool-groups` to audit them "
        "together): " + ", ".join(f"`{name}`" for name in advices) + "."
    )
    figures = []
    for number, (name, advice) in enumerate(advices.items(), start=1):
        section = report_markdown(advice).splitlines()[1:]  # without the title
        lines += ["", f"## Group `{name}` (figure report_{number}.png)"]
        lines += ["#" + line if line.startswith("## ") else line for line in section]
        figures.append((directory / f"report_{number}.png", figure_writer(advice), True))
    text = "\n".join(lines) + "\n"
    files = [
        (directory / "next_round.csv", rows_writer(header, rows), False),
        (directory / "report.md", lambda stream: stream.write(text), False),
    ]
    write_together(files + figures)
    return directory


def group_summary(advices):
    """Return :func:`summary` of one advice, or of each group under its name."""
    if len(advices) == 1:
        return summary(next(iter(advices.values())))
    return "\n".join(f"[{name}]\n{summary(advice)}" for name, advice in advices.items())
