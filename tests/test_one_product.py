"""One product: one reader for every format, the same roles and flags, --json = the Python result.

Every data-reading command is run on the same matrix written in every input format (alttest
folder, JSON of humans with a judges file, long CSV, gzip CSV, wide CSV, DataFrame) and must
give identical numbers; each command's ``--json`` parses, equals its Python function's
``to_dict()``, and carries the numbers its text shows.
"""

import csv
import json

import pandas as pd
import pytest

import simcore
from simcore.cli import COMMANDS, build_parser, main
from simcore.realdata.readers import READERS, read_annotations, reader_for
from simcore.realdata.shapes import draw_matrix, write_alttest_folder, write_long_csv

JUDGES = ["judge0", "judge1"]


def run(capsys, *argv):
    status = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def raters():
    return draw_matrix(60, 4, 2, 3, density=0.7, seed=11)


def write_wide(humans, judges, path):
    raters = {**humans, **judges}
    items = sorted({item for given in raters.values() for item in given})
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", *raters])
        for item in items:
            writer.writerow([item, *(given.get(item, "") for given in raters.values())])
    return path


def long_frame(humans, judges):
    rows = [
        {"item": item, "rater": rater, "label": label}
        for raters in (humans, judges)
        for rater, given in raters.items()
        for item, label in given.items()
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def formats(raters, tmp_path_factory):
    """``{format: (data, roles)}``: the same matrix in every input format."""
    humans, judges = raters
    root = tmp_path_factory.mktemp("formats")
    folder = write_alttest_folder(humans, judges, root / "folder")
    humans_json = root / "humans.json"
    humans_json.write_text(json.dumps(humans))
    judges_json = root / "judges.json"
    judges_json.write_text(json.dumps(judges))
    named = {"judges": JUDGES}
    return {
        "alttest": (folder, {}),
        "json": (humans_json, {"judges_file": judges_json}),
        "csv": (write_long_csv(humans, judges, root / "long.csv"), named),
        "gzip": (write_long_csv(humans, judges, root / "long.csv.gz"), named),
        "wide": (write_wide(humans, judges, root / "wide.csv"), named),
        "dataframe": (long_frame(humans, judges), named),
    }


def without_source(value):
    """Return ``value`` with every ``source`` (the path read) left out, recursively."""
    if isinstance(value, dict):
        return {k: without_source(v) for k, v in value.items() if k not in ("source", "card")}
    if isinstance(value, list):
        return [without_source(v) for v in value]
    return value


FORMATS = ["alttest", "json", "csv", "gzip", "wide", "dataframe"]


def test_each_format_is_opened_by_its_own_reader(formats):
    assert [reader.name for reader in READERS] == [
        *("inspect", "mlflow", "dataframe", "alttest", "json", "wide", "csv")
    ]
    for name in FORMATS:
        data, _ = formats[name]
        expected = "csv" if name == "gzip" else name
        assert reader_for(data).name == expected


@pytest.mark.parametrize("name", FORMATS[1:])
def test_every_format_gives_the_same_matrix(formats, name):
    reference = read_annotations(formats["alttest"][0])
    data, roles = formats[name]
    matrix = read_annotations(data, **roles)
    for field in ("items", "humans", "judges", "labels", "group_names"):
        assert getattr(matrix, field) == getattr(reference, field), field
    assert (matrix.human_labels == reference.human_labels).all()
    assert (matrix.judge_labels == reference.judge_labels).all()


CALLS = {
    "inspect": lambda data, roles: simcore.inspect(data, **roles),
    "ceiling": lambda data, roles: simcore.ceiling(data, boot=40, seed=1, **roles),
    "card": lambda data, roles: simcore.card(
        data,
        judge="judge1",
        criterion="all",
        population="p",
        fail_labels=("l0",),
        date=__import__("datetime").date(2026, 1, 1),
        **roles,
    ),
    "calibrate": lambda data, roles: simcore.calibrate(
        data, judge="judge1", fail_labels=("l0",), fails=12, of=100, **roles
    ),
}


@pytest.mark.parametrize("command", sorted(CALLS))
@pytest.mark.parametrize("name", FORMATS[1:])
def test_every_command_gives_identical_results_in_every_format(formats, command, name):
    reference = CALLS[command](*formats["alttest"]).to_dict()
    result = CALLS[command](*formats[name]).to_dict()
    if command == "card":
        reference, result = reference["card"], result["card"]
    assert without_source(result) == without_source(reference)


@pytest.fixture(scope="module")
def card_file(formats, tmp_path_factory):
    card = CALLS["card"](*formats["alttest"])["card"]
    path = tmp_path_factory.mktemp("card") / "card.json"
    path.write_text(json.dumps(card))
    return path


@pytest.mark.parametrize("name", FORMATS[1:])
def test_card_check_gives_identical_results_in_every_format(formats, card_file, name):
    reference = simcore.card_check(card_file, formats["alttest"][0]).to_dict()
    data, roles = formats[name]
    assert simcore.card_check(card_file, data, **roles).to_dict() == reference


def advice_numbers(advice):
    document = advice.to_dict()
    return {key: document[key] for key in ("humans", "judges", "verdicts", "comparisons", "risk")}


@pytest.mark.parametrize("name", FORMATS[1:])
def test_advise_gives_identical_advice_in_every_format(formats, name):
    options = {"trials": 20, "seed": 3}
    reference = advice_numbers(simcore.advise(formats["alttest"][0], **options))
    data, roles = formats[name]
    assert advice_numbers(simcore.advise(data, **roles, **options)) == reference


def test_wellposed_reads_the_judges_of_every_format_alike(formats, raters, tmp_path):
    _, judges = raters
    reference = simcore.wellposed(formats["alttest"][0], boot=30).to_dict()
    only_judges = write_long_csv({}, judges, tmp_path / "judges.csv")
    for data in (only_judges, long_frame({}, judges), formats["csv"][0]):
        result = simcore.wellposed(data, judges=JUDGES, boot=30).to_dict()
        assert without_source(result) == without_source(reference)


# --------------------------------------------------------------------------- roles


def test_card_on_a_csv_with_two_judges_is_refused_without_roles(formats, raters, tmp_path, capsys):
    data = formats["csv"][0]
    common = ["--criterion", "all", "--population", "p", "--fail-labels", "l0"]
    out = tmp_path / "card.json"
    status, _, err = run(capsys, "card", data, "--judge", "judge1", *common, "--out", out)
    assert status == 2 and "does not say which raters are judges" in err
    assert "judge0" in err and not out.exists()
    status, text, _ = run(
        capsys,
        "card",
        data,
        "--judge",
        "judge1",
        "--judges",
        "judge0, judge1",
        *common,
        "--out",
        out,
    )
    assert status == 0
    with_both = json.loads(out.read_text())
    humans, judges = raters
    alone = write_long_csv(humans, {"judge1": judges["judge1"]}, tmp_path / "alone.csv")
    status, _, _ = run(
        capsys,
        "card",
        alone,
        "--judge",
        "judge1",
        "--judges",
        "judge1",
        *common,
        "--out",
        tmp_path / "alone.json",
    )
    assert status == 0
    alone_card = json.loads((tmp_path / "alone.json").read_text())
    for key in ("n", "n_fail", "n_pass", "counts", "tpr", "tnr", "n_tied_excluded"):
        assert with_both[key] == alone_card[key], key


def test_a_table_read_without_roles_says_every_rater_is_a_human(formats):
    data = formats["csv"][0]
    note = simcore.inspect(data)["roles_note"]
    assert "every rater is read as a human" in note
    assert note in simcore.inspect(data).to_markdown()
    assert simcore.inspect(data).to_dict()["judges"] == []
    assert simcore.inspect(data, judges=JUDGES)["roles_note"] == ""
    assert simcore.inspect(formats["alttest"][0])["roles_note"] == ""
    assert note in simcore.ceiling(data, boot=1).to_markdown()


def test_a_judge_named_by_card_must_be_one_of_the_judges(formats, capsys, tmp_path):
    status, _, err = run(
        capsys,
        "card",
        formats["csv"][0],
        "--judge",
        "h000",
        "--judges",
        "judge0,judge1",
        "--criterion",
        "all",
        "--population",
        "p",
        "--fail-labels",
        "l0",
        "--out",
        tmp_path / "c.json",
    )
    assert status == 2 and "judge: unknown judge (judges: " in err and "'h000'" in err


def test_rater_names_and_labels_are_stripped_in_every_format(tmp_path):
    path = tmp_path / "spaces.csv"
    path.write_text("item,rater,label\ni1, a ,x \ni1,b, y\ni2,a,x\ni2,b,x\ni1,j,x\ni2,j,y\n")
    matrix = read_annotations(path, judges=[" j"])
    assert matrix.humans == ("a", "b") and matrix.judges == ("j",)
    assert matrix.labels == ("x", "y")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "human_annotations.json").write_text(
        json.dumps({" a": {"i1": " x", "i2": "x"}, "b ": {"i1": "y", "i2": "x"}})
    )
    (folder / "llm_annotations.json").write_text(json.dumps({"j": {"i1": "x", "i2": "y"}}))
    from_json = read_annotations(folder)
    assert from_json.humans == ("a", "b") and from_json.labels == ("x", "y")


def test_long_tables_read_aliases_and_refuse_unknown_columns(tmp_path):
    path = tmp_path / "aliases.csv"
    path.write_text("id,worker,score,criterion\n1,a,1,c\n1,b,2,c\n2,a,2,c\n2,b,2,c\n")
    assert read_annotations(path).humans == ("a", "b")
    frame = pd.DataFrame({"task": [1, 1], "worker": ["a", "b"], "label": [1, 2], "x": [0, 0]})
    with pytest.raises(ValueError, match=r"DataFrame: columns: missing column 'item'"):
        read_annotations(frame)
    extra = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "label": [1, 2], "x": [0, 0]})
    with pytest.raises(ValueError, match=r"unknown column .*\(got 'x'\)"):
        read_annotations(extra)
    named = {"item": "item", "rater": "rater", "label": "label"}
    assert read_annotations(extra, columns=named).humans == ("a", "b")


# --------------------------------------------------------------------------- --json


def json_of(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_inspect_json_equals_python_and_the_text(formats, capsys):
    folder = formats["alttest"][0]
    document = json_of(capsys, "inspect", folder)
    result = simcore.inspect(folder)
    assert document == json.loads(json.dumps(result.to_dict()))
    _, text, _ = run(capsys, "inspect", folder)
    assert text.strip() == result.to_markdown().strip()
    assert f"items: {document['items']}\n" in text
    assert f"density: {document['density']:.3f} ({document['human_labels']} of" in text
    per_item = document["humans_per_item"]
    assert f"per item: min {per_item['min']}, median {per_item['median']:g}" in text
    for human in document["humans"]:
        assert human["name"] in text and str(human["items"]) in text
    assert list(result.humans["items"]) == [human["items"] for human in document["humans"]]


def test_ceiling_json_equals_python_and_the_text(formats, capsys):
    folder = formats["alttest"][0]
    document = json_of(capsys, "ceiling", folder, "--boot", "40", "--seed", "1")
    result = simcore.ceiling(folder, boot=40, seed=1)
    assert document == json.loads(json.dumps(result.to_dict()))
    text = result.to_markdown()
    group = document["groups"][0]
    reliability = f"{group['reliability']:.3f} [{group['reliability_low']:.3f}, "
    assert f"| {group['group']} | {group['n_items']} | {group['n_raters']} |" in text
    assert reliability in text and f"{group['symmetric']:.3f}" in text
    for judge in group["judges"]:
        assert f"| {judge['judge']} | {judge['score']:.3f} | {judge['source']} |" in text
    assert result.groups.shape[0] == len(document["groups"])


def test_card_and_check_json_equal_python_and_the_text(formats, capsys, tmp_path):
    folder = formats["alttest"][0]
    common = ["--criterion", "all", "--population", "p", "--fail-labels", "l0"]
    out = tmp_path / "card.json"
    document = json_of(capsys, "card", folder, "--judge", "judge1", *common, "--out", out)
    card = document["card"]
    assert card == json.loads(out.read_text())
    assert (
        f"TPR {card['tpr']['estimate']:.3f}"
        in simcore.card(
            folder, judge="judge1", criterion="all", population="p", fail_labels=("l0",)
        ).to_markdown()
    )
    check = json_of(capsys, "card", folder, "--check", out)
    assert check["verdict"] in ("usable", "moved", "underpowered") and len(check["rates"]) == 2
    python = simcore.card_check(out, folder).to_dict()
    assert check == json.loads(json.dumps(python))
    assert "verdict: " in simcore.card_check(out, folder).to_markdown()


def test_wellposed_json_equals_python_and_the_text(formats, capsys):
    folder = formats["alttest"][0]
    document = json_of(capsys, "wellposed", folder, "--boot", "30")
    result = simcore.wellposed(folder, boot=30)
    assert document == json.loads(json.dumps(result.to_dict()))
    (group,) = document["groups"]
    assert document["judges"] == JUDGES and group["n_boot"] == 30
    text = result.to_markdown()
    row = (
        f"| {group['group']} | {group['n_items']} | {group['measure']} | {group['agreement']:.3f} |"
    )
    assert f"{row} [{group['low']:.3f}, {group['high']:.3f}] |" in text
    assert f"judge0~judge1 {group['pair:judge0~judge1']:.3f}" in text
    assert result.groups.shape[0] == 1


def test_calibrate_json_equals_python_and_the_text(capsys):
    document = json_of(
        capsys, "calibrate", "--table", "40,10,5,45", "--fails", "120", "--of", "1000"
    )
    result = simcore.calibrate(table=(40, 10, 5, 45), fails=120, of=1000)
    assert document == json.loads(json.dumps(result.to_dict()))
    text = result.to_markdown()
    assert f"{document['tpr']['estimate']:.3f}" in text
    assert f"{document['estimate']:.4f}" in text
    interval = document["interval"]
    assert f"(Lang-Reiczigel): [{interval['low']:.3f}, {interval['high']:.3f}]" in text
    assert f"{100 * document['calibration_share']:.0f}% of the interval's variance" in text
    assert document["calibration"] == {
        "caught": 40,
        "missed": 10,
        "flagged": 5,
        "cleared": 45,
        "rows": 100,
    }
    every = simcore.calibrate(table=(40, 10, 5, 45), fails=120, of=1000, method="all")
    assert [row["method"] for row in every["methods"]] == [
        "lr",
        "naive",
        "ppi",
        "ppi++",
        "strat-ppi",
        "strat-wilson",
    ]
    assert list(every.methods["method"]) == [row["method"] for row in every["methods"]]


def test_calibrate_reads_annotations_and_a_production_file(formats, raters, tmp_path, capsys):
    _, judges = raters
    production = tmp_path / "production.csv"
    with production.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "rater", "label"])
        for n in range(200):
            writer.writerow([f"p{n}", "judge1", "l0" if n % 4 == 0 else "l1"])
    data, roles = formats["csv"]
    document = json_of(
        capsys,
        "calibrate",
        "--data",
        data,
        "--judges",
        "judge0,judge1",
        "--judge",
        "judge1",
        "--fail-labels",
        "l0",
        "--production",
        production,
    )
    assert document["production"]["fails"] == 50 and document["production"]["of"] == 200
    card = simcore.card(
        data, judge="judge1", criterion="all", population="p", fail_labels=("l0",), **roles
    )["card"]
    counts = card["counts"]
    assert document["calibration"] == {
        **{k: counts[k] for k in ("caught", "missed", "flagged", "cleared")},
        "rows": card["n"],
    }
    by_counts = simcore.calibrate(
        table=tuple(document["calibration"][k] for k in ("caught", "missed", "flagged", "cleared")),
        fails=50,
        of=200,
    ).to_dict()
    assert by_counts.pop("truth")["kind"] == "given"
    assert document.pop("truth")["kind"] == "majority"
    assert by_counts == document
    status, _, err = run(
        capsys,
        "calibrate",
        "--data",
        data,
        "--judge",
        "judge1",
        "--fail-labels",
        "l0",
        "--fails",
        "3",
        "--of",
        "10",
    )
    assert status == 2 and "does not say which raters are judges" in err


def test_every_help_ends_with_examples():
    parser = build_parser()
    for name in COMMANDS:
        text = parser.subcommands.choices[name].format_help()
        tail = text.rsplit("examples:", 1)
        assert len(tail) == 2, name
        lines = [line for line in tail[1].splitlines() if line.strip()]
        assert 2 <= len(lines) <= 3 and all(line.strip().startswith("simcore ") for line in lines)


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["inspekt", "x"], "did you mean 'inspect'?"),
        (["ceiling", "x", "--boots", "3"], "did you mean '--boot'?"),
        (["calibrate", "--tabel", "1,2,3,4"], "did you mean '--table'?"),
    ],
)
def test_an_unknown_command_or_option_suggests_the_nearest(argv, suggestion, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and suggestion in capsys.readouterr().err


def test_python_functions_suggest_the_nearest_option():
    with pytest.raises(TypeError, match="did you mean 'boot'"):
        simcore.ceiling("x", boots=3)


def test_an_unknown_scenario_key_suggests_the_nearest(tmp_path, capsys):
    path = tmp_path / "typo.yaml"
    path.write_text("model:\n  n_item: 100\ntrials: 10\n")
    status, _, err = run(capsys, "validate", path)
    assert status == 2 and f"{path}: model.n_item: unknown key; did you mean 'n_items'?" in err


def test_the_declared_designs_and_methods_are_the_libraries_own():
    from simcore.advisor.advise_options import DESIGN_NAMES
    from simcore.calibration.methods import METHODS
    from simcore.command_options import CALIBRATE_OPTIONS
    from simcore.model.designs import DESIGNS

    assert DESIGN_NAMES == DESIGNS
    assert CALIBRATE_OPTIONS[0].choices == (*METHODS, "all")


def test_the_command_line_parses_without_numpy():
    import subprocess
    import sys

    code = "import sys, simcore.cli; simcore.cli.build_parser(); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_card_takes_its_date_as_text_or_a_date_and_refuses_anything_else(formats):
    import datetime

    data, roles = formats["csv"]
    options = dict(judge="judge1", criterion="all", population="p", fail_labels=("l0",))
    as_text = simcore.card(data, date="2026-11-02", **options, **roles)["card"]
    as_date = simcore.card(data, date=datetime.date(2026, 11, 2), **options, **roles)["card"]
    assert as_text == as_date and as_text["measured"] == "2026-11-02"
    with pytest.raises(ValueError, match=r"card: date: must be a date YYYY-MM-DD .*'2 Nov'"):
        simcore.card(data, date="2 Nov", **options, **roles)


def test_a_python_option_given_as_text_is_parsed_as_the_command_line_parses_it(formats):
    data, roles = formats["csv"]
    options = dict(judge="judge1", criterion="all", population="p", date="2026-11-02")
    as_text = simcore.card(data, fail_labels="l0", **options, **roles)["card"]
    as_tuple = simcore.card(data, fail_labels=("l0",), **options, **roles)["card"]
    assert as_text == as_tuple
    with pytest.raises(ValueError, match=r"date: must be a date \(got type int\)"):
        simcore.card(data, fail_labels="l0", **{**options, "date": 20261102}, **roles)
