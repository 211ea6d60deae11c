"""simcore ceiling under a chosen coefficient: pairs, consensus and ceilings."""

import json
from itertools import combinations

import numpy as np
import pytest
from pair_references import VALUES, reference

import simcore
from simcore.cli import main
from simcore.instrument.ceiling.human_ceilings import consensus, human_ceilings, pairwise_agreement
from simcore.model.weighted import scoring_of


def human_codes(seed=5, n_items=90, n_raters=5, coverage=0.6):
    """Sparse ratings on a 1-5 scale: each rater near the item's truth, some a step high."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, n_items)
    codes = np.clip(truth[:, None] + rng.integers(-1, 2, (n_items, n_raters)), 0, 4)
    codes[:, 0] = np.clip(codes[:, 0] + 1, 0, 4)
    return np.where(rng.random((n_items, n_raters)) < coverage, codes, -1)


@pytest.mark.parametrize(
    "spec",
    [
        ("krippendorff_alpha", "ordinal", "identity"),
        ("krippendorff_alpha", "ratio", "identity"),
        ("cohen_kappa", "nominal", "linear"),
        ("gwet_ac2", "nominal", "quadratic"),
    ],
    ids=lambda spec: "-".join(spec),
)
def test_every_pair_is_the_reference_coefficient_and_r_hat_their_weighted_mean(spec):
    codes = human_codes()
    scoring = scoring_of(spec[0], VALUES, *spec[1:])
    result = pairwise_agreement(codes, scoring, min_overlap=3)
    for (a, b), value in zip(result.pairs, result.values, strict=True):
        assert value == pytest.approx(reference(codes[:, a], codes[:, b], *spec), abs=1e-10)
    assert result.weighted_mean == pytest.approx(
        np.average(result.values, weights=result.overlaps), abs=1e-12
    )
    assert len(result.pairs) == len(list(combinations(range(5), 2)))


def test_nominal_kappa_as_a_coefficient_gives_the_categorical_ceilings():
    codes = human_codes()
    categorical = human_ceilings(codes, False, n_boot=40, seed=3)
    scored = human_ceilings(codes, scoring_of("cohen_kappa", VALUES), n_boot=40, seed=3)
    for name in ("reliability", "benchmark", "leave_one_out", "symmetric"):
        np.testing.assert_allclose(getattr(scored, name), getattr(categorical, name), atol=1e-12)


def test_the_consensus_is_the_code_closest_to_the_labels_under_the_weights():
    codes = np.array([[0, 0, 4, -1], [0, 3, 4, 4], [1, 2, 3, 4], [0, 4, 4, 0]])
    majority = consensus(codes, scoring_of("cohen_kappa", VALUES))
    assert majority.tolist() == consensus(codes, False).tolist()
    median = consensus(codes, scoring_of("cohen_kappa", VALUES, weights="linear"))
    assert median.tolist() == [0, 3, 2, 0]  # a median of each item's labels (ties: the lowest)
    ordinal = consensus(codes, scoring_of("krippendorff_alpha", VALUES, "ordinal"))
    assert ordinal.tolist() == median.tolist()
    nearest_mean = consensus(codes, scoring_of("cohen_kappa", VALUES, weights="quadratic"))
    assert nearest_mean.tolist() == [1, 3, 2, 2]  # the code nearest each item's mean


def write_matrix(path, codes):
    """A long CSV of humans (h0..) and one judge near the first human."""
    lines = ["item,rater,label"]
    for item, row in enumerate(codes):
        lines += [f"i{item},h{r},{code + 1}" for r, code in enumerate(row) if code >= 0]
        lines.append(f"i{item},judge,{max(row.max(), 0) + 1}")
    path.write_text("\n".join(lines) + "\n")


def test_the_command_and_python_name_the_coefficient(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    write_matrix(path, human_codes())
    args = ["ceiling", str(path), "--judges", "judge", "--boot", "30"]
    assert main([*args, "--coefficient", "cohen_kappa", "--weights", "quadratic", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["coefficient"] == "cohen_kappa (quadratic)" and document["graded"] is None
    result = simcore.ceiling(
        path, judges="judge", boot=30, coefficient="cohen_kappa", weights="quadratic"
    )
    assert result.to_dict()["groups"] == document["groups"]
    assert "Human ceilings (cohen_kappa (quadratic);" in result.to_markdown()


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--coefficient", "gwet_ac2", "--categorical"], "graded: --coefficient"),
        (["--coefficient", "krippendorff_alpha", "--weights", "linear"], "weights: linear"),
        (["--level", "interval"], "level: --level needs --coefficient"),
    ],
)
def test_a_coefficient_that_does_not_fit_exits_2(tmp_path, capsys, flags, named):
    path = tmp_path / "ratings.csv"
    write_matrix(path, human_codes())
    assert main(["ceiling", str(path), "--judges", "judge", "--boot", "5", *flags]) == 2
    error = capsys.readouterr().err
    assert str(path) in error and named in error
