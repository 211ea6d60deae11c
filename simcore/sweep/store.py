"""The cube: labelled counts and rates of a sweep, in memory and in zarr stores.

One dimension per swept parameter (named as in the scenario's ``sweep``, values as
coordinates), integer count variables, rates derived from the counts with their binomial
standard errors, and the scenario, its hash, the root seed and library versions in the
attributes. A store is written cell by cell as cells finish (``cell_complete`` records
which), then finalised: rates written, ``complete`` set, metadata consolidated. A store
whose ``complete`` attribute is false is unfinished and can be resumed.
"""

import contextlib
import datetime
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import xarray as xr
import zarr

from simcore.studies.synthetic_cell import COUNT_NAMES, JUDGE_COUNT_NAMES, SUM_NAMES

STORED_ATTRS = {
    "n_trials": ("trials run", "count"),
    "n_trials_counts_engine": (
        "trials drawn by the counts engine (category counts); the rest by the items engine",
        "count",
    ),
    "n_ref_accept": ("trials whose reference decision accepts the judge", "count"),
    "n_ref_reject": ("trials whose reference decision rejects the judge", "count"),
    "n_wrong": (
        "trials whose sparse decision differs from the reference (accept vs reject; "
        "inconclusive excluded)",
        "count",
    ),
    "n_false_reject": ("trials with reference accept and sparse reject", "count"),
    "n_false_accept": ("trials with reference reject and sparse accept", "count"),
    "n_inconclusive": ("trials whose sparse decision is inconclusive", "count"),
    "n_accept": ("trials whose sparse decision accepts the judge", "count"),
    "n_tested": ("comparisons made, summed over trials (alt_test: humans tested)", "count"),
    "n_untestable": ("trials in which alt_test could test no human", "count"),
    "n_undecided_comparisons": (
        "interval verdict: comparisons neither clearing nor failing "
        "the bar with confidence, summed over trials",
        "count",
    ),
    "n_top1_wrong": ("trials whose best judge differs from the dense matrix's best", "count"),
    "n_top1_wrong_population": ("trials whose best judge is not the truly best", "count"),
    "n_rank_discordant": (
        "judge pairs ordered differently from the dense ranking, summed over trials",
        "count",
    ),
    "n_rank_discordant_population": (
        "judge pairs ordered differently from the true ranking, summed over trials",
        "count",
    ),
    "sum_extra_items": (
        "interval verdict: items per undecided comparison that the recipe "
        "says would settle it (capped at 1e6), summed",
        "items",
    ),
    "n_skipped": ("trials in which alt_test skipped this human (too few items)", "count"),
    "n_empty_comparisons": (
        "leave-one-out comparisons with no eligible pair (each passes), summed over trials",
        "count",
    ),
    "n_degenerate_scores": (
        "sparse comparison scores whose coefficient had a zero "
        "denominator (scored 0), summed over trials",
        "count",
    ),
    "n_shared_panel": ("trials in which every secondary labelled the same items", "count"),
    "n_agreement_defined": (
        "trials whose human-pool agreement is defined on both the sparse and the dense matrix",
        "count",
    ),
    "n_agreement_reliable": (
        "trials whose sparse human-pool agreement is within 0.05 of the dense one",
        "count",
    ),
    "sum_pairwise_overlap": (
        "sum over trials of the mean number of items shared by two secondaries",
        "items",
    ),
    "sum_agreement_estimate": ("sum of the sparse human-pool agreement over defined trials", "1"),
    "sum_agreement_estimate_sq": ("sum of its squares", "1"),
    "sum_agreement_reference": ("sum of the dense human-pool agreement over defined trials", "1"),
    "sum_agreement_error": ("sum of sparse minus dense human-pool agreement", "1"),
    "sum_agreement_error_sq": ("sum of its squares", "1"),
    "omega_hist": ("trials by number of comparisons the judge passes (omega * n_humans)", "count"),
    "sum_coverage": ("sum over trials of each secondary's share of the items", "1"),
}
"""long_name and units of every stored count and sum."""

RATE_ATTRS = {
    "wrong_decision_rate": ("n_wrong", "n_trials", "wrong-decision rate"),
    "false_rejection_rate": (
        "n_false_reject",
        "n_ref_accept",
        "false-rejection rate among reference accepts",
    ),
    "false_approval_rate": (
        "n_false_accept",
        "n_ref_reject",
        "false-approval rate among reference rejects",
    ),
    "shared_panel_rate": (
        "n_shared_panel",
        "n_trials",
        "share of trials whose secondaries labelled the same items",
    ),
    "accept_rate": ("n_accept", "n_trials", "share of trials whose sparse decision accepts"),
    "inconclusive_rate": ("n_inconclusive", "n_trials", "share of inconclusive decisions"),
    "untestable_rate": (
        "n_untestable",
        "n_trials",
        "share of trials in which alt_test tested no human",
    ),
    "top1_error": (
        "n_top1_wrong",
        "n_trials",
        "share of trials whose best judge differs from the dense matrix's",
    ),
    "top1_error_population": (
        "n_top1_wrong_population",
        "n_trials",
        "share of trials whose best judge is not the truly best",
    ),
    "agreement_reliability": (
        "n_agreement_reliable",
        "n_trials",
        "share of trials whose sparse human-pool agreement is within "
        "0.05 of the dense one (undefined estimates count as "
        "unreliable)",
    ),
}
"""Each binomial rate: ``(numerator count, denominator count, long name)``."""

DERIVED_ATTRS = {
    "mean_coverage": ("mean share of the items each secondary labels", "1"),
    "mean_pairwise_overlap": ("mean number of items two secondaries both label", "items"),
    "agreement_mean": ("mean sparse human-pool agreement", "1"),
    "agreement_reference_mean": ("mean dense human-pool agreement", "1"),
    "agreement_bias": ("mean of sparse minus dense human-pool agreement", "1"),
    "agreement_sd": ("standard deviation of the sparse human-pool agreement", "1"),
    "agreement_variance": ("variance of the sparse human-pool agreement", "1"),
    "effective_k": ("mean number of comparisons made (alt_test: humans tested)", "count"),
    "skipped_rate": ("share of trials in which alt_test skipped each human", "1"),
    "undecided_per_trial": ("interval verdict: undecided comparisons per trial", "count"),
    "mean_extra_items": (
        "interval verdict: mean items the recipe says would settle an undecided comparison",
        "items",
    ),
    "rank_error": ("share of judge pairs ordered differently from the dense ranking", "1"),
    "rank_error_population": (
        "share of judge pairs ordered differently from the true ranking",
        "1",
    ),
    "agreement_error_sd": ("standard deviation of sparse minus dense human-pool agreement", "1"),
}
"""Means and spreads derived from the sums (NaN where nothing was defined)."""

PLOT_VARIABLES = (*RATE_ATTRS, *DERIVED_ATTRS)
"""Variables ``simcore plot`` can draw."""

SWEEP_ATTRS = {
    "p_judge": ("judge accuracy", "1"),
    "p_human": ("human accuracy", "1"),
    "n_items": ("items in the corpus", "count"),
    "n_humans": ("humans K", "count"),
    "n_labels": ("label categories L", "count"),
    "design": ("overlap design", ""),
    "rho": ("per-secondary coverage", "1"),
    "m": ("items per secondary", "count"),
    "margin": ("signed population margin S_j - S_h + eps (sets p_judge)", "1"),
    "skew": ("prevalence of label 0 (the others share the rest evenly)", "1"),
    "n_clusters": ("item clusters", "count"),
    "cluster_spread": ("half-width of the clusters' accuracy shift", "1"),
    "coefficient": ("agreement coefficient", ""),
    "epsilon": ("tolerance eps", "1"),
    "tau": ("acceptance threshold on omega", "1"),
    "strict": ("accept only when omega > tau", "1"),
    "rule": ("decision rule", ""),
    "min_items_per_human": ("alt_test: fewest items for a human to be tested", "count"),
    "reference": ("reference decision", ""),
    "engine": ("how trials are drawn (items, counts, or auto)", ""),
}


class StoreError(ValueError):
    """A store that cannot be used for this run (bad input: exit status 2)."""


def _versions():
    import numba

    import simcore

    return {
        "simcore_version": simcore.__version__,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
        "xarray_version": xr.__version__,
        "zarr_version": zarr.__version__,
    }


def judge_count(scenario):
    """Return the number of judges of ``scenario`` (a list in model.p_judge, else 1)."""
    p_judge = scenario.model.p_judge
    return len(p_judge) if isinstance(p_judge, tuple) else 1


def _max_humans(scenario):
    return max(cell.model.n_humans for cell in scenario.cells())


def _judge_accuracy_coordinate(scenario):
    """Return the judge accuracy each margin sets, as a coordinate.

    It lies along ``margin`` alone when the other swept dims do not change it (the usual
    case), else along every swept dim.
    """
    accuracy = np.empty(scenario.shape)
    for cell in scenario.cells():
        accuracy[cell.index] = cell.model.p_judge
    axis = scenario.dims.index("margin")
    along = np.moveaxis(accuracy, axis, 0).reshape(scenario.shape[axis], -1)
    attrs = {"long_name": "judge accuracy set by the margin", "units": "1"}
    if (along == along[:, :1]).all():
        return xr.Variable("margin", along[:, 0], attrs)
    return xr.Variable(scenario.dims, accuracy, attrs)


def _stored(name, dims, data):
    long_name, units = STORED_ATTRS[name]
    return xr.Variable(dims, data, {"long_name": long_name, "units": units})


def empty_cube(scenario):
    """Return the cube of ``scenario`` with every count and sum zero and no cell complete."""
    dims = scenario.dims
    shape = scenario.shape
    coords = {}
    for name, values in scenario.sweep:
        long_name, units = SWEEP_ATTRS[name]
        coords[name] = xr.Variable(name, list(values), {"long_name": long_name, "units": units})
    if "margin" in dims:
        coords["p_judge"] = _judge_accuracy_coordinate(scenario)
    max_humans = _max_humans(scenario)
    coords["omega"] = xr.Variable(
        "omega",
        np.arange(max_humans + 1),
        {"long_name": "comparisons passed (omega = value / n_humans)", "units": "count"},
    )
    coords["secondary"] = xr.Variable(
        "secondary",
        np.arange(1, max_humans),
        {"long_name": "secondary human (1 .. K - 1)", "units": "1"},
    )
    n_judges = judge_count(scenario)
    judge_dims, judge_shape = dims, shape
    if n_judges > 1:
        judge_dims, judge_shape = (*dims, "judge"), (*shape, n_judges)
        coords["judge"] = xr.Variable(
            "judge",
            np.arange(n_judges),
            {"long_name": "judge (in the order of model.p_judge)", "units": "1"},
        )
        coords["judge_accuracy"] = xr.Variable(
            "judge", list(scenario.model.p_judge), {"long_name": "judge accuracy", "units": "1"}
        )
    coords["human"] = xr.Variable(
        "human", np.arange(max_humans), {"long_name": "human (0 is the primary)", "units": "1"}
    )
    data_vars = {
        name: _stored(
            name,
            judge_dims if name in JUDGE_COUNT_NAMES else dims,
            np.zeros(judge_shape if name in JUDGE_COUNT_NAMES else shape, np.int64),
        )
        for name in COUNT_NAMES
    }
    data_vars.update({name: _stored(name, dims, np.zeros(shape)) for name in SUM_NAMES})
    data_vars["omega_hist"] = _stored(
        "omega_hist", (*judge_dims, "omega"), np.zeros((*judge_shape, max_humans + 1), np.int64)
    )
    data_vars["n_skipped"] = _stored(
        "n_skipped", (*dims, "human"), np.zeros((*shape, max_humans), np.int64)
    )
    data_vars["sum_coverage"] = _stored(
        "sum_coverage", (*dims, "secondary"), np.full((*shape, max_humans - 1), np.nan)
    )
    packed = _layout(xr.Dataset(data_vars))
    widths = {
        kind: sum(int(np.prod(shape)) for _, shape, _ in fields) for kind, fields in packed.items()
    }
    data_vars["cell_ints"] = xr.Variable(
        (*dims, "packed_int"),
        np.zeros((*shape, widths["int"]), np.int64),
        {
            "long_name": "a cell's integer counts, packed (unpacked into the named variables "
            "when the run finishes)",
            "units": "1",
        },
    )
    data_vars["cell_floats"] = xr.Variable(
        (*dims, "packed_float"),
        np.zeros((*shape, widths["float"])),
        {"long_name": "a cell's float sums, packed", "units": "1"},
    )
    data_vars["cell_checksum"] = xr.Variable(
        dims,
        np.zeros(shape, np.int64),
        {
            "long_name": "checksum of the cell's stored counts (detects damaged chunks)",
            "units": "1",
        },
    )
    data_vars["cell_complete"] = xr.Variable(
        dims, np.zeros(shape, bool), {"long_name": "cell finished and written", "units": "1"}
    )
    attrs = {
        "title": scenario.name or Path(scenario.source).stem,
        "scenario": scenario.to_yaml(),
        "scenario_source": str(scenario.source),
        "scenario_hash": scenario.content_hash(),
        "root_seed": int(scenario.seed),
        "trials": int(scenario.trials),
        "reference": scenario.reference,
        "engine": scenario.engine,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "complete": 0,
        **_versions(),
    }
    return xr.Dataset(data_vars, coords, attrs)


def _cell_values(index, counts):
    """``(variable, region, value)`` for every stored variable of one cell.

    Per-judge counts get a ``judge`` dim only with several judges. The per-omega,
    per-secondary and per-human arrays fill only their first entries (cells with fewer
    humans than the largest K of the sweep leave the rest at 0 and NaN).
    """
    single = np.ndim(counts["n_wrong"]) == 1 and len(counts["n_wrong"]) == 1
    for name in (*COUNT_NAMES, *SUM_NAMES):
        value = counts[name]
        if name in JUDGE_COUNT_NAMES:
            yield (
                name,
                (index if single else (*index, slice(None))),
                (value[0] if single else value),
            )
        else:
            yield name, index, value
    hist = counts["omega_hist"][0] if single else counts["omega_hist"]
    yield (
        "omega_hist",
        (*index, *(() if single else (slice(None),)), slice(0, hist.shape[-1])),
        hist,
    )
    for name in ("sum_coverage", "n_skipped"):
        yield name, (*index, slice(0, len(counts[name]))), counts[name]


def put_cell(cube, index, counts):
    """Write one cell's counts into an in-memory cube and mark it complete."""
    for name, region, value in _cell_values(index, counts):
        cube[name].values[region] = value
    ints, floats = _pack(counts, _layout(cube))
    cube["cell_ints"].values[index] = ints
    cube["cell_floats"].values[index] = floats
    cube["cell_checksum"].values[index] = _checksum([ints, floats])
    cube["cell_complete"].values[index] = True


RUN_VARIABLES = ["cell_ints", "cell_floats", "cell_checksum", "cell_complete"]
"""What a store holds while its run is under way: each cell's counts packed in two rows
(one chunk per cell), a checksum and a completion flag. Finishing unpacks them into the
named variables."""

STORED_NAMES = (*COUNT_NAMES, *SUM_NAMES, "omega_hist", "sum_coverage", "n_skipped")
"""Every per-cell variable, in packing order (that of :func:`_cell_values`)."""


def _layout(cube):
    """``(name, per-cell shape, pad value)`` of every stored variable, split by dtype."""
    sweep = len(cube["n_trials"].dims)
    layout = {"int": [], "float": []}
    for name in STORED_NAMES:
        variable = cube[name]
        kind = "int" if variable.dtype.kind == "i" else "float"
        pad = 0 if kind == "int" else np.nan
        layout[kind].append((name, variable.shape[sweep:], pad))
    return layout


def _pack(counts, layout):
    """Flatten one cell's counts into an int64 and a float64 vector of fixed width."""
    regions = {name: (region, value) for name, region, value in _cell_values((), counts)}
    vectors = []
    for kind, dtype in (("int", np.int64), ("float", np.float64)):
        parts = []
        for name, shape, pad in layout[kind]:
            padded = np.full(shape, pad, dtype=dtype)
            region, value = regions[name]
            padded[region] = value
            parts.append(padded.ravel())
        vectors.append(np.concatenate(parts))
    return vectors


def _unpack(ints, floats, layout):
    """Return the padded per-cell arrays of every stored variable from the packed vectors."""
    arrays = {}
    for kind, vector in (("int", ints), ("float", floats)):
        position = 0
        for name, shape, _ in layout[kind]:
            size = int(np.prod(shape))
            arrays[name] = np.asarray(vector[position : position + size]).reshape(shape)
            position += size
    return arrays


def _ratio(numerator, denominator):
    denominator = denominator.astype(np.float64)
    return numerator / denominator.where(denominator > 0)


def agreement_statistics(cube):
    """Mean, bias and spreads of the human-pool agreement estimate, from a cube's sums.

    Over the ``n = n_agreement_defined`` trials with a defined estimate: mean ``S / n``;
    sample variance ``(S2 - S^2 / n) / (n - 1)``; bias the mean error; SDs the square
    roots; NaN where ``n`` is 0 (or below 2 for spreads). Used by synthetic and real-data
    cubes alike.
    """
    defined = cube["n_agreement_defined"]

    def variance(total, squares):
        spread = cube[squares] - cube[total] ** 2 / defined.where(defined > 0)
        return (spread / (defined - 1).where(defined > 1)).clip(min=0)

    estimate_variance = variance("sum_agreement_estimate", "sum_agreement_estimate_sq")
    return {
        "agreement_mean": _ratio(cube["sum_agreement_estimate"], defined),
        "agreement_bias": _ratio(cube["sum_agreement_error"], defined),
        "agreement_variance": estimate_variance,
        "agreement_sd": np.sqrt(estimate_variance),
        "agreement_error_sd": np.sqrt(variance("sum_agreement_error", "sum_agreement_error_sq")),
    }


def with_rates(cube):
    """Return ``cube`` with every rate and derived statistic.

    Binomial rates (:data:`RATE_ATTRS`): ``rate = count / denominator`` and
    ``rate_se = sqrt(rate (1 - rate) / denominator)``. Agreement statistics over the ``n``
    trials with a defined estimate: mean ``S / n``; sample variance
    ``(S2 - S^2 / n) / (n - 1)``; bias the mean error; SDs the square roots. Everything is
    NaN where its denominator is 0 (or ``n < 2`` for spreads), which the attributes say.
    """
    cube = cube.copy()
    for name, (numerator, denominator, long_name) in RATE_ATTRS.items():
        rate = _ratio(cube[numerator], cube[denominator])
        se = np.sqrt(rate * (1 - rate) / cube[denominator].where(cube[denominator] > 0))
        note = f"{numerator} / {denominator}; NaN where {denominator} is 0"
        cube[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
        cube[f"{name}_se"] = se.assign_attrs(
            long_name=f"binomial standard error of the {long_name}",
            units="1",
            description=f"sqrt(rate (1 - rate) / {denominator}); NaN where {denominator} is 0",
        )
    trials = cube["n_trials"]
    derived = {
        "mean_coverage": _ratio(cube["sum_coverage"], trials),
        "mean_pairwise_overlap": _ratio(cube["sum_pairwise_overlap"], trials),
        "agreement_reference_mean": _ratio(
            cube["sum_agreement_reference"], cube["n_agreement_defined"]
        ),
        **agreement_statistics(cube),
    }
    undecided = cube["n_undecided_comparisons"]
    n_judges = cube.sizes.get("judge", 1)
    pairs = trials * (n_judges * (n_judges - 1) // 2)
    derived.update(
        {
            "effective_k": _ratio(cube["n_tested"], trials),
            "skipped_rate": _ratio(cube["n_skipped"], trials),
            "undecided_per_trial": _ratio(undecided, trials),
            "mean_extra_items": _ratio(cube["sum_extra_items"], undecided),
            "rank_error": _ratio(cube["n_rank_discordant"], pairs),
            "rank_error_population": _ratio(cube["n_rank_discordant_population"], pairs),
        }
    )
    for name, (long_name, units) in DERIVED_ATTRS.items():
        cube[name] = derived[name].assign_attrs(
            long_name=long_name,
            units=units,
            description="NaN where no trial (or, for spreads, fewer than two) defines it",
        )
    return cube


# --------------------------------------------------------------------------- zarr


def _encoding(cube):
    """Return the chunking of every variable.

    One chunk per cell for the packed run variables (written cell by cell), one chunk per
    variable for everything written when the run finishes.
    """
    encoding = {}
    for name, variable in cube.variables.items():
        if name in cube.dims:
            continue
        per_cell = name in RUN_VARIABLES
        encoding[name] = {
            "chunks": tuple(
                1 if per_cell and d in cube["cell_complete"].dims else cube.sizes[d]
                for d in variable.dims
            )
        }
    return encoding


def read_attrs(path):
    """Return the attributes of the store at ``path``, or None if it is not a zarr store."""
    try:
        return dict(zarr.open_group(str(path), mode="r").attrs)
    except (FileNotFoundError, zarr.errors.GroupNotFoundError, ValueError, KeyError):
        return None


def finished_whole(path, scenario, overwrite=False):
    """Return the finished cube of ``scenario`` stored at ``path``, or None to compute it.

    For scenarios whose store is written whole (:func:`write_whole`): a complete store of
    the same scenario (same hash) is reused; nothing at ``path``, or ``overwrite``, means
    compute; anything else is refused.

    Raises
    ------
    StoreError
        ``path`` holds another store and ``overwrite`` is false.
    """
    if path is None or not Path(path).exists():
        return None
    attrs = read_attrs(path)
    same = attrs and attrs.get("scenario_hash") == scenario.content_hash()
    if same and attrs.get("complete") and not overwrite:
        return xr.open_zarr(str(path), chunks=None).load()
    if not overwrite:
        raise StoreError(
            f"{path}: holds another store; use --overwrite to replace it or --out for another store"
        )
    return None


def prepare(path, scenario, overwrite=False):
    """Make ``path`` ready for ``scenario``; return the trials already done per cell.

    A missing store is created (in a temporary folder, then renamed, so that no
    half-created store is left). A store of the same scenario (same hash) is resumed: every
    complete cell whose stored counts still match their checksum keeps its trials (a cell
    whose chunks are missing or damaged is reported and recomputed). Anything else at
    ``path`` is refused unless ``overwrite``.

    Returns
    -------
    tuple
        ``(done, damaged)``: ``{cell index: trials stored}`` for the cells that can be kept
        (or extended), and the indices of damaged cells.

    Raises
    ------
    StoreError
        When ``path`` holds something other than this scenario's store.
    """
    path = Path(path)
    if path.exists():
        attrs = read_attrs(path)
        same = attrs is not None and attrs.get("scenario_hash") == scenario.content_hash()
        if not same and not overwrite:
            what = (
                "a store of a different scenario"
                if attrs and "scenario_hash" in attrs
                else "something that is not a simcore store"
            )
            raise StoreError(
                f"{path}: holds {what} ({attrs.get('title') if attrs else '-'}); "
                "use --overwrite to replace it or --out for another store"
            )
        if same and not overwrite:
            done, damaged = _verified_cells(path, scenario)
            if len(done) < int(np.prod(scenario.shape)) or any(
                trials != scenario.trials for trials in done.values()
            ):
                _mark_unfinished(path)
            return done, damaged
        _remove(path)
    _create(path, empty_cube(scenario)[RUN_VARIABLES])
    return {}, []


def cell_template(cell, n_judges):
    """Zero counts shaped as :func:`simcore.studies.synthetic_cell.count_outcomes` gives them."""
    n_humans = cell.model.n_humans
    counts = {
        name: np.zeros(n_judges, np.int64) if name in JUDGE_COUNT_NAMES else np.int64(0)
        for name in COUNT_NAMES
    }
    counts.update({name: np.float64(0) for name in SUM_NAMES})
    counts["omega_hist"] = np.zeros((n_judges, n_humans + 1), np.int64)
    counts["sum_coverage"] = np.zeros(n_humans - 1)
    counts["n_skipped"] = np.zeros(n_humans, np.int64)
    return counts


def _checksum(values):
    digest = hashlib.sha256()
    for value in values:
        digest.update(np.ascontiguousarray(value).tobytes())
    return int.from_bytes(digest.digest()[:8], "little", signed=True)


def read_cell(group, index, template, layout):
    """Read one cell's counts from an open zarr group, shaped like ``template``."""
    arrays = _unpack(group["cell_ints"][index], group["cell_floats"][index], layout)
    counts = {}
    for name, region, value in _cell_values((), template):
        counts[name] = np.asarray(arrays[name][region]).reshape(np.shape(value))
        if not np.ndim(value):
            counts[name] = counts[name][()]
    return counts


def _verified_cells(path, scenario):
    """Complete cells whose stored counts match their checksum, and the damaged ones.

    The packed arrays are read whole; if that fails (a damaged chunk) they are read cell
    by cell, so that only the cells a damaged chunk spoils are recomputed.
    """
    group = zarr.open_group(str(path), mode="r", use_consolidated=False)
    complete = np.asarray(group["cell_complete"][...])
    checksums = np.asarray(group["cell_checksum"][...])
    whole = {}
    for name in ("cell_ints", "cell_floats"):
        try:
            whole[name] = np.asarray(group[name][...])
        except Exception:  # damaged somewhere: fall back to cell-by-cell reads
            whole[name] = None
    done, damaged = {}, []
    for cell in scenario.cells():
        if not complete[cell.index]:
            continue
        try:
            rows = [
                group[name][cell.index] if whole[name] is None else whole[name][cell.index]
                for name in ("cell_ints", "cell_floats")
            ]
            ok = _checksum(rows) == int(checksums[cell.index])
        except Exception:  # a chunk that cannot be read or decoded: recompute the cell
            ok = False
        if ok:
            done[cell.index] = int(rows[0][0])  # n_trials is packed first
        else:
            damaged.append(cell.index)
    return done, damaged


@contextlib.contextmanager
def writer_lock(path):
    """Hold ``STORE.lock`` (beside the store) while one process writes the store.

    A second process is refused with :class:`StoreError`; a lock left by a process that no
    longer runs on this host is taken over.

    Raises
    ------
    StoreError
        When another live process holds the lock.
    """
    lock = Path(path).with_name(Path(path).name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    me = f"{os.uname().nodename} {os.getpid()}"
    for _ in range(2):
        try:
            handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            owner = lock.read_text().strip() if lock.exists() else ""
            host, _, pid = owner.partition(" ")
            if host == os.uname().nodename and pid.isdigit() and not _alive(int(pid)):
                lock.unlink(missing_ok=True)  # left by a run that was killed
                continue
            raise StoreError(
                f"{path}: another simcore run ({owner or 'unknown'}) is writing "
                f"this store; wait for it or remove {lock} if it is gone"
            ) from None
        with os.fdopen(handle, "w") as stream:
            stream.write(me)
        break
    try:
        yield
    finally:
        if lock.exists() and lock.read_text().strip() == me:
            lock.unlink()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mark_unfinished(path):
    """Set ``complete`` to 0, in the consolidated metadata too, before cells are rewritten."""
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    group.attrs["complete"] = 0
    zarr.consolidate_metadata(str(path))


def _remove(path):
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _create(path, cube):
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    cube.to_zarr(
        str(temporary), mode="w", encoding=_encoding(cube), consolidated=False, zarr_format=2
    )
    os.replace(temporary, path)


def write_whole(path, cube):
    """Write a finished cube in one go (temporary folder, then rename), consolidated."""
    path = Path(path)
    if path.exists():
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    cube.to_zarr(str(temporary), mode="w", consolidated=True, zarr_format=2)
    os.replace(temporary, path)


class CellWriter:
    """Writes finished cells into a store: one packed row of integers and one of floats."""

    def __init__(self, path, scenario):
        self.group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
        self.layout = _layout(empty_cube(scenario))
        self.arrays = {name: self.group[name] for name in RUN_VARIABLES}

    def read(self, cell, n_judges):
        """Return the stored counts of ``cell`` (to extend it with more trials)."""
        return read_cell(self.group, cell.index, cell_template(cell, n_judges), self.layout)

    def write(self, index, counts, previous=None):
        """Write one cell's counts; ``cell_complete`` is set last.

        With ``previous`` (the cell's stored counts for earlier trials) the new counts are
        added to them. The cell is marked incomplete while it is rewritten, and its
        checksum is written before it is marked complete again, so a run killed at any
        moment leaves either the old cell, a cell to recompute, or the new cell.
        """
        if previous is not None:
            counts = {name: previous[name] + counts[name] for name in counts}
        ints, floats = _pack(counts, self.layout)
        self.arrays["cell_complete"][index] = False
        self.arrays["cell_ints"][index] = ints
        self.arrays["cell_floats"][index] = floats
        self.arrays["cell_checksum"][index] = _checksum([ints, floats])
        self.arrays["cell_complete"][index] = True


def derive(cube, scenario):
    """Return ``cube`` with rates, derived statistics and, for planning scenarios, the plan."""
    cube = with_rates(cube)
    if "judge" in cube.dims:
        from simcore.studies.planning import ranking_recipe

        m_rank, gap, sigma2 = ranking_recipe(next(iter(scenario.cells())))
        cube.attrs.update(
            {
                "ranking_recipe_items": m_rank,
                "ranking_recipe_gap": gap,
                "ranking_recipe_variance": sigma2,
                "ranking_recipe": "m_rank = ceil(2 z_{1-alpha/(J-1)}^2 sigma0^2 / gap^2), alpha "
                "0.05, for the first cell's judges; assumes equal variances and "
                "no covariance between the judges' scores",
            }
        )
    if scenario.planning is not None:
        from simcore.studies.planning import add_plan

        cube = add_plan(cube, scenario)
    return cube


def finalize(path, scenario):
    """Unpack the cells, derive every statistic, mark the store complete, consolidate.

    Returns
    -------
    xarray.Dataset
        The finished cube, loaded in memory.
    """
    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    complete = np.asarray(group["cell_complete"][...])
    if not complete.all():
        raise RuntimeError(f"{path}: finalize called with unfinished cells")
    cube = empty_cube(scenario)
    cube.attrs.update(dict(group.attrs))
    layout = _layout(cube)
    packed = {
        "int": np.asarray(group["cell_ints"][...]),
        "float": np.asarray(group["cell_floats"][...]),
    }
    for kind, fields in layout.items():
        position = 0
        for name, shape, _ in fields:
            size = int(np.prod(shape))
            block = packed[kind][..., position : position + size]
            cube[name].values[...] = block.reshape((*scenario.shape, *shape))
            position += size
    cube["cell_ints"].values[...] = packed["int"]
    cube["cell_floats"].values[...] = packed["float"]
    cube["cell_complete"].values[...] = complete
    cube["cell_checksum"].values[...] = np.asarray(group["cell_checksum"][...])
    cube = derive(cube, scenario)
    written = cube[[name for name in cube.data_vars if name not in RUN_VARIABLES]]
    written = written.reset_coords(drop=True)
    written.to_zarr(
        str(path),
        mode="a",
        consolidated=False,
        encoding=_encoding(written) if not _has(path, written) else None,
    )
    group.attrs.update(
        {
            **{key: value for key, value in cube.attrs.items() if key.startswith("ranking_")},
            "complete": 1,
            "trials": int(scenario.trials),
            "scenario": scenario.to_yaml(),
            "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
    )
    zarr.consolidate_metadata(str(path))
    cube.attrs.update(dict(group.attrs))
    return cube


def _has(path, dataset):
    group = zarr.open_group(str(path), mode="r")
    return all(name in group for name in dataset.data_vars)


def damaged_cells(cube):
    """Return the indices of a loaded synthetic cube's cells that fail their checks.

    A cell is damaged when its packed rows no longer match its checksum, or when the named
    count variables disagree with the packed rows (e.g. a missing chunk read as zeros).
    """
    if "cell_ints" not in cube:
        return []
    ints = cube["cell_ints"].values
    floats = cube["cell_floats"].values
    checksums = cube["cell_checksum"].values
    trials = cube["n_trials"].values
    damaged = []
    for index in np.ndindex(*cube["cell_complete"].shape):
        if _checksum([ints[index], floats[index]]) != int(checksums[index]) or int(
            trials[index]
        ) != int(ints[index][0]):
            damaged.append(index)
    return damaged
