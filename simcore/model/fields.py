"""Fields declared once: each with its kind, default, limits and description, checked alike.

A value object of the domain (:class:`simcore.model.decision_rule.Rule`) and every section of
a scenario file (:mod:`simcore.studies.config`) declare their fields with
:func:`declared_field`; :func:`convert_field` checks one raw value against its declaration
and says what is wrong in words a user reads (``must be >= 0``), :func:`describe_value`
shows the value as given and :func:`plain_value` turns a field back into plain YAML data.
"""

import math
from dataclasses import field

import numpy as np
import yaml

from simcore.model.generative import Skew
from simcore.options import LARGEST_COUNT, plain_numbers

__all__ = [
    "FIELD_CHECKS",
    "is_number",
    "convert_field",
    "declared_field",
    "describe_value",
    "plain_value",
]


def declared_field(default, kind, description, **limits):
    """Declare a field once: default, kind of value, limits and description.

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


def describe_value(value):
    """Return ``value`` as a user wrote it: a string quoted, data as flow YAML, else its repr."""
    if isinstance(value, str):
        return repr(value)
    try:
        text = yaml.safe_dump(plain_numbers(value), default_flow_style=True, width=10**6)
    except yaml.YAMLError:  # not a YAML value (an object passed from Python): its repr
        return f"{type(value).__name__} {value!r}"[:200]
    return text.strip().removesuffix("\n...").removesuffix(" ...")


def is_number(value):
    """Return whether ``value`` is an int or a float and not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_number(value, meta, integer):
    if integer:
        if not isinstance(value, int) or isinstance(value, bool):
            return None, "must be an integer"
    elif not is_number(value):
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
    if not is_number(value):
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
    if not all(is_number(item) and float(item) >= 0 for item in value):
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
    if not is_number(value) or not 0.0 < float(value) < 1.0:
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
    if not isinstance(value, list) or len(value) != 2 or not all(is_number(v) for v in value):
        return None, "must be null or a list [low, high]"
    low, high = (float(item) for item in value)
    if not 0.0 <= low < high <= 1.0:
        return None, "must satisfy 0 <= low < high <= 1"
    return (low, high), None


FIELD_CHECKS = {
    "int": lambda value, meta: _check_number(value, meta, integer=True),
    "float": lambda value, meta: _check_number(value, meta, integer=False),
    "probability": lambda value, meta: _check_probability(value),
    "str": _check_string,
    "text": lambda value, meta: (
        (value, None) if isinstance(value, str) else (None, "must be a string")
    ),
    "probabilities": _check_probabilities,
    "weights": _check_weights,
    "bool": _check_bool,
    "names": _check_names,
    "share": _check_share,
    "prevalence": _check_prevalence,
    "matrices": lambda value, meta: _check_matrices(value),
    "interval": _check_interval,
}
"""The checker of each field kind: ``(value, meta) -> (converted, problem)``; a layer above
adds its own kinds (the scenario files' ``name`` and ``path``)."""


def convert_field(value, meta, checks=None):
    """Return ``(converted, problem)`` for one raw value against a field's declaration.

    ``checks`` maps each kind to its checker (default :data:`FIELD_CHECKS`).
    """
    checks = FIELD_CHECKS if checks is None else checks
    if value is None:
        if meta.get("optional"):
            return None, None
        return None, "must be given (null is not allowed)"
    if meta["kind"] not in checks:  # a programming error, not bad input
        raise TypeError(f"unknown field kind {meta['kind']!r}")
    return checks[meta["kind"]](plain_numbers(value), meta)


def _check_matrices(value):
    """One row-stochastic square matrix, or a list of them (one per rater)."""
    array = np.asarray(value, dtype=object)
    if array.ndim not in (2, 3) or array.shape[-1] != array.shape[-2] or array.shape[-1] < 2:
        return None, "must be an L x L matrix (a list of rows) or a list of such matrices"
    if not all(is_number(v) and float(v) >= 0 for v in array.ravel()):
        return None, "entries must be numbers >= 0"
    numbers = array.astype(np.float64)
    if not np.allclose(numbers.sum(axis=-1), 1.0, rtol=0, atol=1e-9):
        return None, "every row must sum to 1 (row = true label, column = reported label)"
    return _to_tuples(numbers.tolist()), None


def _to_tuples(value):
    if isinstance(value, list | tuple):
        return tuple(_to_tuples(v) for v in value)
    return value


def plain_value(value):
    """Tuples to lists and a Skew to ``{skew: share}``, for YAML and hashing."""
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, Skew):
        return {"skew": value.share}
    return value
