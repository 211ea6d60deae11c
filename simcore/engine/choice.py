"""Which engine runs a cell: each engine's reach, and ``engine: auto``'s one choice.

Three engines draw a synthetic cell's trials (docs/explanation/architecture.md): ``bitset``
(bitsets of 64 items a word, every count a popcount), ``counts`` (the rows of a trial drawn
as category counts) and ``items`` (every item drawn, the general path and the oracle's twin).
Each declares the cells it runs through its reach (:data:`REACH`: None where it runs the
cell, else why it cannot), read from a :class:`CellShape`, the facts of a cell an engine's
reach depends on, so the choice needs nothing of the layers above. :func:`choose_engine`
is the one choice: an engine named for a cell must reach it (else it is refused with the
reason), and ``auto`` takes the first engine of :data:`ENGINES` that reaches the cell and
runs it fastest by ``make bench`` (the counts engine only from
:data:`COUNTS_ITEMS_PER_MASK_PATTERN` items per mask pattern).
"""

from dataclasses import dataclass

from simcore.engine.bitset.clusters import CLUSTER_WORDS_LIMIT, class_words

__all__ = [
    "BITSET_MAX_LABELS",
    "COUNTS_ITEMS_PER_MASK_PATTERN",
    "ENGINES",
    "EXCHANGEABLE_DESIGNS",
    "MAX_LABEL_PATTERNS",
    "REACH",
    "CellShape",
    "choose_engine",
    "kernel_variant",
]

ENGINES = ("bitset", "counts", "items")
"""The engines, fastest first where each reaches a cell: ``make bench``'s cost model
(``benchmarks/cost_model.py``), whose recorded table ``benchmarks/engine_costs.json`` the
tests hold :func:`choose_engine` to."""

EXCHANGEABLE_DESIGNS = ("bernoulli", "exact_m", "shared_panel")
"""Designs that treat items alike, so a trial's mask groups can be drawn as counts (the
counts and bitset engines); the stratified designs read each item's labels."""

BITSET_MAX_LABELS = 16
"""Most label categories the bitset engine draws (its planes grow linearly in L)."""

MAX_LABEL_PATTERNS = 1 << 20
"""Most raters' label patterns ``L ** (K + J)`` the counts engine keeps a histogram for."""

COUNTS_ITEMS_PER_MASK_PATTERN = 4
"""``auto`` takes the counts engine (where the bitset engine does not reach) from this many
items per mask pattern ``2 ** (K - 1)``: below it most mask groups hold a few items and the
items engine's single pass wins (``make bench`` measured the crossover near n = 2000 at
K = 10)."""


@dataclass(frozen=True, slots=True)
class CellShape:
    """What an engine's reach depends on: one cell's sizes, design, rule and clusters.

    Attributes
    ----------
    n_items, n_humans, n_raters, n_labels : int
        Items ``n``, humans ``K``, raters ``K + J`` and label categories ``L``.
    n_clusters : int
        Clusters of items ``G``.
    cluster_spread : float
        The spread of the clusters' difficulty (0: independent items).
    design : str
        The allocation design's kind (:data:`simcore.model.DESIGNS`).
    rule : str
        The rule's kind: ``point``, ``interval`` or ``alt_test``.
    scale : str
        The alt_test's per-item score: ``categorical``, ``numeric`` or ``weighted``.
    weighted : bool
        Whether the rule scores a weighted coefficient (a level or weights).
    """

    n_items: int
    n_humans: int
    n_raters: int
    n_labels: int
    n_clusters: int
    cluster_spread: float
    design: str
    rule: str
    scale: str
    weighted: bool

    @property
    def clustered(self):
        """Whether the cell's items share a per-cluster difficulty (``cluster_spread`` > 0)."""
        return self.cluster_spread > 0


def bitset_reach(cell):
    """Return None where the bitset engine runs ``cell``, else why it cannot.

    It runs the point rule, the interval verdict and the alternative annotator test with
    categorical scores, under an unweighted coefficient (a weighted one reads every pair
    table), a design of :data:`EXCHANGEABLE_DESIGNS` and at most :data:`BITSET_MAX_LABELS`
    labels; clustered items where their lane classes ``G L ceil(n / 64)`` fit in
    :data:`~simcore.engine.bitset.clusters.CLUSTER_WORDS_LIMIT` words.
    """
    if cell.weighted:
        return "a weighted coefficient reads every pair table, which bitsets do not keep"
    if cell.rule == "alt_test" and cell.scale != "categorical":
        return f"alt_test with {cell.scale} scores reads each item's label values"
    if cell.design not in EXCHANGEABLE_DESIGNS:
        return f"the {cell.design} design reads each item's labels"
    if cell.n_labels > BITSET_MAX_LABELS:
        return f"{cell.n_labels} labels, above its {BITSET_MAX_LABELS}"
    words = class_words(cell.n_items, cell.n_clusters, cell.n_labels)
    if cell.clustered and words > CLUSTER_WORDS_LIMIT:
        return (
            f"clusters of {words} class words n_clusters * n_labels * ceil(n_items / 64), "
            f"above its {CLUSTER_WORDS_LIMIT}"
        )
    return None


def counts_reach(cell):
    """Return None where the counts engine draws ``cell`` exactly, else why it cannot.

    It needs independent, exchangeable items (``cluster_spread`` 0, a design of
    :data:`EXCHANGEABLE_DESIGNS`) and at most :data:`MAX_LABEL_PATTERNS` label patterns
    ``L ** (K + J)``.
    """
    if cell.clustered:
        return "clustered items are not exchangeable"
    if cell.design not in EXCHANGEABLE_DESIGNS:
        return f"the {cell.design} design reads each item's labels"
    patterns = cell.n_labels**cell.n_raters
    if patterns > MAX_LABEL_PATTERNS:
        return f"{patterns} label patterns L**(K+J), above its {MAX_LABEL_PATTERNS}"
    return None


def items_reach(cell):
    """Return None: the items engine runs every cell."""
    return None


REACH = {"bitset": bitset_reach, "counts": counts_reach, "items": items_reach}
"""Each engine's reach: a function of a :class:`CellShape`, None where it runs the cell."""


def choose_engine(cell, engine="auto"):
    """Return the engine that runs ``cell``: ``engine`` itself, or ``auto``'s choice.

    ``auto`` takes the bitset engine wherever it reaches the cell, else the counts engine
    where it reaches it with at least :data:`COUNTS_ITEMS_PER_MASK_PATTERN` items per mask
    pattern ``2 ** (K - 1)``, else the items engine.

    Raises
    ------
    ValueError
        ``engine`` is not ``auto`` nor one of :data:`ENGINES`, or cannot run ``cell``
        (``engine bitset: alt_test with numeric scores reads each item's label values``).
    """
    if engine == "auto":
        if bitset_reach(cell) is None:
            return "bitset"
        enough = cell.n_items >= COUNTS_ITEMS_PER_MASK_PATTERN * 2 ** (cell.n_humans - 1)
        return "counts" if enough and counts_reach(cell) is None else "items"
    if engine not in REACH:
        raise ValueError(f"engine: must be auto, {', '.join(ENGINES)} (got {engine!r})")
    why = REACH[engine](cell)
    if why is not None:
        raise ValueError(f"engine {engine}: cannot run this cell: {why}")
    return engine


def kernel_variant(cell, engine):
    """Return the compiled kernel ``engine`` runs ``cell`` with (a key of ``warm.COMPILE_SECONDS``).

    Its engine, and the parts it compiles beyond the nominal point rule on independent
    items: ``bitset:verdicts`` (the interval verdict or alt_test), ``bitset:clusters``,
    ``bitset:verdicts,clusters``; ``items:weighted``, ``counts:weighted``.
    """
    parts = [
        part
        for part, used in (
            ("verdicts", cell.rule != "point" and engine == "bitset"),
            ("clusters", cell.clustered and engine == "bitset"),
            ("weighted", cell.weighted and engine != "bitset"),
        )
        if used
    ]
    return f"{engine}:{','.join(parts)}" if parts else engine
