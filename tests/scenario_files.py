"""Helpers shared by the tests that write scenario files."""

import copy
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
FIG2 = REPO / "scenarios" / "fig2.yaml"
DELETE = object()
"""A change value that removes the key."""


def variant(base, changes=None):
    """Return a deep copy of ``base`` with ``{"section.key": value}`` changes applied."""
    data = copy.deepcopy(base)
    for dotted, value in (changes or {}).items():
        *parents, last = dotted.split(".")
        target = data
        for part in parents:
            target = target.setdefault(part, {})
        if value is DELETE:
            target.pop(last, None)
        else:
            target[last] = value
    return data


def write_scenario(tmp_path, data, name="scenario.yaml"):
    """Write ``data`` as YAML into ``tmp_path / name`` and return the path."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path
