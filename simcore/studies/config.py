"""Scenario files of every kind: YAML -> validated, typed, frozen configuration.

Every field is declared once, with its type, default, allowed range and description
(:func:`declared_field`). Loading collects every problem before reporting, each as
``FILE: key.path: what is wrong (got VALUE)``; unknown keys list the valid ones.
Validation never uses ``assert``. This module holds what every kind of study shares: the
field machinery, the ``rule`` and ``output`` sections, reading a file and ``--set``
overrides; each study parses its own sections with them.
"""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import yaml

from simcore.model.fields import FIELD_CHECKS, convert_field, declared_field, describe_value
from simcore.options import did_you_mean
from simcore.studies.scenario_names import check_name, check_path_text

MAX_TRIALS = 2**29
"""Most trials per cell: the float sums add values on a 2^-24 grid, exact in float64 only
while they stay below 2^29, and every count stays far inside int64."""


SCENARIO_CHECKS = {**FIELD_CHECKS, "name": check_name, "path": check_path_text}
"""The field kinds of a scenario file: the model's and the names and paths of its outputs."""


def convert_value(value, meta):
    """Return ``(converted, problem)`` of one scenario value (:func:`convert_field`)."""
    return convert_field(value, meta, SCENARIO_CHECKS)


class ScenarioError(ValueError):
    """Bad scenario input; ``problems`` lists every message (``file: key: what``)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class OutputConfig:
    """Where a run's store and figure go (relative to the working directory)."""

    store: str | None = declared_field(None, "path", "zarr store path", optional=True)
    figure: str | None = declared_field(None, "path", "figure path", optional=True)
    table: str | None = declared_field(
        None, "path", "planning table (Markdown) path", optional=True
    )
    csv: str | None = declared_field(None, "path", "planning table (CSV) path", optional=True)


def parse_section(raw, cls, path, problems, source):
    """Convert one mapping into ``cls``; each problem is appended as ``source: path.key``.

    An empty ``path`` is the top level. Bad values are reported and left at their default.
    """
    prefix = f"{path}." if path else ""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        problems.append(f"{source}: {path}: must be a mapping (got {describe_value(raw)})")
        return cls()
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in raw.items():
        if key not in fields:
            problems.append(unknown_key(source, f"{prefix}{key}", key, fields))
            continue
        converted, problem = convert_value(value, fields[key].metadata)
        if problem:
            problems.append(f"{source}: {prefix}{key}: {problem} (got {describe_value(value)})")
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
        raise ScenarioError(
            [f"{path}: must hold a mapping of sections (got {describe_value(raw)})"]
        )
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
                    f"(got {describe_value(target[part])})"
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


def sweep_values(raw, key, meta, problems, source, what):
    """Return the converted values of the list ``raw[key]`` of a ``sweep`` section.

    The list must be non-empty and its values distinct, each converted by ``meta``
    (:func:`convert_value`); each problem is appended as ``source: sweep.key: ...``.
    """
    values = raw.get(key) if isinstance(raw, dict) else None
    converted = []
    if not isinstance(values, list) or not values:
        problems.append(
            f"{source}: sweep.{key}: must be a non-empty list of {what} "
            f"(got {describe_value(values)})"
        )
        return ()
    for value in values:
        number, problem = convert_value(value, meta)
        if problem:
            problems.append(f"{source}: sweep.{key}: {problem} (got {describe_value(value)})")
        else:
            converted.append(number)
    if len(set(converted)) != len(converted):
        problems.append(
            f"{source}: sweep.{key}: values must be distinct (got {describe_value(values)})"
        )
    return tuple(converted)
