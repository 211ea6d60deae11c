"""The Python API of simcore advise: simcore.advise(data, ...) -> Advice, paths and DataFrames."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.advisor.advice import Advice
from simcore.advisor.interval_risk import normal_approximation_risk
from simcore.api.audit import load_matrix
from simcore.cli import main
from simcore.realdata.shapes import draw_matrix, write_long_csv

REPO = Path(__file__).resolve().parent.parent

TABLES = (
    "verdict_table",
    "comparison_table",
    "alt_test_table",
    "risk_table",
    "risk_curve",
    "budget_table",
    "model_table",
    "next_round",
)


def long_frame(humans, judges, groups=None):
    """The long DataFrame item, rater, label[, group] of draw_matrix's raters."""
    rows = [
        (item, rater, label) + ((groups[item],) if groups else ())
        for raters in (humans, judges)
        for rater, given in raters.items()
        for item, label in given.items()
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "label", *(["group"] if groups else [])])


@pytest.fixture(scope="module")
def drawn():
    """A sparse matrix of 160 items, 4 humans and 2 judges, 3 labels."""
    return draw_matrix(160, 4, 2, 3, 0.45, seed=11)


@pytest.fixture(scope="module")
def csv_file(drawn, tmp_path_factory):
    return write_long_csv(*drawn, tmp_path_factory.mktemp("api") / "matrix.csv")


OPTIONS = {"judges": ["judge0", "judge1"], "trials": 30, "budget": 90, "seed": 5}


@pytest.fixture(scope="module")
def csv_advice(csv_file):
    return simcore.advise(csv_file, **OPTIONS)


def test_the_api_gives_the_numbers_and_files_of_the_cli(csv_file, csv_advice, tmp_path):
    out = tmp_path / "advice"
    argv = ["advise", str(csv_file), "--judges", "judge0,judge1", "--trials", "30"]
    assert main([*argv, "--budget", "90", "--seed", "5", "--quiet", "--out", str(out)]) == 0
    assert isinstance(csv_advice, Advice)
    assert csv_advice.to_markdown() == (out / "report.md").read_text(encoding="utf-8")
    written = pd.read_csv(out / "next_round.csv", dtype=str)
    pd.testing.assert_frame_equal(csv_advice.next_round, written)
    assert len(written) == int(csv_advice.proposal.sum()) > 0
    risk = csv_advice.risk_table.set_index("judge")
    for judge, (rate, se) in csv_advice.risk_now.items():
        assert (risk.loc[judge, "risk"], risk.loc[judge, "se"]) == (rate, se)
    for row in csv_advice.verdicts:
        # the interval risk: the dense decision's odds from the comparison intervals alone
        expected = normal_approximation_risk(
            row["comparisons"], row["decision"], csv_advice.epsilon
        )
        assert risk.loc[row["judge"], "interval_risk"] == row["interval_risk"] == expected
        assert f"| {100 * expected:.1f}% |" in csv_advice.to_markdown()
    curve = csv_advice.risk_curve
    assert curve["extra"].iloc[0] == 0 and set(curve["judge"]) == {"judge0", "judge1"}
    assert list(csv_advice.budget_table["design"]) == list(
        row["design"] for row in csv_advice.budget_rows
    )


def test_a_dataframe_and_a_csv_of_the_same_matrix_give_the_same_advice(drawn, csv_advice):
    frame = long_frame(*drawn)
    advice = simcore.advise(frame, **OPTIONS)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(advice, name), getattr(csv_advice, name))
    assert advice.to_markdown().replace("`DataFrame`", f"`{csv_advice.source}`") == (
        csv_advice.to_markdown()
    )
    assert (advice.proposal == csv_advice.proposal).all()


@pytest.mark.parametrize("composite", [False, True])
def test_a_dataframe_with_groups_gives_the_matrix_of_its_csv(drawn, tmp_path, composite):
    humans, judges = drawn
    groups = {item: f"g{index % 3}" for index, item in enumerate(humans["h000"] | judges["judge0"])}
    frame = long_frame(humans, judges, groups)
    if composite:  # every item id in two groups: two items each, ids GROUP/ITEM
        frame = pd.concat([frame, frame.assign(group="copy")], ignore_index=True)
    path = tmp_path / "groups.csv"
    frame.to_csv(path, index=False)
    names = {"humans": "h000,h001,h002,h003", "judges": ["judge0", "judge1"]}
    from_frame, from_file = load_matrix(frame, **names), load_matrix(path, **names)
    for field in ("items", "humans", "judges", "labels", "group_names", "item_ids"):
        assert getattr(from_frame, field) == getattr(from_file, field)
    for field in ("human_labels", "judge_labels", "groups"):
        assert (np.asarray(getattr(from_frame, field)) == getattr(from_file, field)).all()
    assert from_frame.source == "DataFrame"
    assert any("/" in item for item in from_frame.items) == composite


def test_numbers_in_a_dataframe_read_as_the_csv_text(tmp_path):
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 2, 3, 3, 3],
            "rater": ["a", "b", "j"] * 3,
            "label": [1, 2, 1, 2, 2, 2, 3, 1, 3],
        }
    )
    frame.to_csv(tmp_path / "m.csv", index=False)
    from_frame = load_matrix(frame, judges="j")
    from_file = load_matrix(tmp_path / "m.csv", judges="j")
    assert from_frame.items == from_file.items == ("1", "2", "3")
    assert from_frame.labels == from_file.labels == ("1", "2", "3")
    assert (from_frame.human_labels == from_file.human_labels).all()


def test_a_judges_file_serves_a_dataframe_of_humans(drawn, tmp_path):
    humans, judges = drawn
    judges_file = write_long_csv({}, judges, tmp_path / "judges.csv")
    matrix = load_matrix(long_frame(humans, {}), judges_file=judges_file)
    assert matrix.judges == ("judge0", "judge1") and matrix.n_humans == 4


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"item": ["i"], "rater": ["a"]}), "missing column 'label'"),
        (pd.DataFrame(), "missing column 'item'"),
        (pd.DataFrame(columns=["item", "rater", "label"]), "the frame has no rows"),
        (
            pd.DataFrame({"item": ["i"], "rater": ["a"], "label": [1], "grup": ["g"]}),
            "unknown column .*'grup'",
        ),
        (
            pd.DataFrame({"item": ["i", "i"], "rater": ["a", "b"], "label": [1, None]}),
            "DataFrame: row 1: empty label",
        ),
    ],
)
def test_bad_dataframes_are_refused_naming_the_column(frame, message):
    with pytest.raises(ValueError, match=message):
        simcore.advise(frame, judges="b")
    with pytest.raises(TypeError, match="a path or a pandas DataFrame"):
        simcore.advise(frame.to_numpy(), judges="b")


def test_a_dataframe_without_judges_and_bad_options_are_refused(drawn):
    frame = long_frame(*drawn)
    with pytest.raises(ValueError, match="rater in neither humans nor judges"):
        simcore.advise(frame, humans="h000,h001,h002,h003")
    with pytest.raises(ValueError, match="the matrix has no judge"):
        simcore.advise(long_frame(drawn[0], {}))
    with pytest.raises(ValueError, match="group_separator: only for JSON input"):
        simcore.advise(frame, judges="judge0,judge1", group_separator="__")
    with pytest.raises(ValueError, match=r"epsilon: must be in \[0, 1\] \(got 2\)"):
        simcore.advise(frame, judges="judge0,judge1", epsilon=2)
    with pytest.raises(ValueError, match="rule: must be one of point, alt_test"):
        simcore.advise(frame, judges="judge0,judge1", rule="interval")
    with pytest.raises(TypeError, match="unknown option 'eps'"):
        simcore.advise(frame, judges="judge0,judge1", eps=0.1)


def test_several_groups_need_advise_groups_and_pooled_groups_give_one_advice(drawn):
    humans, judges = drawn
    groups = {item: ("a" if int(item[4:]) % 2 else "b") for item in judges["judge0"]}
    frame = long_frame(humans, judges, groups)
    options = {"judges": "judge0", "trials": 20}
    with pytest.raises(ValueError, match=r"the data has 2 groups \(a, b\); simcore.advise_groups"):
        simcore.advise(frame, **options)
    advices = simcore.advise_groups(frame, **options)
    assert isinstance(advices, dict) and list(advices) == ["a", "b"]
    assert all(isinstance(advice, Advice) for advice in advices.values())
    assert advices["a"].items == tuple(item for item in sorted(groups) if groups[item] == "a")
    pooled = simcore.advise(frame, **options, pool_groups=True)
    assert isinstance(pooled, Advice) and len(pooled.items) == len(groups)


def test_plot_returns_the_report_figure(csv_advice, tmp_path):
    figure = csv_advice.plot()
    assert type(figure).__name__ == "Figure" and len(figure.axes) == 2
    assert figure.axes[1].get_yaxis().get_label().get_text().startswith("risk")
    figure.savefig(tmp_path / "figure.png")
    assert (tmp_path / "figure.png").stat().st_size > 1000
    assert csv_advice._repr_markdown_() == csv_advice.to_markdown()


def test_simcore_advise_is_the_function_and_import_simcore_stays_light():
    code = (
        "import sys, simcore, simcore.cli\n"
        "heavy = [m for m in ('numba', 'xarray', 'pandas', 'matplotlib') if m in sys.modules]\n"
        "assert callable(simcore.advise) and not heavy, heavy\n"
        # importing the advisor's modules leaves simcore.advise the function
        "import simcore.advisor.report.files\n"
        "from simcore.api.audit import advise as api_advise\n"
        "assert simcore.advise is api_advise and simcore.api.advise is api_advise\n"
        "print(simcore.advise.__module__, simcore.advise.__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "simcore.api.audit advise"
