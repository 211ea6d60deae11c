"""The kernels run as plain Python with NUMBA_DISABLE_JIT=1 and give the same numbers."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around in NumPy scalars
    from simcore.engine import kernels, layout, rng
    keys = rng.trial_keys(np.random.SeedSequence(1, spawn_key=(2,)), 0, 6)
    from simcore.model.generative import rater_confusions
    confusion = rater_confusions(3, 3, 0.85, 0.7)
    cdf = np.array([0.5, 0.8, 1.0])
    for design in range(6):
        for kind, coefficient in [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (2, 0)]:
            # kind, eps, coefficient, z, min humans, min items, BY level, numeric, min pairs,
            # outputs skipped (bits: overlap 1, agreement 2, ranking 4)
            min_pairs = 2 if kind == 0 and design % 3 == 0 else 0
            skip = (design + coefficient) % 8
            rule = np.array(
                [kind, 0.05, coefficient, 1.96, 2, 3, 0.05, design % 2, min_pairs, skip]
            )
            assert len(rule) == layout.N_RULE  # compiled code would read past its end
            out = kernels.simulate(keys, 12, 3, confusion, cdf, 2, 0.1, design, 0.3, 4, rule)
            print(design, kind, coefficient, *(o.ravel().tolist() for o in out))
            if kind == 0:  # the same coefficient weighted: quadratic weights (alpha: ordinal)
                weights = 1.0 - (np.subtract.outer(np.arange(3), np.arange(3)) / 2.0) ** 2
                weighting = (weights.ravel(), np.arange(3), 1 if coefficient == 2 else 0)
                out = kernels.simulate(
                    keys, 12, 3, confusion, cdf, 2, 0.1, design, 0.3, 4, rule, weighting
                )
                print(design, "weighted", coefficient, *(o.ravel().tolist() for o in out))
""")


BITSET_SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around in NumPy scalars
    from simcore.engine import rng
    from simcore.engine.bitset import draws as bitset_draws
    from simcore.engine.bitset import trials as bitset
    from simcore.model.generative import rater_confusions
    keys = rng.trial_keys(np.random.SeedSequence(4, spawn_key=(2,)), 0, 5)
    for n_labels, offsets, coefficient in [(2, True, 0), (3, False, 1), (5, False, 3)]:
        confusion = rater_confusions(3, n_labels, 0.8, [0.7, 0.9])
        prevalence = np.full(n_labels, 1.0 / n_labels)
        model = bitset_draws.planes_model(confusion, prevalence, offsets)
        for design, rho, m in [(0, 0.3, 0), (1, 0.0, 20), (2, 0.0, 9)]:
            rule = np.array([0, 0.05, coefficient, 0, 2, 3, 0.05, 0, 1, 0])
            out = bitset.simulate_bitset(keys, 70, 3, model, design, rho, m, rule)
            print(n_labels, design, *(o.ravel().tolist() for o in out))
""")


def run(disable_jit, script=SCRIPT):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1" if disable_jit else "0"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def test_python_mode_equals_compiled_mode():
    compiled = run(False)
    assert compiled.count("\n") == 36 + 24
    assert run(True) == compiled


def test_bitset_engine_in_python_mode_equals_compiled_mode():
    compiled = run(False, BITSET_SCRIPT)
    assert compiled.count("\n") == 9
    assert run(True, BITSET_SCRIPT) == compiled


def test_simcore_run_in_python_mode(tmp_path):
    """``simcore run`` with NUMBA_DISABLE_JIT=1: nothing compiles, so no first-use step runs."""
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(
        "model: {n_items: 30, n_humans: 3}\ndesign: {kind: bernoulli, rho: 0.3}\ntrials: 3\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    command = [sys.executable, "-m", "simcore", "run", str(scenario), "--out", "t.zarr"]
    done = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "engine: bitset in every cell" in done.stdout
    assert "compiling" not in done.stderr
