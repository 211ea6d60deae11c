"""Property-based fuzzing of what users give the commands: annotation files in every format,
scenario YAML text and option values, with hostile cells, names, labels and numbers.

Every generated input is run in-process through :func:`simcore.cli.main`; the only outcomes
allowed are exit status 0 (the input was valid) or 2 (refused with a message), and stderr
never holds a traceback or "internal error". The examples are derandomised (the same inputs
on every run) and bounded so that the file runs in well under a minute on one core; the
``slow`` variants draw more and add ``advise``. ``SIMCORE_FUZZ_EXAMPLES`` scales them.

The Python face is fuzzed too: every public function of ``simcore.__all__``, each keyword
given ``None``, a bool, texts, floats, negative and huge numbers, a mapping, a list, NumPy
scalars, NaN and a DataFrame, either runs or raises TypeError/ValueError naming the keyword.
"""

import csv
import gzip
import io
import json
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import simcore
from simcore.cli import main

SCALE = float(os.environ.get("SIMCORE_FUZZ_EXAMPLES", "1"))


def fuzz_settings(examples):
    """Derandomised settings drawing ``examples`` (times the scale) inputs, no deadline."""
    return settings(
        derandomize=True,
        max_examples=max(1, int(examples * SCALE)),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        database=None,
    )


HOSTILE_TEXTS = (
    "",
    " ",
    "a,b",
    '"',
    "x\ny",
    "\t",
    "\x1b[31m",
    "\ufeffh",
    "\u2028",
    "\x00",
    "é",
    "𝔘",
    "nan",
    "inf",
    "-1",
    "0",
    "1e309",
    "9" * 5000,
    "null",
    "{",
    "[",
    "\\",
    "--judges",
    "-",
)
"""Texts that broke, or could break, a reader: separators, quotes, control characters, a
byte-order mark, numbers beyond every limit, option-like names."""

PLAIN_NAMES = st.sampled_from(("h1", "h2", "h3", "j", "k"))
PLAIN_LABELS = st.sampled_from(("PASS", "FAIL", "1", "2", "3"))
NAMES = st.one_of(PLAIN_NAMES, PLAIN_NAMES, st.sampled_from(HOSTILE_TEXTS), st.text(max_size=6))
LABELS = st.one_of(
    PLAIN_LABELS,
    PLAIN_LABELS,
    PLAIN_LABELS,
    st.sampled_from(HOSTILE_TEXTS),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=4),
)
ROWS = st.lists(
    st.tuples(st.sampled_from(("i1", "i2", "i3", "i4", "i 5", "")) | NAMES, NAMES, LABELS),
    min_size=0,
    max_size=24,
)
FORMATS = ("csv", "gzip", "wide", "json", "alttest")


def csv_text(rows, header=("item", "rater", "label")):
    """Return ``rows`` as CSV text under ``header`` (quoted as the csv module quotes)."""
    handle = io.StringIO()
    writer = csv.writer(handle)
    writer.writerow(header)
    writer.writerows(rows)
    return handle.getvalue()


def wide_text(rows):
    """Return ``rows`` as a wide CSV ``item,RATER,...`` (the last label of a cell wins)."""
    raters = list(dict.fromkeys(rater for _, rater, _ in rows))
    cells = {(item, rater): label for item, rater, label in rows}
    items = list(dict.fromkeys(item for item, _, _ in rows))
    table = [[item, *(cells.get((item, rater), "") for rater in raters)] for item in items]
    return csv_text(table, header=("item", *raters))


def mapping(rows):
    """Return ``{rater: {item: label}}`` of ``rows`` (numbers as numbers where they parse)."""
    raters = {}
    for item, rater, label in rows:
        try:
            value = json.loads(label) if len(label) < 400 else label
        except ValueError:
            value = label
        raters.setdefault(rater, {})[item] = value
    return raters


def write_data(folder, kind, rows, damage):
    """Write ``rows`` in format ``kind`` under ``folder``; return the path the command reads.

    ``damage`` (``None``, or a byte position and replacement) cuts or corrupts the bytes.
    """
    if kind in ("csv", "gzip", "wide"):
        path = folder / ("r.csv.gz" if kind == "gzip" else "r.csv")
        data = (wide_text(rows) if kind == "wide" else csv_text(rows)).encode("utf-8", "replace")
        data = gzip.compress(data, mtime=0) if kind == "gzip" else data
        path.write_bytes(_damaged(data, damage))
        return path
    raters = mapping(rows)
    if kind == "json":
        path = folder / "h.json"
        path.write_bytes(_damaged(json.dumps(raters).encode(), damage))
        return path
    path = folder / "alt"
    path.mkdir()
    names = list(raters)
    humans = {name: raters[name] for name in names[:-1]}
    (path / "human_annotations.json").write_bytes(_damaged(json.dumps(humans).encode(), damage))
    if names:
        (path / "llm_annotations.json").write_text(json.dumps({names[-1]: raters[names[-1]]}))
    return path


def _damaged(data, damage):
    if damage is None or not data:
        return data
    position, replacement = damage
    position %= len(data)
    return data[:position] + replacement + data[position + len(replacement) :]


def run_ok_or_refused(argv, capsys):
    """Run ``simcore ARGV`` in-process; assert exit 0 or 2 and no traceback on stderr."""
    capsys.readouterr()
    try:
        status = main([str(part) for part in argv])
    except SystemExit as exit_:  # argparse refusing a value
        status = exit_.code
    err = capsys.readouterr().err
    assert status in (0, 2), f"exit {status} for {argv!r}:\n{err}"
    assert "Traceback" not in err and "internal error" not in err, f"{argv!r}:\n{err}"
    if status == 2:
        assert err.strip(), f"exit 2 without a message for {argv!r}"
    return status


def data_command(command, path, names, labels, out):
    """Return the command line of ``command`` on the data at ``path``."""
    judge = names[-1] if names else "j"
    label = labels[0] if labels else "FAIL"
    judges = ["--judges", judge]
    return {
        "inspect": ["inspect", path],
        "ceiling": ["ceiling", path, "--boot", "3"],
        "wellposed": ["wellposed", path, "--judges", ",".join(names[-2:]) or "j", "--boot", "3"],
        "card": ["card", path, *judges, "--judge", judge, "--fail-labels", label]
        + ["--criterion", "c", "--population", "p", "--out", out],
        "calibrate": ["calibrate", "--data", path, *judges, "--judge", judge]
        + ["--fail-at-most", "1", "--fails", "1", "--of", "2"],
        "advise": ["advise", path, *judges, "--trials", "20", "--quiet", "--out", out],
    }[command]


DATA_COMMANDS = ("inspect", "ceiling", "wellposed", "card", "calibrate")
DAMAGE = st.none() | st.tuples(st.integers(0, 10**6), st.binary(min_size=1, max_size=4))


def check_data(tmp_path_factory, capsys, commands, kind, rows, damage, command):
    """Write one generated input and run one data command on it."""
    folder = tmp_path_factory.mktemp("fuzz")
    path = write_data(folder, kind, rows, damage)
    names = list(dict.fromkeys(rater for _, rater, _ in rows))
    labels = [label for _, _, label in rows]
    run_ok_or_refused(data_command(command, path, names, labels, folder / "out.json"), capsys)


@fuzz_settings(300)
@given(
    kind=st.sampled_from(FORMATS),
    rows=ROWS,
    damage=st.one_of(st.none(), st.none(), DAMAGE),
    command=st.sampled_from(DATA_COMMANDS),
)
@example(kind="csv", rows=[("i1", "h\n1", "1"), ("i1", "h2", "1")], damage=None, command="inspect")
@example(kind="gzip", rows=[("i1", "h1", "1")], damage=(30, b"\xff\xff"), command="ceiling")
@example(kind="json", rows=[("i1", "h1", "9" * 5000)], damage=None, command="inspect")
@example(kind="csv", rows=[("i1", "h1", "FAIL"), ("i1", "j", "FAIL")], damage=None, command="card")
def test_generated_annotation_files_are_read_or_refused(
    tmp_path_factory, capsys, kind, rows, damage, command
):
    check_data(tmp_path_factory, capsys, DATA_COMMANDS, kind, rows, damage, command)


@pytest.mark.slow
@fuzz_settings(1500)
@given(
    kind=st.sampled_from(FORMATS),
    rows=ROWS,
    damage=st.one_of(st.none(), DAMAGE),
    command=st.sampled_from((*DATA_COMMANDS, "advise")),
)
def test_many_generated_annotation_files_are_read_or_refused(
    tmp_path_factory, capsys, kind, rows, damage, command
):
    check_data(tmp_path_factory, capsys, DATA_COMMANDS, kind, rows, damage, command)


YAML_PIECES = (
    "name: x\n",
    "model:\n",
    "  n_items: ",
    "  n_humans: ",
    "  p_judge: ",
    "design: {kind: bernoulli, rho: 0.5}\n",
    "design:\n  kind: ",
    "trials: ",
    "seed: ",
    "sweep:\n  rho: ",
    "[",
    "]",
    "{",
    "}",
    "? ",
    ": ",
    "- ",
    ", ",
    "&a ",
    "*a",
    "<<: *a\n",
    "<<: ",
    "!!python/object:os.system ",
    "!!binary ",
    ".nan",
    ".inf",
    "-.inf",
    "~",
    "1e999",
    "9" * 5000,
    "'",
    '"',
    "\t",
    "\n",
    "  ",
    "0.8\n",
    "60\n",
    "3\n",
    "\x00",
    "\ufeff",
)
"""Fragments of scenario YAML, valid and not, that the generated texts are made of."""


VALID_SCENARIO = (
    "name: fuzz\n",
    "model:\n",
    "  n_items: 60\n",
    "  n_humans: 3\n",
    "  p_judge: 0.8\n",
    "design: {kind: bernoulli, rho: 0.5}\n",
    "trials: 40\n",
    "seed: 2\n",
    "sweep:\n",
    "  rho: [0.2, 0.5]\n",
)
"""A valid scenario, line by line: the generated texts are its lines with fragments put in."""

EDITS = st.lists(
    st.tuples(
        st.integers(0, len(VALID_SCENARIO)),
        st.sampled_from(("insert", "replace", "append")),
        st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=5), min_size=1, max_size=6),
    ),
    max_size=3,
)


def edited_scenario(edits):
    """Return the valid scenario's text with ``edits`` ``(line, how, fragments)`` made."""
    lines = list(VALID_SCENARIO)
    for line, how, fragments in edits:
        text = "".join(fragments)
        if how == "insert":
            lines.insert(line, text)
        elif how == "replace" and line < len(lines):
            lines[line] = text
        else:
            lines[min(line, len(lines) - 1)] = lines[min(line, len(lines) - 1)].rstrip() + text
    return "".join(lines)


@fuzz_settings(300)
@given(edits=EDITS)
@example(edits=[(0, "replace", ["a: ", "[" * 3000, "]" * 3000])])
@example(edits=[(0, "insert", ["? ", "[", "a", ", ", "b", "]", "\n", ": ", "1\n"])])
@example(edits=[(2, "replace", ["  n_items: ", "9" * 5000, "\n"])])
@example(edits=[(1, "insert", ["x: &a {n_items: 60}\n"]), (3, "insert", ["  ", "<<: *a\n"])])
@example(edits=[])
def test_generated_scenario_texts_are_valid_or_refused(tmp_path_factory, capsys, edits):
    path = tmp_path_factory.mktemp("yaml") / "s.yaml"
    path.write_text(edited_scenario(edits), encoding="utf-8", errors="replace")
    run_ok_or_refused(["validate", path], capsys)


NUMBERS = (
    *("nan", "inf", "-inf", "0", "-1", "1", "2", "0.5", "1e308", "-1e308", "1e-320"),
    *("9" * 400, "-" + "9" * 30, "abc", "", "0x10", "1_000", "3.0", " 4 "),
)
"""Option values: every kind of number, and things that are not numbers."""

PLAN_OPTIONS = ("--alpha", "--target", "--confidence", "--epsilon", "--tau", "--margin")
PLAN_OPTIONS += (
    "--p-human",
    "--human-agreement",
    "--p-judge",
    "--n-labels",
    "--gap",
    "--advantage",
)
CALIBRATE_OPTIONS = ("--fails", "--of", "--confidence", "--youden-floor", "--table")
SMALL_SIZES = ("--items", ("0", "1", "-5", "20", "9" * 400, "1000000000", "2e3"))
SMALL_HUMANS = ("--n-humans", ("0", "1", "2", "3", "-1", "9" * 400, "100000"))


def option_pairs(names):
    """Strategy: a few ``(option, value)`` pairs among ``names``."""
    return st.lists(st.tuples(st.sampled_from(names), st.sampled_from(NUMBERS)), max_size=3)


def table_value(value):
    return ",".join([value, "3", "4", "5"])


@fuzz_settings(60)
@given(
    pairs=option_pairs(PLAN_OPTIONS),
    items=st.sampled_from(SMALL_SIZES[1]),
    humans=st.sampled_from(SMALL_HUMANS[1]),
    rank=st.booleans(),
)
@example(pairs=[("--alpha", "inf")], items="20", humans="3", rank=False)
@example(pairs=[("--gap", "inf")], items="20", humans="3", rank=True)
def test_generated_plan_options_answer_or_are_refused(capsys, pairs, items, humans, rank):
    argv = ["plan", "--quiet", "--items", items, "--n-humans", humans]
    argv += ["--rank", "--n-judges", "3", "--gap", "0.05"] if rank else []
    for option, value in pairs:
        argv.append(f"{option}={value}")
    run_ok_or_refused(argv, capsys)


@fuzz_settings(60)
@given(pairs=option_pairs(CALIBRATE_OPTIONS), method=st.sampled_from(("lr", "all", "ppi")))
@example(pairs=[("--of", "9" * 400)], method="lr")
@example(pairs=[("--table", "0")], method="lr")
def test_generated_calibrate_options_report_or_are_refused(capsys, pairs, method):
    argv = ["calibrate", "--table", "40,10,5,45", "--fails", "120", "--of", "1000"]
    argv += ["--method", method]
    for option, value in pairs:
        value = table_value(value) if option == "--table" else value
        argv.append(f"{option}={value}")
    run_ok_or_refused(argv, capsys)


CARD_OPTIONS = ("--confidence", "--youden-floor", "--expires-days", "--fail-at-most")
CEILING_OPTIONS = ("--boot", "--seed")


@fuzz_settings(60)
@given(
    command=st.sampled_from(("card", "ceiling", "wellposed")),
    pairs=option_pairs(CARD_OPTIONS + CEILING_OPTIONS),
)
@example(command="card", pairs=[("--youden-floor", "nan")])
@example(command="ceiling", pairs=[("--boot", "100000000")])
def test_generated_data_options_run_or_are_refused(tmp_path_factory, capsys, command, pairs):
    folder = tmp_path_factory.mktemp("opts")
    rows = [(f"i{i}", rater, str((i * 7 + len(rater)) % 3)) for i in range(12) for rater in "abj"]
    path = write_data(folder, "csv", rows, None)
    argv = {
        "card": ["card", path, "--judges", "j", "--judge", "j", "--criterion", "c"]
        + ["--population", "p", "--out", folder / "c.json"],
        "ceiling": ["ceiling", path],
        "wellposed": ["wellposed", path, "--judges", "a,j"],
    }[command]
    options = CARD_OPTIONS if command == "card" else CEILING_OPTIONS
    argv += [f"{option}={value}" for option, value in pairs if option in options]
    if command == "card" and not any(option == "--fail-at-most" for option, _ in pairs):
        argv += ["--fail-labels", "0"]
    run_ok_or_refused(argv, capsys)


ADVISE_OPTIONS = ("--eps", "--target", "--budget", "--min-pairs", "--trials", "--seed")


@pytest.mark.slow
@fuzz_settings(60)
@given(pairs=option_pairs(ADVISE_OPTIONS))
@example(pairs=[("--trials", "9" * 400)])
def test_generated_advise_options_advise_or_are_refused(tmp_path_factory, capsys, pairs):
    folder = tmp_path_factory.mktemp("advise")
    rows = [(f"i{i}", rater, str((i * 7 + len(rater)) % 2)) for i in range(12) for rater in "abj"]
    path = write_data(folder, "csv", rows, None)
    argv = ["advise", path, "--judges", "j", "--quiet", "--out", folder / "out"]
    argv += [f"{option}={value}" for option, value in pairs]
    if not any(option == "--trials" for option, _ in pairs):
        argv.append("--trials=20")
    run_ok_or_refused(argv, capsys)


# --------------------------------------------------------------------------- the Python face

HOSTILE_VALUES = {
    "None": None,
    "bool": True,
    "text": "x",
    "number text": "5",
    "float": 2.5,
    "negative": -1,
    "huge": 10**30,
    "dict": {"a": 1},
    "list": [1, 2],
    "numpy int": np.int64(5),
    "numpy float": np.float64(0.5),
    "nan": float("nan"),
    "frame": pd.DataFrame({"x": [1]}),
}
"""Values a caller may pass where another type is meant."""

FACE_CALLS = {
    "advise": (("data.csv",), {"judges": ["j"], "trials": 20}, ("judges", "humans", "trials")),
    "agreement": (("data.csv",), {"boot": 20}, ("coefficient", "seed", "raters", "level")),
    "calibrate": ((), {"table": (10, 2, 3, 80), "fails": 30, "of": 300},
                  ("table", "fails", "of", "card", "csv", "production", "confidence")),
    "card": (("data.csv",), {"judges": ["j"], "judge": "j", "fail_labels": ["FAIL"],
                             "criterion": "c", "population": "p"},
             ("judge", "criterion", "population", "labels", "confidence")),
    "card_check": (("card.json", "data.csv"), {"judges": ["j"]}, ("card_path", "alpha")),
    "ceiling": (("stars.csv",), {"boot": 20}, ("criterion", "judges", "graded", "seed")),
    "estimate": (("s.yaml",), {}, ("scenario", "trials", "seed", "sets")),
    "inspect": (("data.csv",), {"judges": ["j"]}, ("data", "humans", "slots", "columns")),
    "load_scenario": (("s.yaml",), {}, ("path", "overrides", "trials", "seed")),
    "monitor": (("prod.csv", "audit.csv"), {},
                ("production", "audit_file", "card", "plot", "expire_card", "fail_label")),
    "read_annotations": (("data.csv",), {"judges": ["j"]}, ("source", "columns", "labels")),
    "run": (("s.yaml",), {}, ("scenario", "trials", "seed", "sets", "out")),
    "wellposed": (("stars.csv",), {"boot": 20}, ("judges", "criterion", "seed")),
}  # fmt: skip
"""Per public function: a valid call (positional arguments, keywords) and the keywords
fuzzed (a positional argument by its parameter name). ``boot`` and ``workers`` are left
out: their bounds (work that grows with them) are checked where the work is estimated."""


@pytest.fixture(scope="module")
def face_folder(tmp_path_factory):
    """A folder with the files the valid calls read."""
    import random

    import yaml

    folder = tmp_path_factory.mktemp("face")
    pick = random.Random(3)
    raters = ("h1", "h2", "h3", "j")
    rows = [f"i{i},{r},{pick.choice(['PASS', 'FAIL'])}" for i in range(40) for r in raters]
    (folder / "data.csv").write_text("\n".join(["item,rater,label", *rows]) + "\n")
    stars = [f"i{i},{r},{pick.choice('12345')}" for i in range(40) for r in (*raters, "k")]
    (folder / "stars.csv").write_text("\n".join(["item,rater,label", *stars]) + "\n")
    production = [f"p{i},2026-01-{1 + i // 10:02d},{pick.choice(['fail', 'pass'])}"
                  for i in range(100)]  # fmt: skip
    audit = [f"p{i},2026-01-{1 + i // 10:02d},{pick.choice(['fail', 'pass'])}"
             for i in range(0, 100, 3)]  # fmt: skip
    (folder / "prod.csv").write_text("\n".join(["item,date,judge", *production]) + "\n")
    (folder / "audit.csv").write_text("\n".join(["item,date,human", *audit]) + "\n")
    scenario = {"name": "face", "model": {"n_items": 30, "n_humans": 3}, "trials": 4,
                "seed": 1, "sweep": {"p_judge": [0.9], "rho": [0.2]}}  # fmt: skip
    (folder / "s.yaml").write_text(yaml.safe_dump(scenario))
    card = simcore.card(folder / "data.csv", **FACE_CALLS["card"][1]).to_dict()["card"]
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def face_cases():
    """Yield one case per public function and fuzzed keyword."""
    for function, (_, _, keywords) in FACE_CALLS.items():
        for keyword in keywords:
            yield pytest.param(function, keyword, id=f"{function}-{keyword}")


@pytest.mark.parametrize(("function", "keyword"), list(face_cases()))
def test_public_functions_refuse_wrong_types_by_keyword(face_folder, monkeypatch, function,
                                                        keyword):  # fmt: skip
    """Every hostile value is taken or refused with TypeError/ValueError naming the keyword
    (or, for a text, the text itself: a file or name that is not there)."""
    import inspect as introspect

    monkeypatch.chdir(face_folder)
    call = getattr(simcore, function)
    args, keywords, _ = FACE_CALLS[function]
    positional = list(introspect.signature(call).parameters)[: len(args)]
    for name, value in HOSTILE_VALUES.items():
        given, options = list(args), dict(keywords)
        if keyword in positional:
            given[positional.index(keyword)] = value
        else:
            options[keyword] = value
        try:
            call(*given, **options)
        except (TypeError, ValueError) as error:
            text = str(error)
            named = (
                keyword in text
                or (isinstance(value, str) and value in text)  # a file or name not there
                or (isinstance(value, dict) and any(f"{key}:" in text for key in value))
                or "DataFrame" in text  # a frame without the columns, named
            )
            assert named, f"{function}({keyword}={name}): {text[:300]}"
