"""Scenario files of every kind: YAML -> validated, typed, frozen configuration.

Every field is declared once, with its type, default, allowed range and description
(:func:`_field`). Loading collects every problem before reporting, each as
``FILE: key.path: what is wrong (got VALUE)``; unknown keys list the valid ones.
Validation never uses ``assert``. This module holds what every kind of study shares: the
field machinery, the ``rule`` and ``output`` sections, reading a file and ``--set``
overrides; each study parses its own sections with them.
"""

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from simcore.model.generative import Skew
from simcore.model.weighted import LEVELS, WEIGHTS
from simcore.options import LARGEST_COUNT, did_you_mean, plain_numbers
from simcore.realdata.form_choice import FORMS, MIN_ITEMS
from simcore.studies.rule_section import RULE_COEFFICIENTS
from simcore.studies.scenario_names import check_name, check_path_text

RULE_KINDS = ("point", "alt_test", "interval")

MAX_TRIALS = 2**29
"""Most trials per cell: the float sums add values on a 2^-24 grid, exact in float64 only
while they stay below 2^29, and every count stays far inside int64."""


class ScenarioError(ValueError):
    """Bad scenario input; ``problems`` lists every message (``file: key: what``)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------- fields


def _field(default, kind, description, **limits):
    """Declare a config field once: default, kind of value, limits and description.

    ``kind`` is one of ``int`` (at most 2**53 unless ``unbounded``), ``float``, ``str``,
    ``name`` (a text that becomes a file name,
    :func:`simcore.studies.scenario_names.name_problem`), ``path`` (a text
    without control characters), ``probability`` (a float in (0, 1]),
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
    try:
        text = yaml.safe_dump(plain_numbers(value), default_flow_style=True, width=10**6)
    except yaml.YAMLError:  # not a YAML value (an object passed from Python): its repr
        return f"{type(value).__name__} {value!r}"[:200]
    return text.strip().removesuffix("\n...").removesuffix(" ...")


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
    if integer and not meta.get("unbounded") and value > LARGEST_COUNT:
        return None, f"must be <= 2**53 = {LARGEST_COUNT}, the largest count a float64 holds"
    return value, None


def _check_probability(value):
    if not _is_number(value):
        return None, "must be a probability, a number in (0, 1]"
    if not 0.0 < float(value) <= 1.0:
        return None, "must be a probability in (0, 1]"
    return float(value), None


def _check_string(value, meta):
    if not isinstance(value, str):
        return None, "must be a string"
    if "choices" in meta and value not in meta["choices"]:
        return None, f"must be one of {', '.join(meta['choices'])}"
    return value, None


def _check_probabilities(value, meta):
    if not isinstance(value, list):
        return _check_probability(value)
    if not value:
        return None, "must be a probability or a non-empty list of them"
    converted = []
    for item in value:
        item, problem = _check_probability(item)
        if problem:
            return None, f"every entry {problem}"
        converted.append(item)
    return tuple(converted), None


def _check_weights(value, meta):
    if not isinstance(value, list) or len(value) < 2:
        return None, "must be null (uniform) or a list of at least 2 probabilities"
    if not all(_is_number(item) and float(item) >= 0 for item in value):
        return None, "every entry must be a number >= 0"
    total = sum(float(item) for item in value)
    if abs(total - 1.0) > 1e-9:
        return None, f"entries must sum to 1 (they sum to {total:g})"
    return tuple(float(item) for item in value), None


def _check_bool(value, meta):
    if not isinstance(value, bool):
        return None, "must be true or false"
    return value, None


def _check_names(value, meta):
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        return None, "must be a name or a non-empty list of names"
    return tuple(value), None


def _check_share(value, meta):
    if not _is_number(value) or not 0.0 < float(value) < 1.0:
        return None, "must be a number in (0, 1)"
    return float(value), None


def _check_prevalence(value, meta):
    if not isinstance(value, dict):
        return _check_weights(value, meta)
    if set(value) != {"skew"}:
        return None, "must be null, a list of probabilities, or {skew: SHARE}"
    share, problem = _check_share(value["skew"], meta)
    if problem:
        return None, f"skew {problem}"
    return Skew(share), None


def _check_interval(value, meta):
    if not isinstance(value, list) or len(value) != 2 or not all(_is_number(v) for v in value):
        return None, "must be null or a list [low, high]"
    low, high = (float(item) for item in value)
    if not 0.0 <= low < high <= 1.0:
        return None, "must satisfy 0 <= low < high <= 1"
    return (low, high), None


_CHECKS = {
    "int": lambda value, meta: _check_number(value, meta, integer=True),
    "float": lambda value, meta: _check_number(value, meta, integer=False),
    "probability": lambda value, meta: _check_probability(value),
    "str": _check_string,
    "text": lambda value, meta: (
        (value, None) if isinstance(value, str) else (None, "must be a string")
    ),
    "name": check_name,
    "path": check_path_text,
    "probabilities": _check_probabilities,
    "weights": _check_weights,
    "bool": _check_bool,
    "names": _check_names,
    "share": _check_share,
    "prevalence": _check_prevalence,
    "matrices": lambda value, meta: _check_matrices(value),
    "interval": _check_interval,
}
"""The checker of each field kind: ``(value, meta) -> (converted, problem)``."""


def _convert(value, meta):
    """Return ``(converted, problem)`` for one raw value against a field's declaration."""
    if value is None:
        if meta.get("optional"):
            return None, None
        return None, "must be given (null is not allowed)"
    if meta["kind"] not in _CHECKS:  # a programming error, not bad input
        raise TypeError(f"unknown field kind {meta['kind']!r}")
    return _CHECKS[meta["kind"]](plain_numbers(value), meta)


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


@dataclass(frozen=True)
class RuleConfig:
    """The leave-one-out decision rule (docs/explanation/rule.md)."""

    kind: str = _field("point", "str", "decision rule", choices=RULE_KINDS)
    coefficient: str = _field("observed", "str", "agreement coefficient", choices=RULE_COEFFICIENTS)
    level: str = _field("nominal", "str", "krippendorff_alpha's level", choices=LEVELS)
    weights: str = _field("identity", "str", "weights of observed, kappa, AC2", choices=WEIGHTS)
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
        "alt_test: per-item score is accuracy (categorical), minus the RMSE of the label "
        "codes (numeric) or the mean agreement weight (weighted, with rule.weights)",
        choices=("categorical", "numeric", "weighted"),
    )
    min_pairs: int = _field(
        0,
        "int",
        "point rule: a leave-one-out comparison with fewer pairs is left out of omega "
        "(0: every comparison counts, an empty one passes, the paper's convention)",
        minimum=0,
    )
    form: str = _field(
        "auto",
        "str",
        "real data, point rule: who the rule holds out: raters (every human), slots (virtual "
        "raters by label position) or pooled (thin comparisons pooled); auto: slots where "
        "a few items carry most pairs, pooled on a crowd, raters otherwise",
        choices=FORMS,
    )
    min_items: int = _field(MIN_ITEMS, "int", "virtual raters: fewest items shared", minimum=2)
    min_comparisons: int | None = _field(
        None,
        "int",
        "fewer comparisons made is inconclusive (null: by form)",
        minimum=1,
        optional=True,
    )


@dataclass(frozen=True)
class OutputConfig:
    """Where a run's store and figure go (relative to the working directory)."""

    store: str | None = _field(None, "path", "zarr store path", optional=True)
    figure: str | None = _field(None, "path", "figure path", optional=True)
    table: str | None = _field(None, "path", "planning table (Markdown) path", optional=True)
    csv: str | None = _field(None, "path", "planning table (CSV) path", optional=True)


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
            problems.append(unknown_key(source, f"{prefix}{key}", key, fields))
            continue
        converted, problem = _convert(value, fields[key].metadata)
        if problem:
            problems.append(f"{source}: {prefix}{key}: {problem} (got {_describe(value)})")
        else:
            values[key] = converted
    return cls(**values)


def unknown_key(source, path, key, valid):
    """Return the problem of an unknown ``key`` at ``path``: the nearest valid key, then all."""
    return (
        f"{source}: {path}: unknown key{did_you_mean(key, valid)} (valid keys: {', '.join(valid)})"
    )


def unknown_keys(raw, valid, what, source):
    """Return a problem for every top-level key of ``raw`` not in ``valid``."""
    return [
        f"{source}: {key}: unknown key for {what}{did_you_mean(key, valid)} "
        f"(valid keys: {', '.join(valid)})"
        for key in raw
        if key not in valid
    ]


class _DuplicateKey(Exception):
    """A YAML mapping repeats a key or has a list or mapping as a key (raised while loading)."""


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key repeated in one mapping, and a complex key."""


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _unique_mapping(loader, node, deep=False):
    """Construct a mapping, refusing a repeated or unhashable key; merge keys (``<<``) merge.

    A key merged in by ``<<: *anchor`` may be overridden by the mapping's own key, as YAML
    says; only the mapping's own keys must be distinct.
    """
    own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
    loader.flatten_mapping(node)
    first_line = {}
    for key_node, _ in node.value[len(node.value) - own :]:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise _DuplicateKey(
                f"line {line}: key: must be a name, not a {type(key).__name__} (got {key!r})"
            ) from None
        if key in first_line:
            raise _DuplicateKey(
                f"{key}: appears twice in one mapping (lines {first_line[key]} and {line})"
            )
        first_line[key] = line
    return loader.construct_mapping(node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def _yaml_problem(path, error):
    """One line for a YAML syntax error: ``file:line:column: what``."""
    mark = getattr(error, "problem_mark", None)
    what = getattr(error, "problem", None) or str(error).splitlines()[0]
    if mark is None:
        return f"{path}: not valid YAML ({what})"
    return f"{path}:{mark.line + 1}:{mark.column + 1}: not valid YAML ({what})"


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
        raw = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader)
    except _DuplicateKey as error:
        raise ScenarioError([f"{path}: {error}"]) from None
    except yaml.YAMLError as error:
        raise ScenarioError([_yaml_problem(path, error)]) from None
    except RecursionError:
        raise ScenarioError(
            [f"{path}: not valid YAML (lists or mappings nested too deeply to read)"]
        ) from None
    except ValueError as error:  # Python's int-string limit
        from simcore.realdata.files import too_long_number

        raise ScenarioError([f"{path}: not valid YAML ({too_long_number(error)})"]) from None
    if raw is None:
        raise ScenarioError(
            [f"{path}: the file is empty; a scenario needs at least its sections (see scenarios/)"]
        )
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
        except (yaml.YAMLError, RecursionError, ValueError, TypeError):
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


NUMBER_NEUTRAL_KEYS = ("trials", "seed", "output", "plot", "name", "description", "published")
"""Top-level keys whose override leaves the model a published table was computed for."""


def _mark_published(raw, overrides):
    """Mark a file's ``published`` values as not applying once ``--set`` changed the model.

    Published numbers belong to the scenario as written; overriding its model, design,
    rule, reference or sweep makes another question, which ``simcore show`` then says
    instead of printing the paper's numbers beside it. A real-data scenario's
    ``published: paper`` becomes ``none`` once ``--set`` changes its data or rule.
    """
    changed = [
        override.partition("=")[0]
        for override in overrides
        if override.partition("=")[0].split(".")[0] not in NUMBER_NEUTRAL_KEYS
    ]
    if changed and isinstance(raw.get("published"), dict):
        raw["published"] = {**raw["published"], "applies": False, "overridden": changed}
    if raw.get("published") == "paper" and any(
        key.split(".")[0] in ("data", "rule") for key in changed
    ):  # the paper's numbers hold for its matrices under its rule
        raw["published"] = "none"


def read_raw(path, overrides=(), trials=None, seed=None):
    """Read a scenario file into a raw mapping with overrides applied (not validated)."""
    source = str(path)
    raw = _read_yaml(path)
    apply_overrides(raw, overrides, source)
    _mark_published(raw, overrides)
    if trials is not None:
        raw["trials"] = trials
    if seed is not None:
        raw["seed"] = seed
    return raw
