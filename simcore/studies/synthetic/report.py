"""Readable tables of a synthetic cube: the long table of every cell, a grid for 2-D sweeps."""

import numpy as np
import xarray as xr
import yaml

from simcore.printed_rates import rate_text
from simcore.studies.synthetic.cube import RATE_ATTRS

RATES = ("wrong_decision_rate", "false_rejection_rate", "false_approval_rate")


def published_values(cube):
    """Return ``(values, scale, source, variable)`` from the scenario's ``published`` block.

    ``values`` is an array with the sweep's shape (NaN where the source gives none), or
    None when the scenario has no published values (a real-data scenario's ``published:
    paper`` names a source, not values: None too).
    """
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    published = scenario.get("published")
    if not isinstance(published, dict) or published.get("applies") is False:
        return None
    values = np.array(published["values"], dtype=float)  # None becomes NaN
    return (
        values,
        float(published.get("scale", 1)),
        published.get("source", ""),
        published.get("variable", "wrong_decision_rate"),
    )


def _sweep_dims(cube):
    return [dim for dim in cube["n_trials"].dims]


def _format_coord(value):
    if isinstance(value, float | np.floating):
        return f"{value:g}"
    return str(value)


def _plot_variables(cube):
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    return list((scenario.get("plot") or {}).get("variables") or [])


def _rule_columns(cube):
    """Return the columns only some rules fill: effective K, inconclusive shares.

    Effective K shows for alt_test and for a point rule with ``rule.min_pairs`` set.
    """
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    rule, sweep = scenario.get("rule") or {}, scenario.get("sweep") or {}
    kinds = {rule.get("kind"), *(sweep.get("rule") or [])}
    min_pairs = {rule.get("min_pairs", 0), *(sweep.get("min_pairs") or [])}
    columns = []
    if "alt_test" in kinds or min_pairs != {0}:
        columns.append("effective_k")
    if "inconclusive_rate" in cube and bool((cube["n_inconclusive"] > 0).any()):
        columns.append("inconclusive_rate")
    return columns


RATE_KEY = (
    "rates in %: r ± se (binomial SE); where fewer than 10 events or non-events, the exact "
    "95% interval: < u (none), > l (every trial), r [l, u]"
)
"""The line under a table that says how its rates print (:mod:`simcore.printed_rates`)."""


def _rate_text(cell, name):
    """Return a binomial rate of ``cell`` as printed: one per judge, ``/``-joined; ``-`` if none.

    The counts are ``RATE_ATTRS[name]``'s numerator and denominator; the text is
    :func:`simcore.printed_rates.rate_text` (``r ± se``, or the exact 95% interval with fewer
    than 10 events or non-events).
    """
    numerator, denominator = RATE_ATTRS[name][:2]
    events, trials = xr.broadcast(cell[numerator], cell[denominator])
    pairs = zip(np.ravel(events.values), np.ravel(trials.values), strict=True)
    return "/".join("-" if int(n) == 0 else rate_text(x, n) for x, n in pairs)


def _value_text(value, percent=True):
    """Return a derived value (no binomial count): a number, or ``a/b/c`` across judges."""
    values = np.atleast_1d(np.asarray(value, dtype=float))
    scale = 100 if percent else 1
    parts = [
        "-" if np.isnan(v) else (f"{scale * v:.1f}" if percent else f"{v:.4g}") for v in values
    ]
    return "/".join(parts)


def long_table(cube):
    """Return one row per cell: coordinates, trials, decision rates and plotted variables.

    Rates are in percent as :func:`simcore.printed_rates.rate_text` prints them (``r ± se``,
    or the exact 95% interval with fewer than 10 events or non-events; with several judges,
    one per judge separated by ``/``); further columns are the rule's own statistics and the
    variables the scenario's plot block names. A line under the table says how rates print.
    """
    dims = _sweep_dims(cube)
    extra = _rule_columns(cube) + [
        name
        for name in _plot_variables(cube)
        if name not in RATES and name in cube and name not in _rule_columns(cube)
    ]
    header = (
        [*dims, "trials", "ref_accept"]
        + [f"{name.removesuffix('_rate').replace('_', ' ')} %" for name in RATES]
        + ["empty", "degenerate"]
        + [name.replace("_", " ") for name in extra]
    )
    rows = []
    for index in np.ndindex(*cube["n_trials"].shape):
        cell = cube.isel(dict(zip(dims, index, strict=True)))
        row = [_format_coord(cell[dim].item()) for dim in dims]
        row += [str(int(cell["n_trials"])), _value_text(cell["n_ref_accept"], percent=False)]
        row += [_rate_text(cell, name) for name in RATES]
        row += [str(int(cell["n_empty_comparisons"])), str(int(cell["n_degenerate_scores"]))]
        row += [
            _rate_text(cell, name)
            if name in RATE_ATTRS
            else _value_text(cell[name], percent=name.endswith(("_rate", "_error")))
            for name in extra
        ]
        rows.append(row)
    return _render(header, rows) + "\n" + RATE_KEY


def _grid_cell(cell, variable):
    """One grid cell: a binomial rate by its counts, else the value ± its SE; NaN is ``-``."""
    if variable in RATE_ATTRS:
        return "-" if int(cell[RATE_ATTRS[variable][1]]) == 0 else _rate_text(cell, variable)
    rate = float(cell[variable]) * 100
    return "-" if np.isnan(rate) else f"{rate:.1f} ± {float(cell[f'{variable}_se']) * 100:.1f}"


def grid_table(cube, variable="wrong_decision_rate"):
    """For a 2-D sweep: ``variable`` in percent as printed rates, and published values if any.

    A binomial rate prints as :func:`simcore.printed_rates.rate_text` (``r ± se``, or its
    exact 95% interval with fewer than 10 events or non-events); the published value, where
    the scenario gives one, follows in parentheses.
    """
    dims = _sweep_dims(cube)
    if len(dims) != 2 or "judge" in cube[variable].dims:
        return None  # several judges: the long table gives one value per judge
    published = published_values(cube)
    row_dim, column_dim = dims
    header = [f"{row_dim} \\ {column_dim}"] + [_format_coord(v) for v in cube[column_dim].values]
    rows = []
    for i, row_value in enumerate(cube[row_dim].values):
        row = [_format_coord(row_value)]
        for j in range(cube.sizes[column_dim]):
            text = _grid_cell(cube.isel({row_dim: i, column_dim: j}), variable)
            if published is not None and published[3] == variable:
                paper = published[0][i, j] * 100 / published[1]
                if not np.isnan(paper):
                    text += f" ({paper:g})"
            row.append(text)
        rows.append(row)
    title = (
        f"{variable.replace('_', ' ')} (%) ± standard error; [l, u]: exact 95% interval "
        "where fewer than 10 events or non-events (< u where none)"
    )
    if published is not None and published[3] == variable:
        title += f"; in parentheses: {published[2]}"
    return title + "\n" + _render(header, rows)


def summary(cube):
    """Return the text ``simcore run`` and ``simcore show`` print for a synthetic cube."""
    parts = [
        f"{cube.attrs.get('title', 'cube')}: {int(cube['n_trials'].max())} trials per "
        f"cell, reference {cube.attrs.get('reference', '?')}, seed "
        f"{cube.attrs.get('root_seed', '?')}",
        engine_line(cube),
    ]
    if "min_items" in cube:
        from simcore.studies.planning_table import write_plan_table

        parts.append(write_plan_table(cube))
        return "\n".join(parts[:2]) + "\n\n" + "\n\n".join(parts[2:])
    grid = grid_table(cube)
    if grid:
        parts.append(grid)
    parts.append(long_table(cube))
    parts = ["\n".join(parts[:2]), *parts[2:]]
    stale = (yaml.safe_load(cube.attrs.get("scenario", "")) or {}).get("published") or {}
    if stale.get("applies") is False:
        parts.append(
            f"published values ({stale.get('source', '')}) not compared: this run changes "
            f"{', '.join(stale.get('overridden', []))}, so they are not its numbers"
        )
    return "\n\n".join(parts)


def engine_line(cube):
    """Say which engine drew the cells' trials, and the version of its streams.

    Read from the per-cell trial counts of each engine (``n_trials_bitset_engine``,
    ``n_trials_counts_engine``; the rest are the items engine's) and the cube's
    ``engine_streams``.
    """
    n_cells = int((cube["n_trials"] > 0).sum())
    cells = {
        engine: int((cube[f"n_trials_{engine}_engine"] > 0).sum())
        for engine in ("bitset", "counts")
    }
    cells["items"] = n_cells - cells["bitset"] - cells["counts"]
    used = [engine for engine in ("bitset", "counts", "items") if cells[engine] > 0]
    if not used:
        return "engine: no trials run"
    versions = dict(part.rsplit(" ", 1) for part in cube.attrs["engine_streams"].split(", "))
    streams = ", ".join(f"{engine} {versions[engine]}" for engine in used)
    if len(used) == 1:
        return f"engine: {used[0]} in every cell (streams: {streams})" + _weighted_note(cube)
    spread = ", ".join(f"{engine} in {cells[engine]}" for engine in used)
    return f"engines: {spread} of {n_cells} cells (streams: {streams})" + _weighted_note(cube)


def _weighted_note(cube):
    """Say why ``engine: auto`` left a weighted coefficient's cells to the other engines."""
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    rule, sweep = scenario.get("rule") or {}, scenario.get("sweep") or {}
    levels = [rule.get("level", "nominal"), *sweep.get("level", [])]
    weights = [rule.get("weights", "identity"), *sweep.get("weights", [])]
    weighted = any(level != "nominal" for level in levels) or any(
        weight != "identity" for weight in weights
    )
    if not weighted or scenario.get("engine", "auto") != "auto":
        return ""
    return (
        "; the weighted cells run on the counts or items engine: a weighted coefficient "
        "reads each comparison's whole pair table, and the bitset engine's planes give "
        "its margins only"
    )


def _render(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)
