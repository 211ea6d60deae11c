"""Tables and figures of real-data cubes: P Table 3 (FR, FA, WDR) and Table 2 (ranking).

Means are taken over judge-matrix pairs, a matrix being one group of one data set
(SummEval's four dimensions are four matrices): false rejection over pass judges, false
approval over reject judges, wrong decisions over all judges.
"""

import math

import numpy as np
import xarray as xr
import yaml

from simcore.printed_rates import FEW_EVENTS, rate_text, share_text
from simcore.studies.real.alt_test import advantage_table
from simcore.studies.real.scale import scale_check_lines

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

MEAN_KEY = (
    "means ± their Monte Carlo SE sqrt(sum se_i^2) / N over the N pairs, or where the pairs' "
    "pooled count has fewer than 10 events (or non-events), its exact 95% interval (< u, "
    "r [l, u])"
)
"""How the tables print a mean of rates (a mean of several rates is not one binomial count)."""

RATES = ("false_rejection_rate", "false_approval_rate", "wrong_decision_rate")
SHORT = {"false_rejection_rate": "FR", "false_approval_rate": "FA", "wrong_decision_rate": "WDR"}


def counted(number, noun, plural=None):
    """Return ``number noun`` with the noun's plural where ``number != 1`` (``1 matrix``)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def paper_applies(cubes):
    """Return whether every cube's scenario declares ``published: paper``.

    The sparse-overlap paper's means were measured on its own matrices (WAX, CeBaB aspects
    and stars, SummEval) under its rule; a scenario that reads them says so with
    ``published: paper``, and only then do the tables print the paper's numbers beside ours.
    """
    for cube in cubes:
        scenario = yaml.safe_load(cube.attrs.get("scenario", "") or "{}") or {}
        if scenario.get("published") != "paper":
            return False
    return bool(cubes)


def mean_text(mean, se, trials=None):
    """Return a mean of rates in percent as ``mean ± se``, never ``± 0.0``.

    With equal trials per pair the mean is the pooled share ``sum x_i / sum n_i``; where
    that pooled count has fewer than :data:`simcore.printed_rates.FEW_EVENTS` events (or
    non-events), the mean prints as the count's exact 95% interval
    (:func:`simcore.printed_rates.rate_text`: ``< u``, ``r [l, u]``), conservative for pairs
    of unequal rates. Otherwise ``mean ± se`` with the decimals the SE's first significant
    figure needs (at least one). NaN prints ``-``.
    """
    if not np.isfinite(mean):
        return "-"
    if trials:
        events = round(mean * trials)
        if min(events, trials - events) < FEW_EVENTS:
            return rate_text(events, trials)
    places = max(1, -math.floor(math.log10(100 * se))) if se > 0 else 1
    return f"{100 * mean:.{places}f} ± {100 * se:.{places}f}"


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
        The rates and their SEs, ``n_trials``, ``judge_class`` and ``full_omega`` with dims
        ``design``, ``coverage`` and ``pair`` (coordinate ``"matrix: judge"``), plus
        ``top1_error``, its SE, ``n_trials`` of each matrix as ``matrix_trials`` and
        ``rank_error`` with dim ``matrix``.
    """
    pairs, ranking = [], []
    for cube in cubes:
        for name, matrix in _matrices(cube):
            keep = [*RATES, *(f"{name}_se" for name in RATES), "judge_class", "full_omega"]
            part = matrix[keep].assign(n_trials=matrix["n_trials"].broadcast_like(matrix["judge"]))
            labels = [f"{name}: {judge}" for judge in matrix["judge"].values]
            pairs.append(part.rename(judge="pair").assign_coords(pair=labels))
            ranks = matrix[["top1_error", "top1_error_se", "rank_error"]]
            ranks = ranks.assign(matrix_trials=matrix["n_trials"])
            ranking.append(ranks.expand_dims(matrix=[name]))
    stacked = xr.concat(pairs, dim="pair", coords="minimal", compat="override")
    return stacked.merge(
        xr.concat(ranking, dim="matrix", coords="minimal", compat="override"), compat="override"
    )


def _percent(value):
    return "-" if not np.isfinite(value) else f"{100 * value:.1f}"


CLASS_OF_RATE = {"false_rejection_rate": 2, "false_approval_rate": 0, "wrong_decision_rate": None}
"""The judge class each pooled rate is a mean over (None: every judge)."""


def pooled_mean(cell, rate, code=None):
    """Return ``(mean, se, trials)`` of ``rate`` over the pairs of class ``code`` (all if None).

    ``se = sqrt(sum_i se_i^2) / N`` over the ``N`` pairs with a defined rate (pairs taken as
    independent); ``trials`` is their pooled trial count.
    """
    where = (
        cell[rate].notnull()
        if code is None
        else cell[rate].notnull() & (cell["judge_class"] == code)
    )
    count = int(where.sum())
    if count == 0:
        return np.nan, np.nan, 0
    mean = float(cell[rate].where(where).mean(skipna=True))
    se = float(np.sqrt((cell[f"{rate}_se"].where(where) ** 2).sum())) / count
    return mean, se, int(cell["n_trials"].where(where).sum())


def _table3_intro(data, paper):
    """Return Table 3's opening paragraph: the pairs, their classes, what a mean is."""
    counts = {
        cls: int((data["judge_class"] == code).sum())
        for code, cls in ((2, "pass"), (0, "reject"), (1, "borderline"))
    }
    text = (
        f"{counted(data.sizes['pair'], 'judge-matrix pair')} ({counts['pass']} pass, "
        f"{counts['reject']} reject, {counts['borderline']} borderline by full-matrix omega). "
        "FR: mean over pass judges; FA: mean over reject judges; WDR: mean over all judges; "
        f"in percent; {MEAN_KEY}."
    )
    if paper:
        text += (
            " The sparse-overlap paper (§4.2, coverage 0.05, 40 pairs on its WAX, CeBaB and "
            "SummEval matrices): Random FR 29.0, FA 11.2, WDR 25.0; Strat FR 14.2, FA 17.2, "
            "WDR 18.4 (Random is compared with `bernoulli`)."
        )
    return text


def table3(cubes):
    """P Table 3 for ``cubes``: mean FR, FA, WDR by design and coverage, then per judge.

    The paper's published means stand beside ours only where every cube's scenario declares
    ``published: paper`` (:func:`paper_applies`); a user's own matrix gets none.
    """
    data = pooled(cubes)
    paper = paper_applies(cubes)
    columns = ["design", "coverage", "FR", "FA", "WDR"]
    columns += ["paper FR", "paper FA", "paper WDR"] if paper else []
    lines = [
        "# Real matrices: false rejection, false approval, wrong decisions "
        "(laid out as Table 3 of the sparse-overlap paper)",
        "",
        _table3_intro(data, paper),
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for design in data["design"].values:
        for coverage in data["coverage"].values:
            cell = data.sel(design=design, coverage=coverage)
            means = [mean_text(*pooled_mean(cell, name, CLASS_OF_RATE[name])) for name in RATES]
            if paper:
                published = PUBLISHED_TABLE3.get(str(design), {}) if coverage == 0.05 else {}
                means += [_percent(published[name]) if name in published else "" for name in RATES]
            lines.append(f"| {design} | {coverage:g} | " + " | ".join(means) + " |")
    return "\n".join(lines + _per_judge(data)) + "\n"


def _per_judge(data):
    """Return the per-judge lines of Table 3 at the first coverage, one binomial rate each."""
    first = float(data["coverage"].values[0])
    lines = [
        "",
        f"## Per judge at coverage {first:g}",
        "",
        "The rate is FR for a pass judge, FA for a reject judge and WDR for a borderline "
        "judge (for pass and reject judges WDR equals that rate), in percent: r ± se, or "
        "where fewer than 10 trials (or all but fewer than 10) were wrong, the exact 95% "
        "interval (< u, r [l, u]).",
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
        cells = [
            share_text(
                float(row[rate].sel(design=d)),
                float(row[f"{rate}_se"].sel(design=d)),
                int(row["n_trials"].sel(design=d)),
            ).replace("n/a", "-")
            for d in data["design"].values
        ]
        lines.append(
            f"| {pair} | {float(row['full_omega']):.2f} | {label} ({SHORT[rate]}) | "
            + " | ".join(cells)
            + " |"
        )
    return lines


def table2(cubes):
    """P Table 2 for ``cubes``: top-1 and rank error by coverage and design."""
    data = pooled(cubes)
    lines = [
        "# Real matrices: ranking errors (laid out as Table 2 of the sparse-overlap paper)",
        "",
        "Top-1 error: share of trials whose best judge (mean score over the leave-one-out "
        "comparisons) differs from the full matrix's best. Rank error: share of judge pairs "
        f"ordered differently. Means over {counted(data.sizes['matrix'], 'matrix', 'matrices')}, "
        "in percent; per matrix, top-1 as r ± se, or where fewer than 10 trials (or all but "
        "fewer than 10) erred, the exact 95% interval (< u, r [l, u]).",
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
            top1 = point.sel(coverage=coverage)
            top1_text = share_text(
                float(top1["top1_error"]), float(top1["top1_error_se"]), int(top1["matrix_trials"])
            )
            cells += [top1_text.replace("n/a", "-"), _percent(float(top1["rank_error"]))]
        lines.append(f"| {matrix} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def scale_lines(cube, scoring):
    """Return the line naming the labels' scale and the scoring, and the scale check's lines.

    On a rating scale scored by exact match it says that the published protocol's scoring
    ignores the scale's distances, and how to run the scale-aware one.
    """
    scale = cube.attrs["label_scale"]
    words = "observed agreement (exact match)" if scoring == "observed" else scoring
    line = f"labels: {scale}; scored by {words}"
    if scale.startswith("rating scale") and scoring == "observed":
        line += (
            " (the published protocol's scoring, blind to the scale's distances; "
            "rule.coefficient: krippendorff_alpha with rule.level: ordinal scores by them)"
        )
    return [line, *scale_check_lines(cube.attrs, words)]


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
        *scale_lines(cube, scoring),
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
