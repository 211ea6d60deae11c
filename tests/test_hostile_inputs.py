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


# --------------------------------------------------------------------------- option values


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["plan", "--alpha", "inf"], "--alpha: must be a finite number (got 'inf')"),
        (["plan", "--rank", "--judges", "3", "--gap", "inf"], "--gap: must be a finite number"),
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
        "--judges",
        "j",
        "--judge",
        "j",
        "--fail-labels",
        "FAIL",
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

    with pytest.raises(ValueError, match="must be finite"):
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
