"""``simcore calibrate --plan``: closed forms, the simulated search simulated back, the CLI."""

import math

import numpy as np
import pytest

from simcore.calibration import JudgeProfile
from simcore.cli import main
from simcore.engine.interval_twins import INTERVAL_METHODS, method_coverage_trials
from simcore.planning import PlanTarget
from simcore.planning.calibration import labels as planner

Z95 = 1.959963984540054


def test_the_closed_forms_are_the_large_sample_variances_solved_for_n():
    se, sp, theta, big_n, h = 0.8, 0.9, 0.15, 10_000, 0.03
    q = theta * se + (1 - theta) * (1 - sp)
    # PPI: z^2 (var_r / n + q(1-q)/N) = h^2 at the answer.
    n = planner.closed_form_n("ppi", JudgeProfile(se, sp, theta), PlanTarget(big_n, h))
    missed, flagged = theta * (1 - se), (1 - theta) * (1 - sp)
    var_r = missed + flagged - (missed - flagged) ** 2
    assert Z95**2 * (var_r / n + q * (1 - q) / big_n) == pytest.approx(h**2, rel=1e-12)
    # LR (delta method): the Rogan-Gladen variance at n equals (h / z)^2.
    n = planner.closed_form_n("lr", JudgeProfile(se, sp, theta), PlanTarget(big_n, h))
    variance = (
        q * (1 - q) / big_n + theta * se * (1 - se) / n + (1 - theta) * sp * (1 - sp) / n
    ) / (se + sp - 1) ** 2
    assert Z95**2 * variance == pytest.approx(h**2, rel=1e-12)
    # Stratified: n_1 = n q rows the judge failed, n_0 = n (1 - q) it passed.
    n = planner.closed_form_n("strat-ppi", JudgeProfile(se, sp, theta), PlanTarget(big_n, h))
    p1, p0 = theta * se / q, theta * (1 - se) / (1 - q)
    variance = (
        q**2 * p1 * (1 - p1) / (n * q)
        + (1 - q) ** 2 * p0 * (1 - p0) / (n * (1 - q))
        + (p1 - p0) ** 2 * q * (1 - q) / big_n
    )
    assert Z95**2 * variance == pytest.approx(h**2, rel=1e-12)
    # PPI++ at its fixed point: lambda from n, and n from lambda.
    n = planner.closed_form_n("ppi++", JudgeProfile(se, sp, theta), PlanTarget(big_n, h))
    cov = theta * se - theta * q
    lam = min(1.0, cov / ((1 + n / big_n) * q * (1 - q)))
    var_r = theta * (1 - theta) + lam**2 * q * (1 - q) - 2 * lam * cov
    assert Z95**2 * (var_r / n + lam**2 * q * (1 - q) / big_n) == pytest.approx(h**2, rel=1e-8)
    assert n < planner.closed_form_n("ppi", JudgeProfile(se, sp, theta), PlanTarget(big_n, h))


def test_there_is_no_answer_where_the_production_term_alone_exceeds_the_target():
    # z sqrt(q(1-q)/N) / J = 0.033 > 0.03 for the LR interval at N = 1000.
    assert (
        planner.closed_form_n("lr", JudgeProfile(0.85, 0.9, 0.17), PlanTarget(1000, 0.03))
        == math.inf
    )
    assert (
        planner.closed_form_n("ppi", JudgeProfile(0.85, 0.9, 0.17), PlanTarget(100, 0.05))
        == math.inf
    )
    assert math.isfinite(
        planner.closed_form_n("ppi", JudgeProfile(0.85, 0.9, 0.17), PlanTarget(1000, 0.03))
    )


@pytest.mark.parametrize("method", ["lr", "ppi", "strat-ppi"])
def test_the_planned_size_gives_the_target_half_width_when_simulated_back(method):
    se, sp, theta, big_n, h = 0.8, 0.8, 0.15, 100_000, 0.04
    plans = planner.plan_calibration(JudgeProfile(se, sp, theta), PlanTarget(big_n, h, trials=1000))
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
    closed = planner.closed_form_n("ppi", JudgeProfile(0.8, 0.8, 0.15), PlanTarget(100000, 0.05))
    assert f"| ppi | {math.ceil(closed)} | " in out
    for method in planner.PLANNED_METHODS:
        assert f"| {method} | " in out


def test_the_cli_plans_from_a_pilot_table_or_csv_alike(tmp_path, capsys):
    common = ("--fails", "130", "--of", "1000", "--half-width", "0.03", "--plan-trials", "300")
    common += ("--plan-theta", "stratified")  # theta 0.1722: q = 0.23 at Se 0.85, Sp 0.9
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
        (["--se", "0.8", "--sp", "0.8", "--theta", "1", "--half-width", "0.05"], "--theta"),
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
    result = simcore.plan_calibration(
        table=(34, 6, 8, 72), fails=13000, of=100000, half_width=0.05, plan_trials=300
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
        simcore.plan_calibration(table=(34, 6, 8, 72), fails=130, of=1000, half_width=0.03,
                          se=0.8)  # fmt: skip
    with pytest.raises(CalibrationInputError, match="--half-width"):
        simcore.plan_calibration(se=0.8, sp=0.8, theta=0.1, of=1000)


def test_a_plans_keywords_in_a_report_and_a_production_file_in_a_plan_are_refused(tmp_path):
    import simcore

    with pytest.raises(TypeError, match="calibrate: unknown option 'half_width'"):
        simcore.calibrate(table=(34, 6, 8, 72), fails=13, of=100, half_width=0.05)
    with pytest.raises(TypeError, match="plan_calibration: unknown option 'production'"):
        simcore.plan_calibration(
            se=0.8, sp=0.8, theta=0.1, half_width=0.05, production=tmp_path / "p.csv"
        )


PILOT = (34, 6, 8, 72)  # a third human FAIL; the judge fails 35% of it and 13% of production
STRATIFIED = 0.13 * 34 / 42 + 0.87 * 6 / 78  # q p1 + (1 - q) p0


def pilot_plan(**options):
    import simcore

    return simcore.plan_calibration(
        table=PILOT, fails=130, of=1000, half_width=0.05, plan_trials=100, **options
    ).to_dict()


def test_a_pilot_plan_is_for_the_rate_the_report_gives_and_names_the_stratified_one(capsys):
    import simcore

    report = simcore.calibrate(table=PILOT, fails=130, of=1000).to_dict()
    assert report["estimate"] == pytest.approx(0.04)  # (0.13 + 0.9 - 1) / 0.75
    document = pilot_plan()
    assert document["theta"] == pytest.approx(report["estimate"], abs=1e-12)
    assert document["plan_theta"] == {
        "value": document["theta"],
        "source": "reported",
        "estimator": "rogan-gladen",
        "method": "lr",
        "planned_at": "estimate",
        "estimates": {"reported": pytest.approx(0.04), "stratified": pytest.approx(STRATIFIED)},
        "reported_interval": {
            "low": pytest.approx(report["interval"]["low"]),
            "high": pytest.approx(report["interval"]["high"]),
        },
        "shares": {
            "calibration_human_fail": pytest.approx(40 / 120),
            "calibration_judge_fail": pytest.approx(42 / 120),
            "production_judge_fail": pytest.approx(0.13),
        },
    }
    status, out, _ = run(capsys, "--table", "34,6,8,72", "--fails", "130", "--of", "1000",
                         "--half-width", "0.05", "--plan-trials", "100")  # fmt: skip
    assert status == 0
    lines = out.splitlines()
    assert "failure rate 0.0400; N = 1000" in lines[0]
    assert lines[1] == (
        "failure rate planned for: 0.0400, the Rogan-Gladen estimate `simcore calibrate` "
        "reports for this pilot"
    )
    assert lines[2] == (
        "--plan-theta stratified gives 0.1722, which assumes the calibration rows are a random "
        "production sample: their human FAIL share 0.33 and judge FAIL share 0.35, against "
        "the judge's production FAIL share 0.13"
    )


def test_plan_theta_stratified_is_the_old_estimate_and_a_rate_is_used_as_given():
    stratified = pilot_plan(plan_theta="stratified")
    assert stratified["theta"] == pytest.approx(STRATIFIED, abs=1e-12)  # 0.1722
    assert stratified["plan_theta"]["source"] == "stratified"
    assert stratified["plan_theta"]["estimates"]["reported"] == pytest.approx(0.04)
    assumed = pilot_plan(plan_theta=0.1)
    assert assumed["theta"] == 0.1 and assumed["plan_theta"]["source"] == "assumed"
    assert assumed["plan_theta"]["estimator"] is None
    assert assumed["se"] == stratified["se"] == 0.85 and assumed["sp"] == 0.9
    # the rate planned for decides the plan: the closed forms are those of that rate
    for document in (stratified, assumed):
        theta = document["theta"]
        closed = planner.closed_form_n(
            "ppi", JudgeProfile(0.85, 0.9, theta), PlanTarget(1000, 0.05)
        )
        row = next(row for row in document["methods"] if row["method"] == "ppi")
        assert row["closed_form"] == math.ceil(closed)


def test_the_texts_of_stratified_and_of_a_rate_name_both_estimates(capsys):
    flags = ("--table", "34,6,8,72", "--fails", "130", "--of", "1000", "--half-width", "0.05")
    _, out, _ = run(capsys, *flags, "--plan-trials", "100", "--plan-theta", "stratified")
    assert out.splitlines()[1].startswith(
        "failure rate planned for: 0.1722, the stratified estimate (--plan-theta stratified), "
        "which assumes the calibration rows are a random production sample"
    )
    assert out.splitlines()[2] == "`simcore calibrate` reports 0.0400 (Rogan-Gladen) for this pilot"
    _, out, _ = run(capsys, *flags, "--plan-trials", "100", "--plan-theta", "0.1")
    assert out.splitlines()[1] == (
        "failure rate planned for: 0.1000, as assumed (--plan-theta 0.1); this pilot's "
        "estimates: `simcore calibrate` reports 0.0400 (Rogan-Gladen), stratified 0.1722"
    )


def test_where_the_two_estimates_agree_the_plan_says_nothing_extra():
    document = pilot_plan(method="strat-ppi")  # stratified PPI's estimate is the stratified one
    assert document["theta"] == pytest.approx(STRATIFIED, abs=1e-12)
    assert document["plan_theta"]["estimator"] == "stratified-ppi"
    import simcore

    text = simcore.plan_calibration(
        table=PILOT, fails=130, of=1000, half_width=0.05, plan_trials=100,
        method="strat-ppi",
    ).to_markdown()  # fmt: skip
    assert "--plan-theta stratified gives" not in text
    assert text.splitlines()[1] == (
        "failure rate planned for: 0.1722, the stratified PPI estimate `simcore calibrate "
        "--method strat-ppi` reports for this pilot"
    )


def test_a_reported_estimate_clipped_to_zero_plans_for_its_intervals_upper_end():
    import simcore

    # q = 0.09 < 1 - Sp = 0.1: Rogan-Gladen is negative, the report clips it to 0
    report = simcore.calibrate(table=PILOT, fails=90, of=1000).to_dict()
    assert report["estimate"] == 0.0 and report["interval"]["high"] > 0
    document = simcore.plan_calibration(
        table=PILOT, fails=90, of=1000, half_width=0.05, plan_trials=100
    )
    chosen = document.to_dict()["plan_theta"]
    assert chosen["planned_at"] == "interval_high" and chosen["estimates"]["reported"] == 0.0
    assert document.to_dict()["theta"] == pytest.approx(report["interval"]["high"])
    assert "the upper end of the 95% interval [0.000, 0.064]" in document.to_markdown()


def test_a_report_that_refuses_to_correct_gives_no_rate_to_plan_for(capsys):
    weak = ("--table", "20,20,18,22", "--fails", "90", "--of", "1000", "--half-width", "0.05")
    status, out, err = run(capsys, *weak, "--plan-trials", "100")
    assert status == 2 and out == ""
    assert err.startswith("simcore calibrate: --plan-theta reported: `simcore calibrate` refuses")
    assert "Youden J = 0.05 < 0.15" in err and len(err.strip().splitlines()) == 1
    status, out, _ = run(capsys, *weak, "--plan-trials", "100", "--plan-theta", "stratified")
    assert status == 0 and "`simcore calibrate` reports no corrected rate (Rogan-Gladen)" in out


@pytest.mark.parametrize("value", ["abc", "0", "1", "1.5", "-0.2", "nan", "inf"])
def test_a_bad_plan_theta_names_the_flag_and_the_value_and_exits_2(capsys, value):
    flags = ("--table", "34,6,8,72", "--fails", "130", "--of", "1000", "--half-width", "0.05")
    with pytest.raises(SystemExit) as stop:  # argparse's refusal, one line
        main(["calibrate", "--plan", *flags, "--plan-theta", value])
    captured = capsys.readouterr()
    assert stop.value.code == 2 and captured.out == ""
    assert captured.err.strip() == (
        "simcore calibrate: --plan-theta: must be reported, stratified or a failure rate in "
        f"(0, 1) (got {value!r})"
    )


def test_plan_theta_without_plan_or_without_a_pilot_is_refused(capsys):
    import simcore
    from simcore.calibration.errors import CalibrationInputError

    status = main(["calibrate", "--table", "34,6,8,72", "--fails", "130", "--of", "1000",
                   "--plan-theta", "stratified"])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2
    assert "--plan-theta: belongs to a plan; add --plan (got --plan-theta stratified)" in err
    status = main(["calibrate", "--table", "34,6,8,72", "--fails", "130", "--of", "1000",
                   "--half-width", "0.05"])  # fmt: skip
    assert status == 2 and "--half-width: belongs to a plan" in capsys.readouterr().err
    with pytest.raises(TypeError, match="calibrate: unknown option 'plan_theta'"):
        simcore.calibrate(table=PILOT, fails=130, of=1000, plan_theta=0.1)
    with pytest.raises(CalibrationInputError, match="without a pilot the rate planned for is"):
        simcore.plan_calibration(se=0.8, sp=0.8, theta=0.1, of=1000, half_width=0.05,
                          plan_theta="stratified")  # fmt: skip
    with pytest.raises(CalibrationInputError, match=r"plan_theta: must be .* \(got 'mean'\)"):
        pilot_plan(plan_theta="mean")


def test_a_plan_from_rates_says_its_theta_came_from_theta():
    import simcore

    document = simcore.plan_calibration(
        se=0.8, sp=0.8, theta=0.15, of=100000, half_width=0.05, plan_trials=100
    ).to_dict()
    assert document["plan_theta"]["source"] == "theta"
    assert document["plan_theta"]["value"] == document["theta"] == 0.15
    assert document["plan_theta"]["estimates"] is None
