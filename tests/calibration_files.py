"""Small calibration inputs several tests write: clustered calibration rows, a monitored stream."""

import random

CLUSTERED_CALIBRATION = [  # (cluster, human, judge)
    *[("a", "fail", "fail")] * 3,
    ("a", "fail", "pass"),
    ("a", "pass", "fail"),
    *[("a", "pass", "pass")] * 5,
    ("b", "fail", "fail"),
    ("b", "fail", "pass"),
    *[("b", "pass", "fail")] * 3,
    *[("b", "pass", "pass")] * 5,
    *[("c", "pass", "pass")] * 4,
    ("c", "fail", "fail"),
]
"""Three clusters of calibration rows, (cluster, human label, judge label)."""


def write_monitor_stream(folder):
    """Write a dated production file and its audit sample, in date order; return both paths."""
    pick = random.Random(5)
    production = ["item,date,judge"] + [
        f"p{i},2026-01-{1 + i // 12:02d},{pick.choice(['fail', 'pass'])}" for i in range(120)
    ]
    audit = ["item,date,human"] + [
        f"p{i},2026-01-{1 + i // 12:02d},{pick.choice(['fail', 'pass'])}" for i in range(0, 120, 3)
    ]
    (folder / "prod.csv").write_text("\n".join(production) + "\n")
    (folder / "audit.csv").write_text("\n".join(audit) + "\n")
    return folder / "prod.csv", folder / "audit.csv"
