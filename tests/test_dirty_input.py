"""Dirty input is never taken silently: label spellings, misspelt raters, delimiters, paths.

Labels that differ only in case are refused (or merged when asked, and the merge reported);
a rater name that is not in the data is refused with the nearest real name; a file saved
with another delimiter is named as such; a missing path says so, in every data command.
"""

import json

import pandas as pd
import pytest

import simcore
from simcore.cli import main
from simcore.realdata.annotation import DataError
from simcore.realdata.data_block import load_data
from simcore.realdata.label_spellings import spelling_groups


def outcome(capsys, *argv):
    """Run the command line in-process; return (status, stdout, stderr), free of tracebacks."""
    try:
        status = main([str(part) for part in argv])
    except SystemExit as exit_:
        status = exit_.code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return status, captured.out, captured.err


def refused(capsys, *argv):
    """Return the one line of a refusal (exit 2)."""
    status, _, err = outcome(capsys, *argv)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def spelled_csv(path, spellings):
    """Write a long CSV of 3 humans and judge ``j`` on 10 items; ``spellings`` per rater.

    ``spellings[rater]`` is the list of 10 labels that rater gives, item by item.
    """
    rows = ["item,rater,label"]
    rows += [
        f"i{item},{rater},{labels[item]}"
        for rater, labels in spellings.items()
        for item in range(len(labels))
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


YES_NO = ["Yes", "No"] * 5
MIXED = {
    "h1": YES_NO,
    "h2": YES_NO,
    "h3": ["yes", "No"] * 5,  # 5 labels 'yes' beside 10 'Yes' of h1, h2 (and 5 of j)
    "j": YES_NO,
}


# --------------------------------------------------------------------------- label spellings


def test_labels_differing_only_in_case_are_refused_naming_the_pair(tmp_path, capsys):
    path = spelled_csv(tmp_path / "data.csv", MIXED)
    line = refused(capsys, "inspect", path, "--judges", "j")
    assert line.startswith(f"simcore inspect: {path}: labels: labels that differ only in case")
    assert "'Yes' and 'yes' (15 and 5 labels)" in line
    assert "scored as different categories" in line and "--merge-label-variants" in line
    with pytest.raises(ValueError, match="'Yes' and 'yes' \\(15 and 5 labels\\)") as caught:
        simcore.inspect(path, judges="j")
    assert line == f"simcore inspect: {caught.value}"


def test_the_flag_merges_into_the_most_frequent_spelling_and_says_so(tmp_path, capsys):
    path = spelled_csv(tmp_path / "data.csv", MIXED)
    status, out, _ = outcome(capsys, "inspect", path, "--judges", "j", "--merge-label-variants")
    assert status == 0
    assert "labels: 2," in out and "(--merge-label-variants): 'yes' (5) into 'Yes' (15)" in out
    status, out, _ = outcome(
        capsys, "inspect", path, "--judges", "j", "--merge-label-variants", "--json"
    )
    document = json.loads(out)
    assert document["labels"] == ["No", "Yes"]
    merged = [{"into": "Yes", "merged": ["yes"], "counts": {"Yes": 15, "yes": 5}}]
    assert document["label_merges"] == merged
    result = simcore.inspect(path, judges="j", merge_label_variants=True)
    assert result.to_dict() == document
    matrix = simcore.realdata.readers.read_annotations(path, merge_label_variants=True)
    assert (matrix.human_labels == matrix.human_labels[:, :1]).all()  # h3 now agrees


def test_without_variants_nothing_is_merged_and_json_says_so(tmp_path, capsys):
    path = spelled_csv(tmp_path / "data.csv", {"h1": YES_NO, "h2": YES_NO, "j": YES_NO})
    status, out, _ = outcome(capsys, "inspect", path, "--judges", "j", "--json")
    assert status == 0 and json.loads(out)["label_merges"] == []


def test_a_tie_goes_to_the_first_spelling_in_sorted_order_and_three_spellings_merge():
    (merge,) = spelling_groups(["yes", "Yes", "YES", "no"], [4, 4, 1, 9])
    assert merge.into == "Yes" and merge.merged == ("yes", "YES")
    assert merge.counts == (4, 4, 1)
    assert merge.text() == "'yes' (4) and 'YES' (1) into 'Yes' (4)"


def test_numbers_spaces_inside_and_other_words_stay_distinct():
    labels = ["1", "1.0", "not sure", "not  sure", "ok", "okay", "Ja", "Já"]
    assert spelling_groups(labels, [1] * len(labels)) == []


def test_a_dataframe_and_a_judge_spelling_are_checked_too():
    rows = [
        (f"i{item}", rater, label)
        for item in range(6)
        for rater, label in (("h1", "PASS"), ("h2", "PASS"), ("j", "pass"))
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    with pytest.raises(DataError, match="DataFrame: labels: .*'PASS' and 'pass' \\(12 and 6"):
        simcore.inspect(frame, judges=["j"])
    merged = simcore.inspect(frame, judges=["j"], merge_label_variants=True).to_dict()
    assert merged["labels"] == ["PASS"] and merged["label_merges"][0]["merged"] == ["pass"]


def test_declared_labels_are_not_checked(tmp_path):
    path = spelled_csv(tmp_path / "data.csv", {"h1": YES_NO, "h2": ["yes", "No"] * 5})
    matrix = simcore.realdata.readers.read_annotations(path, labels=["No", "Yes", "yes"])
    assert matrix.labels == ("No", "Yes", "yes") and matrix.label_merges == ()


def test_a_scenario_data_block_takes_the_merge_key(tmp_path):
    path = spelled_csv(tmp_path / "data.csv", MIXED)
    block = {"path": str(path), "judges": ["j"]}
    with pytest.raises(DataError, match="differ only in case"):
        load_data(block)
    matrix = load_data({**block, "merge_label_variants": True})
    assert matrix.labels == ("No", "Yes") and matrix.label_merges[0].into == "Yes"
    with pytest.raises(DataError, match="data.merge_label_variants: must be true or false"):
        load_data({**block, "merge_label_variants": "yes"})


# --------------------------------------------------------------------------- rater names


def crowd_csv(path):
    """A long CSV of 124 raters (120 crowd workers, two experts, two judges) on 30 items."""
    raters = ["expert_gold", "expert_b", "gpt4", "claude"]
    crowd = [f"crowd_{k:03d}" for k in range(120)]
    rows = ["item,rater,label"]
    for item in range(30):
        for rater in [*raters, *crowd[4 * item : 4 * item + 4]]:
            rows.append(f"i{item},{rater},{'A' if (item + len(rater)) % 3 else 'B'}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_misspelt_judge_is_refused_with_the_nearest_name(tmp_path, capsys):
    path = crowd_csv(tmp_path / "crowd.csv")
    line = refused(capsys, "inspect", path, "--judges", "expert_gld")
    assert line.startswith(f"simcore inspect: {path}: judges: unknown judge (raters in the file")
    assert line.endswith("(got 'expert_gld'); did you mean 'expert_gold'?")
    assert "(124 in all)" in line and f"`simcore inspect {path} --json` lists them all" in line
    with pytest.raises(ValueError) as caught:
        simcore.inspect(path, judges="expert_gld")
    assert line == f"simcore inspect: {caught.value}"


def test_every_unknown_name_is_reported_and_a_far_one_gets_no_guess(tmp_path, capsys):
    path = crowd_csv(tmp_path / "crowd.csv")
    status, _, err = outcome(capsys, "inspect", path, "--judges", "gpt4,claud,zzz_unrelated")
    assert status == 2
    assert "(got 'claud'); did you mean 'claude'?" in err
    assert "(got 'zzz_unrelated')\n" in err + "\n" and "did you mean 'zzz" not in err


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["inspect", "{path}", "--humans", "expert_gld,expert_b"], "humans"),
        (["ceiling", "{path}", "--judges", "gpt4,claud"], "judges"),
        (["wellposed", "{path}", "--judges", "gpt4,claud"], "judges"),
        (["inspect", "{path}", "--agreement", "observed", "--raters", "expert_gld,gpt4"], "raters"),
        (["advise", "{path}", "--judges", "gpt4,claude", "--audit", "claud"], "--audit"),
        (
            ["calibrate", "--data", "{path}", "--judges", "gpt4,claude", "--judge", "claud"]
            + ["--fail-labels", "B", "--fails", "1", "--of", "9"],
            "judge",
        ),
        (
            ["card", "{path}", "--judges", "gpt4,claude", "--judge", "claud", "--criterion"]
            + ["c", "--population", "p", "--fail-labels", "B", "--out", "{out}"],
            "judge",
        ),
    ],
)
def test_every_command_taking_names_suggests_the_nearest(tmp_path, capsys, argv, key):
    path = crowd_csv(tmp_path / "crowd.csv")
    out = tmp_path / "out"
    argv = [part.format(path=path, out=out / "card.json") for part in argv]
    if argv[0] == "advise":
        argv += ["--out", str(out), "--trials", "20", "--quiet"]
    status, _, err = outcome(capsys, *argv)
    assert status == 2, err
    assert f"{path}: {key}: unknown " in err
    assert "did you mean 'expert_gold'?" in err or "did you mean 'claude'?" in err
    assert not out.exists()


def test_a_misspelt_judge_of_a_judges_file_points_at_both_files(tmp_path, capsys):
    humans = spelled_csv(tmp_path / "humans.csv", {"h1": YES_NO, "h2": YES_NO})
    judges = spelled_csv(tmp_path / "judges.csv", {"judge_a": YES_NO, "judge_b": YES_NO})
    line = refused(capsys, "inspect", humans, "--judges-file", judges, "--judges", "judge_az")
    assert f"{judges}: judges: unknown judge (raters in {judges}: judge_a, judge_b)" in line
    assert line.endswith("(got 'judge_az'); did you mean 'judge_a'?")


# --------------------------------------------------------------------------- delimiters


@pytest.mark.parametrize(("mark", "name"), [(";", "semicolon"), ("\t", "tab"), ("|", "pipe")])
def test_a_file_with_another_delimiter_is_named(tmp_path, capsys, mark, name):
    path = spelled_csv(tmp_path / "data.csv", {"h1": YES_NO, "h2": YES_NO})
    path.write_text(path.read_text().replace(",", mark), encoding="utf-8")
    line = refused(capsys, "inspect", path)
    header = "item" + mark + "rater" + mark + "label"
    assert line == (
        f"simcore inspect: {path}: header: the header reads as one column {header!r}: the "
        f"file looks {name}-delimited; simcore reads comma-separated files (save it with "
        f"commas, e.g. pandas.read_csv(FILE, sep={mark!r}).to_csv(NEW, index=False))"
    )


def test_a_semicolon_wide_table_and_judges_file_are_named_too(tmp_path, capsys):
    wide = tmp_path / "wide.tsv"
    wide.write_text("item\th1\th2\ni1\ta\tb\n", encoding="utf-8")
    assert "looks tab-delimited" in refused(capsys, "inspect", wide)
    humans = spelled_csv(tmp_path / "humans.csv", {"h1": YES_NO, "h2": YES_NO})
    judges = tmp_path / "judges.csv"
    judges.write_text("item;rater;label\ni0;j;Yes\n", encoding="utf-8")
    line = refused(capsys, "inspect", humans, "--judges-file", judges)
    assert f"{judges}: header: the header reads as one column" in line and "semicolon" in line


# --------------------------------------------------------------------------- missing paths


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "{gone}"],
        ["advise", "{gone}", "--judges", "j", "--out", "{out}"],
        ["calibrate", "--data", "{gone}", "--judges", "j", "--judge", "j", "--fail-labels", "B"]
        + ["--fails", "1", "--of", "9"],
        ["card", "{gone}", "--judges", "j", "--judge", "j", "--criterion", "c"]
        + ["--population", "p", "--fail-labels", "B", "--out", "{out}/card.json"],
        ["ceiling", "{gone}"],
        ["wellposed", "{gone}"],
    ],
)
def test_a_missing_data_path_says_no_such_file_or_folder(tmp_path, capsys, argv):
    gone = tmp_path / "gone.csv"
    argv = [part.format(gone=gone, out=tmp_path / "out") for part in argv]
    line = refused(capsys, *argv)
    assert line.endswith(f"{gone}: path: no such file or folder (got '{gone}')")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["inspect", "{data}", "--judges-file", "{gone}"], "judges_path"),
        (["calibrate", "--csv", "{gone}", "--fails", "1", "--of", "9"], "path"),
        (
            ["calibrate", "--card", "{gone}", "--population", "p", "--fails", "1", "--of", "9"],
            "card",
        ),
        (
            ["calibrate", "--data", "{data}", "--judges", "j", "--judge", "j"]
            + ["--fail-labels", "No", "--production", "{gone}"],
            "production",
        ),
        (["card", "--check", "{gone}", "{data}", "--judges", "j"], "card"),
        (["ceiling", "{data}", "--judge-scores", "{gone}"], "judge_scores"),
        (["monitor", "--production", "{gone}", "--audit-file", "{gone}"], "path"),
    ],
)
def test_a_missing_path_option_says_no_such_file_or_folder(tmp_path, capsys, argv, key):
    data = spelled_csv(tmp_path / "data.csv", {"h1": YES_NO, "h2": YES_NO, "j": YES_NO})
    gone = tmp_path / "gone.csv"
    argv = [part.format(gone=gone, data=data) for part in argv]
    line = refused(capsys, *argv)
    assert line.endswith(f"{gone}: {key}: no such file or folder (got '{gone}')")


def test_the_python_functions_say_it_too(tmp_path):
    gone = tmp_path / "gone.csv"
    for call in (
        lambda: simcore.inspect(gone),
        lambda: simcore.advise(gone, judges=["j"]),
        lambda: simcore.card(
            gone, judges="j", judge="j", criterion="c", population="p", fail_labels=("No",)
        ),
    ):
        with pytest.raises(ValueError, match="gone.csv: path: no such file or folder"):
            call()
