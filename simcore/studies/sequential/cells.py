"""The sequential planning study's cells: validations labelled in rounds, counted.

A cell is ``(p_judge, alpha)``. Trial ``t`` draws from ``numpy.random.default_rng(key_t)``
with ``key_t`` the trial key of ``SeedSequence(root seed, spawn_key = SHA-256 words of the
cell's coordinates)`` (:func:`simcore.engine.trial_keys`), so a trial's numbers are the same
whether run alone or in a longer run, and every count is additive over trials.

Per cell: ``n_trials``; ``n_accept`` and ``n_reject``, the trials whose sequential verdict
settled accept or reject within the budget; ``n_wrong``, those settled against the
population decision; ``settled_at`` (along ``look``), the trials first settled at each look;
``fixed_wrong`` (along ``look``), the trials where the fixed-size point rule read at that
look disagrees with the population decision; ``n_fixed_ever_wrong``, the trials where it
disagrees at some look (what reading the fixed rule after every round risks).
"""

import numpy as np
import xarray as xr

from simcore.engine import stable_key, trial_keys
from simcore.sequential import SequentialSettings
from simcore.sequential.rounds import RoundsModel, round_trial
from simcore.studies.protocol import CellSpec, Layout, Variable

COUNTS = {
    "n_trials": "trials run",
    "n_accept": "trials whose sequential verdict settled accept within the budget",
    "n_reject": "trials whose sequential verdict settled reject within the budget",
    "n_wrong": "trials whose sequential verdict settled against the population decision",
    "n_fixed_ever_wrong": "trials where the fixed-size rule read after some round disagrees "
    "with the population decision",
}
LOOK_COUNTS = {
    "settled_at": "trials whose sequential verdict first settled at this look",
    "fixed_wrong": "trials where the fixed-size rule read at this look disagrees with the "
    "population decision",
}


def _attrs(long_name, units):
    return {"long_name": long_name, "units": units}


def rounds_model(scenario, p_judge):
    """Return the :class:`~simcore.sequential.rounds.RoundsModel` of a cell."""
    return RoundsModel(
        scenario.n_items,
        scenario.n_humans,
        scenario.n_labels,
        scenario.p_human,
        p_judge,
        scenario.round_size,
        scenario.rounds,
    )


def sequential_layout(scenario):
    """Return the cube's layout: ``p_judge`` x ``alpha``, and ``look`` for the per-look counts."""
    sweep = (
        ("p_judge", scenario.p_judge, "judge accuracy", "1"),
        ("alpha", scenario.alpha, "error rate: sequential alpha and the fixed plan's target", "1"),
    )
    margins = [rounds_model(scenario, p).population_margin for p in scenario.p_judge]
    looks = np.arange(1, scenario.rounds + 1)
    coords = {
        "look": xr.Variable("look", looks, _attrs("look, after this many rounds", "count")),
        "items_per_secondary": xr.Variable(
            "look",
            looks * scenario.round_size,
            _attrs("items each secondary has labelled", "count"),
        ),
        "population_margin": xr.Variable(
            "p_judge",
            np.array(margins) + scenario.epsilon,
            _attrs("signed population margin S_j - S_h + eps", "1"),
        ),
        "population_accepts": xr.Variable(
            "p_judge",
            [bool(margin + scenario.epsilon >= 0) for margin in margins],
            _attrs("the population decision accepts the judge", ""),
        ),
    }
    per_look = {"extra_dims": ("look",), "shape": (scenario.rounds,)}
    variables = [Variable(name, text, "count") for name, text in COUNTS.items()]
    variables += [Variable(name, text, "count", **per_look) for name, text in LOOK_COUNTS.items()]
    attrs = {
        **{key: getattr(scenario, key) for key in ("n_items", "n_humans", "n_labels")},
        **{key: getattr(scenario, key) for key in ("p_human", "round_size", "rounds")},
        "epsilon": float(scenario.epsilon),
        "tau": float(scenario.tau),
        "design": "exact_m in rounds: the primary labels every item first, each secondary "
        "round_size more items per round",
        "scoring": "exact match (observed agreement)",
        "reference": "population",
    }
    return Layout(sweep=sweep, variables=tuple(variables), coords=coords, attrs=attrs)


def sequential_cells(scenario):
    """Return every cell with the coordinates that key its trials."""
    for p, a in np.ndindex(*scenario.shape):
        coords = {"p_judge": scenario.p_judge[p], "alpha": scenario.alpha[a]}
        yield CellSpec(index=(int(p), int(a)), coords=coords)


def memory_need(scenario):
    """Return ``(bytes, advice)``: one trial's label, round and term arrays."""
    return 400 * scenario.n_items * scenario.n_humans**2, "lower n_items or n_humans"


def run_sequential_cell(scenario, cell, start, stop):
    """Return the counts of trials ``range(start, stop)`` of ``cell`` (module docstring)."""
    coords = cell.coords
    model = rounds_model(scenario, coords["p_judge"])
    settings = SequentialSettings("point", scenario.epsilon, coords["alpha"], scenario.tau)
    accepts = model.population_margin + scenario.epsilon >= 0
    spawn_key = stable_key({name: repr(value) for name, value in coords.items()})
    keys = trial_keys(np.random.SeedSequence(scenario.seed, spawn_key=spawn_key), start, stop)
    counts = {name: np.int64(0) for name in COUNTS}
    counts.update({name: np.zeros(scenario.rounds, dtype=np.int64) for name in LOOK_COUNTS})
    for key in keys:
        look, verdict, fixed_accept = round_trial(np.random.default_rng(int(key)), model, settings)
        counts["n_trials"] += 1
        counts["n_accept"] += verdict == 1
        counts["n_reject"] += verdict == -1
        counts["n_wrong"] += verdict != 0 and (verdict == 1) != accepts
        if look:
            counts["settled_at"][look - 1] += 1
        wrong = fixed_accept != accepts
        counts["fixed_wrong"] += wrong
        counts["n_fixed_ever_wrong"] += bool(wrong.any())
    return {
        name: np.int64(value) if np.ndim(value) == 0 else value for name, value in counts.items()
    }


def derive_sequential(cube):
    """Add the rates, the items to settle and the fixed plan's items at the same error rate.

    ``settle_rate``, ``wrong_rate`` and ``fixed_ever_wrong_rate`` with binomial SEs;
    ``mean_items_to_settle`` over the trials that settled; ``p90_items_to_settle``, the
    items per secondary by which 90% of all trials had settled (NaN: not within the
    budget); ``fixed_wrong_rate`` along ``look``; ``fixed_items``, the smallest
    ``items_per_secondary`` from which the fixed rule's wrong-decision rate stays at or below
    ``alpha`` (NaN: never within the budget), what ``simcore plan`` answers for this cell;
    ``recipe_items``, the fixed-size certification recipe at ``alpha``, which ``plan``
    prints beside it.
    """
    cube = cube.copy()
    trials = cube["n_trials"]
    settled = cube["n_accept"] + cube["n_reject"]
    rates = {
        "settle_rate": (settled, "share of trials settled within the budget"),
        "wrong_rate": (cube["n_wrong"], "share of trials settled against the population decision"),
        "fixed_ever_wrong_rate": (
            cube["n_fixed_ever_wrong"],
            "share of trials where the fixed rule read after every round is wrong at some look",
        ),
    }
    for name, (count, text) in rates.items():
        rate = count / trials
        cube[name] = rate.assign_attrs(_attrs(text, "1"))
        cube[f"{name}_se"] = np.sqrt(rate * (1 - rate) / trials).assign_attrs(
            _attrs(f"binomial standard error of {name}", "1")
        )
    items = cube["items_per_secondary"]
    total = (cube["settled_at"] * items).sum("look")
    cube["mean_items_to_settle"] = (total / settled.where(settled > 0)).assign_attrs(
        _attrs("mean items per secondary when the verdict settled (settled trials)", "count")
    )
    reached = cube["settled_at"].cumsum("look") >= 0.9 * trials
    first = reached.argmax("look")
    p90 = items.isel(look=first).where(reached.any("look"))
    cube["p90_items_to_settle"] = p90.drop_vars("look", errors="ignore").assign_attrs(
        _attrs("items per secondary by which 90% of the trials had settled", "count")
    )
    wrong = cube["fixed_wrong"] / trials
    cube["fixed_wrong_rate"] = wrong.assign_attrs(
        _attrs("wrong-decision rate of the fixed-size rule read at this look", "1")
    )
    above = wrong > cube["alpha"]
    last_above = (above * cube["look"]).max("look")  # 0 when never above
    fixed = (last_above * cube.attrs["round_size"] + cube.attrs["round_size"]).where(
        last_above < cube.sizes["look"]
    )
    cube["fixed_items"] = fixed.assign_attrs(
        _attrs(
            "smallest items per secondary from which the fixed rule's wrong-decision rate "
            "stays at or below alpha (simcore plan's m)",
            "count",
        )
    )
    cube["recipe_items"] = _recipe_items(cube).assign_attrs(
        _attrs(
            "the certification recipe m_cert = ceil(z_{1 - alpha/2}^2 sigma0^2 / margin^2): "
            "fixed-size items for one comparison to be certified at alpha (-1: zero margin)",
            "count",
        )
    )
    return cube


def _recipe_items(cube):
    """Return ``m_cert`` of every cell (:func:`simcore.model.certification_items`)."""
    from simcore.model import certification_items, symmetric_recipe_variance

    attrs = cube.attrs
    values = np.zeros((cube.sizes["p_judge"], cube.sizes["alpha"]), dtype=np.int64)
    for p, p_judge in enumerate(cube["p_judge"].values):
        sigma2 = symmetric_recipe_variance(float(p_judge), attrs["p_human"], attrs["n_labels"])
        margin = float(cube["population_margin"][p])
        for a, alpha in enumerate(cube["alpha"].values):
            values[p, a] = certification_items(margin, sigma2, float(alpha))
    return xr.DataArray(values, dims=("p_judge", "alpha"))
