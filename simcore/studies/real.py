"""The paper's real-data protocol (SPEC §8; P §4.2) as a scenario kind.

A ``kind: real`` scenario names an annotation matrix (``data``), a rule, and a sweep over
``design`` and ``coverage``. For every group of the matrix (SummEval's dimensions), design,
coverage and trial, the matrix is thinned (:mod:`simcore.realdata.thinning`), every judge is decided
with the rule, and the decision is compared with the full-matrix decision. Judges are
classed by their full-matrix omega: pass (omega >= 0.6), reject (omega < 0.5), borderline
(otherwise). Per judge: false rejection (pass judges), false approval (reject judges) and
wrong decisions (all judges); per cell: top-1 and rank errors of the judges' ranking and the
human pool's agreement estimate against the full matrix.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr

from simcore.engine import kernels
from simcore.engine.coefficients import coefficient_code
from simcore.engine.rng import stable_key
from simcore.model.designs import DESIGNS
from simcore.model.rule import decide, omega_accepts
from simcore.realdata.matrix import DataError, load_data
from simcore.realdata.thinning import thin
from simcore.studies.config import (
    OutputConfig,
    RuleConfig,
    ScenarioError,
    _convert,
    _describe,
    _parse_section,
)
from simcore.studies.synthetic_cell import RELIABLE_ERROR, discordant_pairs
from simcore.studies.synthetic_cube import DERIVED_ATTRS, agreement_statistics

PASS_OMEGA = 0.6
REJECT_OMEGA = 0.5
CLASSES = ("reject", "borderline", "pass")
"""Judge classes by full-matrix omega, in the order of their codes."""

_TOP_KEYS = ("name", "description", "kind", "data", "rule", "trials", "seed", "sweep", "output")


@dataclass(frozen=True)
class RealScenario:
    """A validated ``kind: real`` scenario."""

    name: str
    description: str | None
    data: dict
    rule: RuleConfig
    output: OutputConfig
    trials: int
    seed: int
    designs: tuple
    coverages: tuple
    source: str

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": "real",
            "data": self.data,
            "rule": {k: v for k, v in dataclasses.asdict(self.rule).items()},
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {"design": list(self.designs), "coverage": list(self.coverages)},
            "output": dataclasses.asdict(self.output),
        }

    def content_hash(self):
        """SHA-256 of everything that decides the numbers (names and outputs excluded)."""
        data = self.to_dict()
        for key in ("name", "description", "output"):
            data.pop(key)
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def real_scenario_from_dict(raw, source, base=None):
    """Validate a ``kind: real`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = []
    for key in raw:
        if key not in _TOP_KEYS:
            problems.append(
                f"{source}: {key}: unknown key for a real-data scenario (valid keys: "
                f"{', '.join(_TOP_KEYS)})"
            )
    rule = _parse_section(raw.get("rule"), RuleConfig, "rule", problems, source)
    output = _parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    scalars = {}
    for key, meta in (
        ("trials", {"kind": "int", "minimum": 1}),
        ("seed", {"kind": "int", "minimum": 0}),
    ):
        value, problem = _convert(raw.get(key, 300 if key == "trials" else 0), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {_describe(raw.get(key))})")
        scalars[key] = value
    sweep = raw.get("sweep") or {}
    designs = sweep.get("design", list(DESIGNS)) if isinstance(sweep, dict) else None
    coverages = sweep.get("coverage", [0.05, 0.10, 0.25, 0.50]) if isinstance(sweep, dict) else None
    if not isinstance(sweep, dict) or set(sweep) - {"design", "coverage"}:
        problems.append(
            f"{source}: sweep: a real-data scenario sweeps design and coverage "
            f"only (got {_describe(sweep)})"
        )
        designs, coverages = [], []
    if not isinstance(designs, list) or not designs or any(d not in DESIGNS for d in designs):
        problems.append(
            f"{source}: sweep.design: must be a non-empty list of "
            f"{', '.join(DESIGNS)} (got {_describe(designs)})"
        )
        designs = []
    if (
        not isinstance(coverages, list)
        or not coverages
        or any(_convert(c, {"kind": "probability"})[1] for c in coverages)
    ):
        problems.append(
            f"{source}: sweep.coverage: must be a non-empty list of shares in "
            f"(0, 1] (got {_describe(coverages)})"
        )
        coverages = []
    if rule.kind != "point":
        problems.append(
            f"{source}: rule.kind: the real-data protocol runs the point rule (got {rule.kind!r})"
        )
    data = raw.get("data")
    if not isinstance(data, dict):
        problems.append(
            f"{source}: data: must be a mapping naming the matrix (got {_describe(data)})"
        )
    if problems:
        raise ScenarioError(problems)
    name = raw.get("name") or Path(source).stem
    if base is not None and not Path(data.get("path", "")).is_absolute():
        data = {**data, "path": str((Path(base) / data.get("path", "")).resolve())}
    return RealScenario(
        name=name,
        description=raw.get("description"),
        data=data,
        rule=rule,
        output=output,
        designs=tuple(designs),
        coverages=tuple(float(c) for c in coverages),
        source=source,
        **scalars,
    )


def load_matrix(scenario):
    """Load the scenario's matrix; data problems become scenario errors (exit status 2)."""
    try:
        return load_data(scenario.data)
    except DataError as error:
        raise ScenarioError([f"{scenario.source}: data: {p}" for p in error.problems]) from None


def _trial_rng(scenario, group, design, coverage, trial):
    spawn = stable_key([scenario.content_hash(), group, design, repr(float(coverage))])
    return np.random.default_rng(np.random.SeedSequence(scenario.seed, spawn_key=(*spawn, trial)))


def _thin_trial(scenario, matrix, group, design, coverage, trial):
    rng = _trial_rng(scenario, group, design, coverage, trial)
    codes = np.maximum(matrix.human_labels, 0)
    return thin(rng, design, coverage, codes, matrix.available, matrix.n_labels)


def evaluate_group(scenario, matrix):
    """Run every design and coverage of ``scenario`` on one matrix (one group).

    Returns
    -------
    xarray.Dataset
        Counts and sums with dims ``design``, ``coverage`` and ``judge``, and the
        full-matrix reference per judge.
    """
    group = matrix.group_names[0]
    n_humans, n_judges = matrix.n_humans, matrix.n_judges
    labels = np.concatenate(
        [np.maximum(matrix.human_labels, 0), matrix.judge_labels], axis=1
    ).astype(np.int16)
    rule = scenario.rule
    code = coefficient_code(rule.coefficient)
    full_pass, full_counters, full_pool, full_rank = kernels.evaluate_masks(
        labels, matrix.available[None], n_humans, matrix.n_labels, rule.epsilon, code
    )
    full_pass = full_pass[0].astype(np.int64)
    full_omega = full_pass / n_humans
    judge_class = np.where(
        full_omega >= PASS_OMEGA, 2, np.where(full_omega < REJECT_OMEGA, 0, 1)
    ).astype(np.int8)
    full_accept = omega_accepts(full_pass, n_humans, rule.tau)
    reference_pool = full_pool[0]
    reference_defined = full_counters[0, kernels.POOL_UNDEFINED] == 0
    shape = (len(scenario.designs), len(scenario.coverages))
    per_judge = {
        name: np.zeros((*shape, n_judges), np.int64)
        for name in ("n_wrong", "n_false_reject", "n_false_accept", "n_accept")
    }
    per_cell = {
        name: np.zeros(shape, np.int64)
        for name in (
            "n_top1_wrong",
            "n_rank_discordant",
            "n_agreement_defined",
            "n_agreement_reliable",
        )
    }
    per_cell.update(
        {
            name: np.zeros(shape)
            for name in (
                "sum_agreement_estimate",
                "sum_agreement_estimate_sq",
                "sum_agreement_error",
                "sum_agreement_error_sq",
            )
        }
    )
    for d, design in enumerate(scenario.designs):
        for c, coverage in enumerate(scenario.coverages):
            masks = np.stack(
                [
                    _thin_trial(scenario, matrix, group, design, coverage, t)
                    for t in range(scenario.trials)
                ]
            )
            passes, counters, pool, ranking = kernels.evaluate_masks(
                labels, masks, n_humans, matrix.n_labels, rule.epsilon, code
            )
            accept = decide(passes, n_humans, rule.tau) == 1
            per_judge["n_wrong"][d, c] = (accept != full_accept).sum(axis=0)
            per_judge["n_accept"][d, c] = accept.sum(axis=0)
            per_judge["n_false_reject"][d, c] = ((judge_class == 2) & ~accept).sum(axis=0)
            per_judge["n_false_accept"][d, c] = ((judge_class == 0) & accept).sum(axis=0)
            per_cell["n_top1_wrong"][d, c] = (
                np.argmax(ranking, axis=1) != np.argmax(full_rank[0])
            ).sum()
            per_cell["n_rank_discordant"][d, c] = discordant_pairs(ranking, full_rank[0]).sum()
            defined = (counters[:, kernels.POOL_UNDEFINED] == 0) & reference_defined
            error = pool[defined] - reference_pool
            per_cell["n_agreement_defined"][d, c] = defined.sum()
            per_cell["n_agreement_reliable"][d, c] = (np.abs(error) <= RELIABLE_ERROR).sum()
            per_cell["sum_agreement_estimate"][d, c] = pool[defined].sum()
            per_cell["sum_agreement_estimate_sq"][d, c] = (pool[defined] ** 2).sum()
            per_cell["sum_agreement_error"][d, c] = error.sum()
            per_cell["sum_agreement_error_sq"][d, c] = (error**2).sum()
    data_vars = {
        name: (("design", "coverage", "judge"), value) for name, value in per_judge.items()
    }
    data_vars.update({name: (("design", "coverage"), value) for name, value in per_cell.items()})
    data_vars["n_trials"] = (("design", "coverage"), np.full(shape, scenario.trials, np.int64))
    data_vars.update(
        {
            "full_omega": ("judge", full_omega),
            "full_accept": ("judge", full_accept),
            "judge_class": ("judge", judge_class),
            "full_ranking_score": ("judge", full_rank[0]),
            "full_agreement": ((), float(reference_pool) if reference_defined else np.nan),
            "n_items": ((), matrix.n_items),
            "density": ((), float(matrix.density)),
        }
    )
    return xr.Dataset(
        data_vars,
        coords={
            "design": list(scenario.designs),
            "coverage": list(scenario.coverages),
            "judge": list(matrix.judges),
        },
    )


def _rate(cube, name, numerator, where, long_name, note):
    """Add ``name = numerator / n_trials`` (NaN outside ``where``) and its binomial SE."""
    trials = cube["n_trials"].astype(float)
    rate = (cube[numerator] / trials.where(trials > 0)).where(where)
    cube[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
    cube[f"{name}_se"] = np.sqrt(rate * (1 - rate) / trials.where(trials > 0)).assign_attrs(
        long_name=f"binomial standard error of the {long_name}", units="1"
    )


def derive_real(cube):
    """Add the rates and statistics of a real-data cube (NaN where they do not apply).

    ``false_rejection_rate`` is defined for pass judges only, ``false_approval_rate`` for
    reject judges only; ``wrong_decision_rate`` for every judge. ``top1_error`` is the share
    of trials whose best judge differs from the full matrix's; ``rank_error`` the share of
    judge pairs ordered differently. Agreement statistics as in the synthetic cubes.
    """
    cube = cube.copy()
    is_pass = cube["judge_class"] == 2
    is_reject = cube["judge_class"] == 0
    _rate(
        cube,
        "false_rejection_rate",
        "n_false_reject",
        is_pass,
        "false-rejection rate of a pass judge",
        "n_false_reject / n_trials for judges with full-matrix omega >= 0.6, else NaN",
    )
    _rate(
        cube,
        "false_approval_rate",
        "n_false_accept",
        is_reject,
        "false-approval rate of a reject judge",
        "n_false_accept / n_trials for judges with full-matrix omega < 0.5, else NaN",
    )
    _rate(
        cube,
        "wrong_decision_rate",
        "n_wrong",
        True,
        "wrong-decision rate",
        "share of trials whose thinned decision differs from the full-matrix decision",
    )
    _rate(
        cube,
        "top1_error",
        "n_top1_wrong",
        True,
        "share of trials whose top-ranked judge differs from the full matrix's",
        "judges ranked by their mean score over the leave-one-out comparisons",
    )
    n_judges = cube.sizes["judge"]
    pairs = cube["n_trials"] * (n_judges * (n_judges - 1) // 2)
    cube["rank_error"] = (cube["n_rank_discordant"] / pairs.where(pairs > 0)).assign_attrs(
        long_name="share of judge pairs ordered differently from the full matrix", units="1"
    )
    for name, value in agreement_statistics(cube).items():
        long_name, units = DERIVED_ATTRS[name]
        cube[name] = value.assign_attrs(
            long_name=long_name.replace("sparse", "thinned"), units=units
        )
    cube["agreement_reliability"] = cube["n_agreement_reliable"] / cube["n_trials"]
    cube["agreement_reliability"].attrs.update(
        long_name="share of trials within 0.05 of the full human-pool agreement", units="1"
    )
    return cube


PRIMARY_LAYER_RULE = (
    "primary layer: for each item, the label of the first human in the data block's human "
    "order who labelled it; it is never thinned. Every other human label is thinnable: at "
    "coverage rho each human keeps round(rho a_h) of its a_h thinnable labels (bernoulli: "
    "each with probability rho; shared_panel: those on a common panel of round(rho n) "
    "items), chosen by the design. No label is invented."
)


def run_real(scenario, out=None, overwrite=False):
    """Run a ``kind: real`` scenario; return its cube (and write it to ``out``).

    A store of the same scenario is reused; a store of another is refused unless
    ``overwrite``. The store is written whole, into a temporary folder renamed at the end,
    so an interrupted run leaves nothing that looks complete.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Bad data (nothing is written).
    simcore.sweep.store.StoreError
        ``out`` holds something else and ``overwrite`` is false.
    """
    import datetime

    import yaml

    from simcore.sweep import store

    finished = store.finished_whole(out, scenario, overwrite)
    if finished is not None:
        return finished
    matrix = load_matrix(scenario)
    groups = matrix.group_names
    parts = [
        evaluate_group(scenario, matrix.subset(g) if len(groups) > 1 else matrix) for g in groups
    ]
    if len(groups) > 1:
        cube = xr.concat(parts, dim="group").assign_coords(group=list(groups))
    else:
        cube = parts[0]
    cube = derive_real(cube)
    cube.attrs.update(
        {
            "title": scenario.name,
            "kind": "real",
            "scenario": yaml.safe_dump(scenario.to_dict(), sort_keys=False),
            "scenario_source": str(scenario.source),
            "scenario_hash": scenario.content_hash(),
            "root_seed": int(scenario.seed),
            "trials": int(scenario.trials),
            "data_source": str(matrix.source),
            "humans": ", ".join(matrix.humans),
            "labels": ", ".join(map(str, matrix.labels)),
            "primary_layer": PRIMARY_LAYER_RULE,
            "judge_classes": "pass: full-matrix omega >= 0.6; reject: < 0.5; borderline: else "
            "(judge_class codes 0 reject, 1 borderline, 2 pass)",
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "complete": 1,
            **store._versions(),
        }
    )
    if out is not None:
        store.write_whole(out, cube)
    return cube
