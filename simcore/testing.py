"""Assertion helpers for cubes, for simcore's tests and for users checking their own runs."""

import numpy as np
import xarray as xr

from simcore.studies.synthetic.cell import COUNT_NAMES

__all__ = ["assert_counts_consistent", "assert_cubes_identical"]

_RUN_SPECIFIC_ATTRS = ("created", "finished", "scenario_source")


def assert_cubes_identical(actual, expected):
    """Assert two cubes hold bit-identical counts, rates, coordinates and provenance.

    Attributes that record when or from which path a run was made (``created``,
    ``finished``, ``scenario_source``) are ignored.
    """
    actual = actual.load()
    expected = expected.load()
    for cube in (actual, expected):
        for name in _RUN_SPECIFIC_ATTRS:
            cube.attrs.pop(name, None)
    xr.testing.assert_identical(actual, expected)


def assert_counts_consistent(cube):
    """Assert the counts of every cell add up.

    ``n_ref_accept + n_ref_reject == n_trials``; ``n_wrong == n_false_reject +
    n_false_accept``; ``omega_hist`` sums to ``n_trials``; no count is negative or exceeds
    its denominator; every cell is complete.
    """
    for name in (name for name in COUNT_NAMES if name in cube):
        values = cube[name].values
        assert (values >= 0).all(), f"{name} has negative counts"
    trials = cube["n_trials"].values
    np.testing.assert_array_equal(cube["n_ref_accept"] + cube["n_ref_reject"], trials)
    np.testing.assert_array_equal(cube["n_false_reject"] + cube["n_false_accept"], cube["n_wrong"])
    np.testing.assert_array_equal(cube["omega_hist"].sum("omega"), trials)
    assert (cube["n_false_reject"] <= cube["n_ref_accept"]).all()
    assert (cube["n_false_accept"] <= cube["n_ref_reject"]).all()
    assert (cube["n_wrong"] + cube["n_inconclusive"] <= trials).all()
    assert bool(cube["cell_complete"].all()), "unfinished cells in the cube"
