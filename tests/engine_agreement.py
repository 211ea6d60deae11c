"""Two engines' cubes agree: proportions cell by cell within 4 pooled standard errors."""

import numpy as np


def proportion_mismatches(x1, n1, x2, n2, what, min_denominator=30):
    """Compare proportions ``x1 / n1`` and ``x2 / n2`` cell by cell (pooled two-sample SE).

    Returns ``(checked, mismatches)``. Cells whose denominator is below ``min_denominator``
    in either run are skipped; where the pooled SE is 0 the rates must be equal.
    """
    x1, n1, x2, n2 = (np.asarray(a, dtype=np.float64) for a in (x1, n1, x2, n2))
    x1, n1, x2, n2 = np.broadcast_arrays(x1, n1, x2, n2)
    checked, mismatches = 0, []
    for index in np.ndindex(x1.shape):
        if n1[index] < min_denominator or n2[index] < min_denominator:
            continue
        r1, r2 = x1[index] / n1[index], x2[index] / n2[index]
        pooled = (x1[index] + x2[index]) / (n1[index] + n2[index])
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1[index] + 1 / n2[index]))
        checked += 1
        if (se == 0 and r1 != r2) or abs(r1 - r2) > 4 * se:
            mismatches.append(f"{what}{index}: {r1:.5f} vs {r2:.5f} (pooled se {se:.5f})")
    return checked, mismatches


RATES = {
    "wrong_decision_rate": ("n_wrong", "n_trials"),
    "false_rejection_rate": ("n_false_reject", "n_ref_accept"),
    "false_approval_rate": ("n_false_accept", "n_ref_reject"),
    "reference_accept_share": ("n_ref_accept", "n_trials"),
}


def rate_mismatches(items, counts, names):
    checked, mismatches = 0, []
    for name in names:
        numerator, denominator = RATES[name]
        assert items[numerator].dims == counts[numerator].dims
        found = proportion_mismatches(
            items[numerator].values,
            items[denominator].values,
            counts[numerator].values,
            counts[denominator].values,
            name,
        )
        checked += found[0]
        mismatches += found[1]
    return checked, mismatches
