"""Scenario files: loading fig2, every kind of bad input, overrides, seed keys, hashes."""

import numpy as np
import pytest
import yaml
from scenario_files import DELETE, FIG2, variant, write_scenario

from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.scenario import load_scenario, scenario_from_dict

BASE = {
    "name": "tiny",
    "model": {"n_items": 50, "n_humans": 3, "n_labels": 2, "p_human": 0.85, "p_judge": 0.85},
    "design": {"kind": "bernoulli", "rho": 0.5},
    "rule": {"epsilon": 0.05},
    "trials": 20,
    "seed": 7,
}


def problems_of(path, **kwargs):
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, **kwargs)
    assert info.value.problems, "ScenarioError without problems"
    return info.value.problems


def problem_for(problems, path, key):
    """Return the one problem reported for ``key`` in the file at ``path``."""
    prefix = f"{path}: {key}: "
    matches = [problem for problem in problems if problem.startswith(prefix)]
    assert len(matches) == 1, f"expected one problem starting {prefix!r}, got {problems}"
    return matches[0]


def only_problem(tmp_path, changes, key, got):
    """Write ``BASE`` with ``changes``; check it fails with one problem for ``key``."""
    path = write_scenario(tmp_path, variant(BASE, changes))
    problems = problems_of(path)
    assert len(problems) == 1, problems
    message = problem_for(problems, path, key)
    assert message.endswith(f"(got {got})"), message
    return message


def cell_where(scenario, p_judge, rho):
    matches = [
        cell
        for cell in scenario.cells()
        if cell.model.p_judge == p_judge and cell.design.rho == rho
    ]
    assert len(matches) == 1, matches
    return matches[0]


# --------------------------------------------------------------------------- fig2


def test_fig2_loads_with_its_sweep():
    scenario = load_scenario(FIG2)
    assert scenario.dims == ("p_judge", "rho")
    assert scenario.shape == (5, 4)
    assert len(list(scenario.cells())) == 20
    assert scenario.trials == 2000


def test_fig2_cells_have_distinct_seed_keys_of_four_32_bit_words():
    keys = [cell.seed_key() for cell in load_scenario(FIG2).cells()]
    assert len(set(keys)) == 20
    words = np.array(keys)
    assert words.shape == (20, 4)
    assert words.min() >= 0
    assert words.max() < 2**32


def test_base_scenario_is_valid(tmp_path):
    scenario = load_scenario(write_scenario(tmp_path, BASE))
    assert scenario.model.n_items == 50
    assert scenario.dims == ()
    assert len(list(scenario.cells())) == 1


# --------------------------------------------------------------------------- bad input


def test_unknown_top_level_key_lists_valid_keys(tmp_path):
    path = write_scenario(tmp_path, variant(BASE, {"bogus": 1}))
    message = problem_for(problems_of(path), path, "bogus")
    assert "unknown key" in message
    for valid in ("model", "design", "rule", "trials", "seed", "sweep", "output"):
        assert valid in message.split("valid keys:", 1)[1]


def test_unknown_model_key_lists_valid_model_keys(tmp_path):
    path = write_scenario(tmp_path, variant(BASE, {"model.nope": 3}))
    message = problem_for(problems_of(path), path, "model.nope")
    assert "unknown key" in message
    valid = message.split("valid keys:", 1)[1]
    for key in ("n_items", "n_humans", "n_labels", "p_human", "p_judge", "prevalence"):
        assert key in valid


def test_wrong_type_names_key_and_value(tmp_path):
    message = only_problem(tmp_path, {"model.n_items": "abc"}, "model.n_items", "'abc'")
    assert "integer" in message


@pytest.mark.parametrize("value", [0, 1.5, -0.1])
def test_p_judge_outside_unit_interval(tmp_path, value):
    message = only_problem(tmp_path, {"model.p_judge": value}, "model.p_judge", value)
    assert "(0, 1]" in message


def test_p_human_zero(tmp_path):
    only_problem(tmp_path, {"model.p_human": 0}, "model.p_human", 0)


@pytest.mark.parametrize("value", [0, -0.1])
def test_rho_not_positive(tmp_path, value):
    only_problem(tmp_path, {"design.rho": value}, "design.rho", value)


def test_rho_above_one(tmp_path):
    only_problem(tmp_path, {"design.rho": 1.5}, "design.rho", 1.5)


def test_swept_rho_not_positive_names_sweep_entry(tmp_path):
    only_problem(tmp_path, {"sweep.rho": [0.5, -0.1]}, "sweep.rho[1]", -0.1)


def test_m_larger_than_n_items(tmp_path):
    changes = {
        "model.n_items": 500,
        "design.kind": "exact_m",
        "design.m": 600,
        "design.rho": DELETE,
    }
    message = only_problem(tmp_path, changes, "design.m", 600)
    assert "500" in message


def test_swept_m_larger_than_n_items_names_sweep(tmp_path):
    changes = {
        "model.n_items": 500,
        "design.kind": "exact_m",
        "design.rho": DELETE,
        "sweep.m": [100, 600],
    }
    message = only_problem(tmp_path, changes, "sweep.m", 600)
    assert "m=600" in message


def test_fewer_than_two_humans(tmp_path):
    only_problem(tmp_path, {"model.n_humans": 1}, "model.n_humans", 1)


def test_empty_sweep_list(tmp_path):
    only_problem(tmp_path, {"sweep": {"rho": []}}, "sweep.rho", "[]")


def test_unknown_sweep_parameter_lists_valid_ones(tmp_path):
    path = write_scenario(tmp_path, variant(BASE, {"sweep.bogus": [1, 2]}))
    message = problem_for(problems_of(path), path, "sweep.bogus")
    assert "unknown sweep parameter" in message
    assert "p_judge" in message
    assert "rho" in message


def test_bernoulli_without_rho(tmp_path):
    message = only_problem(tmp_path, {"design.rho": DELETE}, "design.rho", "null")
    assert "bernoulli" in message


def test_file_holding_a_list(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text(yaml.safe_dump([1, 2]))
    (message,) = problems_of(path)
    assert message.startswith(f"{path}: ")
    assert "mapping" in message
    assert message.endswith("(got [1, 2])")


def test_invalid_yaml_syntax(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("model: {n_items: 40\ndesign: [\n")
    (message,) = problems_of(path)
    assert message.startswith(f"{path}:2:7: ")  # file:line:column of the error, one line
    assert "not valid YAML" in message and "\n" not in message


def test_missing_file(tmp_path):
    path = tmp_path / "absent.yaml"
    (message,) = problems_of(path)
    assert message.startswith(f"{path}: ")
    assert "no such file" in message


def test_directory_instead_of_file(tmp_path):
    (message,) = problems_of(tmp_path)
    assert message.startswith(f"{tmp_path}: ")
    assert "directory" in message


def test_zero_trials(tmp_path):
    only_problem(tmp_path, {"trials": 0}, "trials", 0)


def test_negative_seed(tmp_path):
    only_problem(tmp_path, {"seed": -1}, "seed", -1)


def test_prevalence_not_summing_to_one(tmp_path):
    message = only_problem(
        tmp_path, {"model.prevalence": [0.5, 0.4]}, "model.prevalence", "[0.5, 0.4]"
    )
    assert "sum to 1" in message


def test_prevalence_length_differs_from_n_labels(tmp_path):
    only_problem(tmp_path, {"model.prevalence": [0.5, 0.25, 0.25]}, "model.prevalence", 3)


def test_p_human_list_of_wrong_length(tmp_path):
    message = only_problem(tmp_path, {"model.p_human": [0.8, 0.9]}, "model.p_human", 2)
    assert "3" in message


def test_three_unknown_keys_all_reported(tmp_path):
    path = write_scenario(tmp_path, variant(BASE, {"bogus": 1, "model.nope": 2, "design.wat": 3}))
    problems = problems_of(path)
    assert len(problems) == 3
    for key in ("bogus", "model.nope", "design.wat"):
        problem_for(problems, path, key)


def test_three_bad_values_all_reported(tmp_path):
    changes = {"model.n_items": "abc", "model.p_judge": 1.5, "trials": 0}
    path = write_scenario(tmp_path, variant(BASE, changes))
    problems = problems_of(path)
    assert len(problems) == 3
    assert problem_for(problems, path, "model.n_items").endswith("(got 'abc')")
    assert problem_for(problems, path, "model.p_judge").endswith("(got 1.5)")
    assert problem_for(problems, path, "trials").endswith("(got 0)")


def test_scenario_from_dict_uses_given_source():
    with pytest.raises(ScenarioError) as info:
        scenario_from_dict(variant(BASE, {"model.p_judge": 0}), source="inline.yaml")
    assert info.value.problems == [
        "inline.yaml: model.p_judge: must be a probability in (0, 1] (got 0)"
    ]


# --------------------------------------------------------------------------- overrides


def test_override_sets_n_items(tmp_path):
    path = write_scenario(tmp_path, BASE)
    assert load_scenario(path, overrides=["model.n_items=1000"]).model.n_items == 1000


def test_override_without_equals_sign_is_named(tmp_path):
    path = write_scenario(tmp_path, BASE)
    (message,) = problems_of(path, overrides=["model.n_items"])
    assert message.startswith(f"{path}: ")
    assert "model.n_items" in message
    assert "KEY=VALUE" in message


def test_override_of_unknown_key_is_named(tmp_path):
    path = write_scenario(tmp_path, BASE)
    (message,) = problems_of(path, overrides=["model.nope=3"])
    assert message.startswith(f"{path}: model.nope: unknown key")


def test_override_with_bad_value_is_validated(tmp_path):
    path = write_scenario(tmp_path, BASE)
    (message,) = problems_of(path, overrides=["model.n_items=abc"])
    assert message == f"{path}: model.n_items: must be an integer (got 'abc')"


# --------------------------------------------------------------------------- seed keys


def test_seed_key_depends_only_on_the_cells_own_parameters():
    swept_alone = variant(BASE, {"sweep": {"p_judge": [0.85], "rho": [0.1]}})
    swept_with_other = variant(BASE, {"sweep": {"p_judge": [0.9, 0.85], "rho": [0.1]}})
    fixed_p_judge = variant(BASE, {"model.p_judge": 0.85, "sweep": {"rho": [0.1]}})
    nothing_swept = variant(BASE, {"model.p_judge": 0.85, "design.rho": 0.1})
    keys = {
        cell_where(scenario_from_dict(raw), 0.85, 0.1).seed_key()
        for raw in (swept_alone, swept_with_other, fixed_p_judge, nothing_swept)
    }
    assert len(keys) == 1


def test_seed_key_ignores_rule_epsilon():
    low = scenario_from_dict(variant(BASE, {"rule.epsilon": 0.05}))
    high = scenario_from_dict(variant(BASE, {"rule.epsilon": 0.2}))
    assert next(low.cells()).seed_key() == next(high.cells()).seed_key()


def test_cells_differing_only_in_swept_epsilon_share_seed_key():
    scenario = scenario_from_dict(variant(BASE, {"sweep.epsilon": [0.05, 0.2]}))
    first, second = scenario.cells()
    assert first.rule.epsilon != second.rule.epsilon
    assert first.seed_key() == second.seed_key()


def test_seed_key_changes_with_rho():
    low = scenario_from_dict(variant(BASE, {"design.rho": 0.1}))
    high = scenario_from_dict(variant(BASE, {"design.rho": 0.25}))
    assert next(low.cells()).seed_key() != next(high.cells()).seed_key()


# --------------------------------------------------------------------------- content hash


def test_content_hash_equal_for_two_loads_of_one_file():
    assert load_scenario(FIG2).content_hash() == load_scenario(FIG2).content_hash()


def test_content_hash_ignores_trials():
    assert load_scenario(FIG2).content_hash() == load_scenario(FIG2, trials=10).content_hash()


def test_content_hash_changes_with_seed():
    assert load_scenario(FIG2).content_hash() != load_scenario(FIG2, seed=1).content_hash()


def test_content_hash_changes_with_sweep_values(tmp_path):
    path = write_scenario(tmp_path, variant(BASE, {"sweep.p_judge": [0.9, 0.6]}))
    other = load_scenario(path, overrides=["sweep.p_judge=[0.9, 0.7]"])
    assert load_scenario(path).content_hash() != other.content_hash()


def test_content_hash_changes_with_sweep_order():
    # The sweep's order is the cube's dimension order and so the layout of a store; two
    # scenarios with the same sweep in another order must not share a store (see report).
    sweep = {"p_judge": [0.9, 0.6], "rho": [0.5, 0.25]}
    forward = scenario_from_dict(variant(BASE, {"sweep": sweep}))
    backward = scenario_from_dict(variant(BASE, {"sweep": dict(reversed(sweep.items()))}))
    assert forward.dims == ("p_judge", "rho")
    assert backward.dims == ("rho", "p_judge")
    assert forward.content_hash() != backward.content_hash()


def test_bernoulli_with_m_is_refused_and_field_errors_do_not_hide_cross_field_ones():
    raw = {"model": {"n_items": 50, "nope": 1}, "design": {"kind": "bernoulli", "rho": 0.1, "m": 5}}
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(raw, source="s.yaml")
    problems = caught.value.problems
    assert len(problems) == 2
    assert problems[0].startswith("s.yaml: model.nope: unknown key")
    assert problems[1].startswith("s.yaml: design.m: the bernoulli design takes rho, not m")
    assert problems[1].endswith("(got 5)")
