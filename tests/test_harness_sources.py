"""Inspect AI logs and MLflow stores read as annotation matrices (simcore.realdata.harness).

The logs and stores are written by the real libraries in the test (tests/harness_sources.py):
an Inspect eval on Inspect's mock model with a model-graded scorer and human score edits, and
MLflow feedback logged through ``mlflow.log_feedback`` to a temporary SQLite store. Each is
read into the same matrix as the equivalent long CSV and gives the same card, calibration
and monitor numbers; bad input is refused naming the problem.
"""

import datetime
import json
import os
import subprocess
import sys

import harness_sources as panel
import numpy as np
import pytest

import simcore
from simcore.cli import main
from simcore.realdata import DataError
from simcore.realdata.harness import harness_for, label_text
from simcore.realdata.readers import read_annotations, read_judge_labels, reader_for


def day(milliseconds):
    """The UTC date of a time in epoch milliseconds, as the monitor's files write it."""
    return datetime.datetime.fromtimestamp(milliseconds / 1000, datetime.UTC).date().isoformat()


JUDGES = {"model_graded_qa": panel.JUDGE_FLIPS, "model_graded_qa1": panel.SECOND_JUDGE_FLIPS}


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory):
    """An Inspect eval log of the panel with two model-graded scorers and human edits."""
    folder = tmp_path_factory.mktemp("inspect")
    log = panel.write_inspect_log(folder / "logs", second_judge=True)
    csv = panel.write_csv(folder / "panel.csv", panel.long_rows(JUDGES, "I", "C"))
    return log, csv


@pytest.fixture(scope="module")
def mlflow_store(tmp_path_factory):
    """An MLflow SQLite store of the panel: LLM_JUDGE and HUMAN feedback on 40 traces."""
    folder = tmp_path_factory.mktemp("mlflow")
    uri, traces, logged = panel.write_mlflow_store(folder / "mlflow.db")
    rows = [
        (traces[item], rater, label)
        for item, rater, label in panel.long_rows({"judge-a": panel.JUDGE_FLIPS}, "false", "true")
    ]
    csv = panel.write_csv(folder / "panel.csv", rows)
    # alice's audits in the order she gave them (time logged, then trace id), as a CSV
    audits = sorted(
        (logged[(item, "alice")], traces[item], "false" if fails else "true")
        for item, fails in panel.human_labels("alice").items()
    )
    audit = panel.write_csv(
        folder / "audit.csv",
        [(trace, day(time), label) for time, trace, label in audits],
        header=("item", "date", "human"),
    )
    production = panel.write_csv(
        folder / "production.csv",
        sorted(
            (day(logged[(item, "judge-a")]), traces[item], "true" if passed else "false")
            for item, passed in (
                (panel.item_id(i), not panel.judge_fails(i)) for i in range(panel.N_ITEMS)
            )
        ),
        header=("date", "item", "judge"),
    )
    return uri, folder / "mlflow.db", csv, (production, audit)


def assert_same_matrix(read, expected):
    assert read.items == expected.items
    assert read.humans == expected.humans
    assert read.judges == expected.judges
    assert read.labels == expected.labels
    assert read.group_names == expected.group_names
    np.testing.assert_array_equal(read.human_labels, expected.human_labels)
    np.testing.assert_array_equal(read.judge_labels, expected.judge_labels)


def scrubbed(document, *sources):
    """Return ``document`` with every mention of the source paths replaced by one word."""
    text = json.dumps(document)
    for source in sources:
        text = text.replace(json.dumps(str(source))[1:-1], "SOURCE")
    return json.loads(text)


def cards(result):
    """A card result's document but for its roles line, which only a harness source gives."""
    return {key: value for key, value in result.to_dict().items() if key != "roles_note"}


# --------------------------------------------------------------------------- Inspect AI


def test_an_inspect_log_reads_as_the_equivalent_long_csv(inspect_log):
    log, csv = inspect_log
    read = read_annotations(log)
    assert reader_for(log).name == "inspect" and reader_for(log).declares_roles
    assert read.judges == ("model_graded_qa", "model_graded_qa1")
    assert read.humans == ("alice", "bob", "carol")
    assert_same_matrix(read, read_annotations(csv, judges=list(JUDGES)))
    folder = read_annotations(log.parent)  # the folder of logs reads as its one log
    assert_same_matrix(folder, read)


def test_an_inspect_log_gives_the_csv_card_and_calibration(inspect_log):
    log, csv = inspect_log
    options = {"judge": "model_graded_qa", "criterion": "correct", "population": "qa"}
    options |= {"fail_labels": "I", "date": "2026-12-01", "judges": list(JUDGES)}
    from_log = simcore.card(log, **{k: v for k, v in options.items() if k != "judges"})
    from_csv = simcore.card(csv, **options)
    assert scrubbed(cards(from_log), log) == scrubbed(cards(from_csv), csv)
    assert from_log.roles_note.startswith("roles: as the Inspect AI log records them")
    assert from_log.to_dict()["card"]["counts"] == {
        "caught": 12,
        "missed": 2,
        "flagged": 4,
        "cleared": 22,
    }
    calibrated = simcore.calibrate(log, judge="model_graded_qa", fail_labels="I", production=log)
    expected = simcore.calibrate(
        csv, judge="model_graded_qa", fail_labels="I", production=csv, judges=list(JUDGES)
    )
    assert scrubbed(calibrated.to_dict(), log) == scrubbed(expected.to_dict(), csv)
    # production: the judge's labels on all 40 samples, 14 true fails, flips 4 17 26 in, 9 out
    assert calibrated.to_dict()["production"]["fails"] == 16
    assert calibrated.to_dict()["production"]["of"] == panel.N_ITEMS


def test_the_command_line_reads_a_log_in_one_command(inspect_log, tmp_path, capsys):
    log, _ = inspect_log
    card = tmp_path / "card.json"
    status = main(
        ["card", str(log), "--judge", "model_graded_qa", "--fail-labels", "I"]
        + ["--criterion", "correct", "--population", "qa", "--out", str(card)]
    )
    assert status == 0 and json.loads(card.read_text())["counts"]["caught"] == 12
    capsys.readouterr()
    argv = ["calibrate", "--data", str(log), "--judge", "model_graded_qa", "--fail-labels", "I"]
    assert main([*argv, "--production", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["production"] == {
        "fails": 16,
        "of": 40,
        "observed": 0.4,
        "low": pytest.approx(0.2634832568),
        "high": pytest.approx(0.5540410634),
    }


@pytest.mark.parametrize("command", ["inspect", "advise", "ceiling", "wellposed"])
def test_every_data_command_reads_a_log(inspect_log, command, tmp_path, capsys):
    log, _ = inspect_log
    extra = {"ceiling": ["--boot", "20"], "wellposed": ["--boot", "20"]}
    extra["advise"] = ["--out", str(tmp_path / "advice"), "--trials", "50"]
    assert main([command, str(log), *extra.get(command, []), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    if command == "inspect":
        assert [h["name"] for h in document["humans"]] == ["alice", "bob", "carol"]
        assert document["roles_note"].startswith("roles: as the Inspect AI log records them")
    elif command == "ceiling":
        assert document["shape"]["humans"] == 3
    elif command == "wellposed":  # the judges on every sample; the humans are not read
        assert document["judges"] == list(JUDGES)
        assert document["groups"][0]["n_items"] == panel.N_ITEMS
    else:
        assert (tmp_path / "advice" / "report.md").is_file()


def test_a_json_log_reads_as_the_eval_log(inspect_log, tmp_path):
    log = panel.write_inspect_log(tmp_path / "logs", log_format="json", second_judge=True)
    assert log.suffix == ".json" and reader_for(log).name == "inspect"
    assert_same_matrix(read_annotations(log), read_annotations(inspect_log[0]))


def test_epochs_are_judges_and_tasks_are_groups(inspect_log, tmp_path):
    log = panel.write_inspect_log(tmp_path / "epochs", epochs=2)
    read = read_annotations(log)
    assert read.judges == ("model_graded_qa/epoch1", "model_graded_qa/epoch2")
    np.testing.assert_array_equal(read.judge_labels[:, 0], read.judge_labels[:, 1])
    panel.write_inspect_log(tmp_path / "tasks", task_name="other")
    panel.write_inspect_log(tmp_path / "tasks", task_name="qa")
    both = read_annotations(tmp_path / "tasks")
    assert both.group_names == ("other", "qa") and len(both.items) == 2 * panel.N_ITEMS
    one = read_annotations(inspect_log[0], judges=["model_graded_qa"])
    np.testing.assert_array_equal(both.judge_labels[both.groups == 1], one.judge_labels)


def test_human_labels_in_a_csv_keyed_by_sample_id(inspect_log, tmp_path):
    log, csv = inspect_log
    humans = panel.write_csv(
        tmp_path / "humans.csv",
        [row for row in panel.long_rows({}, "I", "C")],
    )
    read = read_annotations(humans, judges_file=log)
    assert_same_matrix(read, read_annotations(csv, judges=list(JUDGES)))
    missing = panel.write_csv(
        tmp_path / "extra.csv", [*panel.long_rows({}, "I", "C"), ("s99", "alice", "C")]
    )
    with pytest.raises(DataError, match="s99"):
        read_annotations(missing, judges_file=log)
    empty = panel.write_csv(
        tmp_path / "empty.csv", [*panel.long_rows({}, "I", "C"), ("s39", "carol", "")]
    )
    with pytest.raises(DataError, match="row 72: empty label"):
        read_annotations(empty, judges_file=log)


def test_a_scorer_without_labels_is_refused(tmp_path):
    log = panel.write_inspect_log(tmp_path / "logs", score=False, edits=False)
    with pytest.raises(DataError, match="judges: no label from model_graded_qa in an Inspect"):
        read_annotations(log)


def test_mixed_label_types_are_refused(tmp_path):
    log = panel.write_inspect_log(tmp_path / "logs", edit_value=1)
    with pytest.raises(
        DataError,
        match="mixed label types: model_graded_qa gives the text 'I' and alice the number '1'",
    ):
        read_annotations(log)


def test_roles_come_from_the_log(inspect_log):
    log, _ = inspect_log
    with pytest.raises(DataError, match="'alice' is a human in an Inspect AI log"):
        read_annotations(log, judges=["alice"])
    with pytest.raises(DataError, match="unknown judge"):
        read_annotations(log, judges=["gpt-4"])
    read = read_annotations(log, humans=["bob", "alice"], judges=["model_graded_qa"])
    assert read.humans == ("bob", "alice") and read.judges == ("model_graded_qa",)


# --------------------------------------------------------------------------- MLflow


def test_an_mlflow_store_reads_as_the_equivalent_long_csv(mlflow_store):
    uri, path, csv, _ = mlflow_store
    read = read_annotations(uri)
    assert reader_for(uri).name == "mlflow" and reader_for(path).name == "mlflow"
    assert read.judges == ("judge-a",) and read.labels == ("false", "true")
    assert_same_matrix(read, read_annotations(csv, judges=["judge-a"]))
    assert_same_matrix(read_annotations(path), read)


def test_an_mlflow_store_gives_the_csv_card_calibration_and_monitor(mlflow_store):
    uri, _, csv, (production, audit) = mlflow_store
    options = {"judge": "judge-a", "criterion": "correct", "population": "qa"}
    options |= {"fail_labels": "false", "date": "2026-12-01"}
    from_store = simcore.card(uri, **options)
    from_csv = simcore.card(csv, judges=["judge-a"], **options)
    assert scrubbed(cards(from_store), uri) == scrubbed(cards(from_csv), csv)
    assert from_store.roles_note.startswith("roles: as the MLflow store records them")
    calibrated = simcore.calibrate(uri, judge="judge-a", fail_labels="false", production=uri)
    expected = simcore.calibrate(
        csv, judge="judge-a", fail_labels="false", production=csv, judges=["judge-a"]
    )
    assert scrubbed(calibrated.to_dict(), uri) == scrubbed(expected.to_dict(), csv)
    assert sorted(read_judge_labels(uri, "judge-a")) == sorted(read_judge_labels(csv, "judge-a"))
    # the monitor: production and audits dated by the store, against the same rows in CSVs
    labels = {"fail_label": "false", "pass_label": "true"}
    watched = simcore.monitor(uri, uri, humans="alice", **labels).to_dict()
    expected = simcore.monitor(production, audit, **labels).to_dict()
    assert watched == expected
    with pytest.raises(DataError, match="and carol both label item"):
        simcore.monitor(uri, uri, **labels)


def store_csv(traces, path):
    """Write the long CSV equivalent of a store written by ``panel.write_mlflow_store``."""
    rows = panel.long_rows({"judge-a": panel.JUDGE_FLIPS}, "false", "true")
    return panel.write_csv(path, [(traces[item], rater, label) for item, rater, label in rows])


def test_code_feedback_and_overridden_feedback_are_not_read(tmp_path):
    uri, traces, _ = panel.write_mlflow_store(tmp_path / "noisy.db", noise=True)
    expected = read_annotations(store_csv(traces, tmp_path / "panel.csv"), judges=["judge-a"])
    assert_same_matrix(read_annotations(uri), expected)


def test_an_mlruns_file_store_reads_as_its_long_csv(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow writes file stores so
    folder = tmp_path / "mlruns"
    _, traces, _ = panel.write_mlflow_store(None, uri=folder.as_uri())
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE")  # ... but simcore reads one without it
    assert reader_for(folder).name == "mlflow"
    expected = read_annotations(store_csv(traces, tmp_path / "panel.csv"), judges=["judge-a"])
    assert_same_matrix(read_annotations(folder), expected)
    assert_same_matrix(read_annotations(folder.as_uri()), expected)
    assert "MLFLOW_ALLOW_FILE_STORE" not in os.environ


def test_assessment_names_are_groups(tmp_path):
    uri, _, _ = panel.write_mlflow_store(tmp_path / "two.db", name="correctness")
    panel.write_mlflow_store(tmp_path / "two.db", name="safety")
    read = read_annotations(uri)
    assert read.group_names == ("correctness", "safety")
    assert len(read.items) == 2 * panel.N_ITEMS and read.judges == ("judge-a",)


def test_card_check_reads_a_new_sample_from_a_log(inspect_log, tmp_path):
    log, _ = inspect_log
    card = tmp_path / "card.json"
    options = {"criterion": "correct", "population": "qa", "fail_labels": "I"}
    made = simcore.card(log, judge="model_graded_qa", date="2026-12-01", **options)
    card.write_text(json.dumps(made.to_dict()["card"]))
    checked = simcore.card_check(card, log).to_dict()
    counts = made.to_dict()["card"]["counts"]
    tpr, tnr = checked["rates"]
    assert (checked["n"], tpr["hits_new"], tnr["hits_new"]) == (40, 12, 22)
    assert (tpr["hits_new"], tnr["hits_new"]) == (counts["caught"], counts["cleared"])


def test_a_store_without_llm_judge_feedback_is_refused(tmp_path):
    uri, _, _ = panel.write_mlflow_store(tmp_path / "humans.db", judge=False)
    with pytest.raises(DataError, match="judges: no judge's labels in an MLflow store"):
        read_annotations(uri)
    status = main(["card", uri, "--judge", "judge-a", "--fail-labels", "false"])
    assert status == 2


# --------------------------------------------------------------------------- extras, labels


@pytest.mark.parametrize(
    ("module", "extra", "source"),
    [("inspect_ai", "inspect", "inspect_log"), ("mlflow", "mlflow", "mlflow_store")],
)
def test_a_missing_extra_exits_2_naming_the_install_line(
    module, extra, source, request, monkeypatch, capsys
):
    given = request.getfixturevalue(source)[0]
    capsys.readouterr()  # what the library printed while the fixture wrote the source
    monkeypatch.setitem(sys.modules, module, None)  # import fails as without the extra
    assert main(["inspect", str(given)]) == 2
    error = capsys.readouterr().err
    assert f"pip install 'simcore[{extra}]'" in error and error.count("\n") == 1


def test_telling_a_source_apart_imports_neither_library(inspect_log, mlflow_store):
    code = (
        "import sys\nfrom simcore.realdata.harness import harness_for\n"
        f"names = [harness_for(s).name for s in ({str(inspect_log[0])!r}, {mlflow_store[0]!r})]\n"
        "print(names, 'inspect_ai' in sys.modules, 'mlflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['inspect', 'mlflow'] False False"
    assert harness_for(inspect_log[1]) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("C", ("text", "C")),
        (" I ", ("text", "I")),
        (True, ("boolean", "true")),
        (3, ("number", "3")),
        (0.5, ("number", "0.5")),
        (float("nan"), (None, None)),
        (None, (None, None)),
    ],
)
def test_label_text(value, expected):
    assert label_text(value) == expected


@pytest.mark.parametrize("value", [[1], {"a": 1}, "", float("inf")])
def test_a_value_that_is_no_label_is_refused(value):
    with pytest.raises(ValueError, match="label must"):
        label_text(value)


def test_a_scenario_data_block_reads_a_log_and_a_store(inspect_log, mlflow_store):
    from simcore.realdata.data_block import load_data

    log, _ = inspect_log
    read = load_data({"format": "inspect", "path": str(log), "judges": ["model_graded_qa"]})
    assert read.judges == ("model_graded_qa",) and len(read.items) == panel.N_ITEMS
    store = load_data({"format": "mlflow", "path": str(mlflow_store[1])})
    assert_same_matrix(store, read_annotations(mlflow_store[0]))
    with pytest.raises(DataError, match="data.format: the path holds an Inspect AI eval log"):
        load_data({"format": "mlflow", "path": str(log)})
