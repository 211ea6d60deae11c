"""How much memory a run may take, and refusing a run that cannot fit before it starts.

A study estimates the bytes its largest cell allocates in one process (kernel scratch per
numba thread, outputs per block of trials); the driver and ``simcore validate`` compare
that with the memory this machine has available and refuse, naming what to change, when
the estimate does not fit.
"""

import os
from pathlib import Path

from simcore.studies import ScenarioError

GIB = 2**30


def available_bytes():
    """Return the memory available to a new allocation (``MemAvailable``, else all RAM)."""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_fits(study, scenario, context, available=None):
    """Raise ScenarioError when the study's largest cell cannot fit in memory here.

    ``study.memory_need(scenario, context)`` gives ``(bytes, what to change)``.
    """
    need, advice = study.memory_need(scenario, context)
    available = available_bytes() if available is None else available
    if need > available:
        raise ScenarioError(
            [
                f"{scenario.source}: the largest cell needs about {need / GIB:.1f} GiB of "
                f"memory and this machine has {available / GIB:.1f} GiB available; {advice}"
            ]
        )
