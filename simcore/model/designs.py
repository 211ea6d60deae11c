"""Overlap designs (docs/explanation/designs.md): which items each secondary human labels.

The primary human (column 0) and every judge label all items. A mask has shape
``(..., n_items, n_humans)`` with column 0 all True.

- ``bernoulli``: each secondary labels each item independently with probability ``rho``.
- ``exact_m``: each secondary labels a uniformly random subset of exactly ``m`` items,
  independently of the others.
- ``shared_panel``: all secondaries label the same uniformly random ``m`` items.
- ``strat``: strata are the primary's labels; each secondary draws its own ``m`` items by
  proportional allocation (stratum ``s`` gets ``floor(m n_s / n)``, the slots left over go
  one each to the largest strata, ties in size to the smaller label), uniformly within a
  stratum, independently per secondary.
- ``seq_refined``: secondaries in order; before secondary ``k`` chooses, an item's stratum
  is the mode of the human labels collected on it so far (a tie goes to the primary's label
  when it is among the tied labels, else to the smallest tied label); then as ``strat``.
- ``seq_coverage``: as ``seq_refined``, but within a stratum the items with the fewest
  secondary labels so far come first (ties at random).

The kernels (:mod:`simcore.engine.kernels`) draw every design; the NumPy samplers here cover
``bernoulli`` and ``exact_m`` for the oracle tests. Every design but ``bernoulli`` takes
``m`` (or ``rho``, with ``m = round(rho n)``).
"""

import numpy as np

DESIGNS = ("bernoulli", "exact_m", "shared_panel", "strat", "seq_refined", "seq_coverage")
"""Design names, in the order of their integer codes in the kernels."""


def design_code(name):
    """Return the kernel's integer code of design ``name``."""
    return DESIGNS.index(name)


def sample_mask(rng, design, n_trials, n_items, n_humans, rho=None, m=None):
    """Draw overlap masks with NumPy.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.
    design : str
        ``"bernoulli"`` (needs ``rho``) or ``"exact_m"`` (needs ``m``).
    n_trials, n_items, n_humans : int
        Shape of the mask.
    rho : float, optional
        Per-item labelling probability of each secondary.
    m : int, optional
        Items per secondary.

    Returns
    -------
    numpy.ndarray
        bool array ``(n_trials, n_items, n_humans)``.
    """
    mask = np.zeros((n_trials, n_items, n_humans), dtype=bool)
    mask[:, :, 0] = True
    if design == "bernoulli":
        mask[:, :, 1:] = rng.random((n_trials, n_items, n_humans - 1)) < rho
    elif design == "exact_m":
        order = rng.random((n_trials, n_humans - 1, n_items)).argsort(axis=-1)[..., :m]
        chosen = np.zeros((n_trials, n_humans - 1, n_items), dtype=bool)
        np.put_along_axis(chosen, order, True, axis=-1)
        mask[:, :, 1:] = chosen.transpose(0, 2, 1)
    else:
        raise ValueError(f"unknown design {design!r}; known designs: {', '.join(DESIGNS)}")
    return mask


def pair_weights(design, n_items, n_humans, rho=None, m=None):
    """Return the expected share of items each pair of humans both label, ``(K, K)``.

    The primary labels everything, so its weight with a secondary is that secondary's
    coverage (``rho``, or ``m / n``). Between two secondaries: ``rho^2`` (``bernoulli``),
    ``(m / n)^2`` (``exact_m``), ``m / n`` (``shared_panel``); the stratified and sequential
    designs use ``(m / n)^2``, which is exact for ``strat`` when the strata divide evenly
    and an approximation otherwise. The weights only matter for the ``population``
    reference when the humans differ from each other.
    """
    share = float(rho) if design == "bernoulli" else m / n_items
    between = share if design == "shared_panel" else share**2
    weights = np.full((n_humans, n_humans), between)
    weights[0, :] = share
    weights[:, 0] = share
    np.fill_diagonal(weights, 0.0)
    return weights


def proportional_allocation(stratum_sizes, m):
    """Split ``m`` slots over strata in proportion to their sizes (``strat``).

    Stratum ``s`` gets ``floor(m n_s / n)``; the slots left over go one each to the largest
    strata (ties in size to the smaller stratum index). The kernels' ``_allocate`` does the
    same in numba.
    """
    sizes = np.asarray(stratum_sizes, dtype=np.int64)
    total = int(sizes.sum())
    if total == 0:
        return np.zeros_like(sizes)
    allocation = m * sizes // total
    order = np.lexsort((np.arange(len(sizes)), -sizes))  # size descending, index ascending
    allocation[order[: m - int(allocation.sum())]] += 1
    return allocation
