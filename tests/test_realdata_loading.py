"""Real annotation matrices: the shipped AltTest data, round trips, validation, summaries."""

import csv
import gzip
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import simcore
from simcore.realdata.matrix import (
    AnnotationMatrix,
    DataError,
    describe_matrix,
    load_alttest,
    load_csv,
    load_data,
)

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "alttest"

JUDGES6 = ("gemini_flash", "gemini_pro", "gpt-4o", "llama-31", "gpt-4o-mini", "mistral-v03")

# The hand-built case: 5 items in two groups, 3 humans, 2 judges.
#   item   h1   h2   h3
#   a__x   yes  yes  -
#   b__x   no   yes  -
#   c__x   no   no   no
#   d__y   yes  -    yes
#   e__y   no   -    -
SMALL_HUMANS = {
    "h1": {"a__x": "yes", "b__x": "no", "c__x": "no", "d__y": "yes", "e__y": "no"},
    "h2": {"a__x": "yes", "b__x": "yes", "c__x": "no"},
    "h3": {"c__x": "no", "d__y": "yes"},
}
SMALL_JUDGES = {
    "j1": {"a__x": "yes", "b__x": "no", "c__x": "no", "d__y": "no", "e__y": "no"},
    "j2": {"a__x": "yes", "b__x": "yes", "c__x": "yes", "d__y": "yes", "e__y": "no"},
}
SMALL_AVAILABLE = np.array(
    [
        [True, True, False],
        [True, True, False],
        [True, True, True],
        [True, False, True],
        [True, False, False],
    ]
)
SMALL_OVERLAPS = np.array([[5, 3, 2], [3, 3, 1], [2, 1, 2]])


def write_pair(folder, humans, judges):
    """Write the AltTest JSON pair into ``folder`` (created) and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "human_annotations.json").write_text(json.dumps(humans))
    (folder / "llm_annotations.json").write_text(json.dumps(judges))
    return folder


def write_long_csv(path, rows, group=False):
    """Write ``(item, rater, label[, group])`` rows under the long-format header."""
    header = ["item", "rater", "label"] + (["group"] if group else [])
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def matrix_to_csv(matrix, path):
    """Write ``matrix`` in the long CSV format (with its groups) and return the path."""
    rows = []
    raters = [(name, matrix.human_labels[:, k]) for k, name in enumerate(matrix.humans)]
    raters += [(name, matrix.judge_labels[:, j]) for j, name in enumerate(matrix.judges)]
    for name, codes in raters:
        for item, code, group in zip(matrix.items, codes, matrix.groups, strict=True):
            if code >= 0:
                rows.append([item, name, matrix.labels[code], matrix.group_names[group]])
    return write_long_csv(path, rows, group=True)


def problems_of(function, *args, **kwargs):
    with pytest.raises(DataError) as info:
        function(*args, **kwargs)
    assert info.value.problems, "DataError without problems"
    assert str(info.value) == "\n".join(info.value.problems)
    return info.value.problems


def one_problem(problems, *fragments):
    """Return the one problem that contains every fragment."""
    matches = [p for p in problems if all(fragment in p for fragment in fragments)]
    assert len(matches) == 1, f"expected one problem with {fragments}, got {problems}"
    return matches[0]


@pytest.fixture
def small_folder(tmp_path):
    return write_pair(tmp_path / "small", SMALL_HUMANS, SMALL_JUDGES)


@pytest.fixture
def small(small_folder):
    return load_alttest(small_folder, group_separator="__")


# --------------------------------------------------------------------------- shipped data


@pytest.mark.parametrize(
    ("name", "n_items", "n_humans", "judges"),
    [
        ("wax", 246, 8, JUDGES6),
        ("cebab_aspects", 1008, 10, JUDGES6),
        ("cebab_stars", 711, 10, JUDGES6),
        ("summeval", 6400, 3, JUDGES6),
        ("lesion", 500, 6, ("gemini_flash", "gemini_pro", "gpt-4o", "gpt-4o-mini")),
    ],
)
def test_shipped_matrices_match_the_readme(name, n_items, n_humans, judges):
    matrix = load_alttest(DATA / name)
    assert matrix.source == str(DATA / name)
    assert (matrix.n_items, matrix.n_humans, matrix.n_judges) == (n_items, n_humans, len(judges))
    assert matrix.judges == judges
    assert list(matrix.items) == sorted(matrix.items)
    assert matrix.human_labels.shape == (n_items, n_humans)
    assert matrix.judge_labels.shape == (n_items, len(judges))
    assert matrix.human_labels.dtype == np.int16 and matrix.judge_labels.dtype == np.int16
    assert (matrix.judge_labels >= 0).all()
    assert matrix.available.any(axis=1).all(), "every item has a human label"
    counts = matrix.available.sum(axis=0)
    assert (np.diff(counts) <= 0).all(), "default order: most items first"
    assert matrix.group_names == ("all",) and not matrix.groups.any()


def test_summeval_is_dense_with_four_groups_of_1600():
    matrix = load_alttest(DATA / "summeval", group_separator="__")
    assert matrix.density == 1.0
    assert matrix.available.all()
    assert matrix.group_names == ("coherence", "consistency", "fluency", "relevance")
    assert np.bincount(matrix.groups).tolist() == [1600] * 4
    assert matrix.labels == ("1", "2", "3", "4", "5")
    part = matrix.subset("fluency")
    assert part.n_items == 1600 and part.density == 1.0
    assert all(item.endswith("__fluency") for item in part.items)
    assert part.group_names == ("fluency",) and not part.groups.any()


def test_cebab_aspects_has_exactly_four_human_labels_per_item():
    matrix = load_alttest(DATA / "cebab_aspects")
    assert (matrix.available.sum(axis=1) == 4).all()
    assert matrix.labels == ("Negative", "Positive", "unknown")
    assert not matrix.available.all(axis=0).any(), "no single human labels every item"


def test_cebab_stars_and_lesion_label_counts_per_item():
    stars = load_alttest(DATA / "cebab_stars")
    assert sorted(set(stars.available.sum(axis=1).tolist())) == [3, 4]
    assert stars.labels == ("1", "2", "3", "4", "5")
    lesion = load_alttest(DATA / "lesion", ordinal=True)
    per_item = lesion.available.sum(axis=1)
    assert (per_item.min(), per_item.max()) == (3, 6)
    assert lesion.labels == tuple(str(v) for v in range(7)) and lesion.ordinal
    assert lesion.humans[:3] == ("student_1", "student_2", "student_5")
    assert lesion.available[:, :3].all()


def test_wax_humans_10_and_9_label_every_item_and_10_is_primary():
    matrix = load_alttest(DATA / "wax")
    assert matrix.humans[:2] == ("10", "9")
    assert matrix.available[:, :2].all()
    assert not matrix.available[:, 2:].all(axis=0).any()
    assert sorted(set(matrix.available.sum(axis=1).tolist())) == [5, 6]
    assert "None-of-the-above" in matrix.labels
    human_codes = set(np.unique(matrix.human_labels[matrix.available]).tolist())
    assert matrix.labels.index("None-of-the-above") not in human_codes
    assert "humans labelling every item: 10, 9" in describe_matrix(matrix)


def test_wax_judge_label_outside_the_human_labels_is_reported():
    default = load_alttest(DATA / "wax")
    human_only = [label for label in default.labels if label != "None-of-the-above"]
    problems = problems_of(load_alttest, DATA / "wax", labels=human_only)
    judge_file = str(DATA / "wax" / "llm_annotations.json")
    assert all(p.startswith(f"{judge_file}: ") for p in problems), problems
    assert all("label outside the declared labels" in p for p in problems)
    assert all(p.endswith(")") and "(got 'None-of-the-above'" in p for p in problems)
    named = {p.split(": ")[1].split("[")[0] for p in problems}
    assert named == {"gemini_flash", "gemini_pro", "gpt-4o", "mistral-v03"}
    message = one_problem(problems, "gpt-4o[")
    assert "on 8 items of gpt-4o" in message


def test_human_subset_in_given_order_drops_items_no_chosen_human_labelled():
    matrix = load_alttest(DATA / "cebab_aspects", humans=["w1", "w14"], judges=["gpt-4o"])
    assert matrix.humans == ("w1", "w14") and matrix.judges == ("gpt-4o",)
    assert matrix.n_items == 228 + 211 - 20
    assert matrix.available.any(axis=1).all()


# --------------------------------------------------------------------------- round trips


def test_lesion_round_trips_through_the_long_csv(tmp_path):
    matrix = load_alttest(DATA / "lesion", ordinal=True, group_separator="__")
    path = matrix_to_csv(matrix, tmp_path / "lesion.csv")
    again = load_csv(path, humans=list(matrix.humans), judges=list(matrix.judges), ordinal=True)
    assert again.source == str(path)
    for name in ("items", "humans", "judges", "labels", "group_names", "ordinal"):
        assert getattr(again, name) == getattr(matrix, name), name
    for name in ("human_labels", "judge_labels", "groups"):
        np.testing.assert_array_equal(getattr(again, name), getattr(matrix, name))
    assert again.group_names == ("Asymmetry", "Blue", "Border", "Color", "Dermo")


def test_hand_built_json_pair_loads(small):
    assert small.items == ("a__x", "b__x", "c__x", "d__y", "e__y")
    assert small.humans == ("h1", "h2", "h3")
    assert small.judges == ("j1", "j2")
    assert small.labels == ("no", "yes")
    assert not small.ordinal
    no, yes, gap = 0, 1, -1
    expected_humans = [
        [yes, yes, gap],
        [no, yes, gap],
        [no, no, no],
        [yes, gap, yes],
        [no, gap, gap],
    ]
    np.testing.assert_array_equal(small.human_labels, expected_humans)
    np.testing.assert_array_equal(
        small.judge_labels, [[yes, yes], [no, yes], [no, yes], [no, yes], [no, no]]
    )
    np.testing.assert_array_equal(small.groups, [0, 0, 0, 1, 1])
    assert small.group_names == ("x", "y")
    assert not small.human_labels.flags.writeable


def test_hand_built_matrix_round_trips_through_csv_without_groups(tmp_path, small_folder):
    matrix = load_alttest(small_folder, humans=["h2", "h1", "h3"], labels=["yes", "no"])
    rows = [
        [item, name, matrix.labels[code]]
        for k, name in enumerate(matrix.humans)
        for item, code in zip(matrix.items, matrix.human_labels[:, k], strict=True)
        if code >= 0
    ]
    rows += [
        [item, name, matrix.labels[code]]
        for j, name in enumerate(matrix.judges)
        for item, code in zip(matrix.items, matrix.judge_labels[:, j], strict=True)
    ]
    rows.append(rows[0])  # an identical repeated row is allowed
    path = write_long_csv(tmp_path / "small.csv", rows[::-1])
    again = load_csv(path, humans=["h2", "h1", "h3"], judges=["j1", "j2"], labels=["yes", "no"])
    for name in ("items", "humans", "judges", "labels", "group_names"):
        assert getattr(again, name) == getattr(matrix, name), name
    np.testing.assert_array_equal(again.human_labels, matrix.human_labels)
    np.testing.assert_array_equal(again.judge_labels, matrix.judge_labels)
    np.testing.assert_array_equal(again.groups, np.zeros(5))


def test_numeric_labels_sort_as_numbers_and_match_their_text(tmp_path):
    humans = {"a": {"i1": 10, "i2": 9}, "b": {"i1": "2", "i2": 9}}
    judges = {"j": {"i1": "10", "i2": 2}}
    matrix = load_alttest(write_pair(tmp_path / "num", humans, judges))
    assert matrix.labels == ("2", "9", "10")
    np.testing.assert_array_equal(matrix.human_labels, [[2, 0], [1, 1]])
    np.testing.assert_array_equal(matrix.judge_labels, [[2], [0]])


# --------------------------------------------------------------------------- properties


def test_available_coverage_overlaps_density(small):
    np.testing.assert_array_equal(small.available, SMALL_AVAILABLE)
    np.testing.assert_allclose(small.coverage, [1.0, 0.6, 0.4])
    np.testing.assert_array_equal(small.overlaps, SMALL_OVERLAPS)
    assert small.density == pytest.approx(10 / 15)
    assert (small.n_items, small.n_humans, small.n_judges, small.n_labels) == (5, 3, 2, 2)


def test_subset_keeps_one_group(small):
    part = small.subset("y")
    assert part.items == ("d__y", "e__y")
    assert part.humans == small.humans and part.judges == small.judges
    assert part.group_names == ("y",)
    np.testing.assert_array_equal(part.groups, [0, 0])
    np.testing.assert_array_equal(part.human_labels, small.human_labels[3:])
    np.testing.assert_array_equal(part.judge_labels, small.judge_labels[3:])
    np.testing.assert_allclose(part.coverage, [1.0, 0.0, 0.5])
    assert part.density == pytest.approx(3 / 6)
    first = small.subset("x")
    np.testing.assert_array_equal(first.overlaps, [[3, 3, 1], [3, 3, 1], [1, 1, 1]])
    problem = one_problem(problems_of(small.subset, "z"), "group: unknown group")
    assert "(valid: x, y)" in problem and problem.endswith("(got 'z')")


def test_direct_construction_defaults_and_checks():
    matrix = AnnotationMatrix(
        source="hand",
        items=("a", "b"),
        humans=("h1", "h2"),
        judges=("j",),
        labels=("0", "1"),
        ordinal=True,
        human_labels=np.array([[0, -1], [1, 1]]),
        judge_labels=np.array([[0], [1]]),
    )
    assert matrix.group_names == ("all",)
    np.testing.assert_array_equal(matrix.groups, [0, 0])
    assert matrix.human_labels.dtype == np.int16
    problems = problems_of(
        AnnotationMatrix,
        source="hand",
        items=("a", "b"),
        humans=("h1", "h1"),
        judges=("j",),
        labels=("0", "1"),
        ordinal=False,
        human_labels=np.array([[0, 2], [1, 1]]),
        judge_labels=np.array([[0], [-1]]),
    )
    one_problem(problems, "hand: humans: names must be distinct", "(got ['h1'])")
    one_problem(problems, "hand: human_labels: codes must lie in [-1, 1]", "(got 0 to 2)")
    one_problem(problems, "hand: judge_labels: codes must lie in [0, 1]", "(got -1 to 0)")


def test_describe_matrix_mentions_density_and_overlaps(small):
    text = describe_matrix(small)
    assert "density: 0.667 (10 of 15 item-human cells labelled)" in text
    assert "humans labelling every item: h1" in text
    assert "groups: 2 (x 3, y 2)" in text
    assert "labels: 2, categories (text labels: no, yes)" in text
    assert "scoring: observed agreement (exact match) below" in text
    table = text.split("items labelled by both (pairwise overlap):\n")[1].splitlines()
    rows = {line.split()[0]: [int(v) for v in line.split()[1:]] for line in table[1:4]}
    assert rows == {"h1": [5, 3, 2], "h2": [3, 3, 1], "h3": [2, 1, 2]}
    assert "human labels per item: min 1, median 2, max 3" in text
    per_human = text.split("per human:\n")[1].splitlines()
    coverage = {line.split()[0]: line.split()[1:] for line in per_human[1:4]}
    assert coverage["h2"] == ["3", "0.600"] and coverage["h3"] == ["2", "0.400"]
    assert "j1" in text.split("per judge:")[1] and "1.000" in text.split("per judge:")[1]


def test_describe_matrix_says_when_no_human_labels_every_item(small_folder):
    matrix = load_alttest(small_folder, humans=["h2", "h3"])
    text = describe_matrix(matrix)
    assert "humans labelling every item: none" in text
    assert "primary layer: h2 misses 1 items" in text


# --------------------------------------------------------------------------- validation: JSON


def test_missing_folder(tmp_path):
    missing = tmp_path / "nowhere"
    problem = one_problem(problems_of(load_alttest, missing), "path: no such file or folder")
    assert problem.startswith(f"{missing}: ") and problem.endswith(f"(got '{missing}')")


def test_missing_json_file(tmp_path):
    folder = tmp_path / "half"
    folder.mkdir()
    (folder / "llm_annotations.json").write_text(json.dumps(SMALL_JUDGES))
    problem = one_problem(problems_of(load_alttest, folder), "no such file or folder")
    assert problem.startswith(f"{folder / 'human_annotations.json'}: ")


def test_unreadable_json_and_wrong_shapes_are_all_reported(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "human_annotations.json").write_text('{"h1": {"a": "yes",}}')
    (folder / "llm_annotations.json").write_text("[1, 2]")
    problems = problems_of(load_alttest, folder)
    assert len(problems) == 2, problems
    message = one_problem(problems, "not valid JSON")
    assert message.startswith(f"{folder / 'human_annotations.json'}: ")
    message = one_problem(problems, "must hold a mapping of judge name")
    assert message.startswith(f"{folder / 'llm_annotations.json'}: ") and "(got list)" in message


def test_wrong_rater_and_label_shapes(tmp_path):
    humans = {"h1": {"a": "yes", "b": None}, "h2": ["a", "b"], "h3": {"a": True}}
    folder = write_pair(tmp_path / "shape", humans, SMALL_JUDGES)
    problems = problems_of(load_alttest, folder)
    source = folder / "human_annotations.json"
    one_problem(problems, f"{source}: h1['b']: label must be a string or a number (got null)")
    one_problem(problems, f"{source}: h2: must be a mapping of item id to label (got ['a', 'b'])")
    one_problem(problems, f"{source}: h3['a']: label must be a string or a number (got true)")


def test_unknown_human_and_judge(small_folder):
    problems = problems_of(load_alttest, small_folder, humans=["h1", "zed"], judges=["j9"])
    human = one_problem(problems, "humans: unknown human")
    assert human.startswith(f"{small_folder / 'human_annotations.json'}: ")
    assert "(humans in the file: h1, h2, h3)" in human and human.endswith("(got 'zed')")
    judge = one_problem(problems, "judges: unknown judge")
    assert judge.startswith(f"{small_folder / 'llm_annotations.json'}: ")
    assert judge.endswith("(got 'j9')")


def test_judge_missing_items_is_named_with_count_and_example(tmp_path):
    judges = {"j1": SMALL_JUDGES["j1"], "j2": {"a__x": "yes", "b__x": "no", "e__y": "no"}}
    folder = write_pair(tmp_path / "gaps", SMALL_HUMANS, judges)
    problems = problems_of(load_alttest, folder)
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem.startswith(f"{folder / 'llm_annotations.json'}: j2: misses 2 of the 5 items")
    assert "e.g. 'c__x'" in problem and problem.endswith("(got 3 of them)")


def test_judge_items_no_human_labelled_are_dropped(tmp_path):
    judges = {name: {**given, "extra": "yes"} for name, given in SMALL_JUDGES.items()}
    matrix = load_alttest(write_pair(tmp_path / "extra", SMALL_HUMANS, judges))
    assert "extra" not in matrix.items and matrix.n_items == 5


def test_label_outside_declared_labels_names_rater_item_and_label(small_folder):
    problems = problems_of(load_alttest, small_folder, labels=["yes", "maybe"])
    human_file = small_folder / "human_annotations.json"
    judge_file = small_folder / "llm_annotations.json"
    problem = one_problem(problems, f"{human_file}: h1['b__x']:")
    assert "label outside the declared labels (yes, maybe)" in problem
    assert problem.endswith("(got 'no'; on 3 items of h1)")
    one_problem(problems, f"{human_file}: h2['c__x']:", "(got 'no')")
    one_problem(problems, f"{judge_file}: j1['b__x']:", "(got 'no'; on 4 items of j1)")
    assert len(problems) == 5  # h1, h2, h3, j1, j2


def test_declared_labels_must_be_distinct(small_folder):
    problem = one_problem(problems_of(load_alttest, small_folder, labels=["1", 1]), "labels:")
    assert problem.startswith(f"{small_folder}: labels: ") and problem.endswith("(got ['1'])")


def test_fewer_than_two_humans(small_folder):
    problem = one_problem(
        problems_of(load_alttest, small_folder, humans=["h3"]), "need at least 2 humans"
    )
    assert problem.startswith(f"{small_folder / 'human_annotations.json'}: humans: ")
    assert problem.endswith("(got ['h3'])")


def test_rater_in_both_files_is_reported(tmp_path):
    judges = {**SMALL_JUDGES, "h2": SMALL_JUDGES["j1"]}
    folder = write_pair(tmp_path / "both", SMALL_HUMANS, judges)
    problem = one_problem(problems_of(load_alttest, folder), "both human and judge")
    assert problem.endswith("(got 'h2')")
    matrix = load_alttest(folder, judges=["j1", "j2"])
    assert matrix.judges == ("j1", "j2")


def test_group_separator_missing_from_an_item(tmp_path):
    humans = {name: dict(given) for name, given in SMALL_HUMANS.items()}
    humans["h1"]["plain"] = "yes"
    judges = {name: {**given, "plain": "no"} for name, given in SMALL_JUDGES.items()}
    folder = write_pair(tmp_path / "sep", humans, judges)
    problem = one_problem(
        problems_of(load_alttest, folder, group_separator="__"), "group_separator:"
    )
    assert "1 of the 6 items have no group, e.g. 'plain'" in problem
    assert problem.endswith("(got '__')")


def test_all_problems_are_collected(tmp_path):
    judges = {"j1": {"a__x": "yes"}, "j2": SMALL_JUDGES["j2"]}
    folder = write_pair(tmp_path / "many", SMALL_HUMANS, judges)
    problems = problems_of(load_alttest, folder, humans=["h1", "ghost"], labels=["yes"])
    one_problem(problems, "unknown human", "(got 'ghost')")
    one_problem(problems, "j1: misses 4 of the 5 items")
    one_problem(problems, "need at least 2 labels")
    one_problem(problems, "need at least 2 humans")
    assert any("label outside the declared labels" in p for p in problems)


# --------------------------------------------------------------------------- validation: CSV


SMALL_ROWS = [
    ["i1", "h1", "1"],
    ["i2", "h1", "2"],
    ["i1", "h2", "1"],
    ["i1", "j1", "1"],
    ["i2", "j1", "2"],
]


def test_csv_loads_with_groups(tmp_path):
    rows = [[*row, "g2" if row[0] == "i1" else "g1"] for row in SMALL_ROWS]
    path = write_long_csv(tmp_path / "g.csv", rows, group=True)
    matrix = load_csv(path, humans=["h1", "h2"], judges=["j1"])
    assert matrix.group_names == ("g1", "g2")
    np.testing.assert_array_equal(matrix.groups, [1, 0])
    np.testing.assert_array_equal(matrix.human_labels, [[0, 0], [1, -1]])


def test_csv_without_rater_lists_is_human_only(tmp_path):
    path = write_long_csv(tmp_path / "r.csv", SMALL_ROWS)
    matrix = load_csv(path)  # no judges: every rater is human, most items first
    assert matrix.humans == ("h1", "j1", "h2") and matrix.judges == ()
    assert matrix.judge_labels.shape == (2, 0)
    matrix = load_csv(path, judges=["j1"])  # humans default to every other rater
    assert matrix.humans == ("h1", "h2") and matrix.judges == ("j1",)


def test_csv_missing_file(tmp_path):
    missing = tmp_path / "none.csv"
    problem = one_problem(
        problems_of(load_csv, missing, humans=["h1", "h2"], judges=["j1"]),
        "no such file or folder",
    )
    assert problem.startswith(f"{missing}: path: ") and problem.endswith(f"(got '{missing}')")


def test_csv_bad_header(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("item,who,label,extra\ni1,h1,1,x\n")
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1"])
    one_problem(problems, f"{path}: header: unknown column", "(got 'who')")
    one_problem(problems, f"{path}: header: unknown column", "(got 'extra')")
    one_problem(problems, f"{path}: header: missing column 'rater'")


def test_csv_duplicate_rows_with_different_labels(tmp_path):
    path = write_long_csv(tmp_path / "d.csv", [*SMALL_ROWS, ["i1", "h2", "1"], ["i2", "h1", "1"]])
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1"])
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem.startswith(f"{path}: row 8: rater 'h1' labels item 'i2' again")
    assert "(row 3 has '2')" in problem and problem.endswith("(got '1')")


def test_csv_rater_in_neither_list_and_listed_rater_absent(tmp_path):
    path = write_long_csv(tmp_path / "n.csv", [*SMALL_ROWS, ["i1", "stranger", "1"]])
    problems = problems_of(load_csv, path, humans=["h1", "h2", "h9"], judges=["j1", "j7"])
    one_problem(problems, f"{path}: rater: rater in neither humans nor judges (got 'stranger')")
    human = one_problem(problems, f"{path}: humans: unknown human", "(got 'h9')")
    assert "raters in the file: h1, h2, j1, stranger" in human
    one_problem(problems, f"{path}: judges: unknown judge", "(got 'j7')")


def test_csv_rater_listed_as_both_human_and_judge(tmp_path):
    path = write_long_csv(tmp_path / "b.csv", SMALL_ROWS)
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1", "h2"])
    one_problem(problems, f"{path}: humans: rater listed as both human and judge (got 'h2')")


def test_csv_empty_cells_and_an_item_id_in_a_second_group(tmp_path):
    rows = [[*row, "g"] for row in SMALL_ROWS] + [["i2", "h2", "", "g"], ["i1", "h1", "1", "k"]]
    path = write_long_csv(tmp_path / "e.csv", rows, group=True)
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1"])
    one_problem(problems, f"{path}: row 7: empty label")
    # i1 in group k is another item, not a conflict; j1 does not label it
    one_problem(problems, f"{path}: j1: misses 1 of the 3 items", "e.g. 'i1' in group 'k'")
    assert len(problems) == 2, problems


def test_csv_conflicts_name_the_first_row_only_for_the_problems_reported(tmp_path):
    # gzip, a blank line and a row with an empty cell before the first label of (i1, h1)
    rows = [["i1", "h1", ""], [], *SMALL_ROWS, ["i1", "h1", "2"]]
    rows += [[f"x{n}", "h1", "1"] for n in range(25)] + [[f"x{n}", "h1", "2"] for n in range(25)]
    plain = write_long_csv(tmp_path / "c.csv", rows)
    path = tmp_path / "c.csv.gz"
    path.write_bytes(gzip.compress(plain.read_bytes()))
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1"])
    assert problems[0] == f"{path}: row 2: empty label (got 'i1,h1,')"
    assert problems[1] == (
        f"{path}: row 9: rater 'h1' labels item 'i1' again with a different label "
        "(row 4 has '1') (got '2')"
    )
    assert problems[2].startswith(f"{path}: row 35: rater 'h1' labels item 'x0' again")
    assert "(row 10 has '1')" in problems[2]
    assert problems[20] == f"{path}: rows: 7 more row problems like these (got 27 in all)"


def test_csv_unreadable_after_a_bad_header_is_reported_as_unreadable(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes(b"item,who,label\ni1,h1,1\ni2,h1,\xff\n")
    problems = problems_of(load_csv, path, humans=["h1", "h2"], judges=["j1"])
    assert len(problems) == 1 and problems[0].startswith(f"{path}: unreadable: "), problems


def write_random_long_csv(path, n_rows, n_items, n_raters, seed):
    """Write ``n_rows`` random ``item,rater,label`` rows (labels 0 and 1), no pair twice."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(n_items * n_raters, size=n_rows, replace=False).tolist()
    labels = rng.integers(2, size=n_rows).tolist()
    lines = [
        f"item{cell // n_raters:06d},rater{cell % n_raters:03d},{label}\n"
        for cell, label in zip(cells, labels, strict=True)
    ]
    path.write_text("item,rater,label\n" + "".join(lines), encoding="utf-8")
    return path


def test_inspect_of_a_long_csv_needs_a_few_times_the_file_in_memory(tmp_path):
    path = write_random_long_csv(tmp_path / "long.csv", 200_000, 20_000, 40, seed=5)
    simcore.inspect(write_random_long_csv(tmp_path / "warm.csv", 40, 20, 4, seed=5))
    tracemalloc.start()  # after a first inspect: the modules it imports are not the file's
    try:
        result = simcore.inspect(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    document = result.to_dict()
    assert document["human_labels"] == 200_000 and len(document["humans"]) == 40
    # a list of every row and a row number per label took about 21 times the file's 4.4 MB;
    # rows read one at a time and item blocks take about 4
    assert peak < 9 * path.stat().st_size, peak


# --------------------------------------------------------------------------- data block


def test_load_data_resolves_a_relative_path_against_base(tmp_path, small_folder):
    block = {
        "format": "alttest",
        "path": "small",
        "humans": ["h2", "h1", "h3"],
        "labels": ["no", "yes"],
        "scale": "ordinal",
        "group_separator": "__",
    }
    matrix = load_data(block, base=tmp_path)
    assert matrix.humans == ("h2", "h1", "h3") and matrix.ordinal
    assert matrix.group_names == ("x", "y") and matrix.source == str(small_folder)


def test_load_data_reads_csv(tmp_path):
    write_long_csv(tmp_path / "long.csv", SMALL_ROWS)
    block = {"format": "csv", "path": "long.csv", "humans": ["h1", "h2"], "judges": ["j1"]}
    matrix = load_data(block, base=tmp_path)
    assert matrix.labels == ("1", "2") and not matrix.ordinal


def test_load_data_reads_shipped_data_with_numeric_human_names():
    block = {"path": str(DATA / "wax"), "humans": [9, 10, 5], "judges": ["gpt-4o"]}
    matrix = load_data(block)
    assert matrix.humans == ("9", "10", "5") and matrix.n_items == 246


def test_load_data_block_problems_are_all_reported():
    block = {
        "format": "xls",
        "humans": "h1",
        "labels": ["a", "a"],
        "scale": "interval",
        "group_separator": "",
        "columns": 3,
    }
    problems = problems_of(load_data, block)
    unknown = one_problem(problems, "data.columns: unknown key")
    assert (
        "(valid keys: format, path, judges_path, humans, judges, labels, scale, "
        "group_separator, slots, merge_label_variants)" in unknown
    )
    one_problem(
        problems,
        "data.format: must be one of alttest, json, csv, wide, inspect, mlflow (got 'xls')",
    )
    one_problem(problems, "data.path: must be given", "(got null)")
    one_problem(problems, "data.labels: must be a list of distinct label values (got ['a', 'a'])")
    one_problem(problems, "data.scale: must be one of nominal, ordinal (got 'interval')")
    one_problem(problems, "data.group_separator: must be a non-empty string", "(got '')")


def test_load_data_csv_takes_no_separator():
    problems = problems_of(load_data, {"format": "csv", "path": "x.csv", "group_separator": "__"})
    assert len(problems) == 1, problems  # humans and judges are optional
    one_problem(problems, "data.group_separator: only for format alttest", "(got '__')")


def test_load_data_rejects_a_non_mapping_and_reports_loader_problems(tmp_path):
    problem = one_problem(problems_of(load_data, ["wax"]), "data: must be a mapping")
    assert problem.endswith("(got ['wax'])")
    problem = one_problem(problems_of(load_data, {"path": "gone"}, base=tmp_path), "path:")
    assert problem.startswith(f"{tmp_path / 'gone'}: path: no such file or folder")
