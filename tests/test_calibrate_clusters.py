"""``simcore calibrate --cluster-column`` and ``--plan --cluster-size --icc``: the clustered
report in text, JSON and Python, the plan in clusters simulated back, and bad input."""

import json
import math

import pytest
from calibration_files import CLUSTERED_CALIBRATION

import simcore
from simcore.calibration import JudgeProfile
from simcore.calibration.clustered import clustered_rates
from simcore.cli import main
from simcore.planning import ClusterShape, PlanTarget
from simcore.planning.calibration.clusters import plan_clusters
from simcore.studies.coverage.clustered import ClusteredScenario, scenario_coverage


@pytest.fixture
def files(tmp_path):
    calibration = tmp_path / "calibration.csv"
    lines = ["item,prompt,human,judge"]
    lines += [f"{k},{c},{h},{j}" for k, (c, h, j) in enumerate(CLUSTERED_CALIBRATION)]
    calibration.write_text("\n".join(lines) + "\n")
    production = tmp_path / "production.csv"
    rows = ["item,prompt,judge"]
    rows += [f"p{k},q{k // 4},{'fail' if k % 3 == 0 else 'pass'}" for k in range(120)]
    production.write_text("\n".join(rows) + "\n")
    return calibration, production


def test_the_report_is_the_clustered_rates_in_text_json_and_python(files, capsys):
    calibration, production = files
    flags = ["calibrate", "--csv", str(calibration), "--cluster-column", "prompt"]
    flags += ["--production", str(production), "--method", "all"]
    assert main([*flags, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    result = simcore.calibrate(
        csv=calibration, cluster_column="prompt", production=production, method="all"
    )
    assert document == result.to_dict()
    assert document["clusters"]["calibration"] == 3
    assert document["clusters"]["production"] == 30
    # The same numbers from the counts per cluster: a (3, 1, 1, 5), b (1, 1, 3, 5),
    # c (1, 0, 0, 4); production clusters of 4 rows, the judge failing every third row.
    fails = [sum(1 for k in range(4 * c, 4 * c + 4) if k % 3 == 0) for c in range(30)]
    expected = clustered_rates(
        fails, [4] * 30, [3, 1, 1], [1, 1, 0], [1, 3, 0], [5, 5, 4], methods=simcore_methods()
    )
    for row, rate in zip(document["methods"], expected.rates, strict=True):
        assert row["method"] == rate.method
        assert (row["low"], row["high"]) == pytest.approx((float(rate.low), float(rate.high)))
    assert result.table("methods")["method"].tolist() == list(simcore_methods())
    assert main(flags) == 0
    text = capsys.readouterr().out
    assert "clusters (column 'prompt'): 3 calibration clusters, 30 production clusters" in text


def simcore_methods():
    from simcore.calibration.methods import METHODS

    return METHODS


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--table", "3,1,1,5", "--fails", "3", "--of", "10"], "reads the clusters of a per-item"),
        (["--plan", "--se", "0.8", "--sp", "0.8", "--theta", "0.2", "--of", "100"], "--plan"),
    ],
)
def test_clusters_need_a_per_item_csv(extra, message, capsys):
    assert main(["calibrate", "--cluster-column", "prompt", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_clustered_input_is_a_one_line_error(files, tmp_path, capsys):
    calibration, production = files
    base = ["calibrate", "--csv", str(calibration), "--production", str(production)]
    cases = [
        (["--cluster-column", "conversation"], "column 'conversation' not found"),
    ]
    empty = tmp_path / "empty-id.csv"
    empty.write_text("item,prompt,human,judge\n1,a,fail,fail\n2,,pass,pass\n")
    one = tmp_path / "one-cluster.csv"
    one.write_text("item,prompt,human,judge\n1,a,fail,fail\n2,a,pass,pass\n")
    for path, message in (
        (empty, "line 3: column 'prompt': every item needs a cluster id (got '')"),
        (one, "fall in 1 cluster: a cluster-robust interval needs at least 2"),
    ):
        cases.append(
            (["--cluster-column", "prompt", "--csv", str(path)], f"{path}: {message}"[:60])
        )
    for extra, message in cases:
        assert main([*base, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--cluster-size", "5"], "--plan in clusters: needs --icc"),
        (["--cluster-size", "5", "--icc", "1.5"], "--icc: must be in [0, 0.99] (got 1.5)"),
    ],
)
def test_a_plan_in_clusters_checks_its_flags(extra, message, capsys):
    flags = ["calibrate", "--plan", "--se", "0.8", "--sp", "0.8", "--theta", "0.2"]
    assert main([*flags, "--of", "1000", "--half-width", "0.1", *extra]) == 2
    assert message in capsys.readouterr().err


def test_cluster_flags_without_plan_are_refused(capsys):
    flags = ["calibrate", "--table", "3,1,1,5", "--fails", "3", "--of", "10", "--icc", "0.2"]
    assert main(flags) == 2
    assert "--icc: belongs to a plan; add --plan (got --icc 0.2)" in capsys.readouterr().err


def test_kish_design_effect():
    assert ClusterShape(1, 0.7).design_effect == 1.0
    assert ClusterShape(5, 0.3).design_effect == pytest.approx(2.2)


def test_the_planned_clusters_meet_the_target_when_simulated_back():
    # lr's independent-item size at h 0.06 for this judge is about 330; plan in clusters of 5.
    judge, target = JudgeProfile(0.85, 0.9, 0.2), PlanTarget(20_000, 0.06, trials=400)
    (plan,) = [
        one
        for one in plan_clusters(judge, target, {"lr": 330}, ClusterShape(5, 0.3))
        if one.method == "lr"
    ]
    assert plan.closed_form == math.ceil(330 * 2.2 / 5)
    scenario = ClusteredScenario(0.85, 0.9, 0.2, 5, plan.clusters, 4000, 0.3, 0.3)
    coverage, se, width = scenario_coverage(scenario, 1500, 77, methods=("lr",))["lr", "clustered"]
    assert coverage >= 0.95 - 3 * se
    assert width <= 0.06 * 1.03  # the planner's 400 trials know the width to about 1%
    smaller = ClusteredScenario(0.85, 0.9, 0.2, 5, int(plan.clusters * 0.8), 4000, 0.3, 0.3)
    assert scenario_coverage(smaller, 1500, 78, methods=("lr",))["lr", "clustered"][2] > 0.06
