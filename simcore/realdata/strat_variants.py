"""Readings of P's stratified allocation ("Strat") as real-data thinning designs.

The sparse-overlap paper's text (docs/explanation/published-results.md) says Strat stratifies by the
primary's labels and allocates in proportion, but leaves open whether the secondaries share one
sample, what the strata are counted over, and what coverage is a share of. Each reading below is a
design of the real protocol. Notation: ``n`` items; the primary layer's label ``y_i`` of item ``i``
(:func:`simcore.realdata.thinning.primary_layer`); human ``h``'s thinnable items ``A_h`` (labels it
gave outside the primary layer), ``a_h = |A_h|``; per-secondary coverage ``rho``;
:func:`simcore.model.designs.proportional_allocation` ("PA": floor shares, the leftover slots one
each to the largest strata). A human only ever keeps labels it gave.

- ``strat`` (in :mod:`~simcore.realdata.thinning`, unchanged): each human independently
  keeps ``m_h = round(rho a_h)`` of ``A_h``, PA over the strata of ``A_h`` by ``y``.
- ``strat_panel``: one panel shared by every human: ``round(rho n)`` items, PA over the
  strata of all ``n`` items by ``y``, uniform within a stratum; human ``h`` keeps
  ``A_h`` on the panel.
- ``strat_panel_balanced``: as ``strat_panel`` with the ``round(rho n)`` panel items split
  equally over the strata (equal allocation, as ``strat_balanced``; a stratum smaller than
  its share gives all its items and the rest is refilled).
- ``strat_panel_judge``: as ``strat_panel`` with strata = the judge's labels (P App. B.1's
  demonstration); each judge is decided on its own panel (:data:`JUDGE_STRATIFIED`), the
  human-pool agreement and comparison counts are those of the first judge's panel.
- ``strat_corpus``: per human, ``m_h = round(rho a_h)`` with quotas PA over the strata of
  the whole corpus (``n_s`` items with ``y = s``), not of ``A_h``; a quota above the human's
  items in the stratum is capped and the slots left go, by PA over the corpus sizes, to
  the strata with room, until ``m_h`` are placed.
- ``strat_corpus_m``: coverage as a share of the corpus: per human,
  ``m_h = min(round(rho n), a_h)``, PA over the strata of ``A_h`` (for a dense matrix it
  equals ``strat``).
- ``strat_balanced``: per human, ``m_h = round(rho a_h)`` split equally over the strata
  present in ``A_h`` (equal, not proportional, allocation), capped and refilled as in
  ``strat_corpus`` with equal shares.
"""

import numpy as np

from simcore.model.designs import proportional_allocation

VARIANTS = (
    "strat_panel",
    "strat_panel_balanced",
    "strat_panel_judge",
    "strat_corpus",
    "strat_corpus_m",
    "strat_balanced",
)
"""Real-data-only readings of Strat (the synthetic kernels do not draw them)."""

DEFINITIONS = {
    "bernoulli": "each thinnable label kept with probability rho",
    "exact_m": "each human keeps a uniform subset of round(rho a_h) of its a_h thinnable labels",
    "shared_panel": "one uniform panel of round(rho n) items; each human keeps its labels on it",
    "strat": "each human independently keeps round(rho a_h) of its thinnable items, allocated "
    "in proportion to their strata (primary layer's labels), uniform within a stratum",
    "seq_refined": "humans in order, strata = mode of the labels kept so far, then as strat",
    "seq_coverage": "as seq_refined, least-covered items first within a stratum",
    "strat_panel": "one panel of round(rho n) items shared by every human, allocated in "
    "proportion to the corpus's strata (primary layer's labels); each human keeps its labels "
    "on the panel",
    "strat_panel_balanced": "as strat_panel with the panel split equally over the strata "
    "(capped by each stratum's size and refilled)",
    "strat_panel_judge": "as strat_panel with strata = the judge's labels; each judge is "
    "decided on its own panel (pool agreement from the first judge's panel)",
    "strat_corpus": "each human keeps round(rho a_h) items with quotas proportional to the "
    "corpus's strata (not the human's), capped by the human's items per stratum and refilled",
    "strat_corpus_m": "coverage as a share of the corpus: each human keeps min(round(rho n), "
    "a_h) items, proportional to the strata of its own thinnable items",
    "strat_balanced": "each human keeps round(rho a_h) items split equally over the strata of "
    "its thinnable items, capped by what it has and refilled",
}
"""One line per design of the real protocol, written into the cube's attrs."""

JUDGE_STRATIFIED = ("strat_panel_judge",)
"""Designs whose mask depends on the judge: each judge is decided on its own mask."""

SHARED = ("strat_panel", "strat_panel_balanced", "strat_panel_judge")
"""Variants where every human keeps its labels on one common panel."""


def stratified_panel(rng, strata, size, balanced=False):
    """Return a bool ``(n,)`` panel of ``size`` items over ``strata``, uniform within a stratum.

    PA over the strata's sizes, or (``balanced``) equal shares capped by each size.
    """
    members = np.arange(len(strata))
    sizes = _sizes(strata)
    if balanced:
        allocation = capped_allocation(sizes > 0, sizes, size)
    else:
        allocation = proportional_allocation(sizes, size)
    chosen = _draw(rng, members, strata, allocation)
    panel = np.zeros(len(strata), dtype=bool)
    panel[chosen] = True
    return panel


def capped_allocation(weights, room, take):
    """Place ``take`` slots over strata by ``weights``, never above ``room`` per stratum.

    Round 1 gives PA of ``take`` by ``weights`` over the strata with room, each capped at
    its room; every further round places what is left the same way over the strata still
    with room. Requires ``take <= room.sum()``.
    """
    room = np.asarray(room, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.int64)
    allocation = np.zeros_like(room)
    while take > int(allocation.sum()):
        open_ = room > allocation
        share = proportional_allocation(np.where(open_, weights, 0), take - int(allocation.sum()))
        if not share.any():  # no weight left on the open strata: fill them in index order
            share = np.where(open_, 1, 0)
            share = proportional_allocation(share, take - int(allocation.sum()))
        allocation = np.minimum(allocation + share, room)
    return allocation


def choose_variant(rng, design, candidates, coverage, primary_labels, n_items):
    """Return the items human ``h`` keeps from its ``candidates`` under a per-human variant.

    Parameters
    ----------
    rng : numpy.random.Generator
        The trial's stream.
    design : str
        ``strat_corpus``, ``strat_corpus_m`` or ``strat_balanced``.
    candidates : numpy.ndarray
        The human's thinnable items ``A_h``.
    coverage : float
        rho.
    primary_labels : numpy.ndarray
        ``(n,)`` the primary layer's label of every item (the strata).
    n_items : int
        n.
    """
    room = _sizes(primary_labels[candidates], primary_labels.max() + 1)
    if design == "strat_corpus_m":
        take = min(int(round(coverage * n_items)), len(candidates))
        allocation = proportional_allocation(room, take)
    else:
        take = int(round(coverage * len(candidates)))
        weights = _sizes(primary_labels) if design == "strat_corpus" else (room > 0)
        allocation = capped_allocation(weights, room, take)
    return _draw(rng, candidates, primary_labels, allocation)


def _sizes(strata, length=None):
    """Items per stratum code."""
    return np.bincount(strata, minlength=length or strata.max() + 1).astype(np.int64)


def _draw(rng, candidates, strata, allocation):
    """Draw ``allocation[s]`` of the ``candidates`` in stratum ``s``, uniformly, for every s."""
    chosen = []
    own = strata[candidates]
    # grouped by stratum once (O(n log n)), not one pass over the candidates per stratum
    by_stratum = candidates[np.argsort(own, kind="stable")]
    starts = np.concatenate(([0], np.cumsum(np.bincount(own, minlength=len(allocation)))))
    for stratum in np.flatnonzero(allocation):
        members = by_stratum[starts[stratum] : starts[stratum + 1]]
        chosen.append(rng.choice(members, size=int(allocation[stratum]), replace=False))
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)


def thin_variant(rng, design, coverage, thinnable, primary_labels, judge_labels=None):
    """Return the kept thinnable labels ``(n, K)`` of one trial under a Strat variant.

    ``judge_labels`` (``(n,)`` codes) are the strata of ``strat_panel_judge``. The caller
    adds the primary layer.
    """
    n_items, n_humans = thinnable.shape
    if design in SHARED:
        strata = judge_labels if design in JUDGE_STRATIFIED else primary_labels
        if strata is None:
            raise ValueError(f"{design} needs the judge's labels")
        size = int(round(coverage * n_items))
        panel = stratified_panel(rng, np.asarray(strata), size, design == "strat_panel_balanced")
        return thinnable & panel[:, None]
    keep = np.zeros_like(thinnable)
    for human in range(n_humans):
        candidates = np.flatnonzero(thinnable[:, human])
        if len(candidates):
            chosen = choose_variant(rng, design, candidates, coverage, primary_labels, n_items)
            keep[chosen, human] = True
    return keep
