"""P's real-data numbers beside ours: Table 3 with P's composition and the Strat variants.

P (§4.2) pools 40 judge-matrix pairs: 10 judges x 4 matrices (WAX, CeBaB aspects, CeBaB
stars, SummEval as one matrix), 20 pass, 16 reject and 4 borderline by full-matrix omega.
:func:`composition_table` writes the same table over the cubes given (one matrix per cube
and group; SummEval's store made without ``group_separator`` is one matrix of all its
(summary, dimension) items). :func:`variants_report` sets every design of the cubes beside
P's published Strat numbers (Table 3 means, Table 4 borderline WDR, the agreement row of
CeBaB stars) and says which reading of Strat comes closest.

Pooled means are over the judge-matrix pairs of a class; their Monte Carlo standard error
is ``sqrt(sum_i se_i^2) / N`` over the ``N`` pairs averaged (each pair's binomial SE,
pairs treated as independent).
"""

import numpy as np
import xarray as xr
import yaml

from simcore.studies.real.tables import RATES, _matrices, _percent, counted, mean_text

PAPER_PAIRS = {"pass": 20, "reject": 16, "borderline": 4}
"""P's judge classes over its 40 judge-matrix pairs."""

PAPER_TABLE3 = {
    # P Table 3: means over the 40 pairs, FR over pass, FA over reject, WDR over all judges
    ("bernoulli", 0.05): (0.290, 0.112, 0.250),
    ("strat", 0.05): (0.142, 0.172, 0.184),
    ("strat", 0.25): (0.027, 0.114, 0.092),
    ("strat", 0.50): (0.007, 0.110, 0.077),
}
PAPER_BORDERLINE = {0.05: 0.440, 0.25: 0.323, 0.50: 0.295}
"""P Table 4: Strat's WDR of the borderline (pass at the full matrix) judges."""

PAPER_AGREEMENT = {0.05: (0.001, 0.074, 0.49), 0.25: (0.001, 0.028, 0.93)}
"""P's agreement table, CeBaB stars under Strat: bias, SD, reliability."""

AGREEMENT_MATRIX = "cebab_stars"
CLASSES = {2: "pass", 0: "reject", 1: "borderline"}
CLASS_RATE = {"pass": "false_rejection_rate", "reject": "false_approval_rate"}


def pairs(cubes):
    """Stack every judge-matrix pair of ``cubes``: rates, SEs, trials, class, on dim ``pair``."""
    parts = []
    for cube in cubes:
        for name, matrix in _matrices(cube):
            keep = [*RATES, *(f"{rate}_se" for rate in RATES), "judge_class"]
            labels = [f"{name}: {judge}" for judge in matrix["judge"].values]
            part = matrix[keep].assign(n_trials=matrix["n_trials"].broadcast_like(matrix["judge"]))
            parts.append(part.rename(judge="pair").assign_coords(pair=labels))
    return xr.concat(parts, dim="pair", coords="minimal", compat="override")


def class_mean(data, rate, code=None):
    """Mean of ``rate`` over the pairs of class ``code`` (all if None) and its Monte Carlo SE.

    Returns ``(mean, se, n, trials)`` arrays over the remaining dims; ``se = sqrt(sum
    se_i^2) / n``, ``trials`` the pooled trials of the ``n`` pairs with a defined rate.
    """
    where = True if code is None else data["judge_class"] == code
    values = data[rate].where(where)
    count = values.notnull().sum("pair")
    mean = values.mean("pair", skipna=True)
    se = np.sqrt((data[f"{rate}_se"].where(where) ** 2).sum("pair")) / count.where(count > 0)
    trials = data["n_trials"].where(values.notnull()).sum("pair")
    return mean, se, count, trials


def class_counts(cubes):
    """Return ``[(matrix, n_judges, pass, reject, borderline)]`` by full-matrix omega."""
    rows = []
    for cube in cubes:
        for name, matrix in _matrices(cube):
            codes = matrix["judge_class"].values
            rows.append((name, len(codes), *(int((codes == c).sum()) for c in (2, 0, 1))))
    return rows


def _cell(mean, se, trials=None):
    """Return a pooled mean as printed (:func:`simcore.studies.real.tables.mean_text`)."""
    return mean_text(mean, se, int(trials) if trials is not None else None)


def composition_table(cubes):
    """P Table 3 with P's composition: class counts beside 20/16/4, means beside P's."""
    counts = class_counts(cubes)
    totals = [sum(row[i] for row in counts) for i in range(1, 5)]
    lines = [
        "# Real matrices, P's composition: false rejection, false approval, wrong decisions",
        "",
        "One matrix per data set, as P pools them (SummEval's four dimensions pooled into one "
        "matrix of all its (summary, dimension) items: one omega per judge from the rule on "
        "every item, the primary layer, strata and panels over all of them). Judge classes by "
        "full-matrix omega (pass >= 0.6, reject < 0.5, else borderline).",
        "",
        "| matrix | judges | pass | reject | borderline |",
        "|---|---|---|---|---|",
        *(f"| {name} | {n} | {p} | {r} | {b} |" for name, n, p, r, b in counts),
        f"| **ours** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} |",
        f"| **P** | 40 | {PAPER_PAIRS['pass']} | {PAPER_PAIRS['reject']} | "
        f"{PAPER_PAIRS['borderline']} |",
        "",
        f"Means in percent ± Monte Carlo SE (or the pooled count's exact 95% interval where "
        f"it has fewer than 10 events) over our {totals[0]} pairs beside P's 40 (P's "
        "Random is compared with `bernoulli`; P publishes Random at 0.05 only, Strat at "
        "0.05, 0.25 and 0.50).",
        "",
        "| design | coverage | FR | FA | WDR | P FR | P FA | P WDR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    data = pairs(cubes)
    for design in data["design"].values:
        for coverage in data["coverage"].values:
            cell = data.sel(design=design, coverage=coverage)
            ours = [
                _cell(*(float(class_mean(cell, rate, code)[i]) for i in (0, 1, 3)))
                for rate, code in zip(RATES, (2, 0, None), strict=True)
            ]
            paper = PAPER_TABLE3.get((str(design), round(float(coverage), 2)))
            published = [_percent(v) for v in paper] if paper else ["", "", ""]
            lines.append(f"| {design} | {coverage:g} | " + " | ".join(ours + published) + " |")
    return "\n".join(lines) + "\n"


def coefficient(cube):
    """Return the agreement coefficient the cube's scenario scored with."""
    scenario = yaml.safe_load(cube.attrs.get("scenario", "") or "{}") or {}
    return str((scenario.get("rule") or {}).get("coefficient", "observed"))


def _agreement(cubes, design, coverage):
    """CeBaB stars' human-pool agreement (bias, SD, reliability) under ``design``, or NaNs."""
    for cube in cubes:
        source = str(cube.attrs.get("data_source", ""))
        if AGREEMENT_MATRIX not in source or "group" in cube.dims:
            continue
        if design in cube["design"].values and np.isclose(cube["coverage"], coverage).any():
            cell = cube.sel(design=design).sel(coverage=coverage, method="nearest")
            names = ("agreement_bias", "agreement_sd", "agreement_reliability")
            return tuple(float(cell[name]) for name in names)
    return (np.nan, np.nan, np.nan)


def variant_rows(cubes, agreement_cubes=None):
    """Measure every design x coverage of ``cubes`` on P's published quantities.

    Returns
    -------
    list of dict
        Per design and coverage: ``FR``, ``FA``, ``WDR`` (means over pass, reject, all
        pairs), ``borderline`` (WDR over borderline pairs), each as ``(mean, se)``;
        ``agreement`` (CeBaB stars bias, SD, reliability, from ``agreement_cubes`` when
        given, e.g. a run scored with a chance-corrected coefficient), ``observed_agreement``
        (the same from ``cubes``); ``dFR``, ``dFA`` (minus
        ``bernoulli`` at the same coverage, NaN without it).
    """
    data = pairs(cubes)
    rows = []
    for design in data["design"].values:
        for coverage in data["coverage"].values:
            cell = data.sel(design=design, coverage=coverage)
            row = {"design": str(design), "coverage": round(float(coverage), 2)}
            for short, rate, code in (
                ("FR", "false_rejection_rate", 2),
                ("FA", "false_approval_rate", 0),
                ("WDR", "wrong_decision_rate", None),
                ("borderline", "wrong_decision_rate", 1),
            ):
                mean, se, _, trials = class_mean(cell, rate, code)
                row[short] = (float(mean), float(se))
                row.setdefault("trials", {})[short] = int(trials)
            row["observed_agreement"] = _agreement(cubes, design, coverage)
            row["agreement"] = _agreement(agreement_cubes or cubes, design, coverage)
            rows.append(row)
    random = {row["coverage"]: row for row in rows if row["design"] == "bernoulli"}
    for row in rows:
        base = random.get(row["coverage"])
        row["dFR"] = row["FR"][0] - base["FR"][0] if base else np.nan
        row["dFA"] = row["FA"][0] - base["FA"][0] if base else np.nan
    return rows


def deviations(rows, design):
    """Return ``[(what, ours, paper, |ours - paper| / se)]`` of ``design`` on P's Strat numbers.

    The published Strat quantities: Table 3's FR, FA, WDR at 0.05, 0.25, 0.50 and Table 4's
    borderline WDR (rates, compared on the pooled mean with its Monte Carlo SE), and the
    CeBaB stars agreement SD and reliability at 0.05 and 0.25 (compared without an SE:
    the last field is NaN).
    """
    found = []
    for row in (r for r in rows if r["design"] == design):
        coverage = row["coverage"]
        paper = PAPER_TABLE3.get(("strat", coverage))
        published = dict(zip(("FR", "FA", "WDR"), paper, strict=True)) if paper else {}
        if coverage in PAPER_BORDERLINE:
            published["borderline"] = PAPER_BORDERLINE[coverage]
        for what, value in published.items():
            mean, se = row[what]
            if np.isfinite(mean):
                found.append(
                    (f"{what} {coverage:g}", mean, value, abs(mean - value) / max(se, 1e-3))
                )
        if coverage in PAPER_AGREEMENT:
            for index, what in ((1, "agreement SD"), (2, "reliability")):
                ours = row["agreement"][index]
                if np.isfinite(ours):
                    found.append(
                        (f"{what} {coverage:g}", ours, PAPER_AGREEMENT[coverage][index], np.nan)
                    )
    return found


def _points(value, digits=1):
    return "-" if not np.isfinite(value) else f"{100 * value:+.{digits}f}"


def _direction(row):
    """P's direction at a coverage: lower FR and higher FA than Random."""
    if not np.isfinite(row["dFR"]) or row["design"] == "bernoulli":
        return "-"
    return "yes" if row["dFR"] < 0 and row["dFA"] > 0 else "no"


def _measured_table(rows):
    """Return the variants x coverages table of measured numbers, P's rows after."""
    lines = [
        "| design | coverage | FR | FA | WDR | borderline WDR | ΔFR | ΔFA | P's direction "
        "| stars bias | stars SD | stars reliability |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        bias, sd, reliable = row["agreement"]
        lines.append(
            f"| {row['design']} | {row['coverage']:g} | "
            + " | ".join(
                _cell(*row[k], row["trials"][k]) for k in ("FR", "FA", "WDR", "borderline")
            )
            + f" | {_points(row['dFR'])} | {_points(row['dFA'])} | {_direction(row)} | "
            + " | ".join("-" if not np.isfinite(v) else f"{v:.3f}" for v in (bias, sd))
            + f" | {'-' if not np.isfinite(reliable) else f'{reliable:.2f}'} |"
        )
    random = PAPER_TABLE3[("bernoulli", 0.05)]
    lines.append(
        "| **P Random** | 0.05 | " + " | ".join(_percent(v) for v in random) + " | | | | | | | |"
    )
    for coverage in (0.05, 0.25, 0.50):
        fr, fa, wdr = PAPER_TABLE3[("strat", coverage)]
        bias, sd, reliable = PAPER_AGREEMENT.get(coverage, (np.nan, np.nan, np.nan))
        direction = (
            f"{_points(fr - random[0])} | {_points(fa - random[1])} | yes"
            if coverage == 0.05
            else "| |"
        )
        agreement = "| |" if not np.isfinite(sd) else f"{bias:.3f} | {sd:.3f} | {reliable:.2f}"
        lines.append(
            f"| **P Strat** | {coverage:g} | {_percent(fr)} | {_percent(fa)} | {_percent(wdr)} "
            f"| {_percent(PAPER_BORDERLINE[coverage])} | {direction} | {agreement} |"
        )
    return lines


def _observed_agreement(rows):
    """Lines: CeBaB stars' agreement under the rates' own coefficient, beside P's row."""
    lines = [
        "CeBaB stars, human-pool agreement under the coefficient of the rates' runs "
        "(bias / SD / reliability; P: .001 / .074 / .49 at 0.05, .001 / .028 / .93 at 0.25):",
        "",
        "| design | " + " | ".join(f"{c:g}" for c in PAPER_AGREEMENT) + " |",
        "|---|" + "---|" * len(PAPER_AGREEMENT),
    ]
    for design in dict.fromkeys(row["design"] for row in rows):
        cells = []
        for coverage in PAPER_AGREEMENT:
            row = next(
                (r for r in rows if r["design"] == design and r["coverage"] == coverage), None
            )
            values = row["observed_agreement"] if row else (np.nan,) * 3
            cells.append(" / ".join("-" if not np.isfinite(v) else f"{v:.3f}" for v in values))
        lines.append(f"| {design} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def per_matrix(cubes, coverage):
    """Lines: mean FR / FA per matrix (columns) and design (rows) at ``coverage``."""
    names = [name for cube in cubes for name, _ in _matrices(cube)]
    lines = [
        f"Per matrix at coverage {coverage:g}: mean FR / FA over its pass / reject judges.",
        "",
        "| design | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    matrices = [matrix for cube in cubes for _, matrix in _matrices(cube)]
    for design in matrices[0]["design"].values:
        cells = []
        for matrix in matrices:
            point = matrix.sel(design=design).sel(coverage=coverage, method="nearest")
            cells.append(
                " / ".join(
                    _percent(float(point[rate].mean(skipna=True)))
                    for rate in ("false_rejection_rate", "false_approval_rate")
                )
            )
        lines.append(f"| {design} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def closeness(rows):
    """Per design: gaps to P's Strat numbers, the worst rate, the shift from Random at 0.05.

    ``mean_abs``: mean |ours - P| over P's Strat rates (:func:`deviations`); ``gap_005``:
    the same over Table 3's FR, FA, WDR at 0.05 only; ``sd_gap``, ``bias_gap``: mean
    |ours - P| of the CeBaB stars agreement SD and bias at 0.05 and 0.25; ``shift``: ``(dFR,
    dFA)`` at 0.05; ``direction``: P's direction at 0.05.
    """
    result = []
    for design in dict.fromkeys(row["design"] for row in rows):
        found = deviations(rows, design)
        rates = [f for f in found if np.isfinite(f[3])]
        if not rates:
            continue
        first = next((r for r in rows if r["design"] == design and r["coverage"] == 0.05), None)
        early = [abs(f[1] - f[2]) for f in rates if f[0] in ("FR 0.05", "FA 0.05", "WDR 0.05")]
        gaps = {"SD": [], "bias": []}
        for row in (r for r in rows if r["design"] == design and r["coverage"] in PAPER_AGREEMENT):
            bias, sd, _ = row["agreement"]
            gaps["SD"].append(abs(sd - PAPER_AGREEMENT[row["coverage"]][1]))
            gaps["bias"].append(abs(bias - PAPER_AGREEMENT[row["coverage"]][0]))
        result.append(
            {
                "design": design,
                "mean_abs": float(np.mean([abs(f[1] - f[2]) for f in rates])),
                "gap_005": float(np.mean(early)) if early else np.nan,
                "n_rates": len(rates),
                "worst": max(rates, key=lambda f: f[3]),
                "sd_gap": float(np.mean(gaps["SD"])) if gaps["SD"] else np.nan,
                "bias_gap": float(np.mean(gaps["bias"])) if gaps["bias"] else np.nan,
                "shift": (first["dFR"], first["dFA"]) if first else (np.nan, np.nan),
                "direction": _direction(first) if first else "-",
            }
        )
    return sorted(result, key=lambda r: r["mean_abs"])


def variants_report(cubes, agreement_cubes=None):
    """Markdown: every design's measured numbers beside P's Strat, then which comes closest.

    ``agreement_cubes`` (optional) give the CeBaB stars agreement columns (a run of the
    same designs scored with another coefficient); the rates always come from ``cubes``.
    """
    from simcore.realdata.strat_variants import DEFINITIONS

    rows = variant_rows(cubes, agreement_cubes)
    scored = coefficient((agreement_cubes or cubes)[0])
    counts = class_counts(cubes)
    totals = [sum(row[i] for row in counts) for i in range(1, 5)]
    designs = list(dict.fromkeys(row["design"] for row in rows))
    lines = [
        "# Which reading of P's Strat? Every design beside P's published numbers",
        "",
        f"{totals[0]} judge-matrix pairs ({totals[1]} pass, {totals[2]} reject, {totals[3]} "
        f"borderline) over {counted(len(counts), 'matrix', 'matrices')} "
        f"({', '.join(row[0] for row in counts)}); "
        "P: 40 pairs (20 pass, 16 reject, 4 borderline). FR over pass, FA over reject, WDR "
        "over all pairs, borderline WDR over the borderline pairs (P Table 4), in percent ± "
        "Monte Carlo SE (or the pooled count's exact 95% interval where it has fewer than 10 "
        "events). ΔFR, ΔFA: minus `bernoulli` (P's Random) at the same coverage, in "
        "points; P's direction: lower FR and higher FA than Random. Stars: the human-pool "
        f"agreement on CeBaB stars scored with `{scored}` (bias, SD of the thinned estimate, "
        "share within 0.05 of the full matrix's; observed agreement in the section after).",
        "",
        "Designs:",
        "",
        *(f"- `{name}`: {DEFINITIONS[name]}." for name in designs),
        "",
        *_measured_table(rows),
        "",
        *_observed_agreement(rows),
        *per_matrix(cubes, 0.05),
        *per_matrix(cubes, 0.5),
        "## Closeness to P's Strat",
        "",
        "Mean |ours - P| over P's published Strat rates (Table 3 FR, FA, WDR at 0.05, 0.25, "
        "0.50 and Table 4's borderline WDR where we have borderline pairs), in points, and "
        "over Table 3 at 0.05 alone; the rate furthest from P in Monte Carlo SEs; the mean "
        "gaps of the CeBaB stars agreement bias and SD at 0.05 and 0.25; the shift from "
        "Random at 0.05 (P: ΔFR -14.8, ΔFA +6.0) and P's direction.",
        "",
        "| design | mean gap | gap at 0.05 | rates | furthest (ours vs P, SEs) | stars bias "
        "gap | stars SD gap | ΔFR, ΔFA at 0.05 | direction |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    ranked = closeness(rows)
    for entry in ranked:
        what, ours, paper, z = entry["worst"]
        gaps = [
            "-" if not np.isfinite(entry[k]) else f"{entry[k]:.3f}" for k in ("bias_gap", "sd_gap")
        ]
        shift = ", ".join(_points(v) for v in entry["shift"])
        lines.append(
            f"| {entry['design']} | {100 * entry['mean_abs']:.1f} | {100 * entry['gap_005']:.1f} "
            f"| {entry['n_rates']} | {what}: {100 * ours:.1f} vs {100 * paper:.1f} ({z:.0f}) | "
            f"{gaps[0]} | {gaps[1]} | {shift} | {entry['direction']} |"
        )
    with_direction = [e for e in ranked if e["direction"] == "yes"]
    lines += ["", _verdict(ranked, with_direction)]
    return "\n".join(lines) + "\n"


RANDOM_READINGS = ("bernoulli", "exact_m")
"""Readings of P's Random, left out of the verdict on Strat."""


def _verdict(ranked, with_direction):
    """Sentences: the closest reading of Strat overall, with P's direction, and P's fit."""
    readings = [e for e in ranked if e["design"] not in RANDOM_READINGS]
    if not readings:
        return "No reading of Strat has a coverage P publishes."
    best = readings[0]
    text = (
        f"Closest reading of Strat overall: `{best['design']}` (mean gap "
        f"{100 * best['mean_abs']:.1f} points, direction at 0.05: {best['direction']})."
    )
    lead = next((e for e in readings if e in with_direction), None)
    if lead:
        text += (
            f" Closest among the readings with P's direction: `{lead['design']}` (mean gap "
            f"{100 * lead['mean_abs']:.1f} points; furthest: {lead['worst'][0]}, "
            f"{100 * lead['worst'][1]:.1f} vs P's {100 * lead['worst'][2]:.1f})."
        )
    else:
        text += " No reading lowers FR and raises FA against Random at 0.05."
    fits = [e["design"] for e in readings if e["worst"][3] <= 2]
    text += (
        f" Within 2 Monte Carlo SEs of every published Strat rate: {', '.join(fits)}."
        if fits
        else " No reading is within 2 Monte Carlo SEs of every published Strat rate."
    )
    return text
