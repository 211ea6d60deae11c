"""Failures a user can cause: each is one clear line with exit status 2, and nothing that
was on disk before is lost or changed."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
import zarr

import simcore
from simcore.cli import main
from simcore.testing import assert_cubes_identical

REPO = Path(__file__).resolve().parent.parent

SCENARIO = {
    "name": "small",
    "model": {"n_items": 60, "n_humans": 3, "p_judge": 0.8},
    "design": {"kind": "bernoulli"},
    "trials": 40,
    "seed": 2,
    "sweep": {"rho": [0.2, 0.5]},
}


def write(tmp_path, raw=SCENARIO, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def run(arguments, capsys):
    status = main(arguments)
    err = capsys.readouterr().err
    return status, err


def one_clean_line(err):
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    return len(lines) == 1


@pytest.mark.parametrize("flags", [[], ["--overwrite"]])
def test_overwrite_never_replaces_what_is_not_a_store(tmp_path, capsys, flags):
    folder = tmp_path / "adir"
    folder.mkdir()
    (folder / "keep.txt").write_text("important")
    status, err = run(
        ["run", str(write(tmp_path)), "--out", str(folder), "--quiet", *flags], capsys
    )
    assert status == 2 and "not a simcore store" in err and "never replaces" in err
    assert one_clean_line(err)
    assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]
    assert (folder / "keep.txt").read_text() == "important"
    assert not (tmp_path / "adir.lock").exists()


def test_a_file_is_never_replaced_and_an_empty_folder_becomes_the_store(tmp_path, capsys):
    path = write(tmp_path)
    afile = tmp_path / "notes.zarr"
    afile.write_text("mine")
    status, err = run(["run", str(path), "--out", str(afile), "--overwrite", "--quiet"], capsys)
    assert status == 2 and "is a file" in err and afile.read_text() == "mine"
    empty = tmp_path / "empty.zarr"
    empty.mkdir()
    assert main(["run", str(path), "--out", str(empty), "--quiet"]) == 0
    assert int(xr.open_zarr(empty)["n_trials"].min()) == 40


@pytest.mark.parametrize(
    ("out", "fragment"),
    [
        (".", "names a folder, not a store"),
        ("blocker/inner.zarr", "is a file, not a folder"),
    ],
)
def test_unwritable_or_meaningless_store_paths_exit_2_before_any_work(
    tmp_path, capsys, monkeypatch, out, fragment
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "blocker").write_text("a file where a folder would go")
    path = write(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    status, err = run(["run", str(path), "--out", out, "--quiet"], capsys)
    assert status == 2 and fragment in err and one_clean_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_plot_and_advise_outputs_are_checked_before_the_work(tmp_path, capsys):
    store = tmp_path / "s.zarr"
    assert main(["run", str(write(tmp_path)), "--out", str(store), "--quiet"]) == 0
    (tmp_path / "blocker").write_text("x")
    status, err = run(["plot", str(store), "--out", str(tmp_path / "blocker" / "f.png")], capsys)
    assert status == 2 and "--out" in err and "is a file, not a folder" in err
    data = tmp_path.parent / "unused"
    status, err = run(["advise", str(data), "--out", str(tmp_path / "blocker")], capsys)
    assert status == 2 and "--out" in err and "is a file, not a folder" in err
    assert one_clean_line(err)


@pytest.mark.parametrize("trials", ["1000000000000000", "99999999999999999999999"])
def test_trial_counts_beyond_what_the_sums_hold_are_refused(tmp_path, capsys, trials):
    out = tmp_path / "o.zarr"
    status, err = run(["run", str(write(tmp_path)), "--out", str(out), "--trials", trials], capsys)
    assert status == 2 and "trials: must be <= 536870912" in err
    assert not out.exists() and not (tmp_path / "o.zarr.lock").exists()


def test_a_repeated_yaml_key_names_both_lines(tmp_path, capsys):
    path = tmp_path / "dup.yaml"
    path.write_text("trials: 10\nseed: 1\ntrials: 20\n")
    status, err = run(["validate", str(path)], capsys)
    assert status == 2 and "trials: appears twice in one mapping (lines 1 and 3)" in err


def test_an_empty_file_says_so_and_bad_yaml_is_one_line_with_its_place(tmp_path, capsys):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    status, err = run(["validate", str(empty)], capsys)
    assert status == 2 and "the file is empty" in err
    broken = tmp_path / "broken.yaml"
    broken.write_text("model:\n  n_items: [1, 2\n")
    status, err = run(["validate", str(broken)], capsys)
    assert status == 2 and one_clean_line(err) and f"{broken}:3:1: not valid YAML" in err


@pytest.mark.parametrize("address", ["notanaddress", "tcp://", "tcp://127.0.0.1:notaport"])
def test_a_malformed_scheduler_address_is_bad_input(tmp_path, capsys, address):
    out = tmp_path / "o.zarr"
    status, err = run(
        ["run", str(write(tmp_path)), "--out", str(out), "--scheduler", address, "--quiet"],
        capsys,
    )
    assert status == 2 and "--scheduler" in err and one_clean_line(err)
    assert not out.exists()


def test_finalising_again_after_a_kill_gives_the_same_cube(tmp_path):
    # A kill during finalisation leaves some named variables written and the store
    # unfinished; resuming must rewrite them, not fail on their encodings.
    out = tmp_path / "s.zarr"
    first = simcore.run(SCENARIO, out=out)
    group = zarr.open_group(str(out), mode="r+")
    assert "wrong_decision_rate_se" in group
    group.attrs["complete"] = 0
    zarr.consolidate_metadata(str(out))
    again = simcore.run(SCENARIO, out=out)
    assert_cubes_identical(again, first)
    assert_cubes_identical(xr.open_zarr(out), first)


def test_no_traceback_for_the_largest_integer_arguments(tmp_path, capsys):
    big = str(sys.maxsize * 4)
    status, err = run(["run", str(write(tmp_path)), "--seed", big, "--trials", "3"], capsys)
    assert status in (0, 2) and "Traceback" not in err
    assert np.iinfo(np.int64).max < int(big)


SCRIPT = """
import simcore

raw = {"model": {"n_items": 50, "n_humans": 3, "p_judge": 0.8},
       "design": {"kind": "bernoulli"}, "trials": 10, "sweep": {"rho": [0.2, 0.5]}}
GUARD
    cube = simcore.run(raw, workers=2)
    print("trials", int(cube["n_trials"].sum()))
"""


@pytest.mark.parametrize("guarded", [False, True])
def test_a_script_with_workers_needs_the_main_guard_and_says_so(tmp_path, guarded):
    guard = 'if __name__ == "__main__":' if guarded else "if True:"
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.replace("GUARD", guard))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    if guarded:
        assert done.returncode == 0 and "trials 20" in done.stdout
    else:
        assert done.returncode != 0
        assert 'put the call under `if __name__ == "__main__":`' in done.stderr.splitlines()[-1]
        assert "bootstrapping phase" not in done.stderr


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--margin", "0"], "--margin 0: puts the judge at the bar"),
        (["--margin", "1e-12"], "--margin 1e-12: puts the judge at the bar"),
        (["--p-judge", str((0.05 - 0.05 + 0.545) / 0.7)], "puts the judge at the bar"),
        (["--margin", "5"], "simcore plan: --margin: must be <= 1.0 (got 5.0)"),
    ],
)
def test_plan_refuses_questions_without_a_finite_answer(capsys, arguments, fragment):
    status, err = run(["plan", *arguments], capsys)
    assert status == 2 and fragment in err and one_clean_line(err)
    assert "model.margin" not in err


def test_plan_rank_says_when_the_corpus_is_too_small(capsys):
    assert main(["plan", "--rank", "--n-judges", "5", "--gap", "0.001", "--items", "800"]) == 0
    assert "m_rank = more than the 800 items of the corpus (recipe: " in capsys.readouterr().out


def test_version_help_and_a_mistyped_option_show_the_subcommand(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith("simcore ")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "scenario.yaml", "--trails", "5"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert "usage: simcore run" in err and "unrecognized arguments: --trails 5" in err
    for command in ("show", "plot", "validate", "advise", "calibrate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        if command in ("advise", "calibrate", "validate"):
            assert "(default:" in text, command
        if "positional arguments:" in text:
            first = text.split("positional arguments:")[1].splitlines()[1]
            assert len(first.split(maxsplit=1)) == 2, f"{command}: a positional without help"


def test_an_advise_data_error_names_the_file_once(tmp_path, capsys):
    data = tmp_path / "good.csv"
    data.write_text("item,rater,label\n1,a,x\n")
    status, err = run(["advise", str(data), "--humans", "a,b", "--judges", "j"], capsys)
    assert status == 2 and str(data) in err
    assert all(line.count(str(data)) <= 1 for line in err.splitlines()), err


@pytest.mark.parametrize("setting", ["model.n_items=10000000000", "model.n_labels=100000"])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_sizes_that_cannot_fit_are_refused_before_any_allocation(
    tmp_path, capsys, setting, command
):
    out = tmp_path / "o.zarr"
    extra = ["--out", str(out), "--quiet"] if command == "run" else []
    status, err = run([command, str(write(tmp_path)), "--set", setting, *extra], capsys)
    assert status == 2 and one_clean_line(err)
    assert "GiB of memory" in err and "lower model.n_items or model.n_labels" in err
    assert not out.exists() and not (tmp_path / "o.zarr.lock").exists()


def test_the_memory_estimate_of_ordinary_scenarios_is_modest():
    from simcore.api.scenarios import load_scenario
    from simcore.studies import study_of
    from simcore.sweep.memory import GIB

    for name in ("fig2", "real_summeval", "coverage", "planning"):
        scenario = load_scenario(REPO / "scenarios" / f"{name}.yaml")
        study = study_of(scenario)
        need, _ = study.memory_need(scenario, study.context(scenario))
        assert 0 < need < GIB, name


@pytest.mark.parametrize("kind", ["synthetic", "coverage"])
def test_long_cells_split_into_tasks_give_the_same_cube(monkeypatch, kind):
    from test_studies import SCENARIOS

    from simcore.sweep import grid

    raw = SCENARIOS[kind](5000)
    whole = simcore.run(raw)
    monkeypatch.setattr(grid, "TRIALS_PER_TASK", 700)  # 8 tasks per cell, merged
    assert_cubes_identical(simcore.run(raw), whole)


def test_progress_moves_within_a_long_cell(tmp_path, capsys, monkeypatch):
    from simcore.sweep import grid

    monkeypatch.setattr(grid, "TRIALS_PER_TASK", 1000)
    raw = {**SCENARIO, "trials": 10_000, "sweep": {"rho": [0.3]}}
    assert main(["run", str(write(tmp_path, raw)), "--out", str(tmp_path / "o.zarr")]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "of trials" in line]
    within = [line for line in lines if "0/1 cells" in line]
    assert len(within) >= 5 and lines[-1].startswith("[" + "#" * 30 + "] 1/1 cells, 100%")


def test_show_into_a_reader_that_stops_early_is_quiet(tmp_path):
    import fcntl

    store = tmp_path / "s.zarr"
    rho = [round(0.1 + 0.01 * i, 2) for i in range(60)]  # a table longer than the pipe holds
    raw = {**SCENARIO, "trials": 1, "sweep": {"rho": rho}}
    assert main(["run", str(write(tmp_path, raw)), "--out", str(store), "--quiet"]) == 0
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe: the table overflows it
    show = subprocess.Popen(
        [sys.executable, "-m", "simcore", "show", str(store)],
        stdout=write_end,
        stderr=subprocess.PIPE,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        reader.readline()  # like `| head -1`: read a line, then stop reading
    err = show.stderr.read().decode()
    assert show.wait(timeout=60) == 0 and "Traceback" not in err


def test_published_values_are_compared_only_for_the_scenario_they_belong_to(tmp_path, capsys):
    fig2 = str(REPO / "scenarios" / "fig2.yaml")
    out = str(tmp_path / "f.zarr")
    assert main(["run", fig2, "--trials", "10", "--out", out, "--quiet"]) == 0
    assert main(["show", out]) == 0
    text = capsys.readouterr().out
    assert "in parentheses: Li, Mukherjee, Pal" in text and "not compared" not in text
    changed = ["--set", "model.n_items=1000", "--overwrite"]
    assert main(["run", fig2, "--trials", "10", "--out", out, "--quiet", *changed]) == 0
    assert main(["show", out]) == 0
    text = capsys.readouterr().out
    assert "in parentheses" not in text
    assert "not compared: this run changes model.n_items" in text
    # a changed sweep no longer trips over the published table's shape
    assert main(["validate", fig2, "--set", "sweep.rho=[0.1]"]) == 0


def test_a_cube_holds_only_the_variables_its_rule_and_judges_give_a_meaning():
    one = simcore.run(SCENARIO)
    for name in ("top1_error", "rank_error", "untestable_rate", "mean_extra_items"):
        assert name not in one, name
    assert "n_skipped" in one and "n_top1_wrong" in one  # the counts stay
    assert "wrong_decision_rate" in one and "effective_k" in one
    several = simcore.run(
        {
            **SCENARIO,
            "model": {**SCENARIO["model"], "p_judge": [0.9, 0.7]},
            "rule": {"kind": "alt_test"},
        }
    )
    for name in ("top1_error", "rank_error", "untestable_rate", "skipped_rate"):
        assert name in several, name
    assert "mean_extra_items" not in several


def test_rates_over_a_handful_of_trials_show_their_exact_interval_not_an_se():
    from simcore import report

    few = report.summary(simcore.run({**SCENARIO, "trials": 3}))
    assert any(text in few for text in ("33.3 [0.8, 90.6]", "66.7 [9.4, 99.2]", "< 63.2"))
    assert "± 0.0" not in few and "exact 95% interval" in few
    many = report.summary(simcore.run({**SCENARIO, "trials": 400}))
    assert " ± " in many


def test_plan_says_what_it_is_doing_unless_quiet(capsys):
    assert main(["plan", "--margin", "0.1", "--items", "300"]) == 0
    assert "simcore plan [" in capsys.readouterr().err
    assert main(["plan", "--margin", "0.1", "--items", "300", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_figures_say_what_a_blank_means(tmp_path):
    from simcore.studies.figures import BLANK_NOTE, blank_note, plot_cube

    cube = simcore.run(SCENARIO)
    assert blank_note(cube, ["wrong_decision_rate"]) is None
    holed = cube.copy(deep=True)
    holed["wrong_decision_rate"].values[0] = np.nan
    assert blank_note(holed, ["wrong_decision_rate"]) == BLANK_NOTE
    plot_cube(holed, tmp_path / "f.png", {"variables": ["wrong_decision_rate"], "x": "rho"})
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_the_report_figure_legend_names_the_verdict_colours():
    from types import SimpleNamespace

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simcore.advisor.report.figure import _draw_intervals

    comparison = {"items": 5, "d": 0.1, "low": 0.0, "high": 0.2, "verdict": "clears"}
    advice = SimpleNamespace(
        verdicts=[{"judge": "j", "comparisons": [comparison]}], humans=("h0",), epsilon=0.05
    )
    figure, axes = plt.subplots()
    _draw_intervals(axes, advice)
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    plt.close(figure)
    assert labels[:3] == ["clears the bar", "fails the bar", "undecided"]
    assert labels[3].startswith("bar d_k = -eps")
