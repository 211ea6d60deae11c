"""advise runs the rule in the form the matrix's shape calls for, and says which."""

import json

import pytest

import simcore
from simcore.advisor.advise_options import FORM_NAMES
from simcore.cli import main
from simcore.model.rule_form import FORMS
from simcore.realdata.shapes import draw_matrix, write_long_csv


@pytest.fixture(scope="module")
def crowd_csv(tmp_path_factory):
    humans, judges = draw_matrix(160, 40, 1, 2, 0.04, judge_accuracies=[0.7], seed=6)
    return write_long_csv(humans, judges, tmp_path_factory.mktemp("crowd") / "crowd.csv")


def test_the_command_line_knows_every_form():
    assert FORM_NAMES == FORMS


def test_advise_pools_a_crowd_by_default_and_says_so(crowd_csv, tmp_path, capsys):
    code = main(
        ["advise", str(crowd_csv), "--judges", "judge0", "--trials", "40", "--quiet"]
        + ["--min-items", "20", "--out", str(tmp_path / "a"), "--json"]
    )
    assert code == 0
    document = json.loads(capsys.readouterr().out)["groups"]["all"]
    assert document["shape"]["kind"] == "crowd"
    assert document["rule_form"]["form"] == "pooled"
    assert "crowd" in document["rule_form"]["reason"]
    assert any(name.startswith("pool ") for name in document["humans"])
    report = (tmp_path / "a" / "report.md").read_text()
    assert "The rule ran in its form: pooled" in report


def test_the_published_rule_stays_selectable_and_is_stated(crowd_csv):
    advice = simcore.advise(crowd_csv, judges="judge0", trials=40, form="raters")
    assert advice.rule_form.form == "raters" and advice.rule_form.reason == "given"
    assert len(advice.humans) == 40
    assert "The rule ran in its form: raters" in advice.to_markdown()


def test_a_form_with_alt_test_is_refused_naming_the_option(crowd_csv, tmp_path, capsys):
    code = main(
        ["advise", str(crowd_csv), "--judges", "judge0", "--rule", "alt_test"]
        + ["--form", "pooled", "--out", str(tmp_path / "b")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--form" in err and "pooled" in err
    with pytest.raises(ValueError, match="form"):
        simcore.advise(crowd_csv, judges="judge0", rule="alt_test", form="slots")
