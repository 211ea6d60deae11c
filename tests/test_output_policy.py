"""One output policy for every writing command and Python function (simcore.output_files).

simcore creates a file, or replaces one it wrote itself; it never replaces the user's file
(without --overwrite), never writes through a symbolic link, checks before any work, and
writes every file to a temporary name renamed into place, so a full disk or a read-only
folder leaves nothing behind and ends with exit 2 and one line.
"""

import contextlib
import errno
import hashlib
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from doc_examples import REPO

import simcore
from simcore import output_files
from simcore.cli import main
from simcore.output_files import OutputError
from simcore.realdata.shapes import write_alttest_folder, write_long_csv

# --------------------------------------------------------------------------- the workspace


def _long_csv(path, labels, raters, seed):
    pick = random.Random(seed)
    rows = ["item,rater,label"]
    for item in range(40):
        truth = pick.choice(labels)
        for rater in raters:
            label = truth if pick.random() < 0.8 else pick.choice(labels)
            rows.append(f"i{item},{rater},{label}")
    path.write_text("\n".join(rows) + "\n")


def _monitor_files(folder):
    pick = random.Random(5)
    days = [f"2026-01-{day:02d}" for day in range(1, 29)]
    production = ["item,date,judge"] + [
        f"p{i},{days[i // 8]},{pick.choice(['fail', 'pass'])}" for i in range(8 * 28)
    ]
    (folder / "prod.csv").write_text("\n".join(production) + "\n")
    audit = ["item,date,human"] + [
        f"p{i},{days[i // 8]},{pick.choice(['fail', 'pass'])}" for i in range(0, 8 * 28, 4)
    ]
    (folder / "audit.csv").write_text("\n".join(audit) + "\n")


def _planning_scenario(folder):
    raw = yaml.safe_load((REPO / "scenarios" / "planning.yaml").read_text())
    raw["output"] = {"table": "plan.md", "csv": "plan.csv"}
    raw["trials"] = 20
    (folder / "plan.yaml").write_text(yaml.safe_dump(raw))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The inputs every command reads: data, a real-data store, a card, monitor files."""
    folder = tmp_path_factory.mktemp("inputs")
    _long_csv(folder / "data.csv", ("PASS", "FAIL"), ("h1", "h2", "h3", "j"), 1)
    _long_csv(folder / "stars.csv", ("1", "2", "3", "4", "5"), ("h1", "h2", "h3", "j1", "j2"), 2)
    _monitor_files(folder)
    _planning_scenario(folder)
    sets = {"sweep": {"design": ["strat"], "coverage": [0.1]}}
    simcore.run(REPO / "scenarios" / "real_wax.yaml", trials=4, sets=sets, out=folder / "s.zarr")
    with _inside(folder):
        assert main(["card", *CARD, "--out", "card.json"]) == 0
    return folder


@contextlib.contextmanager
def _inside(folder):
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@pytest.fixture
def place(inputs, tmp_path, monkeypatch):
    """A working folder with the inputs, user files, a link out of it and a linked folder."""
    for entry in inputs.iterdir():
        (tmp_path / entry.name).symlink_to(entry)  # inputs only: never written
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    (elsewhere / "target.md").write_text("outside the folder\n")
    (tmp_path / "link.md").symlink_to(elsewhere / "target.md")
    (tmp_path / "linkdir").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "notes.md").write_text("# my notes\nkeep me\n")
    (tmp_path / "userdir").mkdir()
    (tmp_path / "userdir" / "report.md").write_text("my report, not simcore's\n")
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    shutil.rmtree(elsewhere)


DATA = ("data.csv", "--judges", "j")
CARD = (*DATA, "--judge", "j", "--fail-labels", "FAIL")
CARD += ("--criterion", "c", "--population", "p")

CHECK = ("card", "data.csv", "--judges", "j", "--check", "card.json")
WELLPOSED = ("wellposed", "stars.csv", "--judges", "j1,j2", "--boot", "20")
MONITOR = ("monitor", "--production", "prod.csv", "--audit-file", "audit.csv")

FILE_WRITERS = {
    "tables --table3": lambda out: ["tables", "s.zarr", "--table3", out],
    "card --out": lambda out: ["card", *CARD, "--out", out],
    "card --check --out": lambda out: [*CHECK, "--out", out],
    "ceiling --out": lambda out: ["ceiling", "stars.csv", "--boot", "20", "--out", out],
    "ceiling --csv": lambda out: ["ceiling", "stars.csv", "--boot", "20", "--csv", out],
    "wellposed --out": lambda out: [*WELLPOSED, "--out", out],
    "wellposed --csv": lambda out: [*WELLPOSED, "--csv", out],
    "inspect --overlap-csv": lambda out: ["inspect", *DATA, "--overlap-csv", out],
    "plot --out": lambda out: ["plot", "s.zarr", "--out", out],
    "monitor --plot": lambda out: [*MONITOR, "--plot", out],
}
"""Every command that writes one file, as its command line for the output ``out``."""

FIGURES = {"plot --out", "monitor --plot"}


def advise(out, *more):
    return ["advise", "data.csv", "--judges", "j", "--trials", "20", "--quiet", "--out", out, *more]


def file_writer(name, out):
    """The command line of ``name`` writing ``out`` (a figure gets the .png suffix)."""
    out = str(out)
    if name in FIGURES:
        out = out.rsplit(".", 1)[0] + ".png"
    return FILE_WRITERS[name](out), Path(out)


def state(folder, *others):
    """Every file and link under ``folder`` (and ``others``) with its bytes' digest."""
    seen = {}
    for root in (folder, *others):
        for path in sorted(Path(root).rglob("*")):
            if path.is_symlink():
                seen[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                seen[str(path)] = "folder"
    return seen


def refused(capsys, argv):
    """Run ``argv``; assert exit 2 and one stderr line; return the line."""
    assert main([str(part) for part in argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# --------------------------------------------------------------------------- the user's files


TARGETS = (
    "a user file",
    "a link out of the folder",
    "a file in a linked folder",
    "a new file in a linked folder",
)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", [*FILE_WRITERS, "advise --out", "run output.table"])
def test_no_writer_replaces_the_users_files_or_writes_through_a_link(place, capsys, name, target):
    elsewhere = place.parent / f"{place.name}-elsewhere"
    out = {
        "a user file": "notes.md",
        "a link out of the folder": "link.md",
        "a file in a linked folder": "linkdir/target.md",
        "a new file in a linked folder": "linkdir/new.md",
    }[target]
    if name in FIGURES:  # a figure with the user's bytes in it
        shutil.copy(place / "notes.md", place / "notes.png")
        shutil.copy(elsewhere / "target.md", elsewhere / "target.png")
        (place / "link.png").symlink_to(elsewhere / "target.png")
    if name == "advise --out":
        out = {
            "a user file": "userdir",
            "a link out of the folder": "linkdir",
            "a new file in a linked folder": "linkdir/advice",
        }.get(target)
        if out is None:
            (elsewhere / "report.md").write_text("mine\n")
            (place / "advice").symlink_to(elsewhere, target_is_directory=True)
            out = "advice"
        argv = advise(out)
    elif name == "run output.table":
        raw = yaml.safe_load((place / "plan.yaml").read_text())
        raw["output"]["table"] = out
        (place / "mine.yaml").write_text(yaml.safe_dump(raw))
        argv = ["run", "mine.yaml", "--out", "p.zarr", "--quiet"]
    else:
        argv, out = file_writer(name, out)
    before = state(place, elsewhere)
    line = refused(capsys, argv)
    assert str(out) in line and "--overwrite" in line, line
    assert state(place, elsewhere) == before  # the user's bytes, and nothing left behind


def test_a_store_is_never_written_through_a_linked_folder(place, capsys):
    elsewhere = place.parent / f"{place.name}-elsewhere"
    before = state(place, elsewhere)
    line = refused(capsys, ["run", "plan.yaml", "--out", "linkdir/p.zarr", "--quiet"])
    assert "linkdir, a symbolic link to a folder" in line and str(elsewhere) in line, line
    assert state(place, elsewhere) == before


def test_simcores_own_outputs_are_replaced_on_a_second_run(place, capsys):
    for name in FILE_WRITERS:
        suffix = ".png" if name in FIGURES else ".json" if "card" in name else ".out"
        argv, out = file_writer(name, place / f"{name.replace(' ', '_')}{suffix}")
        assert main(argv) == 0, capsys.readouterr().err
        first = out.stat().st_mtime_ns
        assert main(argv) == 0, (name, capsys.readouterr().err)
        assert out.stat().st_mtime_ns >= first
    assert main(advise("advice")) == 0 and main(advise("advice")) == 0
    assert main(["run", "plan.yaml", "--out", "p.zarr", "--quiet"]) == 0
    assert main(["run", "plan.yaml", "--out", "p.zarr", "--quiet"]) == 0
    assert not [path for path in place.rglob(".*.tmp")]


def test_overwrite_replaces_a_user_file_but_never_a_link(place, capsys):
    argv, out = file_writer("card --out", "notes.md")
    assert main([*argv, "--overwrite"]) == 0
    assert '"format": "simcore judge card 1"' in out.read_text()
    line = refused(capsys, [*file_writer("card --out", "link.md")[0], "--overwrite"])
    assert "link.md: is a symbolic link" in line
    assert main(advise("userdir", "--overwrite")) == 0
    assert (place / "userdir" / "report.md").read_text().startswith("# simcore advise")
    assert "linkdir: is a symbolic link" in refused(capsys, advise("linkdir", "--overwrite"))


def test_a_figure_suffix_matplotlib_cannot_write_is_refused_before_the_work(place, capsys):
    line = refused(capsys, FILE_WRITERS["monitor --plot"]("out.txt"))
    assert line.startswith("simcore monitor: --plot out.txt: a figure file ends in one of .png")
    assert not (place / "out.txt").exists()


# --------------------------------------------------------------------------- Python functions


PYTHON_WRITERS = {
    "monitor(plot=)": lambda out, **kw: simcore.monitor(
        "prod.csv", "audit.csv", plot=Path(out).with_suffix(".png"), **kw
    ),
    "write_long_csv": lambda out, **kw: write_long_csv({"h": {"a": 1}}, {}, out, **kw),
    "run(out=)": lambda out, **kw: simcore.run("plan.yaml", trials=2, out=out),
}


@pytest.mark.parametrize("target", ["notes.md", "link.md", "linkdir/new.md"])
@pytest.mark.parametrize("name", PYTHON_WRITERS)
def test_no_python_function_replaces_the_users_files(place, name, target):
    elsewhere = place.parent / f"{place.name}-elsewhere"
    if name == "monitor(plot=)":
        shutil.copy(place / "notes.md", place / "notes.png")
        (place / "link.png").symlink_to(elsewhere / "target.md")
    before = state(place, elsewhere)
    with pytest.raises(ValueError, match="overwrite") as caught:
        PYTHON_WRITERS[name](target)
    assert "\n" not in str(caught.value) and Path(target).stem in str(caught.value)
    assert state(place, elsewhere) == before


def test_python_folder_writers_refuse_a_linked_folder_and_a_users_file(place):
    (place / "mine").mkdir()
    (place / "mine" / "llm_annotations.json").write_text("{}")
    for folder in ("linkdir", "mine"):
        with pytest.raises(OutputError, match="overwrite=True"):
            write_alttest_folder({"h": {"a": 1}}, {"j": {"a": 1}}, folder)
    assert (place / "mine" / "llm_annotations.json").read_text() == "{}"
    write_alttest_folder({"h": {"a": 1}}, {"j": {"a": 1}}, "mine", overwrite=True)
    with pytest.raises(OutputError, match="symbolic link"):
        write_alttest_folder({"h": {"a": 1}}, {"j": {"a": 1}}, "linkdir", overwrite=True)


def test_monitor_never_expires_a_card_through_a_link(place, capsys):
    assert main(["card", *CARD, "--expires-on-alarm", "--out", "alarm.json"]) == 0
    (place / "alarm_link.json").symlink_to(place / "alarm.json")
    before = state(place)
    argv = ["monitor", "--production", "prod.csv", "--audit-file", "audit.csv"]
    line = refused(capsys, [*argv, "--card", "alarm_link.json", "--expire-card"])
    assert "alarm_link.json: is a symbolic link" in line and state(place) == before


# --------------------------------------------------------------------------- file-system faults


class _FullStream:
    """A file stream that writes half of what it is given, then fails as a full disk would."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data):
        self.stream.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()


def _fill_the_disk(monkeypatch):
    real = output_files._open_temporary

    def full(path, binary):
        temporary, stream = real(path, binary)
        return temporary, _FullStream(stream)

    monkeypatch.setattr(output_files, "_open_temporary", full)


ALL_WRITERS = [*FILE_WRITERS, "advise --out", "run output.table"]


def _writer_into(name, folder):
    """The command line of ``name`` writing into ``folder`` (not there yet), and its output."""
    if name == "advise --out":
        return advise(folder / "advice"), folder / "advice"
    if name == "run output.table":
        raw = yaml.safe_load(Path("plan.yaml").read_text())
        raw["output"] = {"table": str(folder / "plan.md"), "csv": str(folder / "plan.csv")}
        Path("into.yaml").write_text(yaml.safe_dump(raw))
        return ["run", "into.yaml", "--out", "p.zarr", "--quiet"], folder / "plan.md"
    return file_writer(name, folder / "out.json")


@pytest.mark.parametrize("name", ALL_WRITERS)
def test_a_full_disk_leaves_no_partial_file_and_no_folder(place, capsys, monkeypatch, name):
    argv, out = _writer_into(name, place / "new" / "deeper")
    _fill_the_disk(monkeypatch)
    line = refused(capsys, argv)
    assert "No space left on device" in line and str(place / "new" / "deeper") in line, line
    assert not (place / "new").exists()
    assert not [path for path in place.rglob("*.tmp")]


def test_a_full_disk_keeps_simcores_earlier_output_whole(place, capsys, monkeypatch):
    argv, out = file_writer("card --out", place / "card_mine.json")
    assert main(argv) == 0
    before = out.read_bytes()
    _fill_the_disk(monkeypatch)
    assert "No space left on device" in refused(capsys, argv)
    assert out.read_bytes() == before and not [path for path in place.rglob("*.tmp")]


def test_a_full_disk_while_taking_the_lock_leaves_no_lock(place, capsys, monkeypatch):
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, handle, mode):
            self.stream = real_fdopen(handle, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    from simcore.sweep import store_files

    def fdopen(handle, mode="r", *args, **kwargs):
        if mode == "w":
            return Full(handle, mode)
        return real_fdopen(handle, mode, *args, **kwargs)

    monkeypatch.setattr(store_files.os, "fdopen", fdopen)
    line = refused(capsys, ["run", "plan.yaml", "--out", "p.zarr", "--quiet"])
    assert "p.zarr.lock" in line and "No space left on device" in line
    monkeypatch.undo()
    assert not (place / "p.zarr.lock").exists() and not (place / "p.zarr").exists()


def test_proc_paths_are_refused_in_one_line_before_any_work(place, capsys):
    line = refused(capsys, ["run", "plan.yaml", "--out", "/proc/x.zarr", "--quiet"])
    assert "/proc/x.zarr" in line and "cannot be written" in line
    line = refused(capsys, file_writer("card --out", "/proc/card.json")[0])
    assert "/proc/card.json" in line
    line = refused(capsys, advise("/proc/advice"))
    assert "/proc/advice" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a folder of mode 0o555")
def test_a_read_only_folder_is_refused_before_any_work(place, capsys):
    (place / "locked").mkdir()
    (place / "locked").chmod(0o555)
    try:
        for name in ALL_WRITERS:
            argv, _ = _writer_into(name, place / "locked")
            assert "cannot be written" in refused(capsys, argv)
    finally:
        (place / "locked").chmod(0o755)


def _mount(point, options):
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True
    )
    return done.returncode == 0


def _can_mount():
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory() as point:
        if not _mount(point, "size=16k"):
            return False
        subprocess.run(["umount", point], check=True)
    return True


MOUNTS = _can_mount()


@pytest.fixture
def small_disk(place):
    """A 64 KiB tmpfs at ``place/disk``, filled up to its last bytes."""
    point = place / "disk"
    point.mkdir()
    assert _mount(point, "size=64k")
    try:
        with contextlib.suppress(OSError), open(point / "filler", "wb") as handle:
            while True:
                handle.write(b"x" * 512)
                handle.flush()
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=True)


@pytest.mark.skipif(not MOUNTS, reason="mounting a tmpfs needs root")
@pytest.mark.parametrize("name", ALL_WRITERS)
def test_a_really_full_tmpfs_gives_one_line_and_leaves_nothing(small_disk, capsys, name):
    argv, _ = _writer_into(name, small_disk / "new")
    line = refused(capsys, argv)
    assert "No space left on device" in line, line
    assert sorted(path.name for path in small_disk.iterdir()) == ["filler"]


@pytest.mark.skipif(not MOUNTS, reason="mounting a tmpfs needs root")
def test_a_read_only_file_system_is_refused_before_any_work(place, capsys):
    point = place / "ro"
    point.mkdir()
    assert _mount(point, "size=64k,ro")
    try:
        for name in ALL_WRITERS:
            argv, _ = _writer_into(name, point)
            line = refused(capsys, argv)
            assert "Read-only file system" in line, line
        line = refused(capsys, ["run", "plan.yaml", "--out", point / "s.zarr", "--quiet"])
        assert "Read-only file system" in line
    finally:
        subprocess.run(["umount", "-l", str(point)], check=True)


@pytest.mark.skipif(not MOUNTS or not shutil.which("chattr"), reason="chattr +i needs root")
def test_an_immutable_card_is_not_expired_and_gives_one_line(place, capsys, small_disk):
    (small_disk / "filler").unlink()
    assert main(["card", *CARD, "--out", str(small_disk / "card.json")]) == 0
    assert main(["card", *CARD, "--out", str(small_disk / "own.json")]) == 0
    if subprocess.run(["chattr", "+i", str(small_disk / "own.json")]).returncode:
        pytest.skip("this file system takes no immutable flag")
    try:
        line = refused(capsys, ["card", *CARD, "--out", str(small_disk / "own.json")])
        assert "own.json" in line and "Operation not permitted" in line
        assert not [path for path in small_disk.iterdir() if path.suffix == ".tmp"]
    finally:
        subprocess.run(["chattr", "-i", str(small_disk / "own.json")])


@pytest.mark.skipif(not MOUNTS, reason="mounting a tmpfs needs root")
def test_a_store_on_a_full_tmpfs_leaves_no_lock_and_no_half_store(small_disk, capsys):
    (small_disk / "filler").unlink()
    with open(small_disk / "filler", "wb") as handle:
        handle.write(b"x" * 24 * 1024)  # room for the lock and a little of the store
    line = refused(capsys, ["run", "plan.yaml", "--trials", "2", "--out", small_disk / "s.zarr"])
    assert "No space left on device" in line
    assert sorted(path.name for path in small_disk.iterdir()) == ["filler"]
