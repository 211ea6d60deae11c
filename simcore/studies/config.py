"""Scenario files: YAML -> validated, typed, frozen configuration.

Every field is declared once, with its type, default, allowed range and description
(:func:`_field`). Loading collects every problem before reporting, each as
``FILE: key.path: what is wrong (got VALUE)``; unknown keys list the valid ones.
Validation never uses ``assert``.

A scenario has the sections ``model``, ``design``, ``rule``, the scalars ``reference``,
``trials`` and ``seed``, a ``sweep`` mapping a parameter name to its list of values (each
becomes a cube dimension, in file order), ``output`` and, optionally, ``published`` values
to compare with.
"""

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from simcore.engine.coefficients import COEFFICIENTS
from simcore.engine.rng import stable_key
from simcore.model.designs import DESIGNS
from simcore.model.generative import Skew, prevalence_vector, rater_confusions
from simcore.model.recipes import judge_accuracy_for_margin

RULE_KINDS = ("point", "alt_test", "interval")
REFERENCES = ("dense", "population")
ENGINES = ("auto", "items", "counts")
COUNTS_ENGINE_DESIGNS = ("bernoulli", "exact_m", "shared_panel")
"""Designs under which the counts engine's category counts are exact."""
COUNTS_ITEMS_PER_MASK_PATTERN = 4
"""``engine: auto`` takes the counts engine from this many items per mask pattern."""
MAX_LABEL_PATTERNS = 1 << 20
"""Most raters' label patterns ``L ** (K + J)`` the counts engine keeps a histogram for."""


class ScenarioError(ValueError):
    """Bad scenario input; ``problems`` lists every message (``file: key: what``)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------- fields


def _field(default, kind, description, **limits):
    """Declare a config field once: default, kind of value, limits and description.

    ``kind`` is one of ``int``, ``float``, ``str``, ``probability`` (a float in (0, 1]),
    ``probabilities`` (one probability or a list of them), ``weights`` (null or a list of
    positive floats), ``interval`` (null or ``[low, high]`` in [0, 1]), ``text``.
    ``limits`` may give ``minimum``, ``maximum``, ``exclusive_minimum``, ``choices``,
    ``optional`` (null allowed).
    """
    metadata = {"kind": kind, "description": description, **limits}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def _describe(value):
    if isinstance(value, str):
        return repr(value)
    return (
        yaml.safe_dump(value, default_flow_style=True, width=10**6)
        .strip()
        .removesuffix("\n...")
        .removesuffix(" ...")
    )


def _is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_number(value, meta, integer):
    if integer:
        if not isinstance(value, int) or isinstance(value, bool):
            return None, "must be an integer"
    elif not _is_number(value):
        return None, "must be a number"
    value = int(value) if integer else float(value)
    if not integer and not math.isfinite(value):
        return None, "must be finite"
    if "minimum" in meta and value < meta["minimum"]:
        return None, f"must be >= {meta['minimum']}"
    if "exclusive_minimum" in meta and value <= meta["exclusive_minimum"]:
        return None, f"must be > {meta['exclusive_minimum']}"
    if "maximum" in meta and value > meta["maximum"]:
        return None, f"must be <= {meta['maximum']}"
    return value, None


def _check_probability(value):
    if not _is_number(value):
        return None, "must be a probability, a number in (0, 1]"
    if not 0.0 < float(value) <= 1.0:
        return None, "must be a probability in (0, 1]"
    return float(value), None


def _convert(value, meta):
    """Return ``(converted, problem)`` for one raw value against a field's declaration."""
    kind = meta["kind"]
    if value is None:
        if meta.get("optional"):
            return None, None
        return None, "must be given (null is not allowed)"
    if kind == "int":
        return _check_number(value, meta, integer=True)
    if kind == "float":
        return _check_number(value, meta, integer=False)
    if kind == "probability":
        return _check_probability(value)
    if kind == "str":
        if not isinstance(value, str):
            return None, "must be a string"
        if "choices" in meta and value not in meta["choices"]:
            return None, f"must be one of {', '.join(meta['choices'])}"
        return value, None
    if kind == "text":
        if not isinstance(value, str):
            return None, "must be a string"
        return value, None
    if kind == "probabilities":
        if isinstance(value, list):
            if not value:
                return None, "must be a probability or a non-empty list of them"
            converted = []
            for item in value:
                item, problem = _check_probability(item)
                if problem:
                    return None, f"every entry {problem}"
                converted.append(item)
            return tuple(converted), None
        return _check_probability(value)
    if kind == "weights":
        if not isinstance(value, list) or len(value) < 2:
            return None, "must be null (uniform) or a list of at least 2 probabilities"
        if not all(_is_number(item) and float(item) >= 0 for item in value):
            return None, "every entry must be a number >= 0"
        total = sum(float(item) for item in value)
        if abs(total - 1.0) > 1e-9:
            return None, f"entries must sum to 1 (they sum to {total:g})"
        return tuple(float(item) for item in value), None
    if kind == "bool":
        if not isinstance(value, bool):
            return None, "must be true or false"
        return value, None
    if kind == "names":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            return None, "must be a name or a non-empty list of names"
        return tuple(value), None
    if kind == "share":
        if not _is_number(value) or not 0.0 < float(value) < 1.0:
            return None, "must be a number in (0, 1)"
        return float(value), None
    if kind == "prevalence":
        if isinstance(value, dict):
            if set(value) != {"skew"}:
                return None, "must be null, a list of probabilities, or {skew: SHARE}"
            share, problem = _convert(value["skew"], {"kind": "share"})
            if problem:
                return None, f"skew {problem}"
            return Skew(share), None
        return _convert(value, {"kind": "weights"})
    if kind == "matrices":
        return _check_matrices(value)
    if kind == "interval":
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(_is_number(item) for item in value)
        ):
            return None, "must be null or a list [low, high]"
        low, high = (float(item) for item in value)
        if not 0.0 <= low < high <= 1.0:
            return None, "must satisfy 0 <= low < high <= 1"
        return (low, high), None
    raise TypeError(f"unknown field kind {kind!r}")  # a programming error, not bad input


def _check_matrices(value):
    """One row-stochastic square matrix, or a list of them (one per rater)."""
    array = np.asarray(value, dtype=object)
    if array.ndim not in (2, 3) or array.shape[-1] != array.shape[-2] or array.shape[-1] < 2:
        return None, "must be an L x L matrix (a list of rows) or a list of such matrices"
    if not all(_is_number(v) and float(v) >= 0 for v in array.ravel()):
        return None, "entries must be numbers >= 0"
    numbers = array.astype(np.float64)
    if not np.allclose(numbers.sum(axis=-1), 1.0, rtol=0, atol=1e-9):
        return None, "every row must sum to 1 (row = true label, column = reported label)"
    return _to_tuples(numbers.tolist()), None


def _to_tuples(value):
    if isinstance(value, list | tuple):
        return tuple(_to_tuples(v) for v in value)
    return value


def _plain(value):
    """Tuples to lists and a Skew to ``{skew: share}``, for YAML and hashing."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Skew):
        return {"skew": value.share}
    return value


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class ModelConfig:
    """The synthetic generative model (SPEC §2)."""

    n_items: int = _field(500, "int", "items in the corpus, n", minimum=2)
    n_humans: int = _field(4, "int", "humans K (primary plus K - 1 secondaries)", minimum=2)
    n_labels: int = _field(2, "int", "label categories L", minimum=2)
    p_human: float | tuple = _field(
        0.85, "probabilities", "accuracy of every human, or a list with one per human"
    )
    p_judge: float | tuple = _field(
        0.85, "probabilities", "accuracy of the judge, or a list: one judge each (ranking)"
    )
    prevalence: tuple | Skew | None = _field(
        None,
        "prevalence",
        "probability of each label: null (uniform), a list, or {skew: s} (s on label 0, the "
        "rest spread evenly)",
        optional=True,
    )
    confusion_human: tuple | None = _field(
        None,
        "matrices",
        "confusion matrix (rows: true label, columns: reported) for every human, or one per "
        "human; replaces p_human",
        optional=True,
    )
    confusion_judge: tuple | None = _field(
        None, "matrices", "confusion matrix of the judge; replaces p_judge", optional=True
    )
    n_clusters: int = _field(
        1, "int", "item clusters (item i in cluster i mod n_clusters)", minimum=1
    )
    margin: float | None = _field(
        None,
        "float",
        "signed population margin S_j - S_h + eps (SPEC §6); sets p_judge",
        minimum=-1.0,
        maximum=1.0,
        optional=True,
    )
    cluster_spread: float = _field(
        0.0,
        "float",
        "half-width of each cluster's shared uniform accuracy shift",
        minimum=0.0,
        maximum=1.0,
    )


@dataclass(frozen=True)
class DesignConfig:
    """Which items each secondary human labels (SPEC §3)."""

    kind: str = _field("bernoulli", "str", "allocation design", choices=DESIGNS)
    rho: float | None = _field(
        None, "probability", "per-secondary coverage (share of items)", optional=True
    )
    m: int | None = _field(None, "int", "items per secondary", minimum=1, optional=True)


@dataclass(frozen=True)
class RuleConfig:
    """The leave-one-out decision rule (SPEC §5)."""

    kind: str = _field("point", "str", "decision rule", choices=RULE_KINDS)
    coefficient: str = _field("observed", "str", "agreement coefficient", choices=COEFFICIENTS)
    epsilon: float = _field(0.05, "float", "tolerance eps", minimum=0.0, maximum=1.0)
    tau: float = _field(
        0.5, "float", "accept when omega >= tau", exclusive_minimum=0.0, maximum=1.0
    )
    strict: bool = _field(
        False, "bool", "accept only when omega > tau (tau 0.5: a strict majority)"
    )
    inconclusive: tuple | None = _field(
        None, "interval", "point rule: omega in [low, high) is inconclusive", optional=True
    )
    confidence: float = _field(
        0.95,
        "float",
        "interval verdict: two-sided confidence of each comparison's interval",
        exclusive_minimum=0.0,
        maximum=0.9999,
    )
    min_humans_per_item: int = _field(
        2, "int", "alt_test: drop items labelled by fewer humans", minimum=2
    )
    min_items_per_human: int = _field(
        30, "int", "alt_test: skip humans with fewer items", minimum=2
    )
    q: float = _field(
        0.05, "float", "alt_test: Benjamini-Yekutieli level", exclusive_minimum=0.0, maximum=1.0
    )
    scale: str = _field(
        "categorical",
        "str",
        "alt_test: per-item score is accuracy "
        "(categorical) or minus the RMSE of the label codes (numeric)",
        choices=("categorical", "numeric"),
    )


@dataclass(frozen=True)
class OutputConfig:
    """Where a run's store and figure go (relative to the working directory)."""

    store: str | None = _field(None, "text", "zarr store path", optional=True)
    figure: str | None = _field(None, "text", "figure path", optional=True)
    table: str | None = _field(None, "text", "planning table (Markdown) path", optional=True)
    csv: str | None = _field(None, "text", "planning table (CSV) path", optional=True)


@dataclass(frozen=True)
class PlanningConfig:
    """The planning table of a margin (or p_judge) x m sweep (SPEC §7)."""

    target: float = _field(
        0.05, "float", "largest acceptable wrong-decision rate", exclusive_minimum=0.0, maximum=1.0
    )
    alpha: float = _field(
        0.05,
        "float",
        "two-sided level of the Gaussian recipe (z_{1-a/2})",
        exclusive_minimum=0.0,
        maximum=0.5,
    )


@dataclass(frozen=True)
class RunConfig:
    """The scenario's top-level scalars."""

    name: str | None = _field(None, "text", "scenario name", optional=True)
    description: str | None = _field(None, "text", "what the scenario reproduces", optional=True)
    kind: str = _field(
        "synthetic", "str", "scenario kind (a real-data scenario says real)", choices=("synthetic",)
    )
    reference: str = _field("dense", "str", "reference decision", choices=REFERENCES)
    engine: str = _field(
        "auto",
        "str",
        "how trials are drawn: items (every item), counts (category counts; bernoulli, "
        "exact_m and shared_panel designs without clusters) or auto (counts where it is exact)",
        choices=ENGINES,
    )
    trials: int = _field(2000, "int", "trials per cell", minimum=1)
    seed: int = _field(0, "int", "root seed", minimum=0)


@dataclass(frozen=True)
class PlotConfig:
    """How ``simcore plot`` draws the cube (every dim not placed is a panel)."""

    kind: str = _field(
        "auto",
        "str",
        "figure kind; auto is a heatmap for two swept dims, lines otherwise; planning draws a "
        "planning cube",
        choices=("auto", "heatmap", "lines", "bars", "planning"),
    )
    variables: tuple = _field(["wrong_decision_rate"], "names", "cube variables to draw")
    x: str | None = _field(None, "text", "dim on the x axis (lines, bars)", optional=True)
    hue: str | None = _field(
        None, "text", "dim (or 'variable') that colours lines and bars", optional=True
    )
    scale_by: str | None = _field(
        None, "text", "multiply each value by this dim's coordinate", optional=True
    )
    log_x: bool = _field(False, "bool", "logarithmic x axis")
    percent: bool = _field(True, "bool", "show values in percent")


_TOP_SCALARS = tuple(f.name for f in dataclasses.fields(RunConfig))
_SECTIONS = {
    "model": ModelConfig,
    "design": DesignConfig,
    "rule": RuleConfig,
    "output": OutputConfig,
    "plot": PlotConfig,
}
_VALID_TOP_KEYS = (*_SECTIONS, *_TOP_SCALARS, "sweep", "published", "planning")

SWEEPABLE = {
    "p_judge": ("model", "p_judge"),
    "p_human": ("model", "p_human"),
    "n_items": ("model", "n_items"),
    "n_humans": ("model", "n_humans"),
    "n_labels": ("model", "n_labels"),
    "design": ("design", "kind"),
    "rho": ("design", "rho"),
    "m": ("design", "m"),
    "margin": ("model", "margin"),
    "skew": ("model", "prevalence"),
    "n_clusters": ("model", "n_clusters"),
    "cluster_spread": ("model", "cluster_spread"),
    "coefficient": ("rule", "coefficient"),
    "epsilon": ("rule", "epsilon"),
    "tau": ("rule", "tau"),
    "strict": ("rule", "strict"),
    "rule": ("rule", "kind"),
    "min_items_per_human": ("rule", "min_items_per_human"),
    "reference": (None, "reference"),
    "engine": (None, "engine"),
}
"""Sweep names (cube dimensions) and the field each one sets."""


_SWEEP_KINDS = {"skew": {"kind": "share", "description": "share of label 0 (prevalence skew)"}}
"""Sweep names whose values differ in kind from the field they set."""


def _field_meta(section, name):
    cls = RunConfig if section is None else _SECTIONS[section]
    return {f.name: f.metadata for f in dataclasses.fields(cls)}[name]


# --------------------------------------------------------------------------- scenario


@dataclass(frozen=True)
class Cell:
    """One point of the sweep, fully resolved."""

    index: tuple
    coords: dict
    model: ModelConfig
    design: DesignConfig
    rule: RuleConfig
    reference: str
    engine: str = "auto"

    @property
    def kernel_engine(self):
        """The engine that runs this cell: ``items`` or ``counts`` (``auto`` resolved).

        ``auto`` takes the counts engine where it is exact (:func:`counts_engine_applies`)
        and faster: with at least :data:`COUNTS_ITEMS_PER_MASK_PATTERN` items per mask
        pattern ``2 ** (K - 1)`` (below that, most mask groups hold a few items and the
        items engine's single pass wins; ``make bench`` measured the crossover near
        n = 2000 at K = 10). The items engine runs everything else.
        """
        if self.engine == "auto":
            enough_items = self.model.n_items >= COUNTS_ITEMS_PER_MASK_PATTERN * 2 ** (
                self.model.n_humans - 1
            )
            return "counts" if counts_engine_applies(self) and enough_items else "items"
        return self.engine

    @property
    def m(self):
        """Items per secondary: ``m``, or ``round(rho * n)`` when only rho is given."""
        if self.design.m is not None:
            return self.design.m
        if self.design.rho is not None:
            return int(round(self.design.rho * self.model.n_items))
        return 0

    def confusions(self):
        """Every rater's confusion matrix, ``(K + J, L, L)`` (:func:`rater_confusions`)."""
        model = self.model
        return rater_confusions(
            model.n_humans,
            model.n_labels,
            model.p_human,
            model.p_judge,
            model.confusion_human,
            model.confusion_judge,
        )

    def draw_parameters(self):
        """Return the parameters that decide the cell's random draws, in canonical form."""
        model = self.model
        draw = {
            "n_items": model.n_items,
            "n_humans": model.n_humans,
            "n_labels": model.n_labels,
            "confusion": [repr(float(p)) for p in self.confusions().ravel()],
            "prevalence": [
                repr(float(p)) for p in prevalence_vector(model.prevalence, model.n_labels)
            ],
            "design": self.design.kind,
        }
        if model.cluster_spread > 0 and model.n_clusters > 1:
            draw["clusters"] = [model.n_clusters, repr(float(model.cluster_spread))]
        if self.design.kind == "bernoulli":
            draw["rho"] = repr(float(self.design.rho))
        else:
            draw["m"] = self.m
        return draw

    def seed_key(self):
        """Return a stable 4-word key from :meth:`draw_parameters` (SHA-256, 32-bit words).

        The cell's seed sequence is ``SeedSequence(root_seed, spawn_key=seed_key())``, so
        a cell's numbers depend on the root seed and its own parameters only. Rule and
        reference settings are not part of the key: cells that differ only there share
        their draws (common random numbers).
        """
        return stable_key(self.draw_parameters())


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the sections, the sweep and where it came from."""

    model: ModelConfig
    design: DesignConfig
    rule: RuleConfig
    output: OutputConfig
    plot: PlotConfig
    kind: str = "synthetic"
    reference: str = "dense"
    engine: str = "auto"
    trials: int = 2000
    seed: int = 0
    sweep: tuple = ()
    name: str | None = None
    description: str | None = None
    published: dict | None = None
    planning: PlanningConfig | None = None
    source: str = "<scenario>"

    @property
    def dims(self):
        """Names of the swept parameters, in file order."""
        return tuple(name for name, _ in self.sweep)

    @property
    def shape(self):
        """Number of values of each swept parameter."""
        return tuple(len(values) for _, values in self.sweep)

    def to_dict(self):
        """Return the effective configuration as plain YAML-able data."""

        def section(config):
            return {f.name: _plain(getattr(config, f.name)) for f in dataclasses.fields(config)}

        data = {
            "name": self.name,
            "description": self.description,
            "model": section(self.model),
            "design": section(self.design),
            "rule": section(self.rule),
            "reference": self.reference,
            "engine": self.engine,
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {name: list(values) for name, values in self.sweep},
            "output": section(self.output),
            "plot": section(self.plot),
        }
        if self.published is not None:
            data["published"] = self.published
        if self.planning is not None:
            data["planning"] = section(self.planning)
        return data

    def to_yaml(self):
        """Return the effective configuration as YAML text."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def content_hash(self):
        """SHA-256 of everything that decides the numbers, trial count excluded.

        Runs of one scenario with different ``trials`` share a hash, so that a store can be
        extended; names, descriptions, outputs and published values are left out.
        """
        data = self.to_dict()
        for key in ("name", "description", "output", "published", "trials", "plot"):
            data.pop(key, None)
        # The sweep's order is the cube's dimension order: keep it (sort_keys would not).
        data["sweep"] = [[name, list(values)] for name, values in self.sweep]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def cells(self):
        """Yield every :class:`Cell` of the sweep, in C order of :attr:`shape`."""
        for index in np.ndindex(*self.shape) if self.sweep else [()]:
            coords = {name: values[i] for (name, values), i in zip(self.sweep, index, strict=True)}
            yield _resolve_cell(self, index, coords)


def counts_engine_applies(cell):
    """Return whether the counts engine draws ``cell`` exactly.

    It needs independent, exchangeable items (``cluster_spread`` 0), at most
    :data:`MAX_LABEL_PATTERNS` label patterns ``L ** (K + J)``, and a design that treats
    items alike: :data:`COUNTS_ENGINE_DESIGNS`. The stratified designs read each item's labels
    and stay with the items engine.
    """
    n_raters = cell.confusions().shape[0]
    patterns = cell.model.n_labels**n_raters
    return (
        cell.design.kind in COUNTS_ENGINE_DESIGNS
        and cell.model.cluster_spread == 0
        and patterns <= MAX_LABEL_PATTERNS
    )


def _resolve_cell(scenario, index, coords):
    sections = {"model": {}, "design": {}, "rule": {}}
    top = {"reference": scenario.reference, "engine": scenario.engine}
    for name, value in coords.items():
        section, key = SWEEPABLE[name]
        if section is None:
            top[key] = value
        else:
            sections[section][key] = Skew(value) if name == "skew" else value
    model = dataclasses.replace(scenario.model, **sections["model"])
    rule = dataclasses.replace(scenario.rule, **sections["rule"])
    if model.margin is not None and not isinstance(model.p_human, tuple):
        p_judge = judge_accuracy_for_margin(
            model.margin, model.p_human, model.n_labels, rule.epsilon
        )
        model = dataclasses.replace(model, p_judge=float(p_judge))
    return Cell(
        index=tuple(int(i) for i in index),
        coords=dict(coords),
        model=model,
        design=dataclasses.replace(scenario.design, **sections["design"]),
        rule=rule,
        **top,
    )


# --------------------------------------------------------------------------- loading


def _parse_section(raw, cls, path, problems, source):
    """Convert one mapping into ``cls``; each problem is appended as ``source: path.key``.

    An empty ``path`` is the top level. Bad values are reported and left at their default.
    """
    prefix = f"{path}." if path else ""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        problems.append(f"{source}: {path}: must be a mapping (got {_describe(raw)})")
        return cls()
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in raw.items():
        if key not in fields:
            problems.append(
                f"{source}: {prefix}{key}: unknown key (valid keys: {', '.join(fields)})"
            )
            continue
        converted, problem = _convert(value, fields[key].metadata)
        if problem:
            problems.append(f"{source}: {prefix}{key}: {problem} (got {_describe(value)})")
        else:
            values[key] = converted
    return cls(**values)


def _parse_sweep(raw, problems, source):
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.append(
            f"{source}: sweep: must be a mapping of parameter to values (got {_describe(raw)})"
        )
        return ()
    sweep = []
    for name, values in raw.items():
        if name not in SWEEPABLE:
            problems.append(
                f"{source}: sweep.{name}: unknown sweep parameter (valid: {', '.join(SWEEPABLE)})"
            )
            continue
        if not isinstance(values, list) or not values:
            problems.append(
                f"{source}: sweep.{name}: must be a non-empty list of values "
                f"(got {_describe(values)})"
            )
            continue
        meta = _SWEEP_KINDS.get(name) or _field_meta(*SWEEPABLE[name])
        converted = []
        for position, value in enumerate(values):
            if isinstance(value, list | dict):
                problems.append(
                    f"{source}: sweep.{name}[{position}]: must be a single value "
                    f"(got {_describe(value)})"
                )
                continue
            item, problem = _convert(value, {**meta, "optional": False})
            if problem:
                problems.append(
                    f"{source}: sweep.{name}[{position}]: {problem} (got {_describe(value)})"
                )
            else:
                converted.append(item)
        if len(set(converted)) != len(converted):
            problems.append(
                f"{source}: sweep.{name}: values must be distinct (got {_describe(values)})"
            )
        sweep.append((name, tuple(converted)))
    return tuple(sweep)


def _parse_published(raw, sweep, problems, source):
    """Check the optional ``published`` block: values to compare a 2-D sweep with."""
    if raw is None:
        return None
    keys = ("source", "variable", "scale", "values")
    if not isinstance(raw, dict):
        problems.append(f"{source}: published: must be a mapping (got {_describe(raw)})")
        return None
    for key in raw:
        if key not in keys:
            problems.append(
                f"{source}: published.{key}: unknown key (valid keys: {', '.join(keys)})"
            )
    values = raw.get("values")
    shape = tuple(len(v) for _, v in sweep)
    array = np.asarray(values, dtype=object)
    if array.shape != shape or not all(v is None or _is_number(v) for v in array.ravel()):
        problems.append(
            f"{source}: published.values: must be a nested list of numbers with "
            f"the sweep's shape {list(shape)} (got {_describe(values)})"
        )
    scale = raw.get("scale", 1)
    if not _is_number(scale) or scale <= 0:
        problems.append(
            f"{source}: published.scale: must be a positive number (got {_describe(scale)})"
        )
    return raw


def _check_cell(cell, source):
    """Cross-field checks of one cell, as ``(key, message, fields involved)`` triples.

    Each message names the key that set the offending value (the sweep's, where swept) and
    the cell it was found at.
    """

    def where(name, section_key):
        return f"sweep.{name}" if name in cell.coords else section_key

    model, design = cell.model, cell.design
    label = ", ".join(f"{k}={v}" for k, v in cell.coords.items())
    at = f" at {label}" if label else ""
    found = []

    def problem(key, text, got, involved):
        found.append((key, f"{source}: {key}: {text}{at} (got {got})", involved))

    if isinstance(model.p_human, tuple) and len(model.p_human) != model.n_humans:
        problem(
            where("p_human", "model.p_human"),
            f"needs one accuracy per human, {model.n_humans}",
            len(model.p_human),
            ("model.p_human", "model.n_humans"),
        )
    if isinstance(model.prevalence, tuple) and len(model.prevalence) != model.n_labels:
        problem(
            "model.prevalence",
            f"needs one entry per label, {model.n_labels}",
            len(model.prevalence),
            ("model.prevalence", "model.n_labels"),
        )
    if design.kind == "bernoulli" and design.rho is None:
        problem(
            where("rho", "design.rho"),
            "the bernoulli design needs rho",
            "null",
            ("design.kind", "design.rho"),
        )
    if design.kind == "bernoulli" and design.m is not None:
        problem(
            where("m", "design.m"),
            "the bernoulli design takes rho, not m",
            design.m,
            ("design.kind", "design.m"),
        )
    if design.kind != "bernoulli":
        involved = ("design.kind", "design.m", "design.rho", "model.n_items")
        if design.m is None and design.rho is None:
            problem(
                where("m", "design.m"), f"the {design.kind} design needs m or rho", "null", involved
            )
        elif cell.m > model.n_items:
            problem(
                where("m", "design.m"), f"must be <= n_items = {model.n_items}", cell.m, involved
            )
        elif cell.m < 1:
            problem(
                where("rho", "design.rho"),
                "gives fewer than one item per secondary",
                f"m = {cell.m}",
                involved,
            )
    if cell.engine == "counts" and not counts_engine_applies(cell):
        problem(
            where("engine", "engine"),
            "the counts engine needs independent items, at most 2**20 label patterns "
            "L**(K+J) and a bernoulli, exact_m or "
            "shared_panel design (use engine: items or auto)",
            f"design {design.kind}, {model.n_clusters} clusters of spread {model.cluster_spread}",
            ("engine", "design.kind", "model.n_clusters", "model.cluster_spread"),
        )
    rule = cell.rule
    if rule.kind == "alt_test" and cell.reference == "population":
        problem(
            where("rule", "rule.kind"),
            "alt_test has no population reference; use reference: dense",
            "alt_test",
            ("rule.kind", "reference"),
        )
    if rule.kind != "point" and rule.coefficient != "observed":
        problem(
            where("rule", "rule.kind"),
            f"{rule.kind} scores observed agreement (accuracy); set rule.coefficient: observed",
            rule.coefficient,
            ("rule.kind", "rule.coefficient"),
        )
    if rule.kind != "point" and rule.inconclusive is not None:
        problem(
            "rule.inconclusive",
            "the band belongs to the point rule (the interval verdict "
            "has its own inconclusive outcome)",
            list(rule.inconclusive),
            ("rule.kind", "rule.inconclusive"),
        )
    if model.margin is not None:
        involved = (
            "model.margin",
            "model.p_human",
            "model.confusion_human",
            "model.confusion_judge",
            "rule.epsilon",
        )
        if isinstance(model.p_human, tuple) or model.confusion_human is not None:
            problem(
                where("margin", "model.margin"),
                "needs one p_human shared by all humans "
                "(the margin is defined for exchangeable humans)",
                "per-human values",
                involved,
            )
        elif model.confusion_judge is not None:
            problem(
                where("margin", "model.margin"),
                "sets p_judge, so it cannot go with model.confusion_judge",
                "both",
                involved,
            )
        elif not 0.0 < model.p_judge <= 1.0:
            problem(
                where("margin", "model.margin"),
                "gives a judge accuracy outside (0, 1]",
                f"p_judge = {model.p_judge:.4g}",
                involved,
            )
    for name, count in (("confusion_human", model.n_humans), ("confusion_judge", 1)):
        matrices = getattr(model, name)
        if matrices is None:
            continue
        shape = np.shape(matrices)
        if shape[-1] != model.n_labels:
            problem(
                f"model.{name}",
                f"needs {model.n_labels} x {model.n_labels} matrices "
                "(one row and column per label)",
                "x".join(map(str, shape[-2:])),
                (f"model.{name}", "model.n_labels"),
            )
        elif len(shape) == 3 and shape[0] != count:
            problem(
                f"model.{name}",
                f"needs one matrix, or one per rater ({count})",
                shape[0],
                (f"model.{name}", "model.n_humans"),
            )
    return found


def _plot_problems(scenario, source):
    """Check that the plot block names only the swept dims and known variables."""
    from simcore.sweep.store import PLOT_VARIABLES

    plot = scenario.plot
    found = []
    dims = scenario.dims
    for key in ("x", "hue", "scale_by"):
        value = getattr(plot, key)
        allowed = (*dims, "variable") if key == "hue" else dims
        if value is not None and value not in allowed:
            found.append(
                f"{source}: plot.{key}: must be one of the swept dims "
                f"({', '.join(allowed) or 'none'}) (got {value!r})"
            )
    for position, name in enumerate(plot.variables):
        if name not in PLOT_VARIABLES:
            found.append(
                f"{source}: plot.variables[{position}]: unknown variable (valid: "
                f"{', '.join(PLOT_VARIABLES)}) (got {name!r})"
            )
    return found


def _cross_field_problems(scenario, problems, source):
    """Cross-field problems over every cell, once per key.

    Checks that involve a field already reported as bad on its own are skipped (its value
    was replaced by the default, so the check would speak of a value nobody wrote).
    """
    reported = {problem.removeprefix(f"{source}: ").split(":")[0] for problem in problems}
    bad = {key.split("[")[0] for key in reported}
    for name, (section, field_name) in SWEEPABLE.items():
        if f"sweep.{name}" in bad:
            bad.add(f"{section}.{field_name}" if section else field_name)
    first_per_key = {}
    for cell in scenario.cells():
        for key, message, involved in _check_cell(cell, source):
            if not bad.intersection(involved):
                first_per_key.setdefault(key, message)
    return list(first_per_key.values())


def _read_yaml(path):
    path = Path(path)
    if not path.exists():
        raise ScenarioError([f"{path}: no such file"])
    if path.is_dir():
        raise ScenarioError([f"{path}: is a directory, not a scenario file"])
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError([f"{path}: cannot be read ({error})"]) from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError([f"{path}: not valid YAML ({error})"]) from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ScenarioError([f"{path}: must hold a mapping of sections (got {_describe(raw)})"])
    return raw


def apply_overrides(raw, overrides, source):
    """Apply ``KEY=VALUE`` strings to the raw mapping; VALUE is parsed as YAML.

    Raises
    ------
    ScenarioError
        For an override without ``=`` or with a path through a non-mapping value.
    """
    problems = []
    for override in overrides:
        key, sep, text = override.partition("=")
        if not sep or not key:
            problems.append(f"{source}: --set {override}: must be KEY=VALUE (got {override!r})")
            continue
        try:
            value = yaml.safe_load(text) if text else None
        except yaml.YAMLError:
            value = text
        parts = key.split(".")
        target = raw
        for part in parts[:-1]:
            if target.get(part) is None:
                target[part] = {}
            if not isinstance(target[part], dict):
                problems.append(
                    f"{source}: --set {key}: {part} is not a section "
                    f"(got {_describe(target[part])})"
                )
                break
            target = target[part]
        else:
            target[parts[-1]] = value
    if problems:
        raise ScenarioError(problems)
    return raw


def scenario_from_dict(raw, source="<scenario>"):
    """Validate a raw mapping into a :class:`Scenario`, reporting every problem at once.

    Raises
    ------
    ScenarioError
        Listing each problem as ``source: key.path: what is wrong (got VALUE)``.
    """
    problems = []
    if not isinstance(raw, dict):
        raise ScenarioError([f"{source}: must hold a mapping of sections (got {_describe(raw)})"])
    for key in raw:
        if key not in _VALID_TOP_KEYS:
            problems.append(
                f"{source}: {key}: unknown key (valid keys: {', '.join(_VALID_TOP_KEYS)})"
            )
    sections = {
        name: _parse_section(raw.get(name), cls, name, problems, source)
        for name, cls in _SECTIONS.items()
    }
    model_raw = raw.get("model") if isinstance(raw.get("model"), dict) else {}
    sweep_raw = raw.get("sweep") if isinstance(raw.get("sweep"), dict) else {}
    if isinstance(model_raw.get("p_judge"), list) and "p_judge" in sweep_raw:
        problems.append(
            f"{source}: sweep.p_judge: model.p_judge lists several judges; sweep "
            f"them or list them, not both (got {_describe(sweep_raw['p_judge'])})"
        )
    if model_raw.get("margin") is not None or "margin" in sweep_raw:
        if "p_judge" in model_raw or "p_judge" in sweep_raw:
            problems.append(
                f"{source}: model.margin: sets p_judge; give p_judge or margin, not both (got both)"
            )
    for rater in ("human", "judge"):
        given = f"p_{rater}" in model_raw or f"p_{rater}" in sweep_raw
        if given and model_raw.get(f"confusion_{rater}") is not None:
            problems.append(
                f"{source}: model.confusion_{rater}: give p_{rater} or "
                f"confusion_{rater}, not both (got both)"
            )
    top = {key: raw[key] for key in _TOP_SCALARS if key in raw}
    scalars = dataclasses.asdict(_parse_section(top, RunConfig, "", problems, source))
    sweep = _parse_sweep(raw.get("sweep"), problems, source)
    planning = None
    if raw.get("planning") is not None:
        planning = _parse_section(raw["planning"], PlanningConfig, "planning", problems, source)
        dims = [name for name, _ in sweep]
        if "m" not in dims or len(dims) != 2 or not {"margin", "p_judge"} & set(dims):
            problems.append(
                f"{source}: planning: needs a sweep over m and one of margin or "
                f"p_judge, and nothing else (got {', '.join(dims) or 'no sweep'})"
            )
    published = _parse_published(raw.get("published"), sweep, problems, source)
    scenario = Scenario(
        **sections, **scalars, sweep=sweep, published=published, planning=planning, source=source
    )
    problems.extend(_cross_field_problems(scenario, problems, source))
    if not any(": plot." in problem or ": sweep" in problem for problem in problems):
        problems.extend(_plot_problems(scenario, source))
    if problems:
        raise ScenarioError(problems)
    return scenario


def read_raw(path, overrides=(), trials=None, seed=None):
    """Read a scenario file into a raw mapping with overrides applied (not validated)."""
    source = str(path)
    raw = _read_yaml(path)
    apply_overrides(raw, overrides, source)
    if trials is not None:
        raw["trials"] = trials
    if seed is not None:
        raw["seed"] = seed
    return raw


def load_scenario(path, overrides=(), trials=None, seed=None):
    """Read, override and validate a scenario file.

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML file.
    overrides : sequence of str
        ``KEY=VALUE`` settings applied before validation (``--set``).
    trials, seed : int, optional
        Replace the file's trial count or root seed.

    Returns
    -------
    Scenario

    Raises
    ------
    ScenarioError
        Every problem found, each naming the file, the key and the bad value.
    """
    return scenario_from_dict(read_raw(path, overrides, trials, seed), source=str(path))
