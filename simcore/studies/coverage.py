"""The coverage study as a scenario kind (``kind: coverage``, SPEC §9).

Per cell (calibration size ``n_cal``, judge strength with its Se and Sp, true failure rate
``theta``, production size ``N``) and trial: draw a calibration sample and a production
stream, build the naive and the Lang-Reiczigel intervals for the corrected failure rate,
and record whether each covers the stream's true rate, its width, and whether the Youden
floor refused to correct (:func:`simcore.calibration.statistics.coverage_trials`).

Coverage and width are over the trials the floor let through: a refused trial reports the
observed (judge-flagged) rate, which estimates something else than ``theta``, so it is
counted in ``refusal_rate`` instead. A cell's numbers depend only on the root seed, its
coordinates and the trial count: its trial keys come from a seed sequence keyed by the
SHA-256 of its coordinates, in blocks of :data:`simcore.engine.rng.TRIAL_BLOCK` trials.
"""

import dataclasses
import datetime
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr
import yaml
from scipy import stats

from simcore.calibration.statistics import coverage_trials
from simcore.engine.rng import stable_key, trial_keys
from simcore.studies.config import OutputConfig, ScenarioError, _convert, _describe, _parse_section

SWEPT = ("n_cal", "judge_strength", "theta", "n_production")
"""The cube's dimensions, in order."""

_TOP_KEYS = (
    "name",
    "description",
    "kind",
    "judges",
    "confidence",
    "youden_floor",
    "trials",
    "seed",
    "sweep",
    "output",
)


@dataclass(frozen=True)
class CoverageScenario:
    """A validated ``kind: coverage`` scenario."""

    name: str
    description: str | None
    judges: tuple  # ((name, se, sp), ...)
    n_cal: tuple
    theta: tuple
    n_production: tuple
    confidence: float
    youden_floor: float
    trials: int
    seed: int
    output: OutputConfig
    source: str

    @property
    def sweep(self):
        """``(name, values)`` per cube dimension, in :data:`SWEPT` order."""
        return (
            ("n_cal", self.n_cal),
            ("judge_strength", tuple(name for name, _, _ in self.judges)),
            ("theta", self.theta),
            ("n_production", self.n_production),
        )

    @property
    def shape(self):
        """Number of values of each dimension."""
        return tuple(len(values) for _, values in self.sweep)

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": "coverage",
            "judges": {name: {"se": se, "sp": sp} for name, se, sp in self.judges},
            "confidence": self.confidence,
            "youden_floor": self.youden_floor,
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {
                "n_cal": list(self.n_cal),
                "theta": list(self.theta),
                "n_production": list(self.n_production),
            },
            "output": dataclasses.asdict(self.output),
        }

    def content_hash(self):
        """SHA-256 of everything that decides the numbers (names and outputs excluded)."""
        data = self.to_dict()
        for key in ("name", "description", "output"):
            data.pop(key)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _list_of(raw, key, meta, problems, source, what):
    values = raw.get(key) if isinstance(raw, dict) else None
    converted = []
    if not isinstance(values, list) or not values:
        problems.append(
            f"{source}: sweep.{key}: must be a non-empty list of {what} (got {_describe(values)})"
        )
        return ()
    for value in values:
        number, problem = _convert(value, meta)
        if problem:
            problems.append(f"{source}: sweep.{key}: {problem} (got {_describe(value)})")
        else:
            converted.append(number)
    if len(set(converted)) != len(converted):
        problems.append(f"{source}: sweep.{key}: values must be distinct (got {_describe(values)})")
    return tuple(converted)


def coverage_scenario_from_dict(raw, source):
    """Validate a ``kind: coverage`` scenario; every problem is reported at once.

    Raises
    ------
    simcore.studies.config.ScenarioError
        Naming the file, the key and the bad value.
    """
    problems = []
    for key in raw:
        if key not in _TOP_KEYS:
            problems.append(
                f"{source}: {key}: unknown key for a coverage scenario (valid keys: "
                f"{', '.join(_TOP_KEYS)})"
            )
    judges = []
    raw_judges = raw.get("judges")
    if not isinstance(raw_judges, dict) or not raw_judges:
        problems.append(
            f"{source}: judges: must map judge names to {{se, sp}} (got {_describe(raw_judges)})"
        )
        raw_judges = {}
    for name, rates in raw_judges.items():
        if not isinstance(rates, dict) or set(rates) != {"se", "sp"}:
            problems.append(
                f"{source}: judges.{name}: must be {{se: ..., sp: ...}} (got {_describe(rates)})"
            )
            continue
        values = []
        for rate in ("se", "sp"):
            value, problem = _convert(rates[rate], {"kind": "probability"})
            if problem:
                problems.append(
                    f"{source}: judges.{name}.{rate}: {problem} (got {_describe(rates[rate])})"
                )
            values.append(value)
        judges.append((str(name), *values))
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict) or set(sweep) - {"n_cal", "theta", "n_production"}:
        problems.append(
            f"{source}: sweep: a coverage scenario sweeps n_cal, theta and n_production "
            f"(got {_describe(sweep)})"
        )
        sweep = {}
    n_cal = _list_of(sweep, "n_cal", {"kind": "int", "minimum": 1}, problems, source, "sizes")
    theta = _list_of(
        sweep, "theta", {"kind": "probability"}, problems, source, "failure rates in (0, 1]"
    )
    n_production = _list_of(
        sweep, "n_production", {"kind": "int", "minimum": 1}, problems, source, "sizes"
    )
    scalars = {}
    for key, default, meta in (
        ("confidence", 0.95, {"kind": "float", "exclusive_minimum": 0.0, "maximum": 0.9999}),
        ("youden_floor", 0.15, {"kind": "float", "minimum": -1.0, "maximum": 1.0}),
        ("trials", 2000, {"kind": "int", "minimum": 1}),
        ("seed", 0, {"kind": "int", "minimum": 0}),
    ):
        value, problem = _convert(raw.get(key, default), meta)
        if problem:
            problems.append(f"{source}: {key}: {problem} (got {_describe(raw.get(key))})")
        scalars[key] = value
    output = _parse_section(raw.get("output"), OutputConfig, "output", problems, source)
    if problems:
        raise ScenarioError(problems)
    return CoverageScenario(
        name=raw.get("name") or Path(source).stem,
        description=raw.get("description"),
        judges=tuple(judges),
        n_cal=n_cal,
        theta=theta,
        n_production=n_production,
        output=output,
        source=source,
        **scalars,
    )


def cell_keys(root_seed, coords, trials):
    """Return the trial keys of one cell: SeedSequence(root, SHA-256 of its coordinates)."""
    spawn_key = stable_key({name: repr(value) for name, value in coords.items()})
    return trial_keys(np.random.SeedSequence(root_seed, spawn_key=spawn_key), 0, trials)


def _attrs(long_name, units):
    return {"long_name": long_name, "units": units}


def run_coverage(scenario, out=None, overwrite=False):
    """Run a coverage scenario; return its cube (and write it whole to ``out``).

    A store of the same scenario is reused; a store of another is refused unless
    ``overwrite``. The store is written into a temporary folder renamed at the end, so an
    interrupted run leaves nothing that looks complete.

    Raises
    ------
    simcore.sweep.store.StoreError
        ``out`` holds something else and ``overwrite`` is false.
    """
    from simcore.sweep import store

    finished = store.finished_whole(out, scenario, overwrite)
    if finished is not None:
        return finished
    z = float(stats.norm.ppf(0.5 + scenario.confidence / 2))
    shape = scenario.shape
    counts = {
        name: np.zeros(shape, np.int64)
        for name in ("n_trials", "n_refused", "n_corrected", "n_covered_naive", "n_covered_lr")
    }
    widths = {name: np.full(shape, np.nan) for name in ("width_naive", "width_lr")}
    for index in np.ndindex(*shape):
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
        keys = cell_keys(scenario.seed, coords, scenario.trials)
        covered_naive, covered_lr, width_naive, width_lr, refused = coverage_trials(
            keys,
            coords["theta"],
            se,
            sp,
            coords["n_cal"],
            coords["n_production"],
            z,
            scenario.youden_floor,
        )
        kept = ~refused
        counts["n_trials"][index] = len(keys)
        counts["n_refused"][index] = refused.sum()
        counts["n_corrected"][index] = kept.sum()
        counts["n_covered_naive"][index] = covered_naive[kept].sum()
        counts["n_covered_lr"][index] = covered_lr[kept].sum()
        if kept.any():
            widths["width_naive"][index] = width_naive[kept].mean()
            widths["width_lr"][index] = width_lr[kept].mean()
    cube = _cube(scenario, counts, widths)
    if out is not None:
        store.write_whole(out, cube)
    return cube


def _cube(scenario, counts, widths):
    """Assemble the labelled cube from the per-cell counts and mean widths."""
    from simcore.sweep import store

    dims = SWEPT
    names = [name for name, _, _ in scenario.judges]
    coords = {
        "n_cal": ("n_cal", list(scenario.n_cal), _attrs("calibration rows per trial", "count")),
        "judge_strength": ("judge_strength", names, _attrs("judge (named strength)", "")),
        "se": (
            "judge_strength",
            [se for _, se, _ in scenario.judges],
            _attrs("judge's true sensitivity (TPR)", "1"),
        ),
        "sp": (
            "judge_strength",
            [sp for _, _, sp in scenario.judges],
            _attrs("judge's true specificity (TNR)", "1"),
        ),
        "youden_j": (
            "judge_strength",
            [se + sp - 1 for _, se, sp in scenario.judges],
            _attrs("judge's true Youden J = Se + Sp - 1", "1"),
        ),
        "theta": ("theta", list(scenario.theta), _attrs("true failure rate", "1")),
        "n_production": (
            "n_production",
            list(scenario.n_production),
            _attrs("production rows per trial, N", "count"),
        ),
    }
    data = {
        "n_trials": (dims, counts["n_trials"], _attrs("trials run", "count")),
        "n_refused": (
            dims,
            counts["n_refused"],
            _attrs("trials the Youden floor (or an undefined Se/Sp) refused", "count"),
        ),
        "n_corrected": (dims, counts["n_corrected"], _attrs("trials corrected", "count")),
        "n_covered_naive": (
            dims,
            counts["n_covered_naive"],
            _attrs("corrected trials whose naive interval covers the truth", "count"),
        ),
        "n_covered_lr": (
            dims,
            counts["n_covered_lr"],
            _attrs("corrected trials whose Lang-Reiczigel interval covers the truth", "count"),
        ),
        "width_naive": (
            dims,
            widths["width_naive"],
            _attrs("mean width of the naive interval (corrected trials)", "1"),
        ),
        "width_lr": (
            dims,
            widths["width_lr"],
            _attrs("mean width of the Lang-Reiczigel interval (corrected trials)", "1"),
        ),
    }
    cube = xr.Dataset(data, coords)
    corrected = cube["n_corrected"].where(cube["n_corrected"] > 0)
    for method, label in (("naive", "naive"), ("lr", "Lang-Reiczigel")):
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
    cube.attrs.update(
        {
            "title": scenario.name,
            "kind": "coverage",
            "scenario": yaml.safe_dump(scenario.to_dict(), sort_keys=False),
            "scenario_source": str(scenario.source),
            "scenario_hash": scenario.content_hash(),
            "root_seed": int(scenario.seed),
            "trials": int(scenario.trials),
            "confidence": float(scenario.confidence),
            "youden_floor": float(scenario.youden_floor),
            "coverage_definition": "over trials the floor let through; the truth is the "
            "production stream's realised failure rate; an interval covers when low <= truth "
            "<= high (1e-12 slack)",
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "complete": 1,
            **store._versions(),
        }
    )
    return cube


def summary(cube):
    """Return the coverage table ``simcore run`` and ``simcore show`` print."""
    lines = [
        f"{cube.attrs.get('title', 'coverage')}: {int(cube['n_trials'].max())} trials per "
        f"cell, confidence {cube.attrs.get('confidence')}, Youden floor "
        f"{cube.attrs.get('youden_floor')}, seed {cube.attrs.get('root_seed')}; coverage over "
        "corrected trials (%)",
        "",
        "| judge (Se, Sp) | theta | N | n_cal | refused % | LR coverage % | naive coverage % "
        "| LR width | naive width |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def percent(name, index):
        value = float(cube[name][index])
        error = float(cube[f"{name}_se"][index])
        return "n/a" if np.isnan(value) else f"{100 * value:.1f} ± {100 * error:.1f}"

    for j, name in enumerate(cube["judge_strength"].values):
        for t, theta in enumerate(cube["theta"].values):
            for p, n_production in enumerate(cube["n_production"].values):
                for a, n_cal in enumerate(cube["n_cal"].values):
                    index = {"n_cal": a, "judge_strength": j, "theta": t, "n_production": p}
                    lines.append(
                        f"| {name} ({float(cube['se'][j]):.2f}, {float(cube['sp'][j]):.2f}) "
                        f"| {theta:g} | {int(n_production)} | {int(n_cal)} "
                        f"| {100 * float(cube['refusal_rate'][index]):.1f} "
                        f"| {percent('coverage_lr', index)} | {percent('coverage_naive', index)} "
                        f"| {float(cube['width_lr'][index]):.3f} "
                        f"| {float(cube['width_naive'][index]):.3f} |"
                    )
    return "\n".join(lines)


def plot_coverage(cube, out):
    """Draw coverage and width against n_cal: rows theta, columns judge x (coverage, width).

    Solid lines are the Lang-Reiczigel interval, dashed the naive one, one colour per
    production size; the coverage panels carry the nominal level as a grey line.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    judges = list(cube["judge_strength"].values)
    thetas = list(cube["theta"].values)
    figure, axes = plt.subplots(
        len(thetas),
        2 * len(judges),
        figsize=(3.2 * 2 * len(judges), 2.6 * len(thetas)),
        squeeze=False,
        sharex=True,
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    level = float(cube.attrs.get("confidence", 0.95))
    for t, theta in enumerate(thetas):
        for j, judge in enumerate(judges):
            coverage_axis, width_axis = axes[t, 2 * j], axes[t, 2 * j + 1]
            for p, n_production in enumerate(cube["n_production"].values):
                cell = cube.isel(theta=t, judge_strength=j, n_production=p)
                colour = colours[p % len(colours)]
                for method, style in (("lr", "-"), ("naive", "--")):
                    label = f"{'LR' if method == 'lr' else 'naive'}, N={int(n_production)}"
                    coverage_axis.plot(
                        cell["n_cal"],
                        cell[f"coverage_{method}"],
                        style,
                        color=colour,
                        marker="o",
                        markersize=3,
                        label=label,
                    )
                    width_axis.plot(
                        cell["n_cal"],
                        cell[f"width_{method}"],
                        style,
                        color=colour,
                        marker="o",
                        markersize=3,
                    )
            coverage_axis.axhline(level, color="grey", linewidth=0.8)
            coverage_axis.set_ylim(0, 1.02)
            se, sp = float(cube["se"][j]), float(cube["sp"][j])
            coverage_axis.set_title(
                f"{judge} (Se {se:.2f}, Sp {sp:.2f}), theta {theta:g}", fontsize=8
            )
            width_axis.set_title("interval width", fontsize=8)
            for axis in (coverage_axis, width_axis):
                axis.set_xscale("log")
                axis.set_xticks([int(n) for n in cube["n_cal"].values])
                axis.set_xticklabels([str(int(n)) for n in cube["n_cal"].values])
                axis.minorticks_off()
                axis.tick_params(labelsize=7)
            if t == len(thetas) - 1:
                coverage_axis.set_xlabel("n_cal", fontsize=8)
                width_axis.set_xlabel("n_cal", fontsize=8)
        axes[t, 0].set_ylabel("coverage", fontsize=8)
    axes[0, 0].legend(fontsize=6, loc="lower right")
    figure.suptitle(
        f"Coverage of the corrected failure rate's {100 * level:g}% intervals "
        "(corrected trials; grey: nominal level)",
        fontsize=10,
    )
    figure.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)
