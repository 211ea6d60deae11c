import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simcore
from simcore.api.calibrate_inputs import table_counts
from simcore.calibration import CalibrationTable, judge_rates, wilson_interval
from simcore.options import LARGEST_COUNT

FIELDS = ("caught", "missed", "flagged", "cleared")
TABLE = CalibrationTable(8, 2, 3, 87)

# --------------------------------------------------------------------------- construction


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (True, TypeError, "must be an integer"),
        (6.0, TypeError, "pass int(x)"),
        ("6", TypeError, "must be an integer"),
        (-1, ValueError, "must be an integer >= 0"),
        (LARGEST_COUNT + 1, ValueError, "must be at most 2**53"),
    ],
)
def test_construction_refuses_a_bad_count_naming_the_field(field, bad, error, message):
    counts = dict.fromkeys(FIELDS, 5) | {field: bad}
    with pytest.raises(error) as raised:
        CalibrationTable(**counts)
    assert str(raised.value).startswith(f"{field}: ")
    assert message in str(raised.value)


def test_numpy_integers_are_stored_as_python_ints():
    table = CalibrationTable(np.int64(8), np.uint8(2), np.int32(3), LARGEST_COUNT)
    assert table.as_tuple() == (8, 2, 3, LARGEST_COUNT)
    assert all(type(value) is int for value in table.as_tuple())
    assert table == CalibrationTable(8, 2, 3, LARGEST_COUNT)
    assert hash(table) == hash(CalibrationTable(8, 2, 3, LARGEST_COUNT))


def test_the_table_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        TABLE.caught = 9
    assert TABLE.caught == 8


# --------------------------------------------------------------------------- rates


def test_margins_and_rates_by_hand():
    assert (TABLE.positives, TABLE.negatives, TABLE.n) == (10, 90, 100)
    assert TABLE.tpr == 0.8  # 8 / 10
    assert TABLE.tnr == 87 / 90
    assert TABLE.youden == pytest.approx(0.8 + 29 / 30 - 1, abs=1e-15)
    assert CalibrationTable(1, 1, 0, 4).as_tuple() == (1, 1, 0, 4)
    assert CalibrationTable(1, 1, 0, 4).youden == 0.5  # 1/2 + 4/4 - 1


def test_a_rate_with_no_rows_is_nan_and_its_interval_is_everything():
    table = CalibrationTable(0, 0, 3, 7)
    assert math.isnan(table.tpr) and math.isnan(table.youden)
    assert table.tnr == 0.7
    assert table.tpr_interval() == (0.0, 1.0)
    assert "TPR: undefined" in table.summary()


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("counts", [(8, 2, 3, 87), (0, 5, 5, 0), (34, 6, 8, 72), (1, 0, 0, 1)])
def test_intervals_are_the_wilson_intervals_simcore_reports(counts, confidence):
    table = CalibrationTable(*counts)
    caught, missed, flagged, cleared = counts
    assert table.tpr_interval(confidence) == tuple(
        float(end) for end in wilson_interval(caught, caught + missed, confidence)
    )
    assert table.tnr_interval(confidence) == tuple(
        float(end) for end in wilson_interval(cleared, flagged + cleared, confidence)
    )
    rates = judge_rates(*counts, confidence=confidence)
    assert table.tpr_interval(confidence) == (float(rates.tpr_low), float(rates.tpr_high))
    assert table.tnr_interval(confidence) == (float(rates.tnr_low), float(rates.tnr_high))
    assert table.tpr == float(rates.tpr) and table.tnr == float(rates.tnr)
    assert all(type(end) is float for end in table.tpr_interval(confidence))


# --------------------------------------------------------------------------- dict and tuple


def test_to_dict_and_back():
    assert TABLE.to_dict() == {"caught": 8, "missed": 2, "flagged": 3, "cleared": 87}
    assert CalibrationTable.from_dict(TABLE.to_dict()) == TABLE
    assert TABLE.as_tuple() == (8, 2, 3, 87)


COUNT = st.integers(min_value=0, max_value=LARGEST_COUNT)


@given(COUNT, COUNT, COUNT, COUNT)
def test_from_dict_of_to_dict_is_the_table(caught, missed, flagged, cleared):
    table = CalibrationTable(caught, missed, flagged, cleared)
    assert CalibrationTable.from_dict(table.to_dict()) == table
    assert CalibrationTable.from_counts(table.as_tuple()) == table


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"caught": 8, "missed": 2, "flagged": 3}, "missing key 'cleared'"),
        (TABLE.to_dict() | {"extra": 1}, "unknown key 'extra'"),
    ],
)
def test_from_dict_refuses_a_missing_or_unknown_key(data, named):
    with pytest.raises(ValueError, match=named):
        CalibrationTable.from_dict(data)


def test_from_dict_checks_the_counts_and_the_type():
    with pytest.raises(TypeError, match="^missed: must be an integer"):
        CalibrationTable.from_dict(TABLE.to_dict() | {"missed": 2.0})
    with pytest.raises(TypeError, match="must be a mapping"):
        CalibrationTable.from_dict([8, 2, 3, 87])


@pytest.mark.parametrize("given_counts", [(8, 2, 3, 87), [8, 2, 3, 87], np.array([8, 2, 3, 87])])
def test_from_counts_takes_a_sequence_of_four(given_counts):
    assert CalibrationTable.from_counts(given_counts) == TABLE
    assert CalibrationTable.from_counts(TABLE) is TABLE


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        ((8, 2, 3), TypeError, "pilot: must be four integer counts (caught, missed, flagged,"),
        ("8,2,3,87", TypeError, "pilot: must be four integer counts"),
        (np.array([[8, 2], [3, 87]]), TypeError, "pilot: must be four integer counts"),
        ({"caught": 8}, TypeError, "pilot: must be four integer counts"),
        ((8, 2, 3.0, 87), TypeError, "pilot: flagged: must be an integer"),
        ((8, 2, 3, -87), ValueError, "pilot: cleared: must be an integer >= 0"),
    ],
)
def test_from_counts_refuses_anything_else_naming_the_source(bad, error, message):
    with pytest.raises(error) as raised:
        CalibrationTable.from_counts(bad, "pilot")
    assert str(raised.value).startswith(message)


# --------------------------------------------------------------------------- rendering


def test_summary_shows_the_counts_totals_and_rates():
    text = TABLE.summary()
    assert "| judge FAIL | 8 | 3 | 11 |" in text
    assert "| judge PASS | 2 | 87 | 89 |" in text
    assert "| total | 10 | 90 | 100 |" in text
    low, high = TABLE.tpr_interval()
    assert f"TPR = 8 / 10 = 0.800, 95% Wilson interval [{low:.3f}, {high:.3f}]" in text
    assert "TNR = 87 / 90 = 0.967" in text
    assert str(TABLE) == text


# --------------------------------------------------------------------------- callers


def test_table_counts_takes_a_table():
    assert table_counts(TABLE) == (8, 2, 3, 87)
    assert table_counts(TABLE, "pilot") == (8, 2, 3, 87)


def test_calibrate_takes_a_table_as_it_takes_its_tuple():
    from_table = simcore.calibrate(table=CalibrationTable(8, 2, 3, 87), fails=30, of=300)
    from_tuple = simcore.calibrate(table=(8, 2, 3, 87), fails=30, of=300)
    assert from_table.to_dict() == from_tuple.to_dict()
