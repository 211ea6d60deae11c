"""The reference covers every public name, command and scenario kind."""

import importlib
import pkgutil
import re

import pytest
from doc_examples import REPO

import simcore
from simcore.cli import COMMANDS
from simcore.studies import KINDS, scenario_keys

PYTHON_REFERENCE = REPO / "docs" / "reference" / "python"
TOP_LEVEL_FACES = ("simcore.testing", "simcore.options")
"""Modules outside the sub-packages whose names are public (the layering test lists them)."""


def faces():
    """``simcore``, each sub-package with public names, and the public top-level modules."""
    packages = [
        info.name
        for info in pkgutil.iter_modules(simcore.__path__, "simcore.")
        if info.ispkg and importlib.import_module(info.name).__all__
    ]
    return ["simcore", *sorted(packages), *TOP_LEVEL_FACES]


def documented_names(page):
    """The names a reference page's autosummary lists, and those it says it re-exports."""
    text = page.read_text()
    listed = set()
    for block in re.findall(r"\.\. autosummary::\n(?:   :.*\n)*\n((?:   \S.*\n)+)", text):
        listed.update(line.strip() for line in block.splitlines())
    also = set(re.findall(r"^- ``(\w+)``: the same object as :\w+:`[\w.]+`", text, re.MULTILINE))
    return listed, also


@pytest.mark.parametrize("face", faces())
def test_every_public_name_has_a_reference_entry(face):
    page = PYTHON_REFERENCE / f"{face.removeprefix('simcore.') if face != 'simcore' else face}.rst"
    assert page.exists(), f"{face} has no reference page {page.relative_to(REPO)}"
    public = set(importlib.import_module(face).__all__) - {"__version__"}
    listed, also = documented_names(page)
    assert listed | also == public, (
        f"{page.name}: missing {sorted(public - listed - also)}, "
        f"not public {sorted((listed | also) - public)}"
    )
    for name in also:
        other = re.search(rf"- ``{name}``: the same object as :\w+:`([\w.]+)`", page.read_text())
        module, _, attribute = other.group(1).rpartition(".")
        assert getattr(importlib.import_module(module), attribute) is getattr(
            importlib.import_module(face), name
        ), f"{page.name}: {name} is not the object it says it is"


def test_every_face_is_in_the_python_reference_index():
    index = (PYTHON_REFERENCE / "index.md").read_text()
    for face in faces():
        name = face.removeprefix("simcore.") if face != "simcore" else face
        assert f"\n{name}\n" in index, f"{face} is not in docs/reference/python/index.md"


def test_every_command_has_a_section_in_the_command_line_reference():
    text = (REPO / "docs" / "reference" / "cli.md").read_text()
    for command in COMMANDS:
        assert f"## simcore {command}\n" in text and f":path: {command}\n" in text, command


def test_every_scenario_kind_has_its_key_table_and_cube():
    keys = (REPO / "docs" / "reference" / "scenario-keys.md").read_text()
    cube = (REPO / "docs" / "reference" / "cube.md").read_text()
    for kind in KINDS:
        assert f"```{{scenario-keys}} {kind}\n" in keys, kind
        assert f"```{{cube-variables}} {kind}\n" in cube, kind
        assert scenario_keys(kind), kind


def test_the_key_table_holds_the_parsers_keys_with_their_defaults():
    synthetic = {key.key: key for key in scenario_keys("synthetic")}
    assert synthetic["rule.epsilon"].default == "0.05"
    assert synthetic["rule.epsilon"].values == "[0.0, 1.0]"
    assert synthetic["design.kind"].values.startswith("bernoulli, exact_m")
    assert synthetic["model.margin"].values == "[-1.0, 1.0] or null"
    real = {key.key: key for key in scenario_keys("real")}
    assert real["trials"].default == "300" and real["data.path"].default == "required"
    coverage = {key.key: key for key in scenario_keys("coverage")}
    assert coverage["youden_floor"].default == "0.15"
    assert coverage["sweep.theta"].default == "required"
