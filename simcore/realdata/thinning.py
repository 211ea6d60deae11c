"""Thinning a real annotation matrix by an overlap design (docs/explanation/published-results.md).

The full matrix as collected is the reference. Its **primary layer** is never thinned: for
each item, the label of the first human in the matrix's human order who labelled it (for a
dense matrix, the first human's whole column). Every other label is thinnable. At
per-secondary coverage ``rho`` each human keeps ``m_h = round(rho a_h)`` of its ``a_h``
thinnable labels, chosen by the design:

- ``bernoulli``: each thinnable label is kept with probability ``rho``;
- ``exact_m``: a uniform subset of ``m_h``;
- ``shared_panel``: one panel of ``round(rho n)`` uniformly chosen items for everybody;
  each human keeps its thinnable labels on the panel;
- ``strat``: strata are the primary layer's labels; ``m_h`` is split over the strata in
  proportion to the human's thinnable items in each (:func:`proportional_allocation`),
  uniformly within a stratum;
- ``seq_refined``: humans in order; before human ``h`` chooses, an item's stratum is the
  mode of the labels collected on it so far (primary layer plus the labels kept from earlier
  humans; a tie goes to the primary layer's label when it is among the tied labels, else to
  the smallest); then as ``strat``;
- ``seq_coverage``: as ``seq_refined``, the items with the fewest kept secondary labels
  first within a stratum (ties at random).

Readings of ``strat`` other than the one above (shared stratified panels, strata counted
over the corpus, coverage as a share of the corpus, equal allocation) are the designs of
:mod:`simcore.realdata.strat_variants` (:data:`REAL_DESIGNS`).

No label is ever invented: a human can only keep labels it gave.
"""

import numpy as np

from simcore.model.designs import DESIGNS, proportional_allocation
from simcore.realdata.strat_variants import VARIANTS, thin_variant

REAL_DESIGNS = (*DESIGNS, *VARIANTS)
"""Designs the real-data protocol thins by: the synthetic designs, then the Strat variants."""


def primary_layer(available):
    """Return the ``(n, K)`` mask of the primary layer: each item's first labelling human."""
    first = np.argmax(available, axis=1)
    layer = np.zeros_like(available)
    labelled = available.any(axis=1)
    layer[np.flatnonzero(labelled), first[labelled]] = True
    return layer


def mode_strata(labels, collected, primary_labels, n_labels):
    """Mode of the collected labels per item; ties to the primary layer's label, else smallest."""
    counts = np.zeros((labels.shape[0], n_labels), dtype=np.int64)
    for human in range(labels.shape[1]):
        rows = np.flatnonzero(collected[:, human])
        np.add.at(counts, (rows, labels[rows, human]), 1)
    best = counts.max(axis=1)
    primary_tied = counts[np.arange(len(counts)), primary_labels] == best
    return np.where(primary_tied, primary_labels, np.argmax(counts == best[:, None], axis=1))


def choose_stratified(rng, candidates, strata, take, coverage_count=None):
    """Choose ``take`` of ``candidates`` by proportional allocation over ``strata``."""
    chosen = []
    own = strata[candidates]
    sizes = np.bincount(own, minlength=strata.max() + 1)
    allocation = proportional_allocation(sizes, take)
    # candidates grouped by stratum, in their own order within a stratum: O(n log n) once,
    # instead of a pass over every candidate per stratum (thousands of free-text strata)
    by_stratum = candidates[np.argsort(own, kind="stable")]
    starts = np.concatenate(([0], np.cumsum(sizes)))
    for stratum in np.flatnonzero(allocation):  # the strata that get items: at most take
        count = allocation[stratum]
        members = by_stratum[starts[stratum] : starts[stratum + 1]]
        if coverage_count is None:
            chosen.append(rng.choice(members, size=count, replace=False))
            continue
        # fewest secondary labels first, ties at random
        order = np.lexsort((rng.random(len(members)), coverage_count[members]))
        chosen.append(members[order[:count]])
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)


def choose_for_human(  # noqa: PLR0913 (a value object is still to come)
    rng, design, candidates, take, labels, collected, primary_labels, n_labels, coverage_count
):
    """Choose ``take`` of one human's ``candidates`` under a design other than the shared ones.

    ``exact_m`` chooses uniformly; ``strat`` stratifies by ``primary_labels``; the
    sequential designs by the mode of the ``collected`` labels (:func:`mode_strata`),
    ``seq_coverage`` taking the items with the fewest secondary labels (``coverage_count``)
    first. Shared by the thinning of a matrix and the proposal of a next round
    (:func:`simcore.advisor.next_round.extend_mask`).
    """
    if design == "exact_m":
        return rng.choice(candidates, size=take, replace=False)
    if design == "strat":
        return choose_stratified(rng, candidates, primary_labels, take)
    strata = mode_strata(labels, collected, primary_labels, n_labels)
    counts = coverage_count if design == "seq_coverage" else None
    return choose_stratified(rng, candidates, strata, take, counts)


def thin(rng, design, coverage, labels, available, n_labels, judge_labels=None):
    """Return the kept-label mask ``(n, K)`` of one trial.

    Parameters
    ----------
    rng : numpy.random.Generator
        The trial's random stream.
    design : str
        One of :data:`REAL_DESIGNS`.
    coverage : float
        Per-secondary coverage rho in (0, 1].
    labels : numpy.ndarray
        ``(n, K)`` human label codes (anything where not available).
    available : numpy.ndarray
        ``(n, K)`` bool: the labels as collected.
    n_labels : int
        L.
    judge_labels : numpy.ndarray, optional
        ``(n,)`` one judge's label codes: the strata of ``strat_panel_judge``.

    Returns
    -------
    numpy.ndarray
        bool ``(n, K)``: the primary layer plus the labels each human keeps.
    """
    n_items, n_humans = available.shape
    layer = primary_layer(available)
    thinnable = available & ~layer
    keep = layer.copy()
    primary_labels = labels[np.arange(n_items), np.argmax(layer, axis=1)]
    if design == "bernoulli":
        return keep | (thinnable & (rng.random(available.shape) < coverage))
    if design in VARIANTS:
        return keep | thin_variant(rng, design, coverage, thinnable, primary_labels, judge_labels)
    if design == "shared_panel":
        panel = np.zeros(n_items, dtype=bool)
        panel[rng.choice(n_items, size=int(round(coverage * n_items)), replace=False)] = True
        return keep | (thinnable & panel[:, None])
    coverage_count = np.zeros(n_items, dtype=np.int64)
    for human in range(n_humans):
        candidates = np.flatnonzero(thinnable[:, human])
        take = int(round(coverage * len(candidates)))
        if take == 0:
            continue
        chosen = choose_for_human(
            rng, design, candidates, take, labels, keep, primary_labels, n_labels, coverage_count
        )
        keep[chosen, human] = True
        coverage_count[chosen] += 1
    return keep
