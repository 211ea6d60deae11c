"""The one-way doors between simcore's sub-packages, read from the source with ``ast``.

engine and model sit at the bottom; realdata and calibration use them; instrument uses
calibration; studies use everything below; sweep sees the studies only through
``simcore.studies`` (the registry) and ``simcore.studies.protocol`` (and the engine, for
numba's threads); advisor uses the measuring layers; planning uses the studies and
calibration. On top, the top-level modules (cli, api, report, testing) may import anything;
nothing in simcore imports the research scripts in the repository's ``experiments/``.

Beside the doors: no module imports an underscore name from another package; only engine/
imports numba; the modules' imports (those inside functions too) form no cycle; every sub-package
has a face (``__all__``) whose names resolve; every module opens with a docstring. How long a module
or a function grows is judgement; ruff's complexity and argument-count rules (C901, PLR0913 in
pyproject.toml) flag the functions to split or to give a value object. Each checker has a probe test
showing that it can fail.
"""

import ast
import functools
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "simcore"

PACKAGES_BELOW_THE_TOP = (
    *("engine", "model", "realdata", "calibration", "instrument", "studies", "advisor"),
    *("sweep", "planning", "sequential"),
)
"""simcore's sub-packages."""

ALLOWED = {
    "engine": {"engine"},
    "model": {"engine", "model"},
    "realdata": {"engine", "model", "realdata"},
    "calibration": {"engine", "model", "realdata", "calibration"},
    "instrument": {"engine", "model", "realdata", "calibration", "instrument"},
    "studies": {
        *("engine", "model", "realdata", "calibration", "instrument", "sequential", "studies"),
    },
    "sweep": {"engine", "sweep", "studies.protocol", "studies"},
    "advisor": {"engine", "model", "realdata", "calibration", "instrument", "advisor"},
    "planning": {
        *("engine", "model", "realdata", "calibration", "instrument", "sequential", "studies"),
        "planning",
    },
    "sequential": {"engine", "model", "realdata", "calibration", "advisor", "sequential"},
}
"""What each sub-package may import (``studies`` for sweep means the package itself, the
registry, not its study modules)."""

EVERYWHERE = {
    *("_version", "_lazy", "options", "command_options", "printed_rates", "output_files"),
    "markdown_table",
}
"""Modules every layer may import (the version string, the lazy package faces, the declared
options, the output policy, which import nothing heavy)."""


def imports(path):
    """Yield ``(line, module, name, at_module_level)`` of every import in ``path``.

    ``module`` is the dotted module (or package) imported, ``name`` the name taken from it
    (None for ``import module``); an import inside a function runs only when the function
    does, so it is not at module level.
    """
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    in_functions = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for inner in ast.walk(node)
        if inner is not node
    }
    for node in ast.walk(tree):
        top = id(node) not in in_functions
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None, top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                module = _module_or_package(f"{base}.{alias.name}", base)
                yield node.lineno, module, alias.name, top


def imported_modules(path):
    """Yield ``(line, dotted name)`` of every module ``path`` imports."""
    for line, module, _, _ in imports(path):
        yield line, module


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
    text = "from simcore.sweep import store\nimport simcore.advisor.fit\nfrom simcore import api\n"
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


def _relative(path):
    return path.relative_to(PACKAGE.parent)


def imports_from_outside(path, target, home):
    """Every import of module ``target`` (or its submodules) by a module outside ``home/``."""
    if path.relative_to(PACKAGE).parts[0] == home:
        return []
    return [
        f"{_relative(path)}:{line} imports {module}"
        for line, module, _, _ in imports(path)
        if module == target or module.startswith(f"{target}.")
    ]


def imports_of_experiments(path):
    """Every import of the repository's research scripts (``experiments``) by simcore."""
    return imports_from_outside(path, "experiments", None)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_in_simcore_imports_the_experiments(path):
    assert imports_of_experiments(path) == []


def test_the_checker_sees_an_import_of_the_experiments():
    probe = PACKAGE / "_probe_experiments_for_test.py"
    probe.write_text('"""Probe."""\n\n\ndef main():\n    from experiments import real_check\n')
    try:
        found = imports_of_experiments(probe)
    finally:
        probe.unlink()
    assert found == ["simcore/_probe_experiments_for_test.py:5 imports experiments"]


def module_name(path):
    """``simcore.engine.rng`` for ``simcore/engine/rng.py``; an ``__init__`` is its package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(dotted):
    """The sub-package a simcore module belongs to (``simcore.engine``), or ``simcore``."""
    parts = dotted.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return "simcore"


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(path):
    """Every underscore name (or module) ``path`` imports from another package.

    Same-package private imports are allowed, and so are the modules every layer may import
    (:data:`EVERYWHERE`).
    """
    home = package_of(module_name(path))
    found = []
    for line, module, name, _ in imports(path):
        parts = module.split(".")
        if parts[0] != "simcore" or package_of(module) == home:
            continue
        if len(parts) > 1 and parts[1] in EVERYWHERE:
            continue
        if any(_private(part) for part in [*parts[1:], name or ""]):
            found.append(f"{_relative(path)}:{line} imports {name or module} from {module}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_private_name_of_another_package(path):
    assert private_imports(path) == []


def test_the_checker_sees_a_private_import():
    probe = PACKAGE / "advisor" / "_probe_private_for_test.py"
    probe.write_text(
        "from simcore.realdata.annotation import DataError, _hidden\n"
        "from simcore.engine._jit import jit\n"
        "from simcore.advisor.risk.posterior import _own_package\n"  # same package: allowed
        "from simcore._version import __version__\n"  # everywhere, and a dunder
    )
    try:
        found = private_imports(probe)
    finally:
        probe.unlink()
    assert found == [
        "simcore/advisor/_probe_private_for_test.py:1 imports _hidden from "
        "simcore.realdata.annotation",
        "simcore/advisor/_probe_private_for_test.py:2 imports jit from simcore.engine._jit",
    ]


def numba_imports(path):
    """Every import of numba outside ``engine/``."""
    return imports_from_outside(path, "numba", "engine")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_numba_is_imported_only_by_the_engine(path):
    assert numba_imports(path) == []


def test_the_checker_sees_numba_outside_the_engine():
    probe = PACKAGE / "calibration" / "_probe_numba_for_test.py"
    probe.write_text(
        "import numba\nfrom numba import prange\n\n\ndef f():\n    import numba.core\n"
    )
    try:
        found = numba_imports(probe)
    finally:
        probe.unlink()
    assert [entry.split(" imports ")[1] for entry in found] == ["numba", "numba", "numba.core"]


def import_graph(paths):
    """``{module: modules it imports}`` among the simcore modules of ``paths``.

    Imports inside functions count: a cycle closed by a function-level import is still a
    cycle, only hidden until the function runs.
    """
    names = {module_name(path) for path in paths}
    return {
        module_name(path): {module for _, module, _, _ in imports(path)} & names for path in paths
    }


def import_cycles(paths):
    """Return the import cycles among ``paths``: each strongly connected component (Tarjan)."""
    graph = import_graph(paths)
    index, low, stack, cycles = {}, {}, [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(component) > 1 or node in graph[node]:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


@functools.cache
def _package_cycles():
    return import_cycles(SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_in_an_import_cycle(path):
    assert [cycle for cycle in _package_cycles() if module_name(path) in cycle] == []


def test_the_checker_sees_an_import_cycle():
    probes = [PACKAGE / "engine" / f"_probe_cycle_{name}_for_test.py" for name in "abc"]
    texts = [
        "import simcore.engine._probe_cycle_b_for_test\n\n\n"
        "def later():\n    import simcore.engine._probe_cycle_c_for_test\n",
        "from simcore.engine import _probe_cycle_a_for_test\n",
        "from simcore.engine._probe_cycle_a_for_test import later\n",  # a imports c in later()
    ]
    for probe, text in zip(probes, texts, strict=True):
        probe.write_text(text)
    try:
        found = import_cycles([*SOURCES, *probes])
    finally:
        for probe in probes:
            probe.unlink()
    assert found == [
        [
            "simcore.engine._probe_cycle_a_for_test",
            "simcore.engine._probe_cycle_b_for_test",
            "simcore.engine._probe_cycle_c_for_test",
        ]
    ]


def has_face(path):
    """Whether the module ``path`` assigns ``__all__`` at module level."""
    tree = ast.parse(path.read_text())
    targets = [
        target
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    ]
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)


PACKAGES = sorted(path for path in SOURCES if path.name == "__init__.py" and path.parent != PACKAGE)


@pytest.mark.parametrize("path", PACKAGES, ids=lambda p: p.parent.name)
def test_every_sub_package_has_a_face_whose_names_resolve(path):
    assert has_face(path), f"{_relative(path)} has no __all__"
    package = importlib.import_module(module_name(path))
    assert [name for name in package.__all__ if not hasattr(package, name)] == []


def test_the_checker_sees_a_package_without_a_face():
    probe = PACKAGE / "sweep" / "_probe_face_for_test.py"
    probe.write_text('"""A package face that forgot its names."""\n\nNAMES = ["run"]\n')
    try:
        assert not has_face(probe)
        probe.write_text('"""A face."""\n\n__all__ = ["run"]\n')
        assert has_face(probe)
    finally:
        probe.unlink()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_opens_with_a_docstring(path):
    assert ast.get_docstring(ast.parse(path.read_text())), f"{path} has no module docstring"
