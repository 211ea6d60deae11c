"""e-BH: by-hand cases, the definition enumerated over every subset, bad input."""

import itertools

import numpy as np
import pytest

from simcore.calibration import e_benjamini_hochberg


def test_a_hand_computed_case():
    # K = 4, q = 0.2: thresholds K / (k q) = 20, 10, 6.67, 5 for k = 1..4. Sorted e-values
    # 30, 12, 6, 1: e_(1) = 30 >= 20, e_(2) = 12 >= 10, e_(3) = 6 < 6.67, e_(4) = 1 < 5,
    # so k* = 2 and the hypotheses with e >= 10 are rejected.
    rejected = e_benjamini_hochberg([6.0, 30.0, 1.0, 12.0], 0.2)
    assert rejected.tolist() == [False, True, False, True]


def test_a_later_rank_can_qualify_when_an_earlier_one_does_not():
    # K = 3, q = 0.5: thresholds 6, 3, 2. Sorted 5, 4, 2.5: k = 1 fails (5 < 6), k = 2 holds
    # (4 >= 3), k = 3 holds (2.5 >= 2): k* = 3, everything is rejected (a step-up rule).
    assert e_benjamini_hochberg([2.5, 5.0, 4.0], 0.5).all()


def test_nothing_qualifies_and_infinite_evidence():
    assert not e_benjamini_hochberg([1.0, 2.0, 3.0], 0.1).any()
    assert e_benjamini_hochberg([np.inf, 0.0], 0.1).tolist() == [True, False]
    assert e_benjamini_hochberg([], 0.1).shape == (0,)


def _by_definition(values, level):
    """The largest set R whose every member has e >= K / (|R| q), found by enumeration."""
    count = len(values)
    best = ()
    for size in range(count, 0, -1):
        for subset in itertools.combinations(range(count), size):
            if all(values[j] >= count / (size * level) for j in subset):
                best = subset
                break
        if best:
            break
    rejected = np.zeros(count, dtype=bool)
    rejected[list(best)] = True
    return rejected


def test_equals_the_definition_on_every_small_case():
    grid = (0.0, 1.0, 2.5, 4.0, 8.0, 20.0)
    for count in (1, 2, 3, 4):
        for values in itertools.product(grid, repeat=count):
            for level in (0.1, 0.5):
                expected = _by_definition(values, level)
                assert e_benjamini_hochberg(values, level).tolist() == expected.tolist()


@pytest.mark.parametrize(
    ("values", "level", "message"),
    [
        ([1.0, -1.0], 0.1, "nonnegative"),
        ([1.0, np.nan], 0.1, "nonnegative"),
        ([[1.0]], 0.1, "one-dimensional"),
        ([1.0], 1.0, "level"),
        ([1.0], 0.0, "level"),
    ],
)
def test_bad_input_names_the_argument(values, level, message):
    with pytest.raises(ValueError, match=message):
        e_benjamini_hochberg(values, level)
