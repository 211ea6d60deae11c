"""The sweep tables and the plan print every rate and size with the precision it has.

A rate from fewer than 10 events prints its exact 95% interval, never ``± 0.0``; a plan
size beyond the corpus is said in words; the paper's published means stand beside a real
run only where its scenario declares ``published: paper``; counts agree with their nouns.
"""

import json

import numpy as np
import pandas as pd
import pytest
import yaml

import simcore
from simcore.cli import main
from simcore.studies.config import read_raw
from simcore.studies.real.tables import counted, mean_text
from simcore.studies.real.tables import summary as real_summary
from simcore.studies.synthetic.report import grid_table, long_table

TINY = {
    "name": "tiny",
    "model": {"n_items": 40, "n_humans": 3, "p_judge": 0.8},
    "design": {"kind": "bernoulli"},
    "trials": 4,
    "seed": 1,
    "sweep": {"p_human": [0.8, 0.9], "rho": [0.25, 0.5]},
}


@pytest.fixture(scope="module")
def counted_cube():
    """A 2 x 2 cube whose cells hold 0, 1, 9 and 660 wrong decisions in 2,000 trials."""
    cube = simcore.run(TINY).copy()
    wrong = np.array([[0, 1], [9, 660]], dtype=np.int64)
    shape = cube["n_trials"].dims
    cube["n_trials"] = (shape, np.full((2, 2), 2000, dtype=np.int64))
    cube["n_wrong"] = (shape, wrong)
    cube["n_ref_accept"] = (shape, np.full((2, 2), 2000, dtype=np.int64))
    cube["n_false_reject"] = (shape, wrong)
    cube["n_ref_reject"] = (shape, np.zeros((2, 2), dtype=np.int64))
    cube["n_false_accept"] = (shape, np.zeros((2, 2), dtype=np.int64))
    for name in ("wrong_decision_rate", "false_rejection_rate"):
        cube[name] = (shape, wrong / 2000)
        cube[f"{name}_se"] = (shape, np.sqrt(wrong / 2000 * (1 - wrong / 2000) / 2000))
    return cube


def test_the_grid_prints_few_events_as_their_exact_interval(counted_cube):
    grid = grid_table(counted_cube)
    assert "< 0.15" in grid  # none in 2,000: 1 - 0.05^(1/2000)
    assert "0.05 [0.00, 0.28]" in grid  # one in 2,000
    assert "0.45 [0.21, 0.85]" in grid  # nine in 2,000
    assert "33.0 ± 1.1" in grid  # many: r ± se
    assert "± 0.0" not in grid
    assert "exact 95% interval where fewer than 10 events" in grid.splitlines()[0]


def test_the_long_table_prints_the_same_rule_and_says_so(counted_cube):
    table = long_table(counted_cube)
    assert table.count("< 0.15") == 2  # wrong decisions and false rejections of one cell
    assert "0.05 [0.00, 0.28]" in table and "33.0 ± 1.1" in table
    assert "± 0.0" not in table and "(n=" not in table
    assert table.splitlines()[-1].startswith("rates in %: r ± se (binomial SE); where fewer")


def test_counts_agree_with_their_nouns_and_means_never_print_zero_spread():
    assert counted(1, "matrix", "matrices") == "1 matrix"
    assert counted(4, "matrix", "matrices") == "4 matrices"
    assert counted(1, "judge-matrix pair") == "1 judge-matrix pair"
    assert mean_text(0.0, 0.0, 12_000) == "< 0.025"  # no event in 40 pairs of 300 trials
    assert mean_text(0.25, 0.004, 12_000) == "25.0 ± 0.4"
    assert mean_text(0.0125, 0.00001, 400_000) == "1.250 ± 0.001"  # the SE's figure shows
    assert mean_text(np.nan, np.nan) == "-"


def test_plan_says_a_size_beyond_the_corpus_in_words(capsys):
    assert main(["plan", "--items", "60", "--margin", "0.05", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "simulated: m = more than the 60 items of the corpus per secondary" in out
    assert "with all 60 items co-labelled the rate is " in out
    assert "recipe: m_cert = more than the 60 items of the corpus (recipe: 392;" in out
    assert main(["plan", "--items", "60", "--margin", "0.05", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)["answer"]
    assert answer["m"] == -1 and answer["recipe_items"] == 392
    assert answer["exceeds_corpus"] == {
        "m": True,
        "m_conservative": True,
        "m_optimistic": True,
        "recipe_items": True,
    }
    assert main(["plan", "--rank", "--n-judges", "5", "--gap", "0.02", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answer"]["exceeds_corpus"] is True


def own_matrix(tmp_path):
    """A user's own 40-item long CSV: four humans and one judge on a binary label."""
    generator = np.random.default_rng(5)
    truth = generator.integers(0, 2, 40)
    rows = [
        (f"i{item}", rater, int(label if generator.random() < accuracy else 1 - label))
        for rater, accuracy in (("h1", 0.9), ("h2", 0.85), ("h3", 0.8), ("h4", 0.9), ("j", 0.85))
        for item, label in enumerate(truth)
    ]
    path = tmp_path / "own.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def test_a_real_run_on_a_users_matrix_has_no_paper_column_and_one_matrix(tmp_path):
    raw = {
        "name": "own",
        "kind": "real",
        "data": {"path": str(own_matrix(tmp_path)), "judges": ["j"]},
        "trials": 30,
        "seed": 1,
        "sweep": {"design": ["bernoulli"], "coverage": [0.05, 0.5]},
    }
    text = real_summary(simcore.run(raw))
    assert "paper FR" not in text and "Random FR 29.0" not in text
    assert "| design | coverage | FR | FA | WDR |" in text
    assert "1 judge-matrix pair (" in text and "Means over 1 matrix," in text
    assert "± 0.0" not in text
    declared = simcore.run({**raw, "published": "paper"})  # declared: the paper's columns
    assert "| paper FR | paper FA | paper WDR |" in real_summary(declared)


def test_a_set_of_data_or_rule_turns_the_papers_numbers_off(tmp_path):
    path = tmp_path / "real.yaml"
    path.write_text(yaml.safe_dump({"kind": "real", "published": "paper", "data": {"path": "x"}}))
    assert read_raw(path)["published"] == "paper"
    assert read_raw(path, ["trials=5", "sweep.coverage=[0.1]"])["published"] == "paper"
    assert read_raw(path, ["data.path=mine.csv"])["published"] == "none"
    assert read_raw(path, ["rule.coefficient=cohen_kappa"])["published"] == "none"


def test_coverage_tables_print_few_misses_as_their_exact_interval():
    from simcore.calibration.real.ppi import COMPARED, ppi_table_lines
    from simcore.studies.coverage.report import summary as coverage_summary

    raw = {
        "name": "cov",
        "kind": "coverage",
        "judges": {"strong": {"se": 0.95, "sp": 0.9}},
        "trials": 40,
        "seed": 3,
        "sweep": {"n_cal": [200], "theta": [0.1], "n_production": [1000]},
    }
    text = coverage_summary(simcore.run(raw))
    assert "exact 95% interval where fewer than 10 trials missed" in text
    assert "] / 0." in text and "± 0.0" not in text  # 40 trials: few misses at ~95%
    row = {"judge": "j", "n_cal": 25, "refused": 0.0, "n_corrected": 300}
    for method in COMPARED:
        row |= {f"{method}_coverage": 1.0, f"{method}_se": 0.0, f"{method}_width": 0.2}
        row |= {f"{method}_refused": 0.0, f"{method}_kept": 300}
    lines = "\n".join(ppi_table_lines([row], False, 0.95))
    assert "| j | 25 | > 99.01 / 0.200 |" in lines and "± 0.0" not in lines  # 1 - 0.05^(1/300)


def test_a_rate_of_many_trials_shows_its_se_to_its_first_figure():
    from simcore.printed_rates import rate_text

    assert rate_text(10, 100_000) == "0.010 ± 0.003"  # not 0.0 ± 0.0
