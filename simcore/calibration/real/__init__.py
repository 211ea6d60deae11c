"""The real-data coverage check of the corrected failure rate's intervals.

An expert's and each judge's binarised scores (pairs), random calibration / stream splits
and their coverage rows (splits), and the prediction-powered intervals (ppi).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "draw_splits",
    "full_rates",
    "share_with_se",
    "split_counts",
    "split_results",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "splits": (
            "draw_splits",
            "full_rates",
            "share_with_se",
            "split_counts",
            "split_results",
        ),
    },
)
