"""How well a fitted Dawid-Skene model reproduces the agreement between rater pairs.

The model assumes raters conditionally independent given the latent label; raters whose
errors are correlated (judges of the same model family, say) agree more than it allows.
:func:`agreement_diagnostics` compares every pair's observed agreement with the fitted one
(:func:`fitted_agreement`), and :func:`poor_fit` keeps the pairs whose misfit is both
significant and large. The fit itself is :mod:`simcore.advisor.fit`'s.
"""

import numpy as np

from simcore.advisor.channels import pair_agreement


def fitted_agreement(fit):
    """Return the model-implied probability that two raters give the same label.

    Parameters
    ----------
    fit : simcore.advisor.fit.ModelFit or simcore.advisor.one_coin.OneCoinFit
        A fitted model.

    Returns
    -------
    numpy.ndarray
        float64 ``(R, R)``: ``sum_y prevalence[y] sum_l C_a[y, l] C_b[y, l]``
        (:func:`simcore.advisor.channels.pair_agreement`; in closed form for one-coin, never
        an ``L x L`` table); the diagonal is NaN.
    """
    agreement = np.array(pair_agreement(fit.raters, fit.prevalence), dtype=np.float64)
    np.fill_diagonal(agreement, np.nan)
    return agreement


def agreement_diagnostics(labels, observed, fit, rater_names, min_pairs=30):
    """Compare every pair of raters' observed agreement with the fitted one.

    Parameters
    ----------
    labels, observed : array_like
        The ``(n, R)`` matrix the model was fitted to (see
        :func:`simcore.advisor.fit.fit_dawid_skene`).
    fit : simcore.advisor.fit.ModelFit
        The fit.
    rater_names : sequence of str
        Name of every rater column.
    min_pairs : int, default 30
        Pairs with fewer co-labelled items are left out.

    Returns
    -------
    list of dict
        One row per pair ``a < b`` with at least ``min_pairs`` items labelled by both:
        ``rater_a``, ``rater_b`` (names), ``n_items``, ``observed`` (share of those items
        where they agree), ``fitted`` (:func:`fitted_agreement`), ``difference``
        (observed - fitted) and ``z = difference / sqrt(fitted (1 - fitted) / n_items)``.
        The z ignores the uncertainty of the fit itself; it is a screen, not a test.
    """
    codes = np.asarray(labels)
    observed = np.asarray(observed, dtype=bool)
    names = [str(name) for name in rater_names]
    if len(names) != codes.shape[1] or observed.shape != codes.shape:
        raise ValueError(
            f"rater_names: must name the {codes.shape[1]} rater columns of labels "
            f"(got {len(names)} names, observed shape {observed.shape})"
        )
    expected = fitted_agreement(fit)
    rows = []
    for a in range(codes.shape[1]):
        both = observed[:, a, None] & observed[:, a + 1 :]
        counts = both.sum(axis=0)
        agree = ((codes[:, a, None] == codes[:, a + 1 :]) & both).sum(axis=0)
        for offset, (n_items, n_agree) in enumerate(zip(counts, agree, strict=True)):
            b = a + 1 + offset
            if n_items >= min_pairs:
                rows.append(pair_row(names[a], names[b], n_items, n_agree, float(expected[a, b])))
    return rows


def pair_row(rater_a, rater_b, n_items, n_agree, fitted):
    """Return one row of :func:`agreement_diagnostics`: observed vs fitted agreement, z."""
    share = n_agree / n_items
    difference = float(share - fitted)
    variance = fitted * (1.0 - fitted) / n_items
    if variance > 0:
        z = difference / np.sqrt(variance)
    else:
        z = 0.0 if difference == 0 else np.copysign(np.inf, difference)
    return {
        "rater_a": rater_a,
        "rater_b": rater_b,
        "n_items": int(n_items),
        "observed": float(share),
        "fitted": fitted,
        "difference": difference,
        "z": float(z),
    }


def poor_fit(rows, z_limit=4.0, difference_limit=0.05):
    """Return the diagnostics rows whose misfit is both significant and large.

    Parameters
    ----------
    rows : list of dict
        From :func:`agreement_diagnostics`.
    z_limit : float, default 4.0
        Smallest ``|z|`` flagged.
    difference_limit : float, default 0.05
        Smallest ``|observed - fitted|`` agreement flagged.

    Returns
    -------
    list of dict
        The rows with ``|z| > z_limit`` and ``|difference| > difference_limit``.

    Notes
    -----
    Both conditions are needed. With thousands of co-labelled items any small departure
    from conditional independence is significant, so ``z`` alone flags misfits too small to
    matter; a practitioner cares about misfits big enough to change decisions based on
    agreement, which the difference limit expresses, while the z limit keeps out large
    differences on pairs with few items that are only noise.
    """
    return [
        row for row in rows if abs(row["z"]) > z_limit and abs(row["difference"]) > difference_limit
    ]
