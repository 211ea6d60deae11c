"""Inputs adversarial users tried: each ends with exit status 2 and one line naming the file,
key or option and the value, or a clear refusal of a meaningless result; never a traceback."""

import gzip
import random

import pytest

from simcore.cli import main

DIGITS = "9" * 5000
"""A number longer than Python's int-string limit (4300 digits)."""


def outcome(capsys, *argv):
    """Run the command line in-process; return (status, stderr), stderr free of tracebacks."""
    try:
        status = main([str(part) for part in argv])
    except SystemExit as exit_:  # argparse refuses a value
        status = exit_.code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return status, err


def refused(capsys, *argv):
    """Return the one line of a refusal (exit 2)."""
    status, err = outcome(capsys, *argv)
    assert status == 2, err
    return err.strip().splitlines()[-1]


def long_csv(path, raters=("h1", "h2", "h3", "j"), n=40, labels=("PASS", "FAIL"), seed=1):
    """Write a long CSV of ``n`` items, every rater labelling every item; return its path."""
    pick = random.Random(seed)
    rows = ["item,rater,label"]
    rows += [f"i{i},{rater},{pick.choice(labels)}" for i in range(n) for rater in raters]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


CARD = ("--criterion", "c", "--population", "p")
JUDGE_J = ("--judges", "j", "--judge", "j", "--fail-labels", "FAIL")
"""A card of judge ``j`` on a table whose failing label is ``FAIL``."""


# --------------------------------------------------------------------------- option values


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["plan", "--alpha", "inf"], "--alpha: must be a finite number (got 'inf')"),
        (["plan", "--rank", "--n-judges", "3", "--gap", "inf"], "--gap: must be a finite number"),
        (["plan", "--epsilon", "nan"], "--epsilon: must be a finite number (got 'nan')"),
        (
            ["calibrate", "--table", "10,2,3,20", "--fails", "3", "--of", "9" * 400],
            "--of: must be an integer of at most 2**53 in size",
        ),
    ],
)
def test_non_finite_and_huge_numbers_are_refused_by_their_option(capsys, argv, fragment):
    assert fragment in refused(capsys, *argv)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_every_declared_float_option_refuses_nan_and_infinities(tmp_path, capsys, value):
    data = long_csv(tmp_path / "r.csv")
    line = refused(
        capsys,
        "card",
        data,
        *JUDGE_J,
        f"--youden-floor={value}",
        *CARD,
        "--out",
        tmp_path / "c.json",
    )
    assert line.startswith("simcore card: --youden-floor: must be in [0, 1]")
    assert not (tmp_path / "c.json").exists()


def test_python_options_refuse_infinities_too():
    from simcore.command_options import CARD_OPTIONS
    from simcore.options import check_values

    floats = [option for option in CARD_OPTIONS if option.type is float]
    assert floats
    for option in floats:
        with pytest.raises(ValueError, match=option.name):
            check_values({option.name: float("inf")}, [option])


def test_a_count_too_large_for_a_float_is_refused_in_python():
    import simcore

    with pytest.raises(ValueError, match=r"of: must be at most 2\*\*53"):
        simcore.calibrate(table=(1, 2, 3, 4), fails=3, of=10**400)


def test_a_gzip_file_written_here_reads(tmp_path):
    path = tmp_path / "r.csv.gz"
    path.write_bytes(gzip.compress(long_csv(tmp_path / "r.csv").read_bytes()))
    assert main(["inspect", str(path)]) == 0


# --------------------------------------------------------------------------- damaged files


def test_a_corrupt_gzip_file_is_unreadable_not_a_traceback(tmp_path, capsys):
    bad = tmp_path / "r.csv.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbagegarbage")
    line = refused(capsys, "inspect", bad)
    assert line.startswith(f"simcore inspect: {bad}: unreadable: ") and "(got " in line
    whole = gzip.compress(long_csv(tmp_path / "r.csv").read_bytes())
    bad.write_bytes(whole[:60])  # truncated
    assert f"{bad}: unreadable: " in refused(capsys, "inspect", bad)


def test_a_corrupt_gzip_json_in_a_folder_is_unreadable(tmp_path, capsys):
    folder = tmp_path / "alt"
    folder.mkdir()
    (folder / "human_annotations.json.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert "human_annotations.json.gz: unreadable: " in refused(capsys, "inspect", folder)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply to read"),
        (
            '{"h1": {"i1": ' + DIGITS + '}, "h2": {"i1": 1}}',
            "not valid JSON: a number has more digits than can be read (at most 4300) "
            "(got a number of 5000 digits)",
        ),
    ],
)
def test_json_too_deep_or_with_too_long_a_number(tmp_path, capsys, text, fragment):
    path = tmp_path / "h.json"
    path.write_text(text)
    assert f"{path}: {fragment}" in refused(capsys, "inspect", path)
    card = tmp_path / "card.json"
    card.write_text(text)
    data = long_csv(tmp_path / "r.csv")
    line = refused(capsys, "card", data, "--judges", "j", "--check", card)
    assert f"{card}: {fragment}" in line


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "not valid YAML (lists or mappings nested"),
        ("? [a, b]\n: 1\n", "line 1: key: must be a name, not a list (got ['a', 'b'])"),
        ("{[1]: 2}\n", "key: must be a name, not a list"),
        (
            f"name: x\nmodel:\n  n_items: {DIGITS}\n",
            "not valid YAML (a number has more digits than can be read (at most 4300)",
        ),
    ],
)
def test_scenario_yaml_too_deep_complex_keys_long_numbers(tmp_path, capsys, text, fragment):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    line = refused(capsys, "validate", path)
    assert line.startswith(f"{path}: ") and fragment in line


def test_yaml_merge_keys_are_valid_yaml_and_the_own_key_wins(tmp_path, capsys):
    import simcore

    path = tmp_path / "s.yaml"
    path.write_text(
        "name: m\nmodel:\n  <<: &base {n_items: 60, n_humans: 3, p_judge: 0.5}\n"
        "  p_judge: 0.8\ndesign: {kind: bernoulli, rho: 0.5}\ntrials: 40\nseed: 2\n"
        "sweep:\n  rho: [0.2]\n"
    )
    status, err = outcome(capsys, "validate", path)
    assert status == 0, err
    assert simcore.load_scenario(path).model.p_judge == 0.8
    path.write_text("name: m\nmodel:\n  <<: {n_items: 60}\n  n_items: 1\n  n_items: 2\n")
    assert "n_items: appears twice in one mapping" in refused(capsys, "validate", path)


def test_a_set_value_that_is_not_yaml_is_read_as_text(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: m\nmodel: {n_items: 60, n_humans: 3, p_judge: 0.8}\n"
        "design: {kind: bernoulli, rho: 0.5}\ntrials: 40\nseed: 2\n"
    )
    line = refused(capsys, "validate", path, "--set", f"model.n_items={DIGITS}")
    assert "model.n_items" in line


# --------------------------------------------------------------------------- annotation contents


def many_labels_csv(path, n=33_000):
    """A long CSV whose every item has its own label: more labels than int16 codes."""
    rows = ["item,rater,label"]
    rows += [f"i{i},{rater},L{i}" for i in range(n) for rater in ("h1", "h2", "j")]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect"],
        ["ceiling", "--boot", "10"],
        ["advise", "--judges", "j", "--quiet"],
        ["card", "--judges", "j", "--judge", "j", "--fail-labels", "L1", *CARD],
    ],
)
def test_more_distinct_labels_than_int16_codes_are_refused(tmp_path, capsys, argv):
    data = many_labels_csv(tmp_path / "many.csv")
    out = ["--out", tmp_path / "out.json"] if argv[0] in ("card", "advise") else []
    line = refused(capsys, argv[0], data, *argv[1:], *out)
    assert f"{data}: labels: at most 32767 distinct values can be read" in line
    assert "(got 33000 distinct values)" in line


def test_the_matrix_itself_refuses_more_labels_than_its_codes_hold():
    import numpy as np

    from simcore.realdata.annotation import AnnotationMatrix, DataError

    with pytest.raises(DataError, match="labels: at most 32767 distinct values"):
        AnnotationMatrix(
            "x",
            ("a",),
            ("h1", "h2"),
            (),
            tuple(str(code) for code in range(40_000)),
            False,
            np.array([[39_999, 0]]),
            np.zeros((1, 0), dtype=int),
        )


@pytest.mark.parametrize("name", ["h\n1", "h\t1", "h\x1b[31m1", "h\u20281"])
def test_rater_names_with_control_characters_are_refused(tmp_path, capsys, name):
    data = tmp_path / "r.csv"
    rows = ["item,rater,label"] + [f'i{i},"{name}",{i % 2}' for i in range(6)]
    rows += [f"i{i},h2,{i % 2}" for i in range(6)]
    data.write_text("\n".join(rows) + "\n")
    line = refused(capsys, "inspect", data)
    assert f"{data}: rater: a name must not hold control characters" in line
    assert repr(name) in line
    folder = tmp_path / "alt"
    folder.mkdir()
    import json

    (folder / "human_annotations.json").write_text(
        json.dumps({name: {"a": 1, "b": 0}, "h2": {"a": 1, "b": 0}})
    )
    assert "rater: a name must not hold control characters" in refused(capsys, "inspect", folder)


def test_fail_at_most_on_text_labels_names_the_file_and_label(tmp_path, capsys):
    data = long_csv(tmp_path / "r.csv")
    common = ["--judges", "j", "--judge", "j", "--fail-at-most", "0"]
    line = refused(capsys, "card", data, *common, *CARD, "--out", tmp_path / "c.json")
    assert line == (
        f"simcore card: {data}: label: must be a numeric score under FAIL = score <= 0 (got 'FAIL')"
    ) or line.endswith("(got 'PASS')")
    line = refused(capsys, "calibrate", "--data", data, *common, "--fails", "3", "--of", "10")
    assert f"{data}: label: must be a numeric score under FAIL = score <= 0" in line


def test_card_out_a_folder_is_refused_before_the_data_is_read(tmp_path, capsys):
    line = refused(
        capsys,
        "card",
        tmp_path / "absent.csv",
        *JUDGE_J,
        *CARD,
        "--out",
        tmp_path,
    )
    assert line == f"simcore card: --out {tmp_path}: is a folder, not a file"


# --------------------------------------------------------------------------- calibration sets


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ("0,0,0,0", "no calibration rows: neither the judge's TPR nor its TNR"),
        ("0,0,4,5", "no human-FAIL rows: the judge's TPR (sensitivity) cannot be estimated"),
        ("3,1,0,0", "no human-PASS rows: the judge's TNR (specificity) cannot be estimated"),
    ],
)
def test_a_calibration_set_without_fail_or_pass_rows_is_refused(capsys, table, fragment):
    line = refused(capsys, "calibrate", "--table", table, "--fails", "3", "--of", "10")
    assert line.startswith(f"simcore calibrate: calibration set: {fragment}")
    assert "cleared = " in line and "nan" not in line


def test_a_table_count_beyond_the_int_string_limit_is_refused(capsys):
    line = refused(capsys, "calibrate", "--table", f"1,{DIGITS},1,1", "--fails", "3", "--of", "9")
    assert line.startswith("simcore calibrate: --table: needs four non-negative counts")


@pytest.mark.parametrize("kind", ["gzip", "bom", "plain"])
def test_calibrate_csv_reads_gzip_and_a_byte_order_mark(tmp_path, capsys, kind):
    text = "human,judge\nfail,fail\npass,pass\nfail,pass\npass,pass\npass,fail\n"
    path = tmp_path / "cal.csv"
    if kind == "gzip":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8-sig" if kind == "bom" else "utf-8")
    status, err = outcome(capsys, "calibrate", "--csv", path, "--fails", "3", "--of", "10")
    assert status == 0, err
    assert main(["calibrate", "--table", "1,1,1,2", "--fails", "3", "--of", "10"]) == 0
    same = capsys.readouterr().out
    main(["calibrate", "--csv", str(path), "--fails", "3", "--of", "10"])
    assert capsys.readouterr().out == same


def test_calibrate_csv_damaged_gzip_is_unreadable(tmp_path, capsys):
    path = tmp_path / "cal.csv"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    line = refused(capsys, "calibrate", "--csv", path, "--fails", "3", "--of", "10")
    assert line.startswith(f"simcore calibrate: {path}: cannot read (")


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["ceiling", "--boot", "100000000"], ": boot: 100000000 bootstrap draws of 40 items need"),
        (
            ["wellposed", "--judges", "h1,j", "--boot", "100000000"],
            ": boot: 100000000 bootstrap draws of 40 items need",
        ),
    ],
)
def test_bootstraps_too_large_for_memory_are_refused_before_drawing(
    tmp_path, capsys, argv, fragment
):
    data = long_csv(tmp_path / "r.csv")
    line = refused(capsys, argv[0], data, *argv[1:])
    assert f"{data}{fragment}" in line
    assert "of memory and this machine has" in line and "lower --boot" in line


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--items", "1000000000"], "the simulated corpus needs about"),
        (["--n-humans", "1000"], "would draw 5.1e+10 labels, more than plan simulates"),
    ],
)
def test_plan_questions_too_large_are_refused_before_simulating(capsys, argv, fragment):
    line = refused(capsys, "plan", *argv)
    assert line.startswith("simcore plan: --items, --n-humans") and fragment in line


def small_machine(monkeypatch, size):
    """Pretend this machine has ``size`` bytes available."""
    import simcore.realdata.allocation as allocation

    monkeypatch.setattr(allocation, "available_bytes", lambda: size)


def test_a_dense_matrix_too_large_is_refused_by_the_reader(tmp_path, capsys, monkeypatch):
    data = long_csv(tmp_path / "r.csv")
    small_machine(monkeypatch, 1000)
    line = refused(capsys, "inspect", data)
    assert line.startswith(f"simcore inspect: {data}: matrix: the dense matrix of 40 items x 4")
    assert "(got 40 items, 4 humans, 0 judges)" in line


def test_advise_refuses_simulations_too_large_before_fitting(tmp_path, capsys, monkeypatch):
    data = long_csv(tmp_path / "r.csv")
    small_machine(monkeypatch, 200_000)  # the matrix fits, 100 simulated copies do not
    line = refused(capsys, "advise", data, "--judges", "j", "--quiet", "--out", tmp_path / "a")
    assert line.startswith(f"simcore advise: {data}: trials: batches of 100 simulated matrices")
    assert not (tmp_path / "a").exists()


def test_graded_labels_spanning_more_than_int16_codes_are_refused(tmp_path, capsys):
    data = long_csv(tmp_path / "r.csv", labels=("1", "2", "1000000000"))
    line = refused(capsys, "ceiling", data, "--boot", "3")
    assert f"{data}: labels: graded integer labels must span at most 32767" in line
    assert "(got 1 to 1e+09)" in line


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--expires-days", "99999999999999"], "got 99999999999999 days from "),
        (["--date", "9999-12-31"], "(got 30 days from 9999-12-31)"),
    ],
)
def test_a_card_expiring_beyond_the_calendar_is_refused(tmp_path, capsys, argv, fragment):
    data = long_csv(tmp_path / "r.csv")
    out = tmp_path / "c.json"
    common = [*JUDGE_J, *CARD, "--out", out]
    line = refused(capsys, "card", data, *common, *argv)
    assert "--expires-days: the card would expire after 9999-12-31" in line and fragment in line
    assert not out.exists()


def test_advise_refuses_more_trials_than_it_can_simulate(tmp_path, capsys):
    data = long_csv(tmp_path / "r.csv")
    argv = ["--judges", "j", "--quiet", "--out", tmp_path / "a", "--trials", "9" * 20]
    line = refused(capsys, "advise", data, *argv)
    assert f"{data}: trials: {'9' * 20} simulated matrices of 40 items x 4 raters" in line
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--alpha", "0"], "--alpha: must be in (0, 1) (got 0.0)"),
        (["--rank", "--n-judges", "3", "--gap", "5"], "--gap: must be in (0, 1]"),
        (["--rank", "--n-judges", "3", "--gap", "1e-320"], "--gap: too small for any corpus"),
        (["--n-labels", "0", "--human-agreement", "0.5"], "--n-labels: must be >= 2 (got 0)"),
        (["--rank", "--n-judges", "3", "--gap", "0.1", "--p-judge", "2"], "--p-judge: must be"),
    ],
)
def test_plan_questions_without_an_answer_are_refused(capsys, argv, fragment):
    assert fragment in refused(capsys, "plan", "--quiet", *argv)


def test_a_tolerance_whose_square_underflows_has_no_recipe_but_no_crash():
    from simcore.model.recipes import certification_items

    assert certification_items(1e-320, 0.25) == -1
    assert certification_items(0.05, 0.25) == certification_items(0.05, 0.25, alpha=0.05) > 0
