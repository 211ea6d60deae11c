"""``simcore monitor``: the corrected failure rate over time and a drift alarm on the card.

The report over the looks (timeline), its dated production stream and audit sample (data)
and its figure (plot).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "monitor_report",
    "monitor_stream",
    "plot_monitor",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "data": ("monitor_stream",),
        "plot": ("plot_monitor",),
        "timeline": ("monitor_report",),
    },
)
