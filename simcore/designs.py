"""Overlap designs (SPEC §3): which items each secondary human labels.

The primary human (column 0) and every judge label all items. A mask has shape
``(..., n_items, n_humans)`` with column 0 all True.

- ``bernoulli``: each secondary labels each item independently with probability ``rho``.
- ``exact_m``: each secondary labels a uniformly random subset of exactly ``m`` items,
  independently of the others.

The kernels draw the same designs with their own streams; these NumPy samplers feed the
oracle tests.
"""

import numpy as np

DESIGNS = ("bernoulli", "exact_m")
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


def expected_coverage(design, n_items, n_humans, rho=None, m=None):
    """Return each human's expected share of labelled items (primary first).

    Used for the ``population`` reference, where the pooled pairs of comparison ``k``
    weigh pool human ``q`` by ``coverage[k] * coverage[q]``.
    """
    share = rho if design == "bernoulli" else m / n_items
    coverage = np.full(n_humans, float(share))
    coverage[0] = 1.0
    return coverage
