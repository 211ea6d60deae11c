"""The Study protocol: what a kind of study implements so that the sweep can run it.

A study kind (``kind:`` in a scenario file: ``synthetic``, ``real``, ``coverage``, ...) is
one module in :mod:`simcore.studies` with one object implementing :class:`Study`. The
sweep (:mod:`simcore.sweep`) knows a study only through these methods: it parses the YAML,
enumerates the cells, runs each cell's trials as a task on dask from ``(root seed, cell
coordinates, trial range)``, packs each cell's integer counts and float sums into the
store, and, once every cell is in, asks the study to derive its rates. Resume, extension
with more trials, the cluster, progress, ``show``, ``plot`` and ``validate`` therefore work
the same for every kind.

A cell's counts must be additive over trials: the counts of trials ``range(a, b)`` plus
those of ``range(b, c)`` are those of ``range(a, c)``, exactly (float sums are sums of values
rounded to a power-of-two grid, :func:`quantize`), and trial ``t`` is drawn from a stream
that depends only on the root seed, the cell's coordinates and ``t``.
"""

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

QUANTUM = 2.0**-24
"""Per-trial float values are rounded to multiples of this before they are summed, so that
every partial sum is exact in float64 (below 2^29 in size) and sums over blocks of trials
add up bit for bit to the sum over all of them."""


def quantize(values, quantum=QUANTUM):
    """Round ``values`` to the nearest multiple of ``quantum`` (a power of two)."""
    return np.round(np.asarray(values, dtype=np.float64) / quantum) * quantum


class CubeError(ValueError):
    """A finished cube cannot be shown or drawn as asked (bad input: exit status 2)."""


def describe_sweep(sweep, trials):
    """Return ``N cells, sweep a (3), b (2), T trials per cell`` for ``simcore validate``."""
    dims = ", ".join(f"{name} ({len(values)})" for name, values in sweep) or "none"
    cells = int(np.prod([len(values) for _, values in sweep], dtype=np.int64))
    return f"{cells} cells, sweep {dims}, {trials} trials per cell"


def add_counts(first, second):
    """Add two count dicts of one cell (trials ``range(a, b)`` and ``range(b, c)``).

    ``first`` may be None (nothing counted yet). Every count and sum is additive over
    trials, and the quantised float sums add exactly, in any order.
    """
    if first is None:
        return second
    return {name: first[name] + second[name] for name in second}


@dataclass(frozen=True)
class Variable:
    """One per-cell count or sum a study stores.

    Its dims in the cube are the sweep's dims followed by ``extra_dims``; one cell's value
    has shape ``shape`` (the extra dims' sizes). A cell may give a smaller value along an
    extra dim (e.g. a histogram over fewer humans); it fills the first entries and the rest
    keep ``0`` (integers) or ``NaN`` (floats).
    """

    name: str
    long_name: str
    units: str
    integer: bool = True
    extra_dims: tuple = ()
    shape: tuple = ()


@dataclass(frozen=True)
class CellSpec:
    """One cell of a sweep: its index in the cube, its coordinates, what it runs.

    ``coords`` are the values that key the cell's random stream (with the root seed);
    ``payload`` is whatever the study needs to run it (picklable, shipped to a worker).
    """

    index: tuple
    coords: dict
    payload: Any = None


@dataclass(frozen=True)
class Layout:
    """The cube's shape and labels.

    ``sweep`` lists ``(dim, values, long_name, units)`` per swept dimension, in order;
    ``variables`` the per-cell :class:`Variable` s (the first is ``n_trials``);
    ``coords`` further coordinates (``name -> xarray.Variable``, e.g. a ``judge`` axis);
    ``attrs`` attributes of the study to put on the cube.
    """

    sweep: tuple
    variables: tuple
    coords: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)

    @property
    def dims(self):
        """The sweep's dimension names, in order."""
        return tuple(dim for dim, *_ in self.sweep)

    @property
    def shape(self):
        """Number of values of each sweep dimension."""
        return tuple(len(values) for _, values, *_ in self.sweep)


class Study(Protocol):
    """What every kind of study implements (the sweep calls nothing else)."""

    kind: str
    """The ``kind:`` value of its scenario files."""

    def parse(self, raw, source, base):
        """Validate a raw scenario mapping; return the scenario, or raise ScenarioError.

        ``source`` names the file in messages; ``base`` is its folder (for relative paths).
        The scenario has ``kind``, ``name``, ``source``, ``seed``, ``trials``, ``output``,
        ``to_dict()``, ``to_yaml()`` and ``content_hash()`` (which leaves out ``trials``,
        so that a store can be extended).
        """

    def describe(self, scenario):
        """Return the one-line summary ``simcore validate`` prints (loading any data)."""

    def context(self, scenario):
        """Return the read-only inputs every cell shares (e.g. a loaded matrix), or None.

        Built once by the driver and shipped once to each worker.
        """

    def layout(self, scenario, context):
        """Return the cube's :class:`Layout`."""

    def memory_need(self, scenario, context):
        """Return ``(bytes, advice)``: the largest cell's memory in one process.

        ``advice`` says what to change when it does not fit (checked before a run and by
        ``simcore validate``).
        """

    def cells(self, scenario, context):
        """Return every cell: objects with ``index`` and ``coords`` (e.g. :class:`CellSpec`).

        An iterable over the layout's grid, in C order, read once (a generator spares a
        long sweep a list of its cells). Cells are sent to the workers, so they must be
        picklable.
        """

    def run_cell(self, scenario, context, cell, start, stop):
        """Return one cell's counts and sums over trials ``range(start, stop)``.

        A dict mapping every :class:`Variable`'s name to an int64 or float64 array. Trial
        ``t`` must draw from a stream that depends only on the root seed, the cell's
        coordinates and ``t``, and float sums must be of :func:`quantize` d values, so that
        counts over consecutive trial ranges add up to those of the whole range, exactly.
        """

    def derive(self, scenario, context, cube):
        """Return the finished cube: rates and statistics derived from the counts."""

    def summary(self, cube):
        """Return the table ``simcore run`` and ``simcore show`` print."""

    def plot(self, cube, out, variable=None):
        """Draw the finished cube into the PNG ``out``; :class:`CubeError` for a bad request."""

    def write_outputs(self, scenario, cube):
        """Write the scenario's further outputs (tables); return the paths written."""

    def engines(self, scenario):
        """Return the engines (:data:`simcore.engine.warm.KERNELS`) the cells run on.

        Optional: the driver says before the first cell when one of them compiles on first
        use. A study without kernels of its own returns an empty set.
        """
