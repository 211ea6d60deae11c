"""The coverage study's cells: trials of the corrected failure rate's intervals, counted.

A cell is ``(n_cal, judge_strength, theta, n_production)``. Its trial keys come from
``SeedSequence(root seed, spawn_key = SHA-256 words of its coordinates)`` in blocks of
:data:`simcore.engine.rng.TRIAL_BLOCK` trials (:func:`cell_keys`), so trials
``range(start, stop)`` are the same whether run alone or as part of a longer run. Widths
are summed as quantised values, so the sums add exactly over blocks of trials.
"""

import numpy as np
import xarray as xr
from scipy import stats

from simcore.engine.interval_twins import INTERVAL_METHODS, method_coverage_trials
from simcore.engine.rng import stable_key, trial_keys
from simcore.studies.protocol import CellSpec, Layout, Variable, add_counts, quantize

COUNTS = {
    "n_trials": "trials run",
    "n_refused": "trials the Youden floor (or an undefined Se/Sp) refused (naive and LR)",
    "n_corrected": "trials corrected (naive and LR)",
}
METHOD_COUNTS = {
    "n_declined": "trials the method refused (it then reports the observed rate)",
    "n_covered": "trials the method did not refuse whose interval covers the stream's rate",
    "n_covered_theta": "trials the method did not refuse whose interval covers theta",
}
METHOD_SUMS = {
    "sum_width": "sum of the method's interval width over the trials it did not refuse",
}
METHOD_LABELS = {
    "naive": "naive (Se, Sp taken as exact)",
    "lr": "Rogan-Gladen + Lang-Reiczigel",
    "ppi": "classical PPI",
    "ppi++": "power-tuned PPI++",
    "strat-ppi": "PPI stratified by the judge's label",
}
"""Every method of the ``method`` axis (:data:`INTERVAL_METHODS` order) and its label."""


def _attrs(long_name, units):
    return {"long_name": long_name, "units": units}


def cell_keys(root_seed, coords, start, stop):
    """Return the keys of trials ``range(start, stop)`` of the cell at ``coords``."""
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
    coords["method"] = xr.Variable(
        "method", list(INTERVAL_METHODS), _attrs("interval method (see method_label)", "")
    )
    coords["method_label"] = xr.Variable(
        "method", [METHOD_LABELS[m] for m in INTERVAL_METHODS], _attrs("interval method", "")
    )
    per_method = {"extra_dims": ("method",), "shape": (len(INTERVAL_METHODS),)}
    variables = [Variable(name, text, "count") for name, text in COUNTS.items()]
    variables += [Variable(n, t, "count", **per_method) for n, t in METHOD_COUNTS.items()]
    variables += [Variable(n, t, "1", integer=False, **per_method) for n, t in METHOD_SUMS.items()]
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


TRIALS_PER_BLOCK = 2**18
"""Trials drawn per call (memory only: about 50 MB a block; results do not depend on it)."""


def memory_need(scenario):
    """Return ``(bytes, advice)``: one block's keys and per-trial outputs."""
    return 200 * min(scenario.trials, TRIALS_PER_BLOCK), "lower trials"


def run_coverage_cell(scenario, cell, start, stop):
    """Return the counts and width sums of trials ``range(start, stop)`` of ``cell``."""
    total = None
    for first in range(start, stop, TRIALS_PER_BLOCK):
        block = _coverage_block(scenario, cell, first, min(stop, first + TRIALS_PER_BLOCK))
        total = add_counts(total, block)
    return total


def _coverage_block(scenario, cell, start, stop):
    """Return the counts and width sums of one block of trials ``range(start, stop)``."""
    coords = cell.coords
    z = float(stats.norm.ppf(0.5 + scenario.confidence / 2))
    keys = cell_keys(scenario.seed, coords, start, stop)
    refused, covered, width, covered_theta = method_coverage_trials(
        keys,
        coords["theta"],
        coords["se"],
        coords["sp"],
        coords["n_cal"],
        coords["n_production"],
        z,
        scenario.youden_floor,
    )
    floor_refused = refused[:, INTERVAL_METHODS.index("lr")]
    return {
        "n_trials": np.int64(len(keys)),
        "n_refused": np.int64(floor_refused.sum()),
        "n_corrected": np.int64((~floor_refused).sum()),
        "n_declined": refused.sum(axis=0).astype(np.int64),
        "n_covered": covered.sum(axis=0).astype(np.int64),
        "n_covered_theta": covered_theta.sum(axis=0).astype(np.int64),
        "sum_width": quantize(width).sum(axis=0),
    }


def derive_coverage(cube):
    """Add every method's coverage, mean width and refusal rate, with binomial SEs.

    Along ``method``: ``coverage`` and ``width`` over the trials the method did not refuse
    (NaN where it refused them all), ``refusal`` the share it refused (for ``naive`` and
    ``lr``, the Youden floor's refusals, also counted in ``n_refused``).
    """
    cube = cube.copy()
    kept = cube["n_trials"] - cube["n_declined"]
    kept = kept.where(kept > 0)
    rate = cube["n_covered"] / kept
    cube["coverage"] = rate.assign_attrs(
        _attrs(
            "share of the trials the method did not refuse whose interval covers the "
            "stream's true failure rate",
            "1",
        )
    )
    cube["coverage_se"] = np.sqrt(rate * (1 - rate) / kept).assign_attrs(
        _attrs("binomial standard error of coverage", "1")
    )
    rate_theta = cube["n_covered_theta"] / kept
    cube["coverage_theta"] = rate_theta.assign_attrs(
        _attrs("as coverage, but covering the population failure rate theta itself", "1")
    )
    cube["coverage_theta_se"] = np.sqrt(rate_theta * (1 - rate_theta) / kept).assign_attrs(
        _attrs("binomial standard error of coverage_theta", "1")
    )
    cube["width"] = (cube["sum_width"] / kept).assign_attrs(
        _attrs("mean width of the method's interval (clipped to [0, 1]; trials not refused)", "1")
    )
    refusal = cube["n_declined"] / cube["n_trials"]
    cube["refusal"] = refusal.assign_attrs(_attrs("share of trials the method refused", "1"))
    cube["refusal_se"] = np.sqrt(refusal * (1 - refusal) / cube["n_trials"]).assign_attrs(
        _attrs("binomial standard error of refusal", "1")
    )
    return cube
