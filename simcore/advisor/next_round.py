"""Choosing each secondary human's next items under an overlap design (docs/explanation/designs.md).

Given the matrix as it is, each secondary human (every human but the primary, humans 1 ..
K - 1 in the matrix's order) gets ``extra`` more items to label, never one it has already
labelled, chosen by a design:

- ``bernoulli``: each unlabelled item with probability ``extra / unlabelled``;
- ``exact_m``: a uniform ``extra`` of its unlabelled items;
- ``shared_panel``: one panel of ``extra`` items for everybody, taken uniformly from the
  items the fewest secondaries have labelled; each secondary labels the panel items it has
  not labelled yet;
- ``strat``: strata are the primary layer's current labels (each item's first labelling
  human); ``extra`` is split over the strata in proportion to the human's unlabelled items
  in each (:func:`simcore.model.designs.proportional_allocation`), uniformly within a stratum;
- ``seq_refined``: secondaries in order; an item's stratum is the mode of the labels
  collected on it so far (:func:`simcore.realdata.thinning.mode_strata`), then as ``strat``;
- ``seq_coverage``: as ``seq_refined``, the items with the fewest secondary labels (current
  and already proposed) first within a stratum.

The strata come from the labels already collected: the choice is made before the new
labels exist, as it is in practice.
"""

import numpy as np

from simcore.model.designs import DESIGNS
from simcore.realdata.thinning import choose_for_human, primary_layer


def extend_mask(rng, design, extra, labels, available, n_labels):
    """Return the mask of the labels proposed next, ``(n, K)`` bool (new labels only).

    Parameters
    ----------
    rng : numpy.random.Generator
        The random stream of this proposal.
    design : str
        One of :data:`simcore.model.designs.DESIGNS`.
    extra : int
        Items each secondary is to label next (fewer when it has fewer unlabelled items).
    labels : numpy.ndarray
        ``(n, K)`` human label codes (anything where not available).
    available : numpy.ndarray
        ``(n, K)`` bool: the labels collected so far.
    n_labels : int
        L.

    Returns
    -------
    numpy.ndarray
        bool ``(n, K)``: True where the design proposes a new label; never where
        ``available`` is True, never in the primary's column.
    """
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)} (got {design!r})")
    n_humans = available.shape[1]
    if extra <= 0 or n_humans < 2:
        return np.zeros_like(available)
    unlabelled = ~available
    unlabelled[:, 0] = False
    primary_labels = primary_layer_labels(labels, available)
    if design == "bernoulli":
        return _bernoulli_proposal(rng, extra, unlabelled)
    if design == "shared_panel":
        return _shared_panel_proposal(rng, extra, available, unlabelled)
    return _stratified_proposal(
        rng, design, extra, labels, available, unlabelled, primary_labels, n_labels
    )


def primary_layer_labels(labels, available):
    """Return each item's label in the primary layer (its first labelling human), else 0."""
    n_items = available.shape[0]
    layer = primary_layer(available)
    labelled = available.any(axis=1)
    first_labels = labels[np.arange(n_items), np.argmax(layer, axis=1)]
    return np.where(labelled, first_labels, 0).astype(np.int64)


def _bernoulli_proposal(rng, extra, unlabelled):
    """Propose each secondary's unlabelled items, each with probability ``extra / unlabelled``."""
    proposed = np.zeros_like(unlabelled)
    for human in range(1, unlabelled.shape[1]):
        candidates = np.flatnonzero(unlabelled[:, human])
        if len(candidates):
            share = min(1.0, extra / len(candidates))
            proposed[candidates[rng.random(len(candidates)) < share], human] = True
    return proposed


def _shared_panel_proposal(rng, extra, available, unlabelled):
    """Propose one panel of ``extra`` items for all secondaries, the least covered first."""
    n_items = available.shape[0]
    proposed = np.zeros_like(unlabelled)
    secondary_count = available[:, 1:].sum(axis=1)
    order = np.lexsort((rng.random(n_items), secondary_count))
    panel = order[: min(extra, n_items)]
    proposed[panel, 1:] = unlabelled[panel, 1:]
    return proposed


def _stratified_proposal(
    rng, design, extra, labels, available, unlabelled, primary_labels, n_labels
):
    """Propose ``extra`` items per secondary in turn, stratified as ``design`` says.

    The secondaries are served in order; each one's choice counts towards the coverage of
    the next (:func:`simcore.realdata.thinning.choose_for_human`).
    """
    proposed = np.zeros_like(unlabelled)
    coverage_count = available[:, 1:].sum(axis=1).astype(np.int64)
    for human in range(1, unlabelled.shape[1]):
        candidates = np.flatnonzero(unlabelled[:, human])
        take = min(extra, len(candidates))
        if take == 0:
            continue
        chosen = choose_for_human(
            rng,
            design,
            candidates,
            take,
            np.maximum(labels, 0),
            available,
            primary_labels,
            n_labels,
            coverage_count,
        )
        proposed[chosen, human] = True
        coverage_count[chosen] += 1
    return proposed
