"""``simcore calibrate --plan``: closed forms, the simulated search simulated back, the CLI."""

import math

import numpy as np
import pytest

from simcore.cli import main
from simcore.engine.interval_twins import INTERVAL_METHODS, method_coverage_trials
from simcore.planning import calibration_labels as planner

Z95 = 1.959963984540054


def test_the_closed_forms_are_the_large_sample_variances_solved_for_n():
    se, sp, theta, big_n, h = 0.8, 0.9, 0.15, 10_000, 0.03
    q = theta * se + (1 - theta) * (1 - sp)
    # PPI: z^2 (var_r / n + q(1-q)/N) = h^2 at the answer.
    n = planner.closed_form_n("ppi", se, sp, theta, big_n, h, Z95)
    missed, flagged = theta * (1 - se), (1 - theta) * (1 - sp)
    var_r = missed + flagged - (missed - flagged) ** 2
    assert Z95**2 * (var_r / n + q * (1 - q) / big_n) == pytest.approx(h**2, rel=1e-12)
    # LR (delta method): the Rogan-Gladen variance at n equals (h / z)^2.
    n = planner.closed_form_n("lr", se, sp, theta, big_n, h, Z95)
    variance = (
        q * (1 - q) / big_n + theta * se * (1 - se) / n + (1 - theta) * sp * (1 - sp) / n
    ) / (se + sp - 1) ** 2
    assert Z95**2 * variance == pytest.approx(h**2, rel=1e-12)
    # Stratified: n_1 = n q rows the judge failed, n_0 = n (1 - q) it passed.
    n = planner.closed_form_n("strat-ppi", se, sp, theta, big_n, h, Z95)
    p1, p0 = theta * se / q, theta * (1 - se) / (1 - q)
    variance = (
        q**2 * p1 * (1 - p1) / (n * q)
        + (1 - q) ** 2 * p0 * (1 - p0) / (n * (1 - q))
        + (p1 - p0) ** 2 * q * (1 - q) / big_n
    )
    assert Z95**2 * variance == pytest.approx(h**2, rel=1e-12)
    # PPI++ at its fixed point: lambda from n, and n from lambda.
    n = planner.closed_form_n("ppi++", se, sp, theta, big_n, h, Z95)
    cov = theta * se - theta * q
    lam = min(1.0, cov / ((1 + n / big_n) * q * (1 - q)))
    var_r = theta * (1 - theta) + lam**2 * q * (1 - q) - 2 * lam * cov
    assert Z95**2 * (var_r / n + lam**2 * q * (1 - q) / big_n) == pytest.approx(h**2, rel=1e-8)
    assert n < planner.closed_form_n("ppi", se, sp, theta, big_n, h, Z95)


def test_there_is_no_answer_where_the_production_term_alone_exceeds_the_target():
    # z sqrt(q(1-q)/N) / J = 0.033 > 0.03 for the LR interval at N = 1000.
    assert planner.closed_form_n("lr", 0.85, 0.9, 0.17, 1000, 0.03, Z95) == math.inf
    assert planner.closed_form_n("ppi", 0.85, 0.9, 0.17, 100, 0.05, Z95) == math.inf
    assert math.isfinite(planner.closed_form_n("ppi", 0.85, 0.9, 0.17, 1000, 0.03, Z95))


@pytest.mark.parametrize("method", ["lr", "ppi", "strat-ppi"])
def test_the_planned_size_gives_the_target_half_width_when_simulated_back(method):
    se, sp, theta, big_n, h = 0.8, 0.8, 0.15, 100_000, 0.04
    plans = planner.plan_calibration(se, sp, theta, big_n, h, trials=1000)
    chosen = next(p for p in plans if p.method == method)
    closed = chosen.closed_form
    assert abs(chosen.n_cal - closed) <= 0.1 * closed  # large-sample theory holds here
    keys = np.random.SeedSequence(99).generate_state(4000, np.uint64)
    refused, covered, width, covered_theta = method_coverage_trials(
        keys, theta, se, sp, chosen.n_cal, big_n, Z95, 0.15
    )
    column = INTERVAL_METHODS.index(method)
    half = width[~refused[:, column], column] / 2
    noise = 3 * half.std() / np.sqrt(half.size)
    step = h / chosen.n_cal  # one label more or less moves the half-width by about h / 2n
    assert abs(half.mean() - h) <= noise + step, (half.mean(), noise)
    kept = (~refused[:, column]).sum()
    coverage = covered_theta[:, column].sum() / kept
    assert coverage >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / kept)


def run(capsys, *argv):
    status = main(["calibrate", "--plan", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_cli_plans_from_given_rates(capsys):
    status, out, _ = run(
        capsys, "--se", "0.8", "--sp", "0.8", "--theta", "0.15", "--of", "100000",
        "--half-width", "0.05", "--plan-trials", "500",
    )  # fmt: skip
    assert status == 0
    assert "judge Se 0.800, Sp 0.800; failure rate 0.1500; N = 100000" in out
    closed = planner.closed_form_n("ppi", 0.8, 0.8, 0.15, 100000, 0.05, Z95)
    assert f"| ppi | {math.ceil(closed)} | " in out
    for method in planner.PLANNED_METHODS:
        assert f"| {method} | " in out


def test_the_cli_plans_from_a_pilot_table_or_csv_alike(tmp_path, capsys):
    common = ("--fails", "130", "--of", "1000", "--half-width", "0.03", "--plan-trials", "300")
    status, from_table, _ = run(capsys, "--table", "34,6,8,72", *common)
    assert status == 0
    rows = ["human,judge"] + ["fail,fail"] * 34 + ["fail,pass"] * 6 + ["pass,fail"] * 8
    (tmp_path / "pilot.csv").write_text("\n".join(rows + ["pass,pass"] * 72) + "\n")
    status, from_csv, _ = run(capsys, "--csv", str(tmp_path / "pilot.csv"), *common)
    assert status == 0 and from_csv == from_table
    assert "judge Se 0.850, Sp 0.900" in from_table
    assert "| lr | none | none (> " in from_table  # z sqrt(q(1-q)/N) / J > 0.03 at N 1000
    assert "production count's own error alone is wider than the target" in from_table


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--se", "1.5", "--sp", "0.8", "--theta", "0.1", "--half-width", "0.05"], "--se"),
        (["--se", "0.8", "--sp", "0.8", "--theta", "0", "--half-width", "0.05"], "--theta"),
        (["--se", "0.8", "--sp", "0.8", "--theta", "0.1", "--half-width", "0"], "--half-width"),
        (["--se", "0.8", "--sp", "0.8", "--theta", "0.1"], "--half-width: must be in (0, 0.5]"),
        (["--se", "0.8", "--sp", "0.8", "--half-width", "0.05"], "--theta"),
        (["--table", "1,2,3", "--fails", "5", "--half-width", "0.05"], "--table"),
        (["--table", "1,2,3,4", "--se", "0.8", "--fails", "5", "--half-width", "0.05"], "--se"),
        (["--table", "1,2,3,4", "--half-width", "0.05"], "--fails"),
        (["--table", "0,0,3,4", "--fails", "5", "--half-width", "0.05"], "no human-FAIL rows"),
        (["--table", "1,2,3,4", "--fails", "50", "--half-width", "0.05"], "--fails"),
    ],
)
def test_bad_plan_input_names_the_flag_and_exits_2(capsys, argv, message):
    status, out, err = run(capsys, *argv, "--of", "20")
    assert status == 2
    assert message in err and out == ""


def test_calibrate_without_plan_still_needs_a_table_and_fails(capsys):
    assert main(["calibrate", "--of", "10"]) == 2
    assert "--table, --csv, --card or --data" in capsys.readouterr().err


def test_the_plan_is_the_same_in_python_and_json(capsys):
    import json

    import simcore

    flags = ["--table", "34,6,8,72", "--fails", "13000", "--of", "100000"]
    flags += ["--half-width", "0.05", "--plan-trials", "300"]
    status, out, _ = run(capsys, *flags, "--json")
    assert status == 0
    document = json.loads(out)
    result = simcore.calibrate(
        table=(34, 6, 8, 72), fails=13000, of=100000, plan=True, half_width=0.05, plan_trials=300
    )
    assert document == result.to_dict()
    assert document["command"] == "calibrate" and document["plan"] is True
    assert [row["method"] for row in document["methods"]] == list(planner.PLANNED_METHODS)
    status, text, _ = run(capsys, *flags)
    assert all(row["n_cal"] for row in document["methods"])
    for row in document["methods"]:
        assert f"| {row['method']} | {row['closed_form']} | {row['n_cal']} | " in text
    assert result.to_markdown() == text.rstrip("\n")
    assert result.tables == ("methods", "allocation")
    assert result.table("methods")["n_cal"].tolist() == [
        row["n_cal"] for row in document["methods"]
    ]


def test_a_python_plan_refuses_a_pilot_and_rates_together():
    import simcore
    from simcore.calibration.errors import CalibrationInputError

    with pytest.raises(CalibrationInputError, match="not both"):
        simcore.calibrate(table=(34, 6, 8, 72), fails=130, of=1000, plan=True, half_width=0.03,
                          se=0.8)  # fmt: skip
    with pytest.raises(CalibrationInputError, match="--half-width"):
        simcore.calibrate(se=0.8, sp=0.8, theta=0.1, of=1000, plan=True)


def test_a_plans_keywords_without_plan_and_a_production_file_with_it_are_refused(tmp_path):
    import simcore
    from simcore.calibration.errors import CalibrationInputError

    with pytest.raises(CalibrationInputError, match="half_width: belongs to a plan"):
        simcore.calibrate(table=(34, 6, 8, 72), fails=13, of=100, half_width=0.05)
    with pytest.raises(CalibrationInputError, match="production: a plan takes"):
        simcore.calibrate(
            plan=True, se=0.8, sp=0.8, theta=0.1, half_width=0.05, production=tmp_path / "p.csv"
        )
