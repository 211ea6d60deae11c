"""Where the kernels are cached: one folder per version of the whole engine's sources.

numba keys a cached function on its own file, yet a compiled kernel holds the code of the
functions it calls from other files; a change to one engine file must therefore change
the cache of every kernel, or a kernel in an unchanged file keeps running the old code.
"""

import os
import subprocess
import sys
import textwrap
import time

import numba

from simcore.engine import _jit


def _package(tmp_path):
    folder = tmp_path / "engine"
    (folder / "inner").mkdir(parents=True)
    (folder / "one.py").write_text("A = 1\n")
    (folder / "inner" / "two.py").write_text("B = 2\n")
    (folder / "notes.txt").write_text("not source\n")
    return folder


def test_any_change_to_any_engine_file_changes_the_fingerprint(tmp_path):
    folder = _package(tmp_path)
    first = _jit.sources_fingerprint(folder)
    assert _jit.sources_fingerprint(folder) == first
    (folder / "notes.txt").write_text("changed, but not source\n")
    assert _jit.sources_fingerprint(folder) == first
    (folder / "inner" / "two.py").write_text("B = 3\n")
    second = _jit.sources_fingerprint(folder)
    assert second != first
    (folder / "inner" / "two.py").rename(folder / "inner" / "three.py")
    assert _jit.sources_fingerprint(folder) not in (first, second)


def test_the_cache_folder_is_the_engines_version_inside_a_users_numba_cache_dir(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    _jit.kernel_cache_dir.cache_clear()
    try:
        folder = _jit.kernel_cache_dir()
    finally:
        _jit.kernel_cache_dir.cache_clear()
    assert folder == os.path.join(str(tmp_path), f"simcore-{_jit.engine_fingerprint()}")


def test_earlier_versions_folders_are_removed_once_stale_and_nothing_else(tmp_path):
    keep = tmp_path / "cache-current"
    old = tmp_path / "cache-earlier"
    fresh = tmp_path / "cache-other-process"
    other = tmp_path / "kernels.simulate-33.py311.nbi"
    for path in (keep, old, fresh):
        path.mkdir()
        (path / "index.nbi").write_text("x")
    other.write_text("x")
    now = time.time()
    os.utime(old, (now - 2 * _jit.STALE_SECONDS, now - 2 * _jit.STALE_SECONDS))
    os.utime(keep, (now - 2 * _jit.STALE_SECONDS, now - 2 * _jit.STALE_SECONDS))
    _jit.remove_stale(tmp_path, keep, now)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [keep.name, fresh.name, other.name]
    )


def test_a_kernel_runs_the_code_of_a_changed_callee_in_another_file(tmp_path):
    """The stale-cache case itself: change only the callee's file, run the caller again."""
    (tmp_path / "callee.py").write_text(
        "from simcore.engine._jit import jit\n\n@jit\ndef value():\n    return 1\n"
    )
    (tmp_path / "caller.py").write_text(
        "from simcore.engine._jit import jit\nfrom callee import value\n\n"
        "@jit\ndef twice():\n    return 2 * value()\n"
    )
    script = textwrap.dedent(
        """
        import sys
        from simcore.engine import _jit
        _jit.ENGINE = _jit.Path(sys.argv[1])  # the kernels' own folder is the engine here
        sys.path.insert(0, sys.argv[1])
        from caller import twice
        print(twice())
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}

    def run():
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return done.stdout.strip()

    assert run() == "2"
    assert run() == "2"  # from the cache
    (tmp_path / "callee.py").write_text(
        "from simcore.engine._jit import jit\n\n@jit\ndef value():\n    return 5\n"
    )
    assert run() == "10"
