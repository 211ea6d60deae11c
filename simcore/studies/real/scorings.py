"""One matrix scored several ways: the full-matrix verdicts and their sparse-overlap risk.

``simcore tables STORE ... --scorings FILE`` reads real-data stores that differ in the
rule's coefficient (a nominal one and its weighted form, say) and lays them side by side:
per matrix and scoring, the judges the full matrix accepts, the mean wrong-decision rate at
each coverage (the first design of the stores, ``bernoulli`` where present) and the human
pool's agreement; then every judge whose full-matrix verdict changes with the scoring.
"""

from simcore.studies.real.tables import _matrices, _percent, scoring_name


def _rows(cubes):
    """Return ``(matrix, scoring, design, view)`` for every matrix of every cube."""
    rows = []
    for cube in cubes:
        design = "bernoulli" if "bernoulli" in cube["design"].values else cube["design"].values[0]
        for matrix, view in _matrices(cube.sel(design=design)):
            rows.append((matrix, scoring_name(cube), str(design), view))
    return rows


def scorings_table(cubes):
    """Return the Markdown report of ``cubes`` scored several ways (module docstring)."""
    rows = _rows(cubes)
    coverages = rows[0][3]["coverage"].values
    designs = sorted({design for _, _, design, _ in rows})
    lines = [
        "# Real matrices under several scorings: verdicts and sparse-overlap risk",
        "",
        "Per matrix and scoring: the judges the full matrix accepts, the mean wrong-decision "
        f"rate over its judges at each coverage ({', '.join(designs)} design, in percent) "
        "and the human pool's agreement on the full matrix under that scoring.",
        "",
        "| matrix | scoring | accepted (full) | "
        + " | ".join(f"WDR {c:g}" for c in coverages)
        + " | pool agreement |",
        "|---|---|---|" + "---|" * len(coverages) + "---|",
    ]
    for matrix, scoring, _, view in sorted(rows, key=lambda row: row[:2]):
        accepted = int(view["full_accept"].sum())
        rates = [
            _percent(float(view["wrong_decision_rate"].sel(coverage=c).mean())) for c in coverages
        ]
        agreement = float(view["full_agreement"])
        lines.append(
            f"| {matrix} | {scoring} | {accepted} of {view.sizes['judge']} | "
            + " | ".join(rates)
            + f" | {agreement:.3f} |"
        )
    lines += ["", *_changed_verdicts(rows)]
    return "\n".join(lines) + "\n"


def _changed_verdicts(rows):
    """Return the lines listing each judge whose full-matrix verdict differs by scoring."""
    lines = ["## Judges whose full-matrix verdict changes with the scoring", ""]
    by_matrix = {}
    for matrix, scoring, _, view in rows:
        by_matrix.setdefault(matrix, []).append((scoring, view))
    changed = 0
    for matrix, scored in sorted(by_matrix.items()):
        judges = scored[0][1]["judge"].values
        for judge in judges:
            verdicts = [
                (scoring, bool(view["full_accept"].sel(judge=judge)), view)
                for scoring, view in scored
            ]
            if len({accepted for _, accepted, _ in verdicts}) > 1:
                changed += 1
                parts = [
                    f"{scoring}: {'accept' if accepted else 'reject'} "
                    f"(omega {float(view['full_omega'].sel(judge=judge)):.2f})"
                    for scoring, accepted, view in verdicts
                ]
                lines.append(f"- {matrix}: {judge}: " + "; ".join(parts))
    if not changed:
        lines.append("- none: every judge keeps its full-matrix verdict under every scoring")
    return lines
