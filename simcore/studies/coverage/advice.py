"""Which interval to use, per region of the coverage grid, computed from the cube.

A region is a calibration-size band (``small``: ``n_cal <`` :data:`SMALL_N_CAL`, ``large``:
the rest), a judge and a true failure rate, over every production size of the grid. A method
*qualifies* in a region when in every one of its cells its coverage is at least the nominal
level minus 3 binomial SEs (the SE at the nominal level over the trials it did not refuse)
and it refuses at most :data:`REFUSAL_LIMIT` of the trials (an interval that is usually
refused is no answer). The recommendation is the qualifying method with the smallest mean
width over the region's cells; where none qualifies, the method with the highest worst-cell
coverage among those refusing at most :data:`REFUSAL_LIMIT` (if any; else among all) is
named, marked as falling short.
"""

from dataclasses import dataclass

import numpy as np

SMALL_N_CAL = 100
"""Calibration sizes below this are the ``small`` band, the rest ``large``."""

REFUSAL_LIMIT = 0.05
"""A method refusing more than this share of a cell's trials does not qualify there."""

SE_MULTIPLE = 3.0
"""Coverage may fall this many binomial SEs below the nominal level and still qualify."""


@dataclass(frozen=True)
class Advice:
    """The recommendation for one region of the grid."""

    band: str
    judge: str
    se: float
    sp: float
    theta: float
    method: str
    qualifies: bool
    coverage: float  # the chosen method's lowest coverage over the region's cells
    width: float  # its mean width over the region's cells
    refusal: float  # its highest refusal rate over the region's cells
    qualifying: tuple  # every qualifying method, narrowest first


def _bands(n_cals):
    """Return ``(name, indices)`` of the small and the large calibration band (non-empty)."""
    small = [a for a, n in enumerate(n_cals) if n < SMALL_N_CAL]
    large = [a for a, n in enumerate(n_cals) if n >= SMALL_N_CAL]
    return [(name, ids) for name, ids in (("small", small), ("large", large)) if ids]


def _method_stats(region, method, level, variable):
    """Return ``(qualifies, worst coverage, mean width, worst refusal)`` over ``region``."""
    cell = region.sel({"method": method})
    kept = (cell["n_trials"] - cell["n_declined"]).values.astype(float)
    coverage = cell[variable].values
    refusal = cell["refusal"].values
    with np.errstate(divide="ignore", invalid="ignore"):
        tolerance = SE_MULTIPLE * np.sqrt(level * (1 - level) / kept)
    ok = (kept > 0) & (coverage >= level - tolerance) & (refusal <= REFUSAL_LIMIT)
    worst = float(np.nanmin(coverage)) if np.isfinite(coverage).any() else float("nan")
    width = float(np.nanmean(cell["width"].values)) if np.isfinite(coverage).any() else np.inf
    return bool(ok.all()), worst, width, float(np.max(refusal))


def advise(cube, variable="coverage"):
    """Return one :class:`Advice` per (n_cal band, judge, theta) region of a coverage cube.

    ``variable`` is the coverage judged: ``coverage`` (of the stream's realised rate,
    docs/explanation/calibration.md) or ``coverage_theta`` (of the population rate theta).
    """
    level = float(cube.attrs.get("confidence", 0.95))
    methods = [str(m) for m in cube["method"].values]
    advice = []
    for band, ids in _bands([int(n) for n in cube["n_cal"].values]):
        for j, judge in enumerate(cube["judge_strength"].values):
            for t, theta in enumerate(cube["theta"].values):
                region = cube.isel(n_cal=ids, judge_strength=j, theta=t)
                stats = {m: _method_stats(region, m, level, variable) for m in methods}
                qualifying = sorted((m for m in methods if stats[m][0]), key=lambda m: stats[m][2])
                answering = [m for m in methods if stats[m][3] <= REFUSAL_LIMIT] or methods
                if qualifying:
                    method = qualifying[0]
                else:
                    method = max(answering, key=lambda m: np.nan_to_num(stats[m][1], nan=-1.0))
                advice.append(
                    Advice(
                        band=band,
                        judge=str(judge),
                        se=float(cube["se"][j]),
                        sp=float(cube["sp"][j]),
                        theta=float(theta),
                        method=method,
                        qualifies=bool(qualifying),
                        coverage=stats[method][1],
                        width=stats[method][2],
                        refusal=stats[method][3],
                        qualifying=tuple(qualifying),
                    )
                )
    return advice


def advice_lines(cube):
    """Return the markdown section of the recommendations, one table row per region.

    The advice judges coverage of the stream's realised rate (docs/explanation/calibration.md); the
    last column gives the pick when the target is the population rate theta instead.
    """
    level = 100 * float(cube.attrs.get("confidence", 0.95))
    lines = [
        "## Which interval to use",
        "",
        f"Per region (n_cal small < {SMALL_N_CAL} / large >= {SMALL_N_CAL}, judge, theta; every "
        f"production size N): the narrowest method whose coverage is at least {level:g}% minus "
        f"{SE_MULTIPLE:g} binomial SEs in every cell of the region and which refuses at most "
        f"{100 * REFUSAL_LIMIT:g}% of the trials; where none does, the best-covering one of "
        "those refusing at most that, marked 'falls short'. Coverage is of the production "
        "stream's realised failure rate; the last column is the pick when the target is the "
        "population rate theta.",
        "",
        "| n_cal | judge (Se, Sp) | theta | use | lowest coverage % | mean width | most "
        "refused % | also qualifying (narrower first) | use (target theta) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for item, other in zip(advise(cube), advise(cube, "coverage_theta"), strict=True):
        lines.append(
            f"| {item.band} | {item.judge} ({item.se:.2f}, {item.sp:.2f}) | {item.theta:g} "
            f"| {_pick(item)} | {100 * item.coverage:.1f} | {item.width:.3f} "
            f"| {100 * item.refusal:.1f} "
            f"| {', '.join(item.qualifying[1:]) or '-'} | {_pick(other)} |"
        )
    return lines


def _pick(item):
    return item.method if item.qualifies else f"{item.method} (falls short)"
