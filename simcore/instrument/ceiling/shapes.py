"""Graded matrices with a known single-rater reliability, in the shapes that strain a ceiling.

:mod:`simcore.realdata.shapes` draws categorical labels; the ceilings on graded scores need
ordered codes whose rank correlation between two raters is known. Here every item has a
latent true score ``t_i ~ N(0, 1)``; rater ``r`` sees ``z_ir = sqrt(rho) t_i + sqrt(1 - rho)
e_ir`` with independent ``e_ir ~ N(0, 1)`` (so any two raters' ``z`` correlate at ``rho``)
and reports the code ``c`` of the equal-frequency bin of the standard normal that ``z_ir``
falls in (``n_levels`` codes ``0 .. n_levels - 1``). The true single-rater reliability on
the Spearman scale, the population rank correlation of two raters' codes, is measured on a
very large dense draw (:func:`dense_reliability`).

:func:`gold_items_mask` is the shape in which a few items carry most raters: every rater on
``n_gold`` shared (gold) items, a small panel on all the others.
"""

import numpy as np
from scipy.special import ndtri


def graded_codes(mask, reliability, n_levels=5, seed=0):
    """Return int64 codes ``(n_items, R)`` drawn from the latent-score model, ``-1`` off ``mask``.

    Parameters
    ----------
    mask : numpy.ndarray
        bool ``(n_items, R)``: who labels what.
    reliability : float
        ``rho`` in ``[0, 1]``: the correlation of two raters' latent scores ``z``.
    n_levels : int, optional
        Number of ordered codes (default 5).
    seed : int, optional
        Seed of :func:`numpy.random.default_rng`; the truth then the noise are drawn.

    Returns
    -------
    numpy.ndarray
        ``c_ir = #{j : z_ir > q_j}`` with ``q_j = Phi^-1(j / n_levels)``, ``j = 1 ..
        n_levels - 1``, where ``mask`` holds, else ``-1``.
    """
    mask = np.asarray(mask, dtype=bool)
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal(mask.shape[0])
    noise = rng.standard_normal(mask.shape)
    latent = np.sqrt(reliability) * truth[:, None] + np.sqrt(1.0 - reliability) * noise
    cuts = ndtri(np.arange(1, n_levels) / n_levels)
    codes = np.searchsorted(cuts, latent).astype(np.int64)
    return np.where(mask, codes, -1)


def dense_reliability(reliability, n_levels=5, n_items=400_000, seed=12345):
    """Return the rank correlation of two raters' codes on a dense draw of ``n_items`` items.

    Parameters
    ----------
    reliability, n_levels : float, int
        As :func:`graded_codes`.
    n_items : int, optional
        Items of the dense two-rater draw (default 400,000: standard error about
        ``(1 - r^2) / sqrt(n_items)``, 0.0013 at ``r = 0.45``).
    seed : int, optional
        Seed of the draw.

    Returns
    -------
    float
        Spearman's rho (average ranks for ties) of the two columns: the single-rater
        reliability ``r`` the ceilings estimate.
    """
    from scipy.stats import spearmanr

    codes = graded_codes(np.ones((n_items, 2), bool), reliability, n_levels, seed)
    return float(spearmanr(codes[:, 0], codes[:, 1])[0])


def gold_items_mask(n_gold=2, n_raters=40, n_panel=4, n_items=200):
    """Return who labels what when a few gold items carry most raters.

    Parameters
    ----------
    n_gold : int, optional
        Gold items (rows ``0 .. n_gold - 1``), labelled by every rater.
    n_raters : int, optional
        Raters (columns).
    n_panel : int, optional
        Raters (columns ``0 .. n_panel - 1``) who label every other item.
    n_items : int, optional
        Items besides the gold ones.

    Returns
    -------
    numpy.ndarray
        bool ``(n_gold + n_items, n_raters)``. Of the ``R (R - 1) / 2`` rater pairs, all but
        the panel's ``n_panel (n_panel - 1) / 2`` share only the gold items.
    """
    mask = np.zeros((n_gold + n_items, n_raters), dtype=bool)
    mask[:n_gold] = True
    mask[n_gold:, :n_panel] = True
    return mask
