"""The kernels run as plain Python with NUMBA_DISABLE_JIT=1 and give the same numbers."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around in NumPy scalars
    from simcore import kernels, rng
    keys = rng.trial_keys(np.random.SeedSequence(1, spawn_key=(2,)), 0, 6)
    acc = np.array([0.85, 0.85, 0.85, 0.7])
    cdf = np.array([0.5, 1.0])
    for design, rho, m in [(0, 0.3, 0), (1, 0.0, 4)]:
        out = kernels.simulate(keys, 12, 3, acc, cdf, design, rho, m, 0.05, 0)
        print(design, *(o.ravel().tolist() for o in out))
""")


def run(disable_jit):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1" if disable_jit else "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def test_python_mode_equals_compiled_mode():
    compiled = run(False)
    assert compiled.count("\n") == 2
    assert run(True) == compiled
