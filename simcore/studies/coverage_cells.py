"""The coverage study's cells: trials of the corrected failure rate's intervals, counted.

A cell is ``(n_cal, judge_strength, theta, n_production)``. Its trial keys come from
``SeedSequence(root seed, spawn_key = SHA-256 words of its coordinates)`` in blocks of
:data:`simcore.engine.rng.TRIAL_BLOCK` trials (:func:`cell_keys`), so trials
``start .. stop - 1`` are the same whether run alone or as part of a longer run. Widths
are summed as quantised values, so the sums add exactly over blocks of trials.
"""

import numpy as np
import xarray as xr
from scipy import stats

from simcore.calibration.statistics import coverage_trials
from simcore.engine.rng import stable_key, trial_keys
from simcore.studies.protocol import CellSpec, Layout, Variable, add_counts, quantize

COUNTS = {
    "n_trials": "trials run",
    "n_refused": "trials the Youden floor (or an undefined Se/Sp) refused",
    "n_corrected": "trials corrected",
    "n_covered_naive": "corrected trials whose naive interval covers the truth",
    "n_covered_lr": "corrected trials whose Lang-Reiczigel interval covers the truth",
}
SUMS = {
    "sum_width_naive": "sum of the naive interval's width over corrected trials",
    "sum_width_lr": "sum of the Lang-Reiczigel interval's width over corrected trials",
}
METHODS = (("naive", "naive"), ("lr", "Lang-Reiczigel"))
"""Interval methods: ``(short name, label)``."""


def _attrs(long_name, units):
    return {"long_name": long_name, "units": units}


def cell_keys(root_seed, coords, start, stop):
    """Return the keys of trials ``start .. stop - 1`` of the cell at ``coords``."""
    spawn_key = stable_key({name: repr(value) for name, value in coords.items()})
    return trial_keys(np.random.SeedSequence(root_seed, spawn_key=spawn_key), start, stop)


def coverage_layout(scenario):
    """Return the coverage cube's layout: the four swept dims and the judges' Se and Sp."""
    names = [name for name, _, _ in scenario.judges]
    sweep = (
        ("n_cal", scenario.n_cal, "calibration rows per trial", "count"),
        ("judge_strength", tuple(names), "judge (named strength)", ""),
        ("theta", scenario.theta, "true failure rate", "1"),
        ("n_production", scenario.n_production, "production rows per trial, N", "count"),
    )
    rates = {
        "se": ([se for _, se, _ in scenario.judges], "judge's true sensitivity (TPR)"),
        "sp": ([sp for _, _, sp in scenario.judges], "judge's true specificity (TNR)"),
        "youden_j": (
            [se + sp - 1 for _, se, sp in scenario.judges],
            "judge's true Youden J = Se + Sp - 1",
        ),
    }
    coords = {
        name: xr.Variable("judge_strength", values, _attrs(text, "1"))
        for name, (values, text) in rates.items()
    }
    variables = [Variable(name, text, "count") for name, text in COUNTS.items()]
    variables += [Variable(name, text, "1", integer=False) for name, text in SUMS.items()]
    attrs = {
        "confidence": float(scenario.confidence),
        "youden_floor": float(scenario.youden_floor),
        "coverage_definition": "over trials the floor let through; the truth is the "
        "production stream's realised failure rate; an interval covers when low <= truth "
        "<= high (1e-12 slack)",
    }
    return Layout(sweep=sweep, variables=tuple(variables), coords=coords, attrs=attrs)


def coverage_cells(scenario):
    """Return every cell with the coordinates that key its trials."""
    cells = []
    for index in np.ndindex(*scenario.shape):
        a, j, t, p = index
        name, se, sp = scenario.judges[j]
        coords = {
            "n_cal": scenario.n_cal[a],
            "judge_strength": name,
            "se": se,
            "sp": sp,
            "theta": scenario.theta[t],
            "n_production": scenario.n_production[p],
        }
        cells.append(CellSpec(index=tuple(int(i) for i in index), coords=coords))
    return cells


TRIALS_PER_BLOCK = 2**20
"""Trials drawn per call (memory only: about 50 MB a block; results do not depend on it)."""


def memory_need(scenario):
    """Return ``(bytes, advice)``: one block's keys and per-trial outputs."""
    return 48 * min(scenario.trials, TRIALS_PER_BLOCK), "lower trials"


def run_coverage_cell(scenario, cell, start, stop):
    """Return the counts and width sums of trials ``start .. stop - 1`` of ``cell``."""
    total = None
    for first in range(start, stop, TRIALS_PER_BLOCK):
        block = _coverage_block(scenario, cell, first, min(stop, first + TRIALS_PER_BLOCK))
        total = add_counts(total, block)
    return total


def _coverage_block(scenario, cell, start, stop):
    """Return the counts and width sums of one block of trials ``start .. stop - 1``."""
    coords = cell.coords
    z = float(stats.norm.ppf(0.5 + scenario.confidence / 2))
    keys = cell_keys(scenario.seed, coords, start, stop)
    covered_naive, covered_lr, width_naive, width_lr, refused = coverage_trials(
        keys,
        coords["theta"],
        coords["se"],
        coords["sp"],
        coords["n_cal"],
        coords["n_production"],
        z,
        scenario.youden_floor,
    )
    kept = ~refused
    return {
        "n_trials": np.int64(len(keys)),
        "n_refused": np.int64(refused.sum()),
        "n_corrected": np.int64(kept.sum()),
        "n_covered_naive": np.int64(covered_naive[kept].sum()),
        "n_covered_lr": np.int64(covered_lr[kept].sum()),
        "sum_width_naive": quantize(width_naive[kept]).sum(),
        "sum_width_lr": quantize(width_lr[kept]).sum(),
    }


def derive_coverage(cube):
    """Add each interval's coverage and mean width, and the refusal rate, with SEs.

    Coverage and width are over corrected trials (NaN where none was corrected); the SEs
    are binomial.
    """
    cube = cube.copy()
    corrected = cube["n_corrected"].where(cube["n_corrected"] > 0)
    for method, label in METHODS:
        cube[f"width_{method}"] = (cube[f"sum_width_{method}"] / corrected).assign_attrs(
            _attrs(f"mean width of the {label} interval (corrected trials)", "1")
        )
        rate = cube[f"n_covered_{method}"] / corrected
        cube[f"coverage_{method}"] = rate.assign_attrs(
            _attrs(
                f"share of corrected trials whose {label} interval covers the stream's "
                "true failure rate",
                "1",
            )
        )
        cube[f"coverage_{method}_se"] = np.sqrt(rate * (1 - rate) / corrected).assign_attrs(
            _attrs(f"binomial standard error of coverage_{method}", "1")
        )
    refusal = cube["n_refused"] / cube["n_trials"]
    cube["refusal_rate"] = refusal.assign_attrs(
        _attrs("share of trials refused (Youden J below the floor, or Se/Sp undefined)", "1")
    )
    cube["refusal_rate_se"] = np.sqrt(refusal * (1 - refusal) / cube["n_trials"]).assign_attrs(
        _attrs("binomial standard error of refusal_rate", "1")
    )
    return cube
