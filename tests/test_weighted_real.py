"""The real-data protocol under a weighted coefficient, and the scorings table.

On CeBaB stars (1-5, sparse: 3-4 of 10 humans an item) the full-matrix omega of every judge
under ordinal alpha and under linear-weighted agreement equals a NumPy oracle that builds
each leave-one-out comparison's pair table and scores it by the coefficient's two-rater
definition; text labels are refused for a weighted coefficient naming the labels; and
``simcore tables --scorings`` lays two scorings side by side with the judges whose verdict
changes.
"""

from pathlib import Path

import numpy as np
import pytest

import simcore
from simcore.cli import main
from simcore.model import weighted
from simcore.model.rule import comparison_tables
from simcore.realdata.readers import read_annotations

REPO = Path(__file__).resolve().parents[1]
STARS = REPO.parent / "shared" / "data" / "alttest" / "cebab_stars"
SCENARIO = REPO / "scenarios" / "real_cebab_stars.yaml"
HUMANS = ["w197", "w2", "w40", "w198", "w168", "w162", "w152", "w44", "w65", "w91"]


def oracle_omega(coefficient, level, weights):
    matrix = read_annotations(str(STARS), humans=HUMANS)
    values = np.array([float(label) for label in matrix.labels])
    humans = matrix.human_labels
    n_humans, n_labels = humans.shape[1], len(matrix.labels)
    labels = np.concatenate([np.maximum(humans, 0), matrix.judge_labels], axis=1)[None]
    judge_tables, human_tables, _ = (
        table[0] for table in comparison_tables(labels, (humans >= 0)[None], n_humans, n_labels)
    )

    def score(table):
        value = weighted.pair_table_score(table, coefficient, values, level, weights)
        return 0.0 if np.isnan(value) else value

    human = np.array([score(table) for table in human_tables])
    judge = np.array([[score(table) for table in tables] for tables in judge_tables])
    return ((judge - human[None, :] + 0.05) >= -1e-12).mean(axis=1)


def run_stars(tmp_path, name, **rule):
    sets = {"sweep.design": ["bernoulli"], "sweep.coverage": [0.1]}
    sets.update({f"rule.{key}": value for key, value in rule.items()})
    return simcore.run(SCENARIO, out=tmp_path / f"{name}.zarr", trials=20, sets=sets)


@pytest.mark.parametrize(
    ("coefficient", "level", "weights"),
    [("krippendorff_alpha", "ordinal", "identity"), ("observed", "nominal", "linear")],
)
def test_full_matrix_omega_equals_the_numpy_oracle(tmp_path, coefficient, level, weights):
    cube = run_stars(tmp_path, "weighted", coefficient=coefficient, level=level, weights=weights)
    expected = oracle_omega(coefficient, level, weights)
    np.testing.assert_allclose(cube["full_omega"].values, expected, atol=1e-12)
    nominal = oracle_omega(coefficient, "nominal", "identity")
    assert not np.allclose(expected, nominal)  # the weighting changes some comparisons


def test_text_labels_are_refused_for_a_weighted_coefficient(capsys):
    wax = REPO / "scenarios" / "real_wax.yaml"
    code = main(["run", str(wax), "--trials", "2", "--set", "rule.weights=linear"])
    err = capsys.readouterr().err
    assert code == 2
    assert "labels:" in err and "are not numbers or a declared order" in err
    assert len(err.strip().splitlines()) == 1


def test_the_scorings_table_sets_two_scorings_side_by_side(tmp_path, capsys):
    run_stars(tmp_path, "ordinal", coefficient="krippendorff_alpha", level="ordinal")
    run_stars(tmp_path, "nominal", coefficient="krippendorff_alpha")
    stores = [str(tmp_path / f"{name}.zarr") for name in ("nominal", "ordinal")]
    out = tmp_path / "scorings.md"
    assert main(["tables", *stores, "--scorings", str(out)]) == 0
    text = out.read_text()
    assert "| real_cebab_stars | krippendorff_alpha | 4 of 6 |" in text
    assert "| real_cebab_stars | krippendorff_alpha (ordinal) | 6 of 6 |" in text
    assert "- real_cebab_stars: gemini_flash: krippendorff_alpha: reject (omega 0.20); " in text
    capsys.readouterr()


ASPECTS = REPO.parent / "shared" / "data" / "alttest" / "cebab_aspects"
ORDER = ["Negative", "unknown", "Positive"]


def test_a_declared_label_order_lets_text_labels_take_a_weighted_coefficient(capsys):
    document = simcore.agreement(
        ASPECTS, "krippendorff_alpha", level="ordinal", label_order=ORDER, boot=0
    ).to_dict()
    matrix = read_annotations(str(ASPECTS), labels=ORDER, ordinal=True)
    expected = weighted.krippendorff_alpha(matrix.human_labels, np.arange(3.0), "ordinal")
    assert document["agreement"] == pytest.approx(expected, abs=1e-12)
    nominal = weighted.krippendorff_alpha(matrix.human_labels, np.arange(3.0), "nominal")
    assert abs(expected - nominal) > 0.01  # the order matters
    flags = ["inspect", str(ASPECTS), "--agreement", "krippendorff_alpha", "--level", "ordinal"]
    assert main([*flags, "--label-order", ",".join(ORDER), "--boot", "0"]) == 0
    out = capsys.readouterr().out
    assert f"{expected:.3f}" in out and "label values from declared order" in out
    assert main([*flags, "--boot", "0"]) == 2
    err = capsys.readouterr().err
    assert "--label-order A,B,..." in err and len(err.strip().splitlines()) == 1


def test_label_order_and_labels_together_are_refused():
    with pytest.raises(ValueError, match="label_order: declares the labels"):
        read_annotations(str(ASPECTS), labels=ORDER, label_order=ORDER)


def test_every_data_command_reads_the_label_order(tmp_path, capsys):
    """A label order that leaves out a label is refused by each, so none ignores it."""
    partial = ["Negative", "Positive"]
    for command in (simcore.advise, simcore.ceiling, simcore.inspect):
        with pytest.raises(ValueError, match="outside the declared labels"):
            command(ASPECTS, label_order=partial)
    flags = ["--label-order", ",".join(partial)]
    assert main(["advise", str(ASPECTS), *flags, "--out", str(tmp_path / "a")]) == 2
    assert "outside the declared labels" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()
