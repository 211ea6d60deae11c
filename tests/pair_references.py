"""One rater pair's agreement by the reference definitions, for the instruments' tests."""

import krippendorff
import numpy as np

from simcore.model import weighted

VALUES = np.arange(1.0, 6.0)
"""A 1-5 scale, codes 0-4."""


def reference(x, y, coefficient, level, weights):
    """One pair's coefficient on the items both labelled (``-1``: missing).

    Krippendorff's alpha by the ``krippendorff`` package; weighted kappa and AC2 by
    :mod:`simcore.model.weighted`, which tests/test_weighted_agreement.py checks against
    their definitions.
    """
    both = (x >= 0) & (y >= 0)
    if coefficient == "krippendorff_alpha":
        data = np.stack([VALUES[x[both]], VALUES[y[both]]]).astype(float)
        return krippendorff.alpha(
            reliability_data=data, level_of_measurement=level, value_domain=list(VALUES)
        )
    if coefficient == "cohen_kappa":
        return weighted.cohen_kappa(x[both], y[both], VALUES, weights)
    return weighted.gwet_ac2(np.stack([x[both], y[both]], axis=1), VALUES, weights)
