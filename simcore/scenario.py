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

from simcore.agreement import COEFFICIENTS
from simcore.designs import DESIGNS
from simcore.model import prevalence_vector

RULE_KINDS = ("point",)
REFERENCES = ("dense", "population")


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
    p_judge: float = _field(0.85, "probability", "accuracy of the judge")
    prevalence: tuple | None = _field(
        None, "weights", "probability of each label; null means uniform", optional=True
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
    inconclusive: tuple | None = _field(
        None, "interval", "omega in [low, high) is inconclusive", optional=True
    )


@dataclass(frozen=True)
class OutputConfig:
    """Where a run's store and figure go (relative to the working directory)."""

    store: str | None = _field(None, "text", "zarr store path", optional=True)
    figure: str | None = _field(None, "text", "figure path", optional=True)


@dataclass(frozen=True)
class RunConfig:
    """The scenario's top-level scalars."""

    name: str | None = _field(None, "text", "scenario name", optional=True)
    description: str | None = _field(None, "text", "what the scenario reproduces", optional=True)
    reference: str = _field("dense", "str", "reference decision", choices=REFERENCES)
    trials: int = _field(2000, "int", "trials per cell", minimum=1)
    seed: int = _field(0, "int", "root seed", minimum=0)


_TOP_SCALARS = tuple(f.name for f in dataclasses.fields(RunConfig))
_SECTIONS = {
    "model": ModelConfig,
    "design": DesignConfig,
    "rule": RuleConfig,
    "output": OutputConfig,
}
_VALID_TOP_KEYS = (*_SECTIONS, *_TOP_SCALARS, "sweep", "published")

SWEEPABLE = {
    "p_judge": ("model", "p_judge"),
    "p_human": ("model", "p_human"),
    "n_items": ("model", "n_items"),
    "n_humans": ("model", "n_humans"),
    "n_labels": ("model", "n_labels"),
    "design": ("design", "kind"),
    "rho": ("design", "rho"),
    "m": ("design", "m"),
    "coefficient": ("rule", "coefficient"),
    "epsilon": ("rule", "epsilon"),
    "tau": ("rule", "tau"),
    "reference": (None, "reference"),
}
"""Sweep names (cube dimensions) and the field each one sets."""


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

    @property
    def m(self):
        """Items per secondary: ``m``, or ``round(rho * n)`` for ``exact_m`` given rho."""
        if self.design.m is not None:
            return self.design.m
        if self.design.rho is not None:
            return int(round(self.design.rho * self.model.n_items))
        return 0

    def draw_parameters(self):
        """Return the parameters that decide the cell's random draws, in canonical form."""
        model = self.model
        p_human = np.broadcast_to(np.asarray(model.p_human, float), (model.n_humans,))
        draw = {
            "n_items": model.n_items,
            "n_humans": model.n_humans,
            "n_labels": model.n_labels,
            "p_human": [repr(float(p)) for p in p_human],
            "p_judge": [repr(float(model.p_judge))],
            "prevalence": [
                repr(float(p)) for p in prevalence_vector(model.prevalence, model.n_labels)
            ],
            "design": self.design.kind,
        }
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
        text = json.dumps(self.draw_parameters(), sort_keys=True)
        digest = hashlib.sha256(text.encode()).digest()
        return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the sections, the sweep and where it came from."""

    model: ModelConfig
    design: DesignConfig
    rule: RuleConfig
    output: OutputConfig
    reference: str = "dense"
    trials: int = 2000
    seed: int = 0
    sweep: tuple = ()
    name: str | None = None
    description: str | None = None
    published: dict | None = None
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

        def plain(value):
            if isinstance(value, tuple):
                return [plain(v) for v in value]
            return value

        data = {
            "name": self.name,
            "description": self.description,
            "model": {k: plain(v) for k, v in dataclasses.asdict(self.model).items()},
            "design": dataclasses.asdict(self.design),
            "rule": {k: plain(v) for k, v in dataclasses.asdict(self.rule).items()},
            "reference": self.reference,
            "trials": self.trials,
            "seed": self.seed,
            "sweep": {name: list(values) for name, values in self.sweep},
            "output": dataclasses.asdict(self.output),
        }
        if self.published is not None:
            data["published"] = self.published
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
        for key in ("name", "description", "output", "published", "trials"):
            data.pop(key, None)
        # The sweep's order is the cube's dimension order: keep it (sort_keys would not).
        data["sweep"] = [[name, list(values)] for name, values in self.sweep]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def cells(self):
        """Yield every :class:`Cell` of the sweep, in C order of :attr:`shape`."""
        for index in np.ndindex(*self.shape) if self.sweep else [()]:
            coords = {name: values[i] for (name, values), i in zip(self.sweep, index, strict=True)}
            yield _resolve_cell(self, index, coords)


def _resolve_cell(scenario, index, coords):
    sections = {"model": {}, "design": {}, "rule": {}}
    reference = scenario.reference
    for name, value in coords.items():
        section, key = SWEEPABLE[name]
        if section is None:
            reference = value
        else:
            sections[section][key] = value
    return Cell(
        index=tuple(int(i) for i in index),
        coords=dict(coords),
        model=dataclasses.replace(scenario.model, **sections["model"]),
        design=dataclasses.replace(scenario.design, **sections["design"]),
        rule=dataclasses.replace(scenario.rule, **sections["rule"]),
        reference=reference,
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
        meta = _field_meta(*SWEEPABLE[name])
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
    if model.prevalence is not None and len(model.prevalence) != model.n_labels:
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
    if design.kind == "exact_m":
        involved = ("design.kind", "design.m", "design.rho", "model.n_items")
        if design.m is None and design.rho is None:
            problem(where("m", "design.m"), "the exact_m design needs m or rho", "null", involved)
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
    top = {key: raw[key] for key in _TOP_SCALARS if key in raw}
    scalars = dataclasses.asdict(_parse_section(top, RunConfig, "", problems, source))
    sweep = _parse_sweep(raw.get("sweep"), problems, source)
    published = _parse_published(raw.get("published"), sweep, problems, source)
    scenario = Scenario(**sections, **scalars, sweep=sweep, published=published, source=source)
    problems.extend(_cross_field_problems(scenario, problems, source))
    if problems:
        raise ScenarioError(problems)
    return scenario


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
    source = str(path)
    raw = _read_yaml(path)
    apply_overrides(raw, overrides, source)
    if trials is not None:
        raw["trials"] = trials
    if seed is not None:
        raw["seed"] = seed
    return scenario_from_dict(raw, source=source)
