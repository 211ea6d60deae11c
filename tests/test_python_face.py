"""Inputs checked at the face (issue 46): counts, cards, calibration and monitor files,
scenario names and numbers, NumPy scalars, and the late interrupt.

Each refusal is a ``TypeError`` or ``ValueError`` (or a simcore subclass) whose message
names the keyword (Python) or the flag and file (command line), exit status 2, no
traceback; each acceptance gives the numbers the plain Python input gives.
"""

import json
import random

import numpy as np
import pandas as pd
import pytest
import yaml
from calibration_files import write_monitor_stream

import simcore
from simcore.cli import main
from simcore.instrument.card.file import CardError, check_card, read_card
from simcore.options import LARGEST_COUNT, count_value, plain_numbers

TABLE = (10, 2, 3, 80)


def refused(capsys, argv):
    """Run ``argv`` in-process; return stderr after checking exit 2 and no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return err


# --------------------------------------------------------------------------- counts


@pytest.mark.parametrize(
    ("keywords", "named", "error"),
    [
        ({"table": (1.5, 6, 8, 72)}, "table: caught", TypeError),
        ({"table": (True, 6, 8, 72)}, "table: caught", TypeError),
        ({"table": (6.0, 6, 8, 72)}, "pass int(x)", TypeError),
        ({"table": (5, 6, 8)}, "table: must be four integer counts", TypeError),
        ({"table": "5,6,8,72"}, "table: must be four", TypeError),
        ({"table": (5, -6, 8, 72)}, "table: missed: must be an integer >= 0", ValueError),
        ({"table": (5, 6, 8, 2**60)}, "table: cleared: must be at most 2**53", ValueError),
        ({"fails": 130.5}, "fails: must be an integer", TypeError),
        ({"fails": True}, "fails: must be an integer", TypeError),
        ({"of": 10**21}, "of: must be at most 2**53", ValueError),
        ({"card": [1, 2]}, "card: must be a card's document", TypeError),
        ({"csv": {"a": 1}}, "csv: must be a path", TypeError),
        ({"production": pd.DataFrame({"x": [1]})}, "production: a DataFrame needs", ValueError),
    ],
)
def test_calibrate_refuses_counts_that_are_not_counts(keywords, named, error):
    given = {"table": TABLE, "fails": 30, "of": 300, **keywords}
    if "card" in keywords or "csv" in keywords:
        given.pop("table")
    if "production" in keywords:
        given.pop("fails"), given.pop("of")
    with pytest.raises(error) as raised:
        simcore.calibrate(**given)
    assert named in str(raised.value)


def test_numpy_counts_give_the_plain_counts_numbers():
    plain = simcore.calibrate(table=TABLE, fails=30, of=300).to_dict()
    numpy = simcore.calibrate(table=np.array(TABLE), fails=np.int64(30), of=np.int32(300))
    assert numpy.to_dict() == plain
    json.dumps(numpy.to_dict())  # plain numbers throughout


def test_count_value_bounds():
    assert count_value(np.uint8(7), "n") == 7 and type(count_value(np.int64(7), "n")) is int
    assert count_value(LARGEST_COUNT, "n") == LARGEST_COUNT
    with pytest.raises(ValueError, match="2\\*\\*53"):
        count_value(LARGEST_COUNT + 1, "n")
    assert plain_numbers({"a": [np.float32(0.5), (np.int8(2),)]}) == {"a": [0.5, (2,)]}


# --------------------------------------------------------------------------- cards


@pytest.fixture(scope="module")
def card_file(tmp_path_factory):
    """A measured card's file and document."""
    folder = tmp_path_factory.mktemp("card")
    pick = random.Random(4)
    rows = ["item,rater,label"] + [
        f"i{i},{rater},{pick.choice(['PASS', 'FAIL'])}"
        for i in range(80)
        for rater in ("h1", "h2", "h3", "j")
    ]
    (folder / "data.csv").write_text("\n".join(rows) + "\n")
    card = simcore.card(
        folder / "data.csv",
        judges=["j"],
        judge="j",
        fail_labels=["FAIL"],
        criterion="c",
        population="p",
    ).to_dict()["card"]
    path = folder / "card.json"
    path.write_text(json.dumps(card, indent=2))
    return path, card


def test_a_card_dict_is_checked_as_a_card_file_is(card_file):
    path, card = card_file
    assert check_card(card) == read_card(path)
    wrong = json.loads(json.dumps(card))
    wrong["counts"]["caught"] += 7
    with pytest.raises(CardError, match="card: n_fail: must equal the counts' sum"):
        simcore.calibrate(card=wrong, fails=3, of=30)
    with pytest.raises(CardError, match="card: n_fail"):
        simcore.monitor("p.csv", "a.csv", card=wrong)
    huge = json.loads(json.dumps(card))
    huge["counts"]["caught"] = 10**22
    with pytest.raises(CardError, match="counts.caught: must be at most 2\\*\\*53"):
        check_card(huge)
    huge["counts"]["caught"] = 1e22
    with pytest.raises(CardError, match="counts.caught: must be a non-negative integer"):
        check_card(huge)


def test_a_card_path_is_read_and_checked(card_file, tmp_path):
    path, card = card_file
    by_path = simcore.calibrate(card=str(path), fails=3, of=30).to_dict()
    assert by_path == simcore.calibrate(card=card, fails=3, of=30).to_dict()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**card, "n": card["n"] + 1}))
    with pytest.raises(CardError, match=f"card: {bad}: n: must equal"):
        simcore.calibrate(card=bad, fails=3, of=30)


def test_a_card_with_a_key_twice_is_refused_by_name(card_file, tmp_path, capsys):
    path, _ = card_file
    twice = tmp_path / "twice.json"
    twice.write_text(path.read_text().replace("{", '{"judge": "other",', 1))
    with pytest.raises(CardError, match="judge: appears twice in one mapping"):
        read_card(twice)
    err = refused(capsys, ["calibrate", "--card", str(twice), "--population", "p", "--fails",
                           "3", "--of", "30"])  # fmt: skip
    assert f"{twice}: judge: appears twice" in err


# --------------------------------------------------------------------------- calibrate --csv


def write_rows(path, rows):
    path.write_text("\n".join(["item,human,judge", *rows]) + "\n")
    return str(path)


def test_a_repeated_identical_item_counts_once(tmp_path, capsys):
    rows = ["i1,fail,fail", "i2,pass,pass", "i3,pass,fail", "i4,fail,pass", "i5,pass,pass"]
    once = write_rows(tmp_path / "once.csv", rows)
    twice = write_rows(tmp_path / "twice.csv", [*rows, "i1,FAIL, fail", "i5,pass,pass"])
    documents = []
    for path in (once, twice):
        assert main(["calibrate", "--csv", path, "--fails", "3", "--of", "30", "--json"]) == 0
        documents.append(json.loads(capsys.readouterr().out)["calibration"])
    assert documents[0] == documents[1] and documents[1]["rows"] == 5


def test_a_contradictory_item_is_refused_naming_item_and_lines(tmp_path, capsys):
    path = write_rows(tmp_path / "clash.csv", ["i1,fail,fail", "i2,pass,pass", "i1,pass,pass"])
    err = refused(capsys, ["calibrate", "--csv", path, "--fails", "3", "--of", "30"])
    assert "line 4: item 'i1' appears again with other labels (line 2 has human 'fail'" in err
    with pytest.raises(ValueError, match="item 'i1' appears again"):
        simcore.calibrate(csv=path, fails=3, of=30)


def test_a_row_with_extra_fields_is_refused_naming_file_and_line(tmp_path, capsys):
    path = write_rows(tmp_path / "extra.csv", ["i1,fail,fail", "i2,pass,pass,EXTRA"])
    err = refused(capsys, ["calibrate", "--csv", path, "--fails", "3", "--of", "30"])
    assert f"{path}: line 3: expected 3 fields" in err and "(got 4)" in err


# --------------------------------------------------------------------------- monitor


@pytest.fixture
def stream(tmp_path):
    """A dated production file and its audit sample, in date order."""
    return write_monitor_stream(tmp_path)


def test_monitor_refuses_one_label_for_both_classes(stream, capsys):
    production, audit = (str(path) for path in stream)
    monitor = ["monitor", "--production", production, "--audit-file", audit]
    err = refused(capsys, [*monitor, "--fail-label", "fail", "--pass-label", "FAIL"])
    assert "--fail-label, --pass-label: must be two different labels" in err
    with pytest.raises(ValueError, match="fail_label, pass_label"):
        simcore.monitor(production, audit, fail_label="x", pass_label=" x ")


def test_monitor_refuses_expire_card_without_a_card(stream, capsys):
    production, audit = (str(path) for path in stream)
    err = refused(capsys, ["monitor", "--production", production, "--audit-file", audit,
                           "--expire-card"])  # fmt: skip
    assert "--expire-card: writes the first alarm's date into the --card file" in err
    with pytest.raises(ValueError, match="expire_card: .*pass card=FILE"):
        simcore.monitor(production, audit, expire_card=True)
    with pytest.raises(TypeError, match="expire_card: must be True or False"):
        simcore.monitor(production, audit, expire_card="yes")


def test_monitor_refuses_a_row_with_extra_fields(stream, capsys):
    production, audit = stream
    lines = production.read_text().splitlines()
    lines[5] += ",EXTRA"
    production.write_text("\n".join(lines) + "\n")
    err = refused(capsys, ["monitor", "--production", str(production), "--audit-file",
                           str(audit)])  # fmt: skip
    assert f"{production}: line 6: expected 3 fields" in err


# --------------------------------------------------------------------------- scenarios

SCENARIO = {
    "name": "face",
    "model": {"n_items": 60, "n_humans": 4},
    "design": {"kind": "bernoulli"},
    "trials": 20,
    "seed": 8,
    "sweep": {"p_judge": [0.9], "rho": [0.2]},
}


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ti\x00ny", "found U+0000"),
        ("ti\x1bny\x07", "found U+001B"),
        ("a/b", "must not hold /"),
        (".hidden", "must not start with '.'"),
        ("", "must be a non-empty text"),
        ("x" * 300, "at most 200 characters"),
    ],
)
def test_validate_refuses_a_name_that_cannot_be_a_file_name(tmp_path, capsys, name, why):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({**SCENARIO, "name": name}))
    err = refused(capsys, ["validate", str(path)])
    assert f"{path}: name: " in err and why in err


def test_names_of_other_kinds_and_output_paths_are_checked(tmp_path):
    with open("scenarios/coverage.yaml") as handle:
        coverage = yaml.safe_load(handle)
    with pytest.raises(simcore.ScenarioError, match="name: must not hold control"):
        simcore.load_scenario(write_yaml(tmp_path / "c.yaml", {**coverage, "name": "c\x07"}))
    output = {**SCENARIO, "output": {"store": "results/x\x00.zarr"}}
    with pytest.raises(simcore.ScenarioError, match="output.store: must not hold control"):
        simcore.load_scenario(write_yaml(tmp_path / "o.yaml", output))


def write_yaml(path, raw):
    path.write_text(yaml.safe_dump(raw))
    return path


def test_validate_refuses_huge_sizes_with_the_limit(tmp_path, capsys):
    with open("scenarios/coverage.yaml") as handle:
        coverage = yaml.safe_load(handle)
    coverage["sweep"]["n_production"] = [10**21]
    err = refused(capsys, ["validate", str(write_yaml(tmp_path / "c.yaml", coverage))])
    assert "sweep.n_production: must be <= 10000000" in err
    huge = {**SCENARIO, "model": {"n_items": 10**21, "n_humans": 4}}
    err = refused(capsys, ["validate", str(write_yaml(tmp_path / "h.yaml", huge))])
    assert "model.n_items: must be <= 2**53" in err
    big_seed = simcore.load_scenario(write_yaml(tmp_path / "s.yaml", {**SCENARIO, "seed": 2**70}))
    assert big_seed.seed == 2**70  # a root seed is never narrowed


def test_numpy_numbers_in_a_scenario_are_plain_numbers():
    loaded = simcore.load_scenario("scenarios/fig2.yaml", trials=np.int64(5), seed=np.uint32(3))
    assert (loaded.trials, loaded.seed) == (5, 3)
    assert type(loaded.trials) is int
    raw = {**SCENARIO, "trials": np.int64(5), "sweep": {"p_judge": [np.float64(0.9)],
                                                         "rho": [np.float32(0.25)]}}  # fmt: skip
    estimate = simcore.estimate(raw, seed=np.int64(2))
    assert estimate.to_dict()


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: simcore.run(5), "scenario: must be a scenario file"),
        (lambda: simcore.estimate(None), "scenario: must be a scenario file"),
        (lambda: simcore.load_scenario({"a": 1}), "path: must be a path"),
        (lambda: simcore.load_scenario("scenarios/fig2.yaml", overrides=[1]), "overrides"),
        (lambda: simcore.card_check({"a": 1}, "x.csv"), "card_path"),
        (lambda: simcore.inspect("x.csv", judges=True), "judges: must be a list of names"),
        (lambda: simcore.read_annotations("x.csv", columns=[1]), "columns: must be a mapping"),
        (lambda: simcore.agreement("x.csv", raters={"a": 1}), "raters: must be a list"),
        (lambda: simcore.ceiling("x.csv", criterion=True), "criterion: must be a list"),
        (lambda: simcore.monitor(None, "a.csv"), "production: must be a path"),
        (lambda: simcore.monitor("p.csv", "a.csv", fail_label=None), "fail_label: must be a"),
        (lambda: simcore.monitor("p.csv", "a.csv", card=5), "card: must be a card's"),
    ],
)
def test_wrong_types_name_the_keyword(call, named):
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    assert named in str(raised.value)


# --------------------------------------------------------------------------- late interrupt


def open_signature_problems(function):
    """What keeps ``function``'s face from saying what it takes: ``*args``, ``**kwargs``,
    a parameter or a return without a type."""
    import inspect

    signature = inspect.signature(function)
    problems = [
        f"{parameter.name}: collects arguments"
        for parameter in signature.parameters.values()
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
    ]
    problems += [
        f"{parameter.name}: no type"
        for parameter in signature.parameters.values()
        if parameter.annotation is parameter.empty
    ]
    if signature.return_annotation is signature.empty:
        problems.append("return: no type")
    return problems


@pytest.mark.parametrize("name", simcore.API_NAMES)
def test_every_command_function_spells_out_its_keywords_with_types(name):
    function = getattr(simcore, name)
    assert function is getattr(simcore.api, name)
    assert open_signature_problems(function) == []


def test_the_signature_checker_sees_open_and_untyped_faces():
    def probe(data, *rest, humans: str = "", **options) -> None:
        """Probe."""

    assert open_signature_problems(probe) == [
        "rest: collects arguments",
        "options: collects arguments",
        "data: no type",
        "rest: no type",
        "options: no type",
    ]


def test_a_keyword_left_at_its_declared_default_is_a_declared_option():
    """The default of such a keyword is written once, in its declaration, not in the face."""
    import inspect

    from simcore import command_options
    from simcore.advisor.advise_options import OPTIONS
    from simcore.options import DEFAULT, Option

    declared = {
        option.name
        for value in vars(command_options).values()
        for option in (value if isinstance(value, tuple) else (value,))
        if isinstance(option, Option)
    } | {option.name for option in OPTIONS}
    for name in simcore.API_NAMES:
        parameters = inspect.signature(getattr(simcore, name)).parameters.values()
        at_default = {p.name for p in parameters if p.default is DEFAULT}
        assert at_default <= declared, (name, at_default - declared)


def test_an_unknown_keyword_names_the_nearest_and_the_function():
    with pytest.raises(TypeError, match=r"^wellposed: unknown option 'boots'; did you mean 'boot'"):
        simcore.wellposed("x", boots=3)
