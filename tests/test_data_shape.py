"""A matrix's shape, named (dense panel, sparse panel, crowd) with the numbers behind it,
on generators of every shape and on the shipped matrices."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.cli import main
from simcore.realdata.data_shape import THIN_ITEMS, data_shape, half_pairs_items
from simcore.realdata.shapes import DATA_SHAPES, draw_shape, shape_mask

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def frame(kind, seed=0):
    humans, judges = draw_shape(kind, seed)
    rows = [
        {"item": item, "rater": rater, "label": label}
        for raters in (humans, judges)
        for rater, given in raters.items()
        for item, label in given.items()
    ]
    return pd.DataFrame(rows), sorted(judges)


def shape_of(kind, seed=0):
    table, judges = frame(kind, seed)
    return data_shape(simcore.read_annotations(table, judges=judges))


@pytest.mark.parametrize(
    ("kind", "named"),
    [
        ("dense_panel", "dense panel"),
        ("sparse_panel", "sparse panel"),
        ("crowd", "crowd"),
        ("concentrated", "crowd"),
        ("slots", "dense panel"),  # positions look like people until declared
    ],
)
def test_each_generator_is_named_its_shape(kind, named):
    assert kind in DATA_SHAPES
    shape = shape_of(kind)
    assert shape.kind == named
    assert shape.concentrated == (kind == "concentrated")


def test_the_slots_generator_fills_each_position_with_many_workers():
    from simcore.realdata.shapes import draw_slots

    slots, judges, workers = draw_slots(seed=1)
    table, names = frame("slots", seed=1)
    matrix = simcore.read_annotations(table, judges=names, slots=True)
    assert data_shape(matrix).kind == "slots"
    assert sorted(slots) == ["slot1", "slot2", "slot3"] and len(judges) == 2
    assert all(len(set(workers[:, s])) > 20 for s in range(3))  # a column is not a person
    assert (np.sort(workers, axis=1)[:, 1:] != np.sort(workers, axis=1)[:, :-1]).all()


def test_the_numbers_behind_the_call_are_those_of_the_mask():
    mask = shape_mask("crowd", seed=3)
    shape = shape_of("crowd", seed=3)
    per_item = mask.sum(axis=1)
    shared = (mask & (per_item >= 2)[:, None]).sum(axis=0)
    assert shape.humans == mask.shape[1] and shape.items == mask.shape[0]
    assert shape.items_per_human == (
        mask.sum(axis=0).min(),
        np.median(mask.sum(axis=0)),
        mask.sum(axis=0).max(),
    )
    assert shape.median_coverage == pytest.approx(np.median(mask.sum(axis=0)) / mask.shape[0])
    assert shape.thin_share == pytest.approx((shared < THIN_ITEMS).mean())
    assert shape.empty_share == pytest.approx((shared == 0).mean())
    assert 0.5 < shape.thin_share  # about 8 items each: most comparisons are thin


def test_half_of_the_pairs_by_enumeration():
    assert half_pairs_items(np.array([60, 60, 2, 2, 2])) == 2  # 1770 + 1770 + 3 pairs
    assert half_pairs_items(np.array([60, 2, 2, 2])) == 1
    assert half_pairs_items(np.array([3, 3, 3, 3])) == 2
    assert half_pairs_items(np.array([1, 1, 0])) == 0  # no pairs at all
    concentrated = shape_of("concentrated")
    assert concentrated.half_pairs_items == 2  # the two items all 60 humans label


def test_a_small_uniform_matrix_is_not_concentrated():
    table = pd.DataFrame(
        [
            {"item": f"i{i}", "rater": f"h{k}", "label": (i + k) % 2}
            for i in range(4)
            for k in range(3)
        ]
    )
    shape = data_shape(simcore.read_annotations(table))
    assert shape.kind == "dense panel" and not shape.concentrated


def test_inspect_prints_and_returns_the_shape(capsys):
    table, judges = frame("crowd")
    result = simcore.inspect(table, judges=judges)
    assert result.to_dict()["shape"]["kind"] == "crowd"
    assert result.to_dict()["shape"]["thin_items"] == THIN_ITEMS
    assert "shape: crowd (150 humans;" in str(result)


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data")
@pytest.mark.parametrize(
    ("folder", "named"),
    [
        ("summeval", "dense panel"),
        ("lesion", "sparse panel"),  # 6 humans on 488 to 500 of 500 items
        ("wax", "sparse panel"),
        ("cebab_stars", "sparse panel"),
        ("cebab_aspects", "sparse panel"),
    ],
)
def test_the_shipped_matrices_are_named(folder, named, capsys):
    path = DATA / "alttest" / folder
    assert main(["inspect", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["shape"]["kind"] == named
    assert document["shape"]["empty_share"] == 0.0


def test_ceiling_and_advise_report_the_shape_too():
    table, judges = frame("crowd")
    found = simcore.ceiling(table, judges=judges, boot=20)
    assert found.to_dict()["shape"]["kind"] == "crowd"
    assert str(found).startswith("labels: categories l0, l1 (text labels); scored by Cohen")
    assert "\nshape: crowd (150 humans;" in str(found)
    table, judges = frame("sparse_panel")
    advice = simcore.advise(table, judges=judges, trials=20, seed=1)
    assert advice.to_dict()["shape"]["kind"] == "sparse panel"
    assert "shape: sparse panel (6 humans;" in advice.to_markdown()
