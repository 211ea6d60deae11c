"""Typed results (issue 47): each command's result is its own class, whose declared fields are
read-only attributes served from the document, with ``to_dict()`` the ``--json`` document and
``summary()`` a Markdown table of the scalar fields.

Every command's Python function runs once on a small matrix (60 items, few bootstrap
replicates or plan trials), in each of its document's shapes (with and without clusters,
a card, a coefficient).
"""

import datetime
import inspect
import json
import types
import typing
from typing import Any

import pytest
from calibration_files import CLUSTERED_CALIBRATION, write_monitor_stream

import simcore
import simcore.api
from simcore.api import results
from simcore.api.results import (
    AgreementResult,
    CalibrationPlanResult,
    CalibrationResult,
    CardCheckResult,
    CardResult,
    CeilingResult,
    ClusteredCalibrationResult,
    CommandResult,
    InspectResult,
    MonitorResult,
    ScaleCalibrationResult,
    WellposedResult,
)
from simcore.markdown_table import markdown_table
from simcore.realdata.shapes import draw_matrix, write_alttest_folder

RESULT_CLASSES = tuple(
    getattr(results, name) for name in results.RESULT_NAMES if name != "CommandResult"
)

CARD = {"judge": "judge1", "criterion": "all", "population": "p", "fail_labels": ("l0",)}


def declared(cls):
    """The fields ``cls`` declares (its base classes' too), ``{name: type}``."""
    return {
        name: hint for name, hint in typing.get_type_hints(cls).items() if not name.startswith("_")
    }


def is_scalar(hint):
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    parts = typing.get_args(hint) if union else (hint,)
    return all(part in (bool, int, float, str, type(None)) for part in parts)


def fits(value, hint):
    """Whether ``value`` is of the declared type ``hint`` (an int is a float, a bool no int)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(fits(value, part) for part in args)
    if hint is type(None):
        return value is None
    if hint in (int, float):
        allowed = (int, float) if hint is float else int
        return isinstance(value, allowed) and not isinstance(value, bool)
    if origin is list:
        return isinstance(value, list) and all(fits(item, args[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            fits(key, args[0]) and fits(item, args[1]) for key, item in value.items()
        )
    return isinstance(value, hint)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A small matrix's alttest folder, its card, a dated stream and a clustered set."""
    root = tmp_path_factory.mktemp("typed")
    humans, judges = draw_matrix(60, 4, 2, 3, density=0.7, seed=11)
    folder = write_alttest_folder(humans, judges, root / "folder")
    card = simcore.card(folder, date=datetime.date(2026, 1, 1), **CARD).to_dict()["card"]
    card_path = root / "card.json"
    card_path.write_text(json.dumps(card))
    production, audit = write_monitor_stream(root)
    clustered = ["item,prompt,human,judge"]
    clustered += [f"{k},{c},{h},{j}" for k, (c, h, j) in enumerate(CLUSTERED_CALIBRATION)]
    (root / "clustered.csv").write_text("\n".join(clustered) + "\n")
    return {
        "folder": folder,
        "card": card_path,
        "production": production,
        "audit": audit,
        "clustered": root / "clustered.csv",
    }


PLAN = {"se": 0.8, "sp": 0.85, "theta": 0.15, "of": 1000, "half_width": 0.1, "plan_trials": 100}

CASES = {
    "inspect": (InspectResult, lambda f: simcore.inspect(f["folder"])),
    "agreement": (AgreementResult, lambda f: simcore.agreement(f["folder"], boot=20)),
    "ceiling": (CeilingResult, lambda f: simcore.ceiling(f["folder"], boot=20, seed=1)),
    "ceiling_coefficient": (
        CeilingResult,
        lambda f: simcore.ceiling(f["folder"], boot=10, coefficient="krippendorff_alpha"),
    ),
    "wellposed": (WellposedResult, lambda f: simcore.wellposed(f["folder"], boot=20)),
    "card": (CardResult, lambda f: simcore.card(f["folder"], **CARD)),
    "card_check": (CardCheckResult, lambda f: simcore.card_check(f["card"], f["folder"])),
    "calibrate": (
        CalibrationResult,
        lambda f: simcore.calibrate(table=(40, 10, 5, 45), fails=120, of=1000),
    ),
    "calibrate_all": (
        CalibrationResult,
        lambda f: simcore.calibrate(table=(40, 10, 5, 45), fails=120, of=1000, method="all"),
    ),
    "calibrate_data": (
        CalibrationResult,
        lambda f: simcore.calibrate(
            f["folder"], judge="judge1", fail_labels=("l0",), fails=12, of=100
        ),
    ),
    "calibrate_clusters": (
        ClusteredCalibrationResult,
        lambda f: simcore.calibrate(csv=f["clustered"], cluster_column="prompt", fails=30, of=200),
    ),
    "plan": (CalibrationPlanResult, lambda f: simcore.plan_calibration(**PLAN)),
    "plan_pilot": (
        CalibrationPlanResult,
        lambda f: simcore.plan_calibration(
            table=(34, 6, 8, 72), fails=130, of=1000, half_width=0.05, plan_trials=100
        ),
    ),
    "plan_clusters": (
        CalibrationPlanResult,
        lambda f: simcore.plan_calibration(**PLAN, cluster_size=4, icc=0.1),
    ),
    "monitor": (MonitorResult, lambda f: simcore.monitor(f["production"], f["audit"])),
    "monitor_card": (
        MonitorResult,
        lambda f: simcore.monitor(f["production"], f["audit"], card=f["card"]),
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, inputs):
    """``(class expected, result)`` of one command call."""
    cls, call = CASES[request.param]
    return cls, call(inputs)


def test_each_command_returns_its_class(case):
    cls, result = case
    assert type(result) is cls
    assert isinstance(result, CommandResult)
    assert declared(cls), f"{cls.__name__} declares no field"


def test_every_declared_field_is_the_documents_and_of_its_type(case):
    cls, result = case
    document = result.to_dict()
    assert set(declared(cls)) <= set(document)
    for name, hint in declared(cls).items():
        value = getattr(result, name)
        assert value == document[name], name
        assert fits(value, hint), f"{cls.__name__}.{name}: {value!r} is not {hint}"
    json.dumps(document)  # still plain JSON


def test_a_declared_field_is_read_only_and_a_copy(case):
    cls, result = case
    before = result.to_dict()
    for name in declared(cls):
        with pytest.raises(AttributeError, match=f"{name}: read-only"):
            setattr(result, name, None)
        with pytest.raises(AttributeError, match="read-only"):
            delattr(result, name)
        value = getattr(result, name)
        if isinstance(value, dict):
            value["changed"] = True
        elif isinstance(value, list):
            value.append("changed")
    assert result.to_dict() == before


def test_tables_are_reached_as_before(case):
    cls, result = case
    assert (result.tables == ()) == (cls in (AgreementResult, CardResult))
    for name in result.tables:
        assert getattr(result, name).equals(result.table(name))


def test_the_summary_is_a_markdown_table_of_the_scalar_fields(case):
    cls, result = case
    summary = result.summary()
    lines = summary.splitlines()
    assert lines[0] == f"# {result.command}"
    assert lines[2:4] == markdown_table(("field", "value"), [])
    scalars = [name for name, hint in declared(cls).items() if is_scalar(hint)]
    rows = [line for line in lines[4:] if line.startswith("| ")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == scalars
    for name in scalars:
        assert f"| {name} | " in summary
    assert result.to_markdown() not in summary


def test_each_class_declares_the_fields_its_readers_read():
    assert list(declared(CeilingResult)) == [
        "source",
        "shape",
        "graded",
        "coefficient",
        "scale",
        "boot",
        "seed",
        "min_shared",
        "roles_note",
    ]
    assert list(declared(CardCheckResult))[-1] == "verdict"
    assert declared(ClusteredCalibrationResult) == {
        **declared(CalibrationResult),
        "clusters": dict[str, Any],
    }
    assert declared(InspectResult)["density"] is float
    assert declared(CommandResult) == {}


def test_a_field_the_document_lacks_is_refused_when_the_result_is_made():
    class Bogus(CommandResult):
        """A result declaring a key its document lacks."""

        items: int
        bogus: float

    with pytest.raises(TypeError, match="Bogus: the probe document lacks .* bogus"):
        Bogus("probe", {"items": 3}, "text")
    made = Bogus("probe", {"items": 3, "bogus": 0.5}, "text")
    assert made.items == 3 and made.bogus == 0.5
    assert made.summary().splitlines()[4:] == ["| items | 3 |", "| bogus | 0.5 |"]


def test_a_field_may_not_replace_a_name_of_every_result_or_a_table():
    with pytest.raises(TypeError, match="tables: already a name of every result"):

        class Shadow(CommandResult):
            """A result declaring a field named as a method."""

            tables: int

    class Rows(CommandResult):
        """A result declaring its table as a field."""

        rows: list

    with pytest.raises(TypeError, match="rows: declared as a field and as a table"):
        Rows("probe", {"rows": []}, "text", {"rows": "rows"})


def test_the_result_classes_are_public_and_each_function_names_its_class():
    for cls in (*RESULT_CLASSES, CommandResult):
        assert cls.__name__ in results.__all__
        assert cls.__name__ in simcore.api.__all__
        assert getattr(simcore.api, cls.__name__) is cls
    returns = {
        "inspect": InspectResult,
        "agreement": AgreementResult,
        "ceiling": CeilingResult,
        "wellposed": WellposedResult,
        "card": CardResult,
        "card_check": CardCheckResult,
        "calibrate": (CalibrationResult, ScaleCalibrationResult),
        "plan_calibration": CalibrationPlanResult,
        "monitor": MonitorResult,
    }
    for name, cls in returns.items():
        annotation = inspect.signature(getattr(simcore, name)).return_annotation
        classes = cls if isinstance(cls, tuple) else (cls,)
        text = " | ".join(each.__name__ for each in classes)  # text under postponed annotations
        assert annotation in (*classes, text), name
