"""Input shapes users have: gzip, item ids repeated across groups, judges in a second file,
human-only matrices, and an inspect that stays short for crowds and huge label sets."""

import csv
import gzip
import json
import shutil

import numpy as np
import pytest
import yaml

from simcore.cli import main
from simcore.realdata.matrix import DataError, load_alttest, load_csv, load_data, load_ratings
from simcore.realdata.overlap import agreement_counts, pair_overlaps, pair_quantiles
from simcore.realdata.shapes import draw_matrix, write_alttest_folder, write_long_csv


def same_matrix(a, b):
    """Assert two matrices hold the same names, labels and codes."""
    for name in ("items", "humans", "judges", "labels", "group_names", "item_ids"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("human_labels", "judge_labels", "groups"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def write_rows(path, header, rows):
    """Write a CSV with ``header`` and ``rows``; return the path."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def small_raters(n_judges=2, seed=3):
    return draw_matrix(
        n_items=40, n_humans=5, n_judges=n_judges, n_labels=3, density=0.5, seed=seed
    )


def real_scenario(folder, data):
    """Write a tiny ``kind: real`` scenario with ``data`` into ``folder``; return its path."""
    raw = {
        "kind": "real",
        "data": data,
        "rule": {"kind": "point"},
        "trials": 2,
        "sweep": {"design": ["bernoulli"], "coverage": [0.5]},
    }
    path = folder / "scenario.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


# --------------------------------------------------------------------------- gzip


def test_gzipped_csv_is_the_same_matrix_as_the_plain_csv(tmp_path):
    humans, judges = small_raters()
    plain = write_long_csv(humans, judges, tmp_path / "ratings.csv")
    packed = write_long_csv(humans, judges, tmp_path / "ratings.csv.gz")
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    disguised = tmp_path / "ratings_gz.csv"  # gzip content under a plain name
    shutil.copy(packed, disguised)
    bare = tmp_path / "ratings"  # no suffix: CSV read from the content
    shutil.copy(packed, bare)
    reference = load_csv(plain, judges=list(judges))
    for path in (packed, disguised, bare):
        same_matrix(load_ratings(path, judges=list(judges)), reference)
    block = {"format": "csv", "path": "ratings.csv.gz", "judges": list(judges)}
    same_matrix(load_data(block, base=tmp_path), reference)
    inferred = {key: value for key, value in block.items() if key != "format"}
    same_matrix(load_data(inferred, base=tmp_path), reference)


def test_gzipped_json_pair_and_inspect_of_a_gzipped_csv(tmp_path, capsys):
    humans, judges = small_raters()
    folder = write_alttest_folder(humans, judges, tmp_path / "pair")
    reference = load_alttest(folder)
    for name in ("human_annotations.json", "llm_annotations.json"):
        text = (folder / name).read_bytes()
        (folder / name).unlink()
        (folder / (name + ".gz")).write_bytes(gzip.compress(text))
    same_matrix(load_alttest(folder), reference)
    packed = write_long_csv(humans, judges, tmp_path / "ratings.csv.gz")
    assert main(["inspect", str(packed), "--judges", ",".join(judges)]) == 0
    out = capsys.readouterr().out
    assert "items: 40" in out and "judges: 2 (judge0, judge1)" in out


# --------------------------------------------------------------------------- (item, group)


REPEATED = [
    # item, rater, label, group: i1 and i2 are in both groups, i3 only in b
    *[[item, rater, label, group] for group in ("a", "b") for item, rater, label in [
        ("i1", "h1", "x"), ("i1", "h2", "x"), ("i2", "h1", "y"), ("i2", "h2", "x"),
        ("i1", "j1", "x"), ("i2", "j1", "y"),
    ]],
    ["i3", "h1", "y", "b"], ["i3", "h2", "y", "b"], ["i3", "j1", "y", "b"],
]  # fmt: skip
HEADER = ["item", "rater", "label", "group"]


def test_item_ids_repeated_across_groups_are_distinct_items(tmp_path, capsys):
    path = write_rows(tmp_path / "groups.csv", HEADER, REPEATED)
    matrix = load_csv(path, judges=["j1"])
    assert matrix.n_items == 5 and matrix.group_names == ("a", "b")
    assert np.bincount(matrix.groups).tolist() == [2, 3]
    assert matrix.items == ("a/i1", "a/i2", "b/i1", "b/i2", "b/i3")
    assert matrix.item_ids == ("i1", "i2", "i1", "i2", "i3")
    assert matrix.subset("b").item_ids == ("i1", "i2", "i3")
    assert main(["inspect", str(path), "--judges", "j1"]) == 0
    out = capsys.readouterr().out
    assert "groups: 2 (a 2, b 3)" in out and "2 ids repeat across groups" in out


def test_a_true_conflict_within_a_group_still_errors(tmp_path):
    rows = [*REPEATED, ["i1", "h1", "y", "b"]]  # h1 gave i1 in group b 'x' on row 8
    path = write_rows(tmp_path / "conflict.csv", HEADER, rows)
    with pytest.raises(DataError) as info:
        load_csv(path, judges=["j1"])
    assert info.value.problems == [
        f"{path}: row 17: rater 'h1' labels item 'i1' in group 'b' again with a different "
        "label (row 8 has 'x') (got 'y')"
    ]


def test_a_judges_file_without_group_column_cannot_key_repeated_ids(tmp_path):
    humans = write_rows(tmp_path / "h.csv", HEADER, [r for r in REPEATED if r[1] != "j1"])
    judges = write_rows(tmp_path / "j.csv", HEADER[:3], [["i1", "j1", "x"]])
    with pytest.raises(DataError) as info:
        load_csv(humans, judges_path=judges)
    assert info.value.problems[0].startswith(f"{judges}: header: item ids repeat across groups")
    grouped = write_rows(tmp_path / "jg.csv", HEADER, [r for r in REPEATED if r[1] == "j1"])
    both = load_csv(humans, judges_path=grouped)
    same_matrix(both, load_csv(write_rows(tmp_path / "all.csv", HEADER, REPEATED), judges=["j1"]))


# --------------------------------------------------------------------------- two files


def split_files(tmp_path, judge_format="csv"):
    """Write humans and judges of one drawn matrix to two files; return both paths."""
    humans, judges = small_raters()
    human_file = write_long_csv(humans, {}, tmp_path / "humans.csv")
    if judge_format == "csv":
        judge_file = write_long_csv({}, judges, tmp_path / "judges.csv.gz")
    else:
        judge_file = tmp_path / "judges.json"
        judge_file.write_text(json.dumps(judges))
    return human_file, judge_file, write_long_csv(humans, judges, tmp_path / "one.csv")


@pytest.mark.parametrize("judge_format", ["csv", "json"])
def test_humans_and_judges_in_two_files_make_the_one_file_matrix(tmp_path, judge_format):
    human_file, judge_file, one = split_files(tmp_path, judge_format)
    reference = load_csv(one, judges=["judge0", "judge1"])
    same_matrix(load_ratings(human_file, judges_path=judge_file), reference)
    humans, judges = small_raters()
    folder = write_alttest_folder(humans, {}, tmp_path / "pair")
    pair = write_alttest_folder(humans, judges, tmp_path / "whole")
    matrix = load_alttest(folder, judges_path=judge_file)
    assert matrix.source == str(folder)
    same_matrix(matrix, load_alttest(pair))


def test_inspect_and_validate_with_a_judges_file(tmp_path, capsys):
    human_file, judge_file, _ = split_files(tmp_path)
    assert main(["inspect", str(human_file), "--judges-file", str(judge_file)]) == 0
    assert "judges: 2 (judge0, judge1)" in capsys.readouterr().out
    data = {"format": "csv", "path": "humans.csv", "judges_path": "judges.csv.gz"}
    scenario = real_scenario(tmp_path, data)
    assert main(["validate", str(scenario)]) == 0
    assert "5 humans, 2 judges" in capsys.readouterr().out


def test_judges_file_problems_name_the_judges_file(tmp_path, capsys):
    human_file, judge_file, _ = split_files(tmp_path)
    gone = tmp_path / "gone.csv"
    assert main(["inspect", str(human_file), "--judges-file", str(gone)]) == 2
    assert f"{gone}: judges_path: no such file or folder" in capsys.readouterr().err
    short = write_rows(tmp_path / "short.csv", HEADER[:3], [["item00000", "jx", "l1"]])
    assert main(["inspect", str(human_file), "--judges-file", str(short)]) == 2
    assert f"{short}: jx: misses 39 of the 40 items" in capsys.readouterr().err


# --------------------------------------------------------------------------- human-only


def test_human_only_matrices_are_described(tmp_path, capsys):
    humans, _ = small_raters(n_judges=0)
    path = write_long_csv(humans, {}, tmp_path / "humans.csv")
    folder = write_alttest_folder(humans, {}, tmp_path / "pair")
    (folder / "llm_annotations.json").unlink()
    for data in (path, folder):
        assert main(["inspect", str(data)]) == 0
        out = capsys.readouterr().out
        assert "judges: 0 (no judge: a human-only matrix" in out
        assert "per judge: none (human-only matrix)" in out
        assert "humans: 5" in out and "human agreement: " in out


def test_commands_that_need_a_judge_refuse_a_human_only_matrix(tmp_path, capsys):
    humans, _ = small_raters(n_judges=0)
    path = write_long_csv(humans, {}, tmp_path / "humans.csv")
    out = tmp_path / "advice"
    assert main(["advise", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: judges: the matrix has no judge (5 humans only)" in err
    assert "simcore advise needs at least one" in err and not out.exists()
    scenario = real_scenario(tmp_path, {"format": "csv", "path": "humans.csv"})
    store = tmp_path / "s.zarr"
    for argv in (["validate", str(scenario)], ["run", str(scenario), "--out", str(store)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "judges: the matrix has no judge" in err and "a real-data scenario" in err
    assert not store.exists()
    assert main(["inspect", str(scenario)]) == 0  # inspect describes it all the same
    assert "no judge" in capsys.readouterr().out


# --------------------------------------------------------------------------- many raters


def test_inspect_summarises_a_crowd_and_writes_the_overlap_table(tmp_path, capsys):
    humans, judges = draw_matrix(
        n_items=300, n_humans=60, n_judges=2, n_labels=3, density=0.05, seed=7
    )
    path = write_long_csv(humans, judges, tmp_path / "crowd.csv")
    table = tmp_path / "new folder" / "overlap.csv"  # an output file makes its folder
    argv = ["inspect", str(path), "--judges", "judge0,judge1", "--overlap-csv", str(table)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) < 35 and max(len(line) for line in out.splitlines()) < 200
    assert "pairwise overlap (1770 pairs of humans)" in out and "--overlap-csv FILE" in out
    # the written table against a direct NumPy count from the drawn raters
    matrix = load_csv(path, judges=["judge0", "judge1"])
    items = sorted({item for given in humans.values() for item in given})
    mask = np.array([[item in humans[h] for h in matrix.humans] for item in items], dtype=int)
    direct = mask.T @ mask
    with table.open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["human", *matrix.humans]
    assert [row[0] for row in rows[1:]] == list(matrix.humans)
    np.testing.assert_array_equal(np.array([row[1:] for row in rows[1:]], dtype=int), direct)
    upper = direct[np.triu_indices(60, k=1)]
    values, zero_share = pair_quantiles(pair_overlaps(matrix), (0, 0.25, 0.5, 0.75, 1))
    np.testing.assert_allclose(values, np.quantile(upper, [0, 0.25, 0.5, 0.75, 1]))
    assert zero_share == pytest.approx(np.mean(upper == 0))
    assert f"{np.mean(upper == 0):.1%} of pairs share no item" in out


def test_small_matrices_keep_the_full_table(tmp_path, capsys):
    humans, judges = small_raters()
    path = write_long_csv(humans, judges, tmp_path / "small.csv")
    assert main(["inspect", str(path), "--judges", "judge0,judge1"]) == 0
    out = capsys.readouterr().out
    assert "items labelled by both (pairwise overlap):" in out and "pairs of humans" not in out


def test_inspect_on_five_thousand_labels_and_agreement_from_equality_counts(tmp_path, capsys):
    humans, judges = draw_matrix(
        n_items=800, n_humans=14, n_judges=2, n_labels=5000, density=0.2, seed=11
    )
    labels = [f"l{code:04d}" for code in range(5000)]
    path = write_long_csv(humans, judges, tmp_path / "wide.csv.gz")
    matrix = load_csv(path, judges=["judge0", "judge1"], labels=labels)
    assert matrix.n_labels == 5000
    assert main(["inspect", str(path), "--judges", "judge0,judge1"]) == 0
    out = capsys.readouterr().out
    labels_line = next(line for line in out.splitlines() if line.startswith("labels: "))
    assert len(labels_line) < 120 and "in all)" in labels_line
    agreement = agreement_counts(matrix)
    agreeing = pairs = 0
    human_agreeing = np.zeros(14, dtype=int)
    human_pairs = np.zeros(14, dtype=int)
    codes = matrix.human_labels
    for a in range(14):
        for b in range(14):
            both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
            same = int((both & (codes[:, a] == codes[:, b])).sum())
            if a != b:
                human_agreeing[a] += same
                human_pairs[a] += int(both.sum())
            if a < b:
                agreeing += same
                pairs += int(both.sum())
    assert (agreement.agreeing, agreement.pairs) == (agreeing, pairs)
    np.testing.assert_array_equal(agreement.human_agreeing, human_agreeing)
    np.testing.assert_array_equal(agreement.human_pairs, human_pairs)
    assert f"human agreement: {agreeing / pairs:.3f} observed ({agreeing} of {pairs}" in out


def test_a_json_file_of_humans_with_a_json_judges_file(tmp_path):
    humans, judges = small_raters()
    human_file = tmp_path / "humans.json.gz"
    human_file.write_bytes(gzip.compress(json.dumps(humans).encode()))
    judge_file = tmp_path / "judges"  # no suffix: JSON read from the content
    judge_file.write_text(json.dumps(judges))
    matrix = load_ratings(human_file, judges_path=judge_file)
    same_matrix(matrix, load_alttest(write_alttest_folder(humans, judges, tmp_path / "pair")))
    assert load_ratings(human_file).judges == ()


def test_data_block_and_cli_refuse_bad_judges_path_and_separator(tmp_path, capsys):
    with pytest.raises(DataError) as info:
        load_data({"path": "x.csv", "judges_path": 3})
    assert info.value.problems == [
        "data.judges_path: must be the path of a CSV or JSON file of judge labels (got 3)"
    ]
    path = write_long_csv(*small_raters(), tmp_path / "r.csv")
    assert main(["inspect", str(path), "--group-separator", "__"]) == 2
    assert f"{path}: group_separator: only for JSON input" in capsys.readouterr().err


def test_advise_reads_the_judges_file(tmp_path, capsys):
    human_file, judge_file, _ = split_files(tmp_path)
    out = tmp_path / "advice"
    argv = ["advise", str(human_file), "--judges-file", str(judge_file), "--out", str(out)]
    assert main([*argv, "--audit", "nobody", "--trials", "20", "--quiet"]) == 2
    assert "unknown judge (judges: judge0, judge1) (got 'nobody')" in capsys.readouterr().err
