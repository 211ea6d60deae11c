"""Which engines can draw a synthetic cell: the counts engine's and the bitset engine's reach.

``engine: auto`` (:attr:`simcore.studies.synthetic.config.Cell.kernel_engine`) and the
refusal of ``engine: counts`` or ``engine: bitset`` on a cell they cannot draw read these.
"""

from simcore.engine.bitset.clusters import CLUSTER_WORDS_LIMIT, class_words
from simcore.model.weighted import is_weighted

COUNTS_ENGINE_DESIGNS = ("bernoulli", "exact_m", "shared_panel")
"""Designs under which the counts engine's category counts are exact (the bitset engine's too)."""

BITSET_MAX_LABELS = 16
"""Most label categories the bitset engine draws (its planes grow linearly in L)."""

MAX_LABEL_PATTERNS = 1 << 20
"""Most raters' label patterns ``L ** (K + J)`` the counts engine keeps a histogram for."""


def counts_engine_applies(cell):
    """Return whether the counts engine draws ``cell`` exactly.

    It needs independent, exchangeable items (``cluster_spread`` 0), at most
    :data:`MAX_LABEL_PATTERNS` label patterns ``L ** (K + J)``, and a design that treats
    items alike: :data:`COUNTS_ENGINE_DESIGNS`. The stratified designs read each item's labels
    and stay with the items engine.
    """
    n_raters = cell.confusions().shape[0]
    patterns = cell.model.n_labels**n_raters
    return (
        cell.design.kind in COUNTS_ENGINE_DESIGNS
        and cell.model.cluster_spread == 0
        and patterns <= MAX_LABEL_PATTERNS
    )


def clustered(cell):
    """Whether ``cell``'s items share a per-cluster difficulty (``cluster_spread`` > 0)."""
    return cell.model.cluster_spread > 0


def weighted(cell):
    """Whether ``cell``'s rule scores a weighted coefficient (``rule.level``, ``rule.weights``)."""
    return is_weighted(cell.rule.level, cell.rule.weights)


def bitset_engine_applies(cell):
    """Return whether the bitset engine runs ``cell``.

    It runs the point rule, the interval verdict and the alternative annotator test with
    categorical scores (numeric scores read the label values) with an unweighted
    coefficient (a weighted one reads every pair table, :func:`weighted`) under a design that treats
    items alike apart from their cluster (:data:`COUNTS_ENGINE_DESIGNS`), with at most
    :data:`BITSET_MAX_LABELS` labels; clustered items when their lane classes
    ``G L ceil(n / 64)`` fit in :data:`~simcore.engine.bitset.clusters.CLUSTER_WORDS_LIMIT`
    words.
    """
    model = cell.model
    if weighted(cell):
        return False
    if clustered(cell):
        if class_words(model.n_items, model.n_clusters, model.n_labels) > CLUSTER_WORDS_LIMIT:
            return False
    return (
        cell.rule.kind in ("point", "interval")
        or (cell.rule.kind == "alt_test" and cell.rule.scale == "categorical")
    ) and (cell.design.kind in COUNTS_ENGINE_DESIGNS and model.n_labels <= BITSET_MAX_LABELS)
