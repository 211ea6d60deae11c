"""simcore wellposed under a chosen coefficient: the pairs equal the reference definitions."""

import csv
import json
import math
from itertools import combinations

import numpy as np
import pytest
from pair_references import VALUES, reference

import simcore
from simcore.cli import main
from simcore.instrument.wellposed.agreement import bootstrap_means, judge_agreement
from simcore.model.weighted import scoring_of


def judge_codes(seed=3, n_items=80, n_judges=4):
    """Judges on a 1-5 scale with adjacent disagreements and a few skipped items."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, n_items)
    codes = np.clip(truth[:, None] + rng.integers(-1, 2, (n_items, n_judges)), 0, 4)
    codes[:, -1] = np.clip(codes[:, -1] + 1, 0, 4)  # one judge rates one step higher
    return np.where(rng.random((n_items, n_judges)) < 0.1, -1, codes).astype(np.int16)


@pytest.mark.parametrize(
    "spec",
    [
        ("krippendorff_alpha", "ordinal", "identity"),
        ("krippendorff_alpha", "interval", "identity"),
        ("krippendorff_alpha", "nominal", "identity"),
        ("cohen_kappa", "nominal", "quadratic"),
        ("gwet_ac2", "nominal", "linear"),
    ],
    ids=lambda spec: "-".join(spec),
)
def test_each_pair_is_the_coefficient_of_its_shared_items(spec):
    codes = judge_codes()
    result = judge_agreement(codes, False, n_boot=0, scoring=scoring_of(spec[0], VALUES, *spec[1:]))
    expected = [reference(codes[:, a], codes[:, b], *spec) for a, b in combinations(range(4), 2)]
    np.testing.assert_allclose(result.values, expected, atol=1e-10)
    assert result.mean == pytest.approx(np.mean(expected), abs=1e-12)
    assert result.measure == scoring_of(spec[0], VALUES, *spec[1:]).name


def test_a_resample_is_scored_as_the_data_drawn_again():
    codes = judge_codes(n_items=50)
    kappa = scoring_of("cohen_kappa", VALUES, "nominal", "quadratic")
    draws = np.random.default_rng(1).integers(0, 50, size=(5, 50))
    means = bootstrap_means(codes, False, draws, scoring=kappa)
    for row, mean in zip(draws, means, strict=True):
        again = judge_agreement(codes[row], False, n_boot=0, scoring=kappa)
        assert mean == pytest.approx(again.mean, abs=1e-12)


def test_a_pair_that_gives_one_label_is_undefined_not_zero():
    codes = np.array([[1, 1], [1, 1], [1, 1], [2, 3], [3, 4]], dtype=np.int16)
    for coefficient, level in (("cohen_kappa", "nominal"), ("krippendorff_alpha", "ordinal")):
        scoring = scoring_of(coefficient, VALUES, level)
        assert math.isnan(judge_agreement(codes[:3], False, n_boot=0, scoring=scoring).mean)
        assert np.isfinite(judge_agreement(codes, False, n_boot=0, scoring=scoring).mean)


def write_judges(path, codes, labels=("1", "2", "3", "4", "5")):
    """A long CSV of judge labels."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "rater", "label"])
        for item, row in enumerate(codes):
            for judge, code in enumerate(row):
                if code >= 0:
                    writer.writerow([f"i{item}", f"j{judge}", labels[code]])


def test_the_command_and_python_report_the_coefficient(tmp_path, capsys):
    path = tmp_path / "judges.csv"
    write_judges(path, judge_codes())
    args = ["wellposed", str(path), "--boot", "50", "--coefficient", "krippendorff_alpha"]
    assert main([*args, "--level", "ordinal", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["coefficient"] == "krippendorff_alpha (ordinal)"
    assert document["graded"] is None
    assert document["groups"][0]["measure"] == "krippendorff_alpha (ordinal)"
    result = simcore.wellposed(path, boot=50, coefficient="krippendorff_alpha", level="ordinal")
    assert result.to_dict()["groups"] == document["groups"]
    assert "; scored by krippendorff_alpha (ordinal)" in result.to_markdown()


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--coefficient", "cohen_kappa", "--graded"], "graded: --coefficient"),
        (["--coefficient", "cohen_kappa", "--level", "ordinal"], "level: ordinal"),
        (["--weights", "linear"], "weights: --weights needs --coefficient"),
    ],
)
def test_a_coefficient_that_does_not_fit_exits_2(tmp_path, capsys, flags, named):
    path = tmp_path / "judges.csv"
    write_judges(path, judge_codes())
    assert main(["wellposed", str(path), "--boot", "5", *flags]) == 2
    error = capsys.readouterr().err
    assert str(path) in error and named in error


def test_weights_on_text_labels_are_refused(tmp_path, capsys):
    path = tmp_path / "judges.csv"
    write_judges(path, judge_codes(), labels=("a", "b", "c", "d", "e"))
    args = ["wellposed", str(path), "--boot", "5", "--coefficient", "gwet_ac2"]
    assert main([*args, "--weights", "linear"]) == 2
    assert "are not numbers" in capsys.readouterr().err
    assert main([*args]) == 0  # nominal AC1 reads the codes only
