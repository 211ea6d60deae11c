"""``simcore calibrate --plan``: how many calibration labels each interval method needs.

The labels per method (labels), where to spend them (allocation) and calibration clusters
per method under an intra-cluster correlation (clusters).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "plan_result",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "labels": ("plan_result",),
    },
)
