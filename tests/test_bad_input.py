"""Bad input everywhere: generated scenario files and command lines either run or exit with
status 2 and a message naming the file and the key, never a traceback, never a store."""

import copy
import os
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from simcore.cli import main

BASE = {
    "model": {"n_items": 40, "n_humans": 3, "n_labels": 2, "p_human": 0.85, "p_judge": 0.8},
    "design": {"kind": "bernoulli", "rho": 0.5},
    "rule": {"kind": "point", "epsilon": 0.05, "tau": 0.5},
    "reference": "dense",
    "trials": 3,
    "seed": 1,
    "sweep": {"p_judge": [0.9, 0.6]},
}
PATHS = [
    "model.n_items",
    "model.n_humans",
    "model.n_labels",
    "model.p_human",
    "model.p_judge",
    "model.prevalence",
    "model.margin",
    "model.cluster_spread",
    "model.confusion_judge",
    "design.kind",
    "design.rho",
    "design.m",
    "rule.kind",
    "rule.epsilon",
    "rule.tau",
    "rule.strict",
    "rule.coefficient",
    "rule.inconclusive",
    "reference",
    "seed",
    "sweep",
    "sweep.rho",
    "sweep.m",
    "sweep.tau",
    "sweep.skew",
    "output",
    "plot.x",
    "nonsense",
    "model.nonsense",
    "published",
]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.floats(-2, 2),
    st.sampled_from(
        [
            float("nan"),
            float("inf"),
            "exact_m",
            "strat",
            "alt_test",
            "interval",
            "population",
            "cohen_kappa",
            "x",
            "",
        ]
    ),
    st.lists(st.one_of(st.integers(-1, 50), st.floats(0, 1)), max_size=3),
    st.dictionaries(st.sampled_from(["skew", "a"]), st.floats(0, 1), max_size=1),
)
FAST = settings(
    max_examples=int(os.environ.get("SIMCORE_FUZZ_EXAMPLES", "40")),
    derandomize="SIMCORE_FUZZ_RANDOM" not in os.environ,  # CI runs the same examples
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def mutated(changes):
    raw = copy.deepcopy(BASE)
    for path, value in changes:
        *parents, last = path.split(".")
        target = raw
        for part in parents:
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        target[last] = value
    return raw


def outcome(arguments, capsys):
    status = main(arguments)
    captured = capsys.readouterr()
    assert status in (0, 2), (status, captured.err)
    assert "Traceback" not in captured.err
    return status, captured.err


@FAST
@given(st.lists(st.tuples(st.sampled_from(PATHS), VALUES), min_size=0, max_size=2))
@example([])
@example([("design.kind", "exact_m"), ("design.m", 10)])
@example([("rule.kind", "interval"), ("sweep.rho", [0.2, 0.5])])
@example([("model.n_items", float("nan"))])
@example([("model.p_judge", [1.0, 1.0])])
def test_generated_scenarios_run_or_exit_2(capsys, changes):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.yaml"
        path.write_text(yaml.safe_dump(mutated(changes)))
        out = Path(folder) / "out.zarr"
        status, err = outcome(["run", str(path), "--out", str(out), "--quiet"], capsys)
        event(f"exit status {status}")
        if status == 2:
            assert str(path) in err or "--" in err
            assert not out.exists()
        else:
            assert out.exists()


@FAST
@given(
    st.lists(
        st.tuples(
            st.sampled_from(PATHS + ["model", "a.b.c", ".x", "model."]),
            st.sampled_from(
                ["1", "0", "-1", "abc", "[1, 2]", "{a: 1}", "", "0.5", "null", "exact_m", "[]"]
            ),
        ),
        min_size=1,
        max_size=2,
    ),
    st.sampled_from(
        [[], ["--trials", "0"], ["--trials", "2"], ["--seed", "-1"], ["--workers", "0"]]
    ),
)
def test_generated_command_lines_run_or_exit_2(capsys, sets, extra):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "base.yaml"
        path.write_text(yaml.safe_dump(BASE))
        out = Path(folder) / "out.zarr"
        arguments = ["run", str(path), "--out", str(out), "--quiet", *extra]
        for key, value in sets:
            arguments += ["--set", f"{key}={value}"]
        status, _ = outcome(arguments, capsys)
        event(f"exit status {status}")
        if status == 2:
            assert not out.exists()


def test_files_that_are_not_scenarios(tmp_path, capsys):
    for argument in (tmp_path / "missing.yaml", tmp_path):
        status, err = outcome(["run", str(argument), "--out", str(tmp_path / "o.zarr")], capsys)
        assert status == 2 and str(argument) in err
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00model")
    assert outcome(["validate", str(binary)], capsys)[0] == 2


DESTINATIONS = ["new.zarr", "afile", "adir", "empty", "afile/inner.zarr", ".", "store.zarr"]
"""Where generated command lines write: nothing yet, a file, a folder of someone else's
files, an empty folder, a path under a file, the working folder, a finished store."""


def snapshot(folder):
    """Every file below ``folder`` with its bytes (stores included)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file()
    }


@settings(FAST, max_examples=int(os.environ.get("SIMCORE_FUZZ_EXAMPLES", "15")))
@given(
    st.sampled_from(["run", "plot"]),
    st.sampled_from(DESTINATIONS),
    st.sampled_from([[], ["--overwrite"], ["--trials", "4"], ["--set", "model.n_items=30"]]),
)
def test_generated_destinations_never_lose_a_file(capsys, command, destination, extra):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        scenario = folder / "base.yaml"
        scenario.write_text(yaml.safe_dump(BASE))
        (folder / "afile").write_text("someone's notes")
        (folder / "adir").mkdir()
        (folder / "adir" / "keep.txt").write_text("keep me")
        (folder / "empty").mkdir()
        assert main(["run", str(scenario), "--out", str(folder / "store.zarr"), "--quiet"]) == 0
        before = snapshot(folder)
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            if command == "run":
                arguments = ["run", str(scenario), "--out", destination, "--quiet", *extra]
            else:
                arguments = ["plot", str(folder / "store.zarr"), "--out", destination]
            status, _ = outcome(arguments, capsys)
        finally:
            os.chdir(cwd)
        after = snapshot(folder)
        event(f"{command} -> {destination}: exit {status}")
        for name, content in before.items():
            kept = name in after and after[name] == content
            replaced_store = name.startswith(destination) and destination.endswith(".zarr")
            assert kept or (status == 0 and replaced_store), name
        assert not list(folder.rglob("*.lock"))
        if status == 2:
            assert set(after) == set(before)


def test_inspect_of_raters_who_share_no_item_says_so(tmp_path, capsys):
    rows = ["item,rater,label"]
    rows += [f"i{k}_{i},h{k},{(i + k) % 2}" for k in range(14) for i in range(3)]
    path = tmp_path / "disjoint.csv"
    path.write_text("\n".join(rows) + "\n")
    status = main(["inspect", str(path)])
    out, err = capsys.readouterr()
    assert status == 0 and "Traceback" not in err, err
    assert "91 pairs of humans): min 0, q1 0, median 0, q3 0, max 0; 100.0% of pairs" in out


def test_a_judges_file_with_a_bad_header_is_named_with_its_columns(tmp_path, capsys):
    main_file = tmp_path / "humans.csv"
    main_file.write_text("item,rater,label\na,h1,0\na,h2,1\nb,h1,1\nb,h2,1\n")
    judges = tmp_path / "judges.csv"
    judges.write_text("model,criterion,spearman\nm,c,0.5\n")
    status, err = outcome(["inspect", str(main_file), "--judges-file", str(judges)], capsys)
    assert status == 2
    assert f"{judges}: header: missing column 'item'" in err
    assert "(got 'model,criterion,spearman')" in err
