"""``simcore.agreement`` and ``simcore inspect --agreement``: one coefficient, its interval.

The entry point reads data through the one reader, scores the raters asked for (every human
by default, a judge only when named) with the coefficient of :mod:`simcore.model.weighted`,
equal to the ``krippendorff`` package on a shipped matrix, reproducible by its seed, and
refuses, in one line with exit 2, what it cannot define: a level on a coefficient without
one, Cohen's kappa on other than two raters, distances between labels that are not numbers,
an unknown rater.
"""

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.model import weighted
from simcore.realdata.annotation import DataError

STARS = Path(__file__).resolve().parents[2] / "shared" / "data" / "alttest" / "cebab_stars"
needs_data = pytest.mark.skipif(not STARS.is_dir(), reason="../shared/data/alttest is absent")


def long_table(generator, n_items=60, raters=("ann", "bob", "cat", "dan"), labels="12345"):
    rows = []
    for item in range(n_items):
        centre = generator.integers(0, len(labels))
        for rater in raters:
            if generator.random() < 0.75:
                code = int(np.clip(centre + generator.integers(-1, 2), 0, len(labels) - 1))
                rows.append({"item": f"i{item}", "rater": rater, "label": labels[code]})
    return pd.DataFrame(rows)


def test_agreement_equals_the_package_on_a_long_table():
    table = long_table(np.random.default_rng(1))
    wide = table.pivot(index="item", columns="rater", values="label").astype(float)
    for level in weighted.LEVELS:
        found = simcore.agreement(table, "krippendorff_alpha", level=level, boot=50).to_dict()
        expected = krippendorff.alpha(
            reliability_data=wide.to_numpy().T,
            level_of_measurement=level,
            value_domain=[1.0, 2.0, 3.0, 4.0, 5.0],
        )
        assert found["agreement"] == pytest.approx(expected, abs=1e-10)
        assert found["values_from"] == ("codes" if level == "nominal" else "numbers")
        assert sorted(found["raters"]) == ["ann", "bob", "cat", "dan"]
        interval = found["interval"]
        assert interval["low"] <= found["agreement"] <= interval["high"]


def test_weights_move_the_score_and_the_seed_fixes_the_interval():
    table = long_table(np.random.default_rng(2))
    scores = {
        weights: simcore.agreement(table, "gwet_ac2", weights=weights, boot=100).to_dict()
        for weights in weighted.WEIGHTS
    }
    # the raters' disagreements are one category apart: credit grows with the weights
    assert (
        scores["identity"]["agreement"]
        < scores["linear"]["agreement"]
        < scores["quadratic"]["agreement"]
    )
    again = simcore.agreement(table, "gwet_ac2", weights="linear", boot=100).to_dict()
    assert again["interval"] == scores["linear"]["interval"]
    other = simcore.agreement(table, "gwet_ac2", weights="linear", boot=100, seed=7).to_dict()
    assert other["interval"] != scores["linear"]["interval"]


def test_named_raters_and_cohen_kappa_of_two():
    table = long_table(np.random.default_rng(3))
    pair = simcore.agreement(table, "cohen_kappa", raters="ann,bob", weights="quadratic", boot=20)
    document = pair.to_dict()
    assert document["raters"] == ["ann", "bob"]
    assert document["command"] == "agreement"
    assert "cohen_kappa (quadratic weights)" in pair.to_markdown()
    with pytest.raises(DataError, match="Cohen's kappa takes two raters"):
        simcore.agreement(table, "cohen_kappa", boot=0)
    with pytest.raises(DataError, match="'ann' is named twice"):
        simcore.agreement(table, raters="ann,bob,ann", boot=0)
    with pytest.raises(DataError, match=r"raters: unknown rater \(raters: .*\(got 'eve'\)"):
        simcore.agreement(table, raters=["ann", "eve"], boot=0)
    with pytest.raises(DataError, match="level: ordinal is Krippendorff"):
        simcore.agreement(table, "gwet_ac2", level="ordinal", boot=0)
    with pytest.raises(DataError, match="weights: linear with krippendorff_alpha: use level"):
        simcore.agreement(table, weights="linear", boot=0)
    with pytest.raises(ValueError, match="level"):
        simcore.agreement(table, level="cardinal", boot=0)


def test_distances_need_numbers_or_a_declared_order():
    table = long_table(np.random.default_rng(4), labels="abcde")
    nominal = simcore.agreement(table, boot=0).to_dict()
    assert nominal["values_from"] == "codes"
    for settings in ({"level": "interval"}, {"level": "ordinal"}):
        with pytest.raises(DataError, match="are not numbers"):
            simcore.agreement(table, boot=0, **settings)


def run(*argv):
    command = [sys.executable, "-m", "simcore", *argv]
    return subprocess.run(command, capture_output=True, text=True, check=False)


@needs_data
def test_inspect_agreement_on_the_command_line():
    done = run("inspect", str(STARS), "--agreement", "krippendorff_alpha", "--level", "ordinal")
    assert done.returncode == 0, done.stderr
    assert "krippendorff_alpha (ordinal) | 10 | 711 (711) |" in done.stdout
    as_json = run(
        "inspect", str(STARS), "--agreement", "gwet_ac2", "--weights", "linear", "--boot", "50"
    )
    assert as_json.returncode == 0
    found = run(
        *("inspect", str(STARS), "--agreement", "gwet_ac2", "--weights", "linear"),
        *("--boot", "50", "--json"),
    )
    document = json.loads(found.stdout)
    python = simcore.agreement(STARS, "gwet_ac2", weights="linear", boot=50).to_dict()
    assert document["agreement"]["agreement"] == python["agreement"]
    assert document["agreement"]["interval"] == python["interval"]
    assert document["items"] == 711  # the inspect document is still there
    bad = run("inspect", str(STARS), "--agreement", "cohen_kappa")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Cohen's kappa takes two raters" in bad.stderr
    level = run("inspect", str(STARS), "--agreement", "observed", "--level", "cardinal")
    assert level.returncode == 2 and "--level" in level.stderr
    alone = run("inspect", str(STARS), "--level", "ordinal")
    assert alone.returncode == 2 and "--level: given without --agreement" in alone.stderr
    with pytest.raises(ValueError, match="coefficient"):
        simcore.agreement(str(STARS), "fleiss_kappa", boot=0)
