"""The one-way doors between simcore's sub-packages, read from the source with ``ast``.

engine and model sit at the bottom; realdata and calibration use them; instrument uses
calibration; studies use everything below; sweep sees the studies only through
``simcore.studies`` (the registry) and ``simcore.studies.protocol``; advise uses the
measuring layers; planning uses the studies and calibration; the modules at the top (cli,
api, report, testing) may import anything.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "simcore"

ALLOWED = {
    "engine": {"engine"},
    "model": {"engine", "model"},
    "realdata": {"engine", "model", "realdata"},
    "calibration": {"engine", "model", "realdata", "calibration"},
    "instrument": {"engine", "model", "realdata", "calibration", "instrument"},
    "studies": {"engine", "model", "realdata", "calibration", "instrument", "studies"},
    "sweep": {"engine", "sweep", "studies.protocol", "studies"},
    "advise": {"engine", "model", "realdata", "calibration", "instrument", "advise"},
    "planning": {"engine", "model", "realdata", "calibration", "instrument", "studies", "planning"},
}
"""What each sub-package may import (``studies`` for sweep means the package itself, the
registry, not its study modules)."""

EVERYWHERE = {"_version", "_lazy"}
"""Modules every layer may import (the version string, the lazy package faces)."""


def imported_modules(path):
    """Yield ``(line, dotted name)`` of every simcore module ``path`` imports."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                yield node.lineno, _module_or_package(f"{base}.{alias.name}", base)


def _module_or_package(candidate, base):
    """``simcore.a.b`` when that names a module or package, else ``base``."""
    relative = Path(*candidate.split(".")[1:])
    if (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative).is_dir():
        return candidate
    return base


def layer_of(dotted):
    """``engine``, ``studies.protocol``-style names below simcore, or ``top``."""
    parts = dotted.split(".")[1:]
    if not parts:
        return "top"
    if parts[0] in ALLOWED or parts[0] in EVERYWHERE:
        return parts[0] if len(parts) == 1 else f"{parts[0]}.{parts[1]}"
    return "top"


def violations(path):
    """Every import in ``path`` that goes through a one-way door the wrong way."""
    layer = path.relative_to(PACKAGE).parts[0]
    if layer not in ALLOWED:
        return []
    found = []
    for line, dotted in imported_modules(path):
        if dotted != "simcore" and not dotted.startswith("simcore."):
            continue
        target = layer_of(dotted)
        package = target.split(".")[0]
        if package in EVERYWHERE:
            continue
        if layer == "sweep" and package == "studies":
            ok = target in ALLOWED["sweep"]
        else:
            ok = package in ALLOWED[layer]
        if not ok:
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {dotted}")
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_against_the_doors(path):
    assert violations(path) == []


def test_the_checker_sees_a_violation(tmp_path):
    bad = PACKAGE / "engine" / "kernels.py"
    assert violations(bad) == []  # the real file is clean...
    text = "from simcore.sweep import store\nimport simcore.advise.fit\nfrom simcore import api\n"
    probe = PACKAGE / "engine" / "_probe_for_test.py"
    probe.write_text(text)
    try:
        assert len(violations(probe)) == 3
    finally:
        probe.unlink()


def test_sweep_sees_no_study_module():
    probe = PACKAGE / "sweep" / "_probe_for_test.py"
    probe.write_text("from simcore.studies import synthetic\nfrom simcore.studies.real import x\n")
    try:
        found = violations(probe)
    finally:
        probe.unlink()
    assert found == [
        "simcore/sweep/_probe_for_test.py:1 imports simcore.studies.synthetic",
        "simcore/sweep/_probe_for_test.py:2 imports simcore.studies.real",
    ]


MAX_MODULE_LINES = 520
"""Modules stay under about 500 lines."""
MAX_FUNCTION_LINES = 60
"""Functions stay under about 60 lines, their docstring not counted."""


def function_lengths(tree):
    """Yield ``(name, lines)`` of every function in ``tree``, docstrings left out."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = node.end_lineno - node.lineno + 1
            if ast.get_docstring(node, clean=False) is not None:
                lines -= node.body[0].end_lineno - node.body[0].lineno + 1
            yield node.name, lines


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_opens_with_a_docstring_and_stays_small(path):
    text = path.read_text()
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path} has no module docstring"
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    long = {name: lines for name, lines in function_lengths(tree) if lines > MAX_FUNCTION_LINES}
    assert long == {}
