"""Tables and figures of real-data cubes: P Table 3 (FR, FA, WDR) and Table 2 (ranking).

Means are taken over judge-matrix pairs, a matrix being one group of one data set
(SummEval's four dimensions are four matrices): false rejection over pass judges, false
approval over reject judges, wrong decisions over all judges.
"""

import numpy as np
import xarray as xr
import yaml

from simcore.studies.real_alt_test import advantage_table

PUBLISHED_TABLE3 = {
    # P §4.2, coverage 0.05, means over 40 judge-matrix pairs
    "bernoulli": {
        "false_rejection_rate": 0.290,
        "false_approval_rate": 0.112,
        "wrong_decision_rate": 0.250,
    },
    "strat": {
        "false_rejection_rate": 0.142,
        "false_approval_rate": 0.172,
        "wrong_decision_rate": 0.184,
    },
}
"""The paper's published means at coverage 0.05 ("Random" is compared with bernoulli)."""

RATES = ("false_rejection_rate", "false_approval_rate", "wrong_decision_rate")
SHORT = {"false_rejection_rate": "FR", "false_approval_rate": "FA", "wrong_decision_rate": "WDR"}


def _matrices(cube):
    """Split a cube into one per matrix (group), named ``title`` or ``title/group``."""
    title = cube.attrs.get("title", "data")
    if "group" in cube.dims:
        return [(f"{title}/{group}", cube.sel(group=group)) for group in cube["group"].values]
    return [(title, cube)]


def pooled(cubes):
    """Stack every judge-matrix pair of ``cubes`` along one ``pair`` dim.

    Returns
    -------
    xarray.Dataset
        The rates, ``judge_class`` and ``full_omega`` with dims ``design``, ``coverage`` and
        ``pair`` (coordinate ``"matrix: judge"``), plus ``top1_error`` and ``rank_error``
        with dim ``matrix``.
    """
    pairs, ranking = [], []
    for cube in cubes:
        for name, matrix in _matrices(cube):
            part = matrix[[*RATES, "judge_class", "full_omega"]]
            labels = [f"{name}: {judge}" for judge in matrix["judge"].values]
            pairs.append(part.rename(judge="pair").assign_coords(pair=labels))
            ranking.append(matrix[["top1_error", "rank_error"]].expand_dims(matrix=[name]))
    stacked = xr.concat(pairs, dim="pair", coords="minimal", compat="override")
    return stacked.merge(
        xr.concat(ranking, dim="matrix", coords="minimal", compat="override"), compat="override"
    )


def _percent(value):
    return "-" if not np.isfinite(value) else f"{100 * value:.1f}"


def table3(cubes):
    """P Table 3 for ``cubes``: mean FR, FA, WDR by design and coverage, then per judge."""
    data = pooled(cubes)
    counts = {
        cls: int((data["judge_class"] == code).sum())
        for code, cls in ((2, "pass"), (0, "reject"), (1, "borderline"))
    }
    lines = [
        "# Real matrices: false rejection, false approval, wrong decisions "
        "(laid out as Table 3 of the sparse-overlap paper)",
        "",
        f"{data.sizes['pair']} judge-matrix pairs ({counts['pass']} pass, {counts['reject']} "
        f"reject, {counts['borderline']} borderline by full-matrix omega). FR: mean over pass "
        "judges; FA: mean over reject judges; WDR: mean over all judges; in percent. The "
        "sparse-overlap paper (§4.2, coverage 0.05, 40 pairs): Random FR 29.0, FA 11.2, "
        "WDR 25.0; Strat FR 14.2, FA 17.2, WDR 18.4 (Random is compared with `bernoulli`).",
        "",
        "| design | coverage | FR | FA | WDR | paper FR | paper FA | paper WDR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for design in data["design"].values:
        for coverage in data["coverage"].values:
            cell = data.sel(design=design, coverage=coverage)
            means = [float(cell[name].mean(skipna=True)) for name in RATES]
            paper = PUBLISHED_TABLE3.get(str(design), {}) if coverage == 0.05 else {}
            published = [_percent(paper[name]) if name in paper else "" for name in RATES]
            lines.append(
                f"| {design} | {coverage:g} | "
                + " | ".join(map(_percent, means))
                + " | "
                + " | ".join(published)
                + " |"
            )
    first = float(data["coverage"].values[0])
    lines += [
        "",
        f"## Per judge at coverage {first:g}",
        "",
        "The rate is FR for a pass judge, FA for a reject judge and WDR for a borderline "
        "judge (for pass and reject judges WDR equals that rate), in percent.",
        "",
    ]
    header = ["pair", "omega", "class", *map(str, data["design"].values)]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    classes = {
        0: ("reject", "false_approval_rate"),
        1: ("borderline", "wrong_decision_rate"),
        2: ("pass", "false_rejection_rate"),
    }
    for pair in data["pair"].values:
        row = data.sel(pair=pair, coverage=first)
        label, rate = classes[int(row["judge_class"])]
        cells = [_percent(float(row[rate].sel(design=d))) for d in data["design"].values]
        lines.append(
            f"| {pair} | {float(row['full_omega']):.2f} | {label} ({SHORT[rate]}) | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines) + "\n"


def table2(cubes):
    """P Table 2 for ``cubes``: top-1 and rank error by coverage and design."""
    data = pooled(cubes)
    lines = [
        "# Real matrices: ranking errors (laid out as Table 2 of the sparse-overlap paper)",
        "",
        "Top-1 error: share of trials whose best judge (mean score over the leave-one-out "
        "comparisons) differs from the full matrix's best. Rank error: share of judge pairs "
        f"ordered differently. Means over {data.sizes['matrix']} matrices, in percent.",
        "",
        "| coverage | " + " | ".join(f"{d} top-1 | {d} rank" for d in data["design"].values) + " |",
        "|---|" + "---|---|" * data.sizes["design"],
    ]
    for coverage in data["coverage"].values:
        cells = []
        for design in data["design"].values:
            point = data.sel(design=design, coverage=coverage)
            cells += [
                _percent(float(point["top1_error"].mean())),
                _percent(float(point["rank_error"].mean())),
            ]
        lines.append(f"| {coverage:g} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Per matrix (bernoulli design where present, else the first design)",
        "",
        "| matrix | "
        + " | ".join(f"top-1 {c:g} | rank {c:g}" for c in data["coverage"].values)
        + " |",
        "|---|" + "---|---|" * data.sizes["coverage"],
    ]
    design = "bernoulli" if "bernoulli" in data["design"].values else data["design"].values[0]
    for matrix in data["matrix"].values:
        point = data.sel(matrix=matrix, design=design)
        cells = []
        for coverage in data["coverage"].values:
            cells += [
                _percent(float(point["top1_error"].sel(coverage=coverage))),
                _percent(float(point["rank_error"].sel(coverage=coverage))),
            ]
        lines.append(f"| {matrix} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def scoring_name(cube):
    """Return the rule's coefficient as a label: ``krippendorff_alpha (ordinal)`` and so on.

    Under the alt_test the items' scale: ``alt_test numeric``, ``alt_test weighted (linear
    weights)``; ``observed`` for its accuracy (the default, as for the point rule).
    """
    rule = (yaml.safe_load(cube.attrs["scenario"]) or {}).get("rule") or {}
    name = rule.get("coefficient", "observed")
    if rule.get("kind") == "alt_test" and rule.get("scale", "categorical") != "categorical":
        name = f"alt_test {rule['scale']}"
    if rule.get("level", "nominal") != "nominal":
        return f"{name} ({rule['level']})"
    if rule.get("weights", "identity") != "identity":
        return f"{name} ({rule['weights']} weights)"
    return name


def summary(cube):
    """Return the text ``simcore run`` and ``show`` print for a real-data cube."""
    scoring = scoring_name(cube)
    parts = [
        f"{cube.attrs.get('title', '')}: {int(cube.attrs.get('trials', 0))} trials per "
        f"cell, data {cube.attrs.get('data_source', '')}"
        + ("" if scoring == "observed" else f", scored by {scoring}"),
        cube.attrs.get("primary_layer", ""),
    ]
    for name, matrix in _matrices(cube):
        judges = ", ".join(
            f"{judge} {float(omega):.2f}"
            for judge, omega in zip(
                matrix["judge"].values, matrix["full_omega"].values, strict=True
            )
        )
        parts.append(f"{name}: full-matrix omega: {judges}")
        if "advantage_probability" in matrix:
            parts.append(advantage_table(name, matrix))
    if "n_tested" in cube:  # stores made before rule.min_pairs lack the counts
        parts.append(comparison_report(cube))
    parts.append(table3([cube]))
    parts.append(table2([cube]))
    return "\n\n".join(parts)


SPARSE_WARNING_SHARE = 0.10
"""Warn when more than this share of a cell's comparisons is empty (or left out)."""


def _min_pairs(cube):
    """Return the run's ``rule.min_pairs`` from the scenario the cube records (0 if unset)."""
    scenario = yaml.safe_load(cube.attrs.get("scenario", "") or "{}") or {}
    return int((scenario.get("rule") or {}).get("min_pairs", 0))


def _worst(share):
    """Return the largest share and the cell it is in, as ``(value, "design d, coverage c")``."""
    flat = share.stack(cell=share.dims)
    position = int(np.nanargmax(flat.values))
    cell = flat.isel(cell=position)
    where = ", ".join(
        f"{dim} {cell[dim].values.item():g}"
        if dim == "coverage"
        else f"{dim} {cell[dim].values.item()}"
        for dim in share.dims
    )
    return float(flat.values[position]), where


def comparison_report(cube):
    """Lines on the leave-one-out comparisons: empty and left-out shares, the effective K.

    A held-out human who shares no item with the pool (an empty comparison) says nothing
    about a judge; by the paper's convention it passes. When more than
    :data:`SPARSE_WARNING_SHARE` of a cell's comparisons are empty and ``rule.min_pairs``
    is 0, a WARNING line suggests ``rule.min_pairs: 1``; with ``min_pairs`` set, it warns
    when more than that share is left out (the effective K shrinks).
    """
    min_pairs = _min_pairs(cube)
    if "n_comparisons" in cube:  # the raters of the rule's form, counted per trial
        comparisons = cube["n_comparisons"]
    else:
        comparisons = cube["n_trials"] * cube["n_humans"]
    total = float(comparisons.sum())
    empty = cube["n_empty_comparisons"] / comparisons.where(comparisons > 0)
    thin = cube["n_thin_comparisons"] / comparisons.where(comparisons > 0)
    humans = int(cube["n_humans"].max())
    trials = max(float(cube["n_trials"].sum()), 1.0)
    effective = float(cube["n_tested"].sum()) / trials
    raters = f"K = {humans} per trial"
    if "rule_form" in cube.attrs:
        raters = f"{cube.attrs['rule_form']}; {total / trials:.2f} raters per trial"
    lines = [
        f"Leave-one-out comparisons ({raters}): "
        f"{100 * float(cube['n_empty_comparisons'].sum()) / max(total, 1):.1f}% have no pair; "
        f"rule.min_pairs = {min_pairs} leaves out "
        f"{100 * float(cube['n_thin_comparisons'].sum()) / max(total, 1):.1f}%; "
        f"mean effective K {effective:.2f}."
    ]
    worst_empty, where_empty = _worst(empty)
    worst_thin, where_thin = _worst(thin)
    if min_pairs == 0 and worst_empty > SPARSE_WARNING_SHARE:
        lines.append(
            f"WARNING: {100 * worst_empty:.1f}% of the comparisons at {where_empty} have no "
            "pair (the held-out human shares no item with the other humans); by the paper's "
            "convention each passes, which pushes every judge towards accept. Set "
            "rule.form: pooled to pool thin comparisons (auto does on a crowd) or "
            "rule.min_pairs: 1 to leave them out of omega (see docs/explanation/rule.md)."
        )
    elif min_pairs > 0 and worst_thin > SPARSE_WARNING_SHARE:
        lines.append(
            f"WARNING: {100 * worst_thin:.1f}% of the comparisons at {where_thin} have fewer "
            f"than {min_pairs} pairs and are left out of omega; the effective K shrinks and a "
            "trial with none left is inconclusive."
        )
    return "\n".join(lines)


def pooled_cube(cube):
    """Pooled rates by design and coverage (mean over judge-matrix pairs) for plotting."""
    data = pooled([cube])
    result = xr.Dataset({name: data[name].mean("pair", skipna=True) for name in RATES})
    for name in RATES:
        valid = data[name].notnull().sum("pair")
        spread = data[name].std("pair", skipna=True, ddof=1)
        result[f"{name}_se"] = spread / np.sqrt(valid.where(valid > 0))
    result["n_trials"] = xr.full_like(result["wrong_decision_rate"], int(cube.attrs["trials"]))
    result.attrs = dict(cube.attrs)
    return result
