"""The synthetic study's configuration: its sections, its sweep, its cells.

A synthetic scenario has the sections ``model``, ``design``, ``rule``, the scalars
``reference``, ``engine``, ``trials`` and ``seed``, a ``sweep`` mapping a parameter name to
its list of values (each becomes a cube dimension, in file order), ``output``, ``plot``
and, optionally, ``published`` values to compare with and a ``planning`` block. A
:class:`Cell` is one point of the sweep, fully resolved.
"""

import dataclasses
import functools
import hashlib
import itertools
import json
import math
from dataclasses import dataclass

import numpy as np
import yaml

from simcore.engine import ENGINES as ENGINE_NAMES
from simcore.engine import CellShape, choose_engine, kernel_variant
from simcore.engine.rng import stable_key
from simcore.model.decision_rule import Rule
from simcore.model.designs import DESIGNS
from simcore.model.fields import declared_field, plain_value
from simcore.model.generative import Skew, prevalence_vector, rater_confusions
from simcore.model.recipes import judge_accuracy_for_margin
from simcore.model.weighted import is_weighted
from simcore.studies.config import MAX_TRIALS, OutputConfig
from simcore.studies.rule_section import rule_dict
from simcore.studies.synthetic.model import MODEL_KEYS_WRITTEN_WHEN_SET, ModelConfig

REFERENCES = ("dense", "population")
ENGINES = ("auto", *ENGINE_NAMES)
"""What ``engine:`` may name: ``auto`` or one of the engines."""


@dataclass(frozen=True)
class DesignConfig:
    """Which items each secondary human labels (docs/explanation/designs.md)."""

    kind: str = declared_field("bernoulli", "str", "allocation design", choices=DESIGNS)
    rho: float | None = declared_field(
        None, "probability", "per-secondary coverage (share of items)", optional=True
    )
    m: int | None = declared_field(None, "int", "items per secondary", minimum=1, optional=True)


@dataclass(frozen=True)
class PlanningConfig:
    """The planning table of a margin (or p_judge) x m sweep (docs/howto/plan.md)."""

    target: float = declared_field(
        0.05, "float", "largest acceptable wrong-decision rate", exclusive_minimum=0.0, maximum=1.0
    )
    alpha: float = declared_field(
        0.05,
        "float",
        "two-sided level of the Gaussian recipe (z_{1-a/2})",
        exclusive_minimum=0.0,
        maximum=0.5,
    )


@dataclass(frozen=True)
class RunConfig:
    """The scenario's top-level scalars."""

    name: str | None = declared_field(None, "name", "scenario name", optional=True)
    description: str | None = declared_field(
        None, "text", "what the scenario reproduces", optional=True
    )
    kind: str = declared_field(
        "synthetic", "str", "scenario kind (a real-data scenario says real)", choices=("synthetic",)
    )
    reference: str = declared_field("dense", "str", "reference decision", choices=REFERENCES)
    engine: str = declared_field(
        "auto",
        "str",
        "how trials are drawn: items (every item), counts (category counts; bernoulli, "
        "exact_m and shared_panel designs without clusters), bitset (labels and masks as "
        "bitsets; the point rule, the interval verdict and alt_test with categorical scores "
        "on those designs, clusters included, unweighted coefficients) or auto (the fastest "
        "that runs the cell)",
        choices=ENGINES,
    )
    trials: int = declared_field(2000, "int", "trials per cell", minimum=1, maximum=MAX_TRIALS)
    seed: int = declared_field(0, "int", "root seed", minimum=0, unbounded=True)


@dataclass(frozen=True)
class PlotConfig:
    """How ``simcore plot`` draws the cube (every dim not placed is a panel)."""

    kind: str = declared_field(
        "auto",
        "str",
        "figure kind; auto is a heatmap for two swept dims, lines otherwise; planning draws a "
        "planning cube",
        choices=("auto", "heatmap", "lines", "bars", "planning"),
    )
    variables: tuple = declared_field(["wrong_decision_rate"], "names", "cube variables to draw")
    x: str | None = declared_field(None, "text", "dim on the x axis (lines, bars)", optional=True)
    hue: str | None = declared_field(
        None, "text", "dim (or 'variable') that colours lines and bars", optional=True
    )
    scale_by: str | None = declared_field(
        None, "text", "multiply each value by this dim's coordinate", optional=True
    )
    log_x: bool = declared_field(False, "bool", "logarithmic x axis")
    percent: bool = declared_field(True, "bool", "show values in percent")


_TOP_SCALARS = tuple(f.name for f in dataclasses.fields(RunConfig))
_SECTIONS = {
    "model": ModelConfig,
    "design": DesignConfig,
    "rule": Rule,
    "output": OutputConfig,
    "plot": PlotConfig,
}
_VALID_TOP_KEYS = (*_SECTIONS, *_TOP_SCALARS, "sweep", "published", "planning", "outputs")
REMOVED_KEYS = {
    "streams": "removed in this version (auto's engine choice has one version); delete the key",
}
"""Top-level keys a scenario may no longer hold, each with what to do instead."""

OUTPUTS = ("agreement", "overlap", "ranking")
"""Per-trial statistics a scenario may ask for beyond the decisions (``outputs:``; all by
default): the human pool's agreement, the secondaries' coverage and overlap, the ranking."""

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
    "adjacent": ("model", "adjacent"),
    "coefficient": ("rule", "coefficient"),
    "level": ("rule", "level"),
    "weights": ("rule", "weights"),
    "epsilon": ("rule", "epsilon"),
    "tau": ("rule", "tau"),
    "strict": ("rule", "strict"),
    "rule": ("rule", "kind"),
    "min_items_per_human": ("rule", "min_items_per_human"),
    "min_pairs": ("rule", "min_pairs"),
    "reference": (None, "reference"),
    "engine": (None, "engine"),
}
"""Sweep names (cube dimensions) and the field each one sets."""


_SWEEP_KINDS = {"skew": {"kind": "share", "description": "share of label 0 (prevalence skew)"}}
"""Sweep names whose values differ in kind from the field they set."""


def _field_meta(section, name):
    cls = RunConfig if section is None else _SECTIONS[section]
    return {f.name: f.metadata for f in dataclasses.fields(cls)}[name]


@dataclass(frozen=True)
class Cell:
    """One point of the sweep, fully resolved."""

    index: tuple
    coords: dict
    model: ModelConfig
    design: DesignConfig
    rule: Rule
    reference: str
    engine: str = "auto"
    outputs: tuple = OUTPUTS

    @functools.cached_property
    def engine_shape(self):
        """The :class:`~simcore.engine.choice.CellShape` the engines' reach reads.

        Made once per cell: the engine, its kernel variant and the memory estimate all
        read it.
        """
        model, rule = self.model, self.rule
        return CellShape(
            n_items=model.n_items,
            n_humans=model.n_humans,
            n_raters=self.confusions().shape[0],
            n_labels=model.n_labels,
            n_clusters=model.n_clusters,
            cluster_spread=model.cluster_spread,
            design=self.design.kind,
            rule=rule.kind,
            scale=rule.scale,
            weighted=is_weighted(rule.level, rule.weights),
        )

    @property
    def kernel_engine(self):
        """The engine that runs this cell: ``items``, ``counts`` or ``bitset`` (``auto`` resolved).

        :func:`simcore.engine.choice.choose_engine` of the cell's :attr:`engine_shape`: ``auto``
        takes the bitset engine wherever it runs the cell, else the counts engine where it
        is exact and faster, else the items engine. An engine named that cannot run the
        cell is refused when the scenario is read.
        """
        return choose_engine(self.engine_shape, self.engine)

    @property
    def kernel_variant(self):
        """The compiled kernel that runs this cell (a key of ``engine.warm.COMPILE_SECONDS``).

        :func:`simcore.engine.choice.kernel_variant`: ``bitset``, ``bitset:verdicts``,
        ``bitset:clusters``, ``bitset:verdicts,clusters``, ``counts``, ``counts:weighted``,
        ``items`` or ``items:weighted``.
        """
        shape = self.engine_shape
        return kernel_variant(shape, choose_engine(shape, self.engine))

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
            model.adjacent,
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
    rule: Rule
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
    outputs: tuple = OUTPUTS

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

        def section(config):  # keys added later are written when set (the model's only)
            return {
                f.name: plain_value(getattr(config, f.name))
                for f in dataclasses.fields(config)
                if MODEL_KEYS_WRITTEN_WHEN_SET.get(f.name, object()) != getattr(config, f.name)
            }

        data = {
            "name": self.name,
            "description": self.description,
            "model": section(self.model),
            "design": section(self.design),
            "rule": rule_dict(self.rule, plain_value),
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
        if self.outputs != OUTPUTS:  # the default leaves hashes of existing stores alone
            data["outputs"] = list(self.outputs)
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
        """Yield every :class:`Cell` of the sweep, in C order of :attr:`shape`.

        Each section (model, design, rule) is resolved once per distinct combination of
        the swept values it reads, so a long sweep costs one small object per cell.
        """
        names = [name for name, _ in self.sweep]
        reads = {
            kind: [k for k, name in enumerate(names) if SWEEPABLE[name][0] == kind]
            for kind in ("model", "design", "rule")
        }
        reads["model"] += [k for k, name in enumerate(names) if name == "epsilon"]  # margin
        resolved = {}
        for index in np.ndindex(*self.shape) if self.sweep else [()]:
            coords = {name: values[i] for (name, values), i in zip(self.sweep, index, strict=True)}
            keys = {kind: (kind, *(index[k] for k in where)) for kind, where in reads.items()}
            yield _resolve_cell(self, index, coords, resolved, keys)

    def cells_at(self, indices):
        """Yield the :class:`Cell` at each index tuple of ``indices`` (as :meth:`cells`)."""
        names = [name for name, _ in self.sweep]
        reads = {
            kind: [k for k, name in enumerate(names) if SWEEPABLE[name][0] == kind]
            for kind in ("model", "design", "rule")
        }
        reads["model"] += [k for k, name in enumerate(names) if name == "epsilon"]
        resolved = {}
        for index in indices:
            coords = {name: values[i] for (name, values), i in zip(self.sweep, index, strict=True)}
            keys = {kind: (kind, *(index[k] for k in where)) for kind, where in reads.items()}
            yield _resolve_cell(self, tuple(index), coords, resolved, keys)

    def model_sizes(self):
        """Return the distinct ``(n_items, n_humans, n_labels)`` of the sweep's cells.

        What the memory estimate and the cube's largest K read, found from the swept
        values of these three alone (no cell is resolved).
        """
        names = ("n_items", "n_humans", "n_labels")
        swept = dict(self.sweep)
        axes = [swept.get(name, [getattr(self.model, name)]) for name in names]
        return sorted(set(itertools.product(*axes)))


CROSS_CHECK_CELLS = 100_000
"""Sweeps of up to this many cells have every cell's cross-field checks run; a larger one
has them run on a sample (:func:`cells_to_check`), so that ``validate`` answers in seconds."""


def cells_to_check(scenario):
    """Return the cells whose cross-field problems are checked (a scenario's validation).

    Every cell of a sweep of at most :data:`CROSS_CHECK_CELLS`; of a larger one, every value
    of every axis with the other axes at their first, middle and last value, and every pair
    of values of two axes (the others at their first value) while that stays in the bound.
    """
    shape = scenario.shape
    if math.prod(int(size) for size in shape) <= CROSS_CHECK_CELLS:
        return scenario.cells()
    picks = (lambda size: 0, lambda size: size // 2, lambda size: size - 1)
    bases = {tuple(pick(size) for size in shape) for pick in picks}
    indices = set(bases)
    for axis, size in enumerate(shape):
        for value, base in itertools.product(range(size), bases):
            indices.add(base[:axis] + (value,) + base[axis + 1 :])
    for first, second in itertools.combinations(range(len(shape)), 2):
        if shape[first] * shape[second] + len(indices) > CROSS_CHECK_CELLS:
            continue
        for a, b in itertools.product(range(shape[first]), range(shape[second])):
            index = [0] * len(shape)
            index[first], index[second] = a, b
            indices.add(tuple(index))
    return scenario.cells_at(sorted(indices))


def _resolve_cell(scenario, index, coords, resolved=None, keys=None):
    """Return the :class:`Cell` at ``index``.

    ``resolved`` memoises its sections under ``keys`` (``{section: key}``, the cell's
    indices along the dims the section reads); without them each is resolved anew.
    """
    resolved = {} if resolved is None else resolved
    sections = {"model": {}, "design": {}, "rule": {}}
    top = {"reference": scenario.reference, "engine": scenario.engine}
    top["outputs"] = scenario.outputs
    for name, value in coords.items():
        section, key = SWEEPABLE[name]
        if section is None:
            top[key] = value
        else:
            sections[section][key] = Skew(value) if name == "skew" else value

    def section(kind, make):
        if keys is None:
            return make()
        key = keys[kind]
        if key not in resolved:
            resolved[key] = make()
        return resolved[key]

    rule = section("rule", lambda: dataclasses.replace(scenario.rule, **sections["rule"]))

    def make_model():
        model = dataclasses.replace(scenario.model, **sections["model"])
        if model.margin is not None and not isinstance(model.p_human, tuple):
            p_judge = judge_accuracy_for_margin(
                model.margin, model.p_human, model.n_labels, rule.epsilon
            )
            model = dataclasses.replace(model, p_judge=float(p_judge))
        return model

    return Cell(
        index=tuple(int(i) for i in index),
        coords=dict(coords),
        model=section("model", make_model),
        design=section(
            "design", lambda: dataclasses.replace(scenario.design, **sections["design"])
        ),
        rule=rule,
        **top,
    )
