"""One decision about the label scale, stated by every command (simcore.realdata.label_scale).

The rating matrix is built so that exact match and the scale-aware scoring disagree: the
humans are right 70% of the time and otherwise say any other rating (far ones too); the
judge is right half the time and otherwise one step off. By exact match the judge agrees
less with the humans than they do with each other (reject); by ordinal alpha its errors are
the smaller ones (accept).
"""

import json

import numpy as np
import pytest

import simcore
from simcore.advisor.report.files import summary
from simcore.cli import main
from simcore.realdata.label_scale import label_scale
from simcore.report import summary as summary_of


def rating_rows(seed=1, n_items=300, n_humans=5, coverage=0.3):
    """Long rows of a 1-5 matrix whose verdict flips between exact match and ordinal alpha."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    rows = []
    for human in range(n_humans):
        right = rng.random(n_items) < 0.7
        other = (truth - 1 + rng.integers(1, 5, n_items)) % 5 + 1
        labels = np.where(right, truth, other)
        seen = np.ones(n_items, bool) if human == 0 else rng.random(n_items) < coverage
        rows += [(f"i{i}", f"h{human}", int(labels[i])) for i in np.flatnonzero(seen)]
    step = np.where(rng.random(n_items) < 0.5, -1, 1)
    near = np.clip(truth + step, 1, 5)
    near = np.where(near == truth, truth - step, near)
    judge = np.where(rng.random(n_items) < 0.5, truth, near)
    rows += [(f"i{i}", "judge", int(judge[i])) for i in range(n_items)]
    return rows


def nominal_rows():
    """The same shape with text labels: categories, nothing to check."""
    names = {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}
    return [(item, rater, names[label]) for item, rater, label in rating_rows()]


def write(path, rows):
    path.write_text("item,rater,label\n" + "".join(f"{i},{r},{v}\n" for i, r, v in rows))
    return path


@pytest.fixture(scope="module")
def matrices(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scale")
    return write(folder / "stars.csv", rating_rows()), write(folder / "nominal.csv", nominal_rows())


def cli_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def cli_text(capsys, *argv):
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_the_decision_reads_numbers_and_declared_orders_only():
    assert label_scale(["1", "2", "3", "4", "5"]).is_rating
    assert label_scale(["1", "2", "3", "4", "5"]).basis == "numbers"
    assert label_scale(["0", "1"]).kind == "categories"  # two numbers: a yes/no
    assert label_scale(["low", "mid", "high"]).kind == "categories"
    declared = label_scale(["low", "mid", "high"], ordinal=True)
    assert declared.is_rating and declared.basis == "declared order"
    assert declared.text() == "rating scale low < mid < high (declared order)"


def test_advise_says_a_verdict_that_flips_with_the_scoring_is_not_settled(matrices, tmp_path):
    stars, _ = matrices
    advice = simcore.advise(str(stars), judges=["judge"], trials=40)
    text = summary(advice)
    first = text.splitlines()
    assert first[1].startswith("labels: rating scale 1 < 2 < 3 < 4 < 5 (numbers); scored by ")
    assert "observed agreement (exact match)" in first[1]
    assert "Krippendorff's alpha, ordinal level" in first[1]
    verdict = next(line for line in first if line.startswith("judge: "))
    assert "reject" in verdict
    assert "settled only under observed agreement (exact match)" in verdict
    assert "accept" in verdict.split("settled only under")[1]
    assert "not settled for judge" in first[0]  # the recommendation counts it
    document = advice.to_dict()
    scale = document["scale"]
    assert scale["kind"] == "rating" and scale["scoring"] == "observed agreement (exact match)"
    assert scale["other_scoring"] == "Krippendorff's alpha, ordinal level"
    assert scale["verdicts_under_other"]["judge"]["decision"] == "accept"
    assert scale["verdicts_under_other"]["judge"]["settled_across_scorings"] is False
    assert "not settled for judge" in document["recommendation"]["text"]
    report = advice.to_markdown()
    assert "no: settled only under observed agreement (exact match)" in report
    assert "**Not settled for judge" in report


def test_a_scale_aware_choice_is_checked_against_exact_match(matrices):
    stars, _ = matrices
    advice = simcore.advise(
        str(stars), judges=["judge"], trials=40, coefficient="krippendorff_alpha", level="ordinal"
    )
    scale = advice.to_dict()["scale"]
    assert scale["other_scoring"] == "observed agreement (exact match)"
    assert scale["verdicts_under_other"]["judge"]["decision"] == "reject"
    assert advice.verdicts[0]["decision"] == "accept"


def test_on_categories_nothing_extra_is_printed(matrices):
    _, nominal = matrices
    advice = simcore.advise(str(nominal), judges=["judge"], trials=40)
    text = summary(advice)
    assert "settled only" not in text and "not settled" not in text
    assert "labels: categories a, b, c, d, e (text labels); scored by observed" in text
    scale = advice.to_dict()["scale"]
    assert scale["kind"] == "categories" and scale["other_scoring"] is None
    assert scale["verdicts_under_other"] is None
    assert "settled across scorings" not in advice.to_markdown()


def test_every_data_command_states_the_scale_and_scoring(matrices, capsys, tmp_path):
    stars, nominal = matrices
    inspected = cli_json(capsys, "inspect", str(stars), "--judges", "judge")
    assert inspected["scale"]["kind"] == "rating"
    assert inspected["scale"]["scoring"] == "observed agreement (exact match)"
    text = cli_text(capsys, "inspect", str(stars), "--judges", "judge")
    assert "labels: 5, rating scale (numbers: 1, 2, 3, 4, 5)\nscoring: observed agreement" in text
    ceiling = cli_json(capsys, "ceiling", str(stars), "--judges", "judge", "--boot", "50")
    assert ceiling["scale"]["kind"] == "rating"
    assert ceiling["scale"]["scoring"] == "Spearman (scale-aware)"
    assert ceiling["scale"]["other_scoring"] == "Cohen's kappa (exact match)"
    (position,) = ceiling["scale"]["positions_under_other"]
    assert position["position"] != position["other_position"]
    assert position["settled_across_scorings"] is False
    text = cli_text(capsys, "ceiling", str(stars), "--judges", "judge", "--boot", "50")
    assert text.startswith("labels: rating scale 1 < 2 < 3 < 4 < 5 (numbers); scored by Spear")
    assert "Positions that differ under Cohen's kappa (exact match)" in text
    nominal_ceiling = cli_json(capsys, "ceiling", str(nominal), "--judges", "judge", "--boot", "50")
    assert nominal_ceiling["scale"]["scoring"] == "Cohen's kappa (exact match)"
    assert nominal_ceiling["scale"]["positions_under_other"] is None
    card = tmp_path / "card.json"
    options = ["--judges", "judge", "--criterion", "stars", "--population", "test"]
    options += ["--fail-at-most", "2", "--out", str(card)]
    text = cli_text(capsys, "card", str(stars), *options[:-2], "--judge", "judge", *options[-2:])
    assert "labels: rating scale 1 < 2 < 3 < 4 < 5 (numbers); scored by FAIL = " in text


def test_wellposed_states_the_scale(tmp_path, capsys):
    rows = [
        (f"i{i}", judge, 1 + (i * (2 + j)) % 5)
        for i in range(60)
        for j, judge in enumerate(("j1", "j2", "j3"))
    ]
    data = write(tmp_path / "judges.csv", rows)
    document = cli_json(capsys, "wellposed", str(data), "--judges", "j1,j2,j3", "--boot", "20")
    assert document["scale"] == {
        "kind": "rating",
        "basis": "numbers",
        "labels": ["1", "2", "3", "4", "5"],
        "scoring": "Spearman (scale-aware)",
    }


def test_a_real_run_states_the_scale_and_the_full_verdicts_that_flip(matrices, tmp_path):
    stars, nominal = matrices
    for data, flips in ((stars, True), (nominal, False)):
        scenario = tmp_path / f"{data.stem}.yaml"
        scenario.write_text(
            f"name: {data.stem}\nkind: real\ndata:\n  format: csv\n  path: {data}\n"
            "  judges: [judge]\nsweep:\n  design: [bernoulli]\n  coverage: [0.5]\n"
            "trials: 4\nseed: 1\n"
        )
        cube = simcore.run(scenario)
        text = summary_of(cube)
        if flips:
            assert cube.attrs["label_scale"] == "rating scale 1 < 2 < 3 < 4 < 5 (numbers)"
            assert "scored by observed agreement (exact match)" in text
            (row,) = json.loads(cube.attrs["scale_check"])
            assert (row["accept"], row["other_accept"]) == (False, True)
            assert "full-matrix verdicts that differ under Krippendorff's alpha" in text
        else:
            assert cube.attrs["label_scale"].startswith("categories a, b, c, d, e")
            assert "scale_check" not in cube.attrs and "differ under" not in text
