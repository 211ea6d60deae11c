"""The outputs of ``simcore advise`` on a matrix with groups, one section per group.

:func:`simcore.advise.advice.advise_groups` audits each group on its own items (or pools
them); :func:`write_group_outputs` writes the results into one ``next_round.csv`` with a
``group`` column and one ``report.md`` with a section per group, :func:`group_summary`
prints them.
"""

import csv
from pathlib import Path

from simcore.advise.report_figure import report_figure
from simcore.advise.report_files import next_round_rows, report_markdown, summary, write_outputs


def write_group_outputs(advices, directory):
    """Write the outputs of ``{group: Advice}`` (:func:`simcore.advise.advice.advise_groups`).

    One advice (no groups, or pooled) is written by :func:`write_outputs`. Several give
    ``next_round.csv`` with a fourth column ``group``, ``report.md`` with one section per
    group (the single report's sections one level down) and ``report_<n>.png`` for the
    ``n``-th group. Returns the directory.
    """
    if len(advices) == 1:
        return write_outputs(next(iter(advices.values())), directory)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "next_round.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["human", "item", "design", "group"])
        for name, advice in advices.items():
            writer.writerows(row + [name] for row in next_round_rows(advice))
    lines = ["# simcore advise, group by group", ""]
    lines.append(
        "Each group is audited on its own items (pass `--pool-groups` to audit them "
        "together): " + ", ".join(f"`{name}`" for name in advices) + "."
    )
    for number, (name, advice) in enumerate(advices.items(), start=1):
        section = report_markdown(advice).splitlines()[1:]  # without the title
        lines += ["", f"## Group `{name}` (figure report_{number}.png)"]
        lines += ["#" + line if line.startswith("## ") else line for line in section]
        report_figure(advice, directory / f"report_{number}.png")
    (directory / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory


def group_summary(advices):
    """Return :func:`summary` of one advice, or of each group under its name."""
    if len(advices) == 1:
        return summary(next(iter(advices.values())))
    return "\n".join(f"[{name}]\n{summary(advice)}" for name, advice in advices.items())
