"""Every key a scenario file may hold, per kind, read from the declarations its parser checks.

The synthetic sections are dataclasses whose fields declare their kind, default, limits and
meaning (:func:`simcore.model.fields.declared_field`); the real-data and coverage scalars,
sweeps and the ``data`` block are declared as mappings beside their parsers.
:func:`scenario_keys` turns them into one table, which the docs reference renders, so the page
cannot drift from the checks.
"""

import dataclasses
from dataclasses import dataclass

from simcore.model.decision_rule import Rule
from simcore.model.fields import describe_value
from simcore.realdata.data_block import DATA_KEY_MEANINGS
from simcore.studies.config import OutputConfig
from simcore.studies.coverage import study as coverage
from simcore.studies.coverage_latent import study as coverage_latent
from simcore.studies.real import study as real
from simcore.studies.sequential import study as sequential
from simcore.studies.synthetic import config as synthetic_config

__all__ = ["ScenarioKey", "scenario_keys"]

_NO_DEFAULT = object()


@dataclass(frozen=True)
class ScenarioKey:
    """One key of a scenario file.

    Attributes
    ----------
    key : str
        Dotted path, e.g. ``"rule.epsilon"``.
    kind : str
        Kind of value: ``int``, ``float``, ``str``, ``bool``, ``probability`` (in (0, 1]),
        ``list``, ``mapping``, ...
    default : str
        The default as YAML text (``required`` when there is none).
    values : str
        The values it may take (a range or choices); empty when any value of its kind.
    meaning : str
        What it sets.
    """

    key: str
    kind: str
    default: str
    values: str
    meaning: str


def _values(meta):
    """Return the range or choices a declaration allows: ``[0, 1]``, ``(0, 1]``, ``a, b``."""
    if meta.get("choices"):
        return ", ".join(str(c) for c in meta["choices"])
    if meta.get("kind") == "probability":
        return "(0, 1]"
    low = meta.get("exclusive_minimum", meta.get("minimum"))
    high = meta.get("maximum")
    if low is None and high is None:
        return "null allowed" if meta.get("optional") else ""
    opening = "(" if "exclusive_minimum" in meta else "["
    text = f"{opening}{'-inf' if low is None else low}, {'inf' if high is None else high}]"
    return text + (" or null" if meta.get("optional") else "")


def _key(key, default, meta):
    if default is _NO_DEFAULT:
        text = "required"
    else:
        text = default if isinstance(default, str) else describe_value(default)
    return ScenarioKey(key, meta["kind"], text, _values(meta), meta.get("description", ""))


def _section(prefix, cls):
    """Return the keys of a dataclass section (``prefix.field``; no prefix: top-level scalars)."""
    rows = []
    for field in dataclasses.fields(cls):
        default = field.default_factory() if callable(field.default_factory) else field.default
        name = f"{prefix}.{field.name}" if prefix else field.name
        rows.append(_key(name, default, field.metadata))
    return rows


def _mapping(key, meaning):
    return ScenarioKey(key, "mapping", "none", "", meaning)


def _synthetic():
    rows = _section("", synthetic_config.RunConfig)
    sweepable = ", ".join(synthetic_config.SWEEPABLE)
    rows.append(
        _mapping("sweep", f"each key a list of values, one cube dimension each: {sweepable}")
    )
    for name in ("model", "design", "rule", "output", "plot"):
        rows += _section(name, synthetic_config._SECTIONS[name])
    rows += _section("planning", synthetic_config.PlanningConfig)
    rows.append(
        ScenarioKey(
            "outputs",
            "list",
            describe_value(list(synthetic_config.OUTPUTS)),
            ", ".join(synthetic_config.OUTPUTS),
            "per-trial statistics beyond the decisions",
        )
    )
    rows.append(
        _mapping(
            "published",
            "values to compare a 2-D sweep with: source, variable, scale, values (nested "
            "list of the sweep's shape), applies, overridden",
        )
    )
    return rows


def _named(kind):
    """Return ``name``, ``description`` and ``kind``, the keys every scenario may hold."""
    return [
        ScenarioKey("name", "text", "the file's stem", "", "scenario name"),
        ScenarioKey("description", "text", "null", "", "what the scenario reproduces"),
        ScenarioKey("kind", "str", "synthetic", kind, "scenario kind"),
    ]


def _real():
    rows = _named("real")
    rows += [_key(k, default, meta) for k, (default, meta) in real.SCALARS.items()]
    for key, (default, meaning) in DATA_KEY_MEANINGS.items():
        shown = _NO_DEFAULT if key == "path" else default
        rows.append(_key(f"data.{key}", shown, {"kind": "data", "description": meaning}))
    for key, (default, meaning) in real.SWEEP_KEYS.items():
        rows.append(_key(f"sweep.{key}", default, {"kind": "list", "description": meaning}))
    return rows + _section("rule", Rule) + _section("output", OutputConfig)


def _coverage():
    rows = _named("coverage")
    rows.append(
        _mapping("judges", "judge name -> {se, sp}: each judge's sensitivity and specificity")
    )
    rows += [_key(k, default, meta) for k, (default, meta) in coverage.SCALARS.items()]
    for key, (meta, what) in coverage.SWEEP_KEYS.items():
        rows.append(ScenarioKey(f"sweep.{key}", "list", "required", what, meta["description"]))
    return rows + _section("output", OutputConfig)


def _sequential():
    rows = _named("sequential")
    rows += [_key(k, default, meta) for k, (default, meta) in sequential.SCALARS.items()]
    for key, (meta, what) in sequential.SWEEP_KEYS.items():
        rows.append(ScenarioKey(f"sweep.{key}", "list", "required", what, meta["description"]))
    return rows + _section("output", OutputConfig)


def _coverage_latent():
    rows = _named(coverage_latent.KIND)
    rows += [_key(k, default, meta) for k, (default, meta) in coverage_latent.SCALARS.items()]
    for key, (meta, what) in coverage_latent.SWEEP_KEYS.items():
        rows.append(ScenarioKey(f"sweep.{key}", "list", "required", what, meta["description"]))
    return rows + _section("output", OutputConfig)


_KINDS = {
    "synthetic": _synthetic,
    "real": _real,
    "coverage": _coverage,
    "sequential": _sequential,
    "coverage-latent": _coverage_latent,
}


def scenario_keys(kind):
    """Return every key a scenario of ``kind`` may hold.

    Parameters
    ----------
    kind : {"synthetic", "real", "coverage", "sequential", "coverage-latent"}
        The scenario kind (its ``kind:`` key).

    Returns
    -------
    tuple of ScenarioKey
        In the order a scenario file is usually written: top-level scalars, then sections.
    """
    return tuple(_KINDS[kind]())
