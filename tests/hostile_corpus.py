"""A hostile corpus: command lines, Python calls, store damage and file-system faults that
adversarial users try, each run in its own process and classified by what went wrong.

Every case runs in a fresh copy of one workspace (a small annotation table, a stars table,
a calibration CSV, production and audit CSVs, a judge card, a finished store, and the
user's own files: ``notes.md``, ``mynotes.json``, ``userdir/report.md``, a symbolic link
``link.md`` to ``elsewhere/target.md`` and a symbolic link ``linkdir`` to ``elsewhere``).
After the run the workspace is compared with its snapshot. A case fails in one of these ways:

``traceback``
    a Python traceback, an internal error (exit 1), a death by signal, or (Python calls) an
    exception other than ``ValueError``/``TypeError`` or one that does not name the keyword;
``wrong accept``
    exit 0 (no exception) where the input must be refused, or ``verify`` passing a damaged
    store;
``hang``
    still running after the case's time limit (a minute unless stated);
``user data lost``
    a file or link that was there before changed (other than the outputs the case may
    replace), or the target of a link changed;
``left behind``
    a refused or failed command left a new file, folder or lock.

Run ``python tests/hostile_corpus.py [--jobs N] [--only CLASS]`` (``make hostile``) for the
table of counts by class; ``tests/test_hostile_corpus.py`` asserts that every count is zero.
File-system faults use a small tmpfs (full or read-only) and ``chattr +i`` where this process
may mount and set attributes (root), and are skipped otherwise.
"""

import argparse
import collections
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FAILURES = ("traceback", "wrong accept", "hang", "user data lost", "left behind")
CLASSES = ("command line", "Python API", "store damage", "file system")


@dataclasses.dataclass
class Case:
    """One hostile input: ``argv`` (a command line) or ``code`` (a Python snippet)."""

    klass: str
    name: str
    argv: tuple = ()
    code: str = ""
    expect: str = "refuse"  # refuse | ok | either | damaged
    keyword: str = ""  # Python: the refusal must name this
    may_change: tuple = ()  # workspace paths the case may rewrite (its own outputs)
    setup: object = None  # callable(workspace) run before the case
    timeout: float = 90
    memory_gb: float = 0  # an address-space limit, if set
    needs_root: bool = False


# --------------------------------------------------------------------------- the workspace


def _long_csv(path, labels, n=60, raters=("h1", "h2", "h3", "j"), seed=1, extra=""):
    pick = random.Random(seed)
    rows = ["item,rater,label"]
    rows += [f"i{i},{rater},{pick.choice(labels)}" for i in range(n) for rater in raters]
    path.write_text("\n".join(rows) + "\n" + extra, encoding="utf-8")


def _tables(folder):
    pick = random.Random(3)
    _long_csv(folder / "data.csv", ("PASS", "FAIL"))
    _long_csv(folder / "stars.csv", ("1", "2", "3", "4", "5"), seed=2)
    rows = ["item,human,judge"] + [
        f"i{i},{pick.choice(['fail', 'pass'])},{pick.choice(['fail', 'pass'])}" for i in range(80)
    ]
    (folder / "cal.csv").write_text("\n".join(rows) + "\n")
    prod = ["item,date,judge"] + [
        f"p{i},2026-0{1 + i // 100}-{1 + (i % 100) * 28 // 100:02d},{pick.choice(['fail', 'pass'])}"
        for i in range(300)
    ]
    (folder / "prod.csv").write_text("\n".join(prod) + "\n")
    audit = ["item,date,judge,human"] + [
        f"a{i},2026-0{1 + i // 40}-{1 + (i % 40) * 28 // 40:02d},{pick.choice(['fail', 'pass'])},"
        f"{pick.choice(['fail', 'pass'])}"
        for i in range(120)
    ]
    (folder / "audit.csv").write_text("\n".join(audit) + "\n")


SCENARIO = {
    "name": "tiny",
    "model": {"n_items": 60, "n_humans": 4},
    "design": {"kind": "bernoulli"},
    "trials": 60,
    "seed": 8,
    "sweep": {"p_judge": [0.9, 0.75, 0.7], "rho": [0.05, 0.2]},
}


def _user_files(folder):
    (folder / "notes.md").write_text("# my notes\nkeep me\n")
    (folder / "mynotes.json").write_text('{"mine": true}\n')
    (folder / "userdir").mkdir()
    (folder / "userdir" / "report.md").write_text("my report, not simcore's\n")
    (folder / "userdir" / "next_round.csv").write_text("my,own,csv\n")
    (folder / "elsewhere").mkdir()
    (folder / "elsewhere" / "target.md").write_text("outside the folder\n")
    (folder / "elsewhere" / "target.json").write_text('{"outside": true}\n')
    (folder / "link.md").symlink_to(folder / "elsewhere" / "target.md")
    (folder / "link.json").symlink_to(folder / "elsewhere" / "target.json")
    (folder / "link.csv").symlink_to(folder / "elsewhere" / "target.md")
    (folder / "link.png").symlink_to(folder / "elsewhere" / "target.md")
    (folder / "linkdir").symlink_to(folder / "elsewhere", target_is_directory=True)


def _simcore(folder, *argv, check=True):
    result = subprocess.run(
        [sys.executable, "-m", "simcore", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        env=_environment(),
    )
    if check and result.returncode:
        raise RuntimeError(f"simcore {' '.join(argv)}: {result.stderr}")
    return result


def _environment():
    return {**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "ignore"}


def build_workspace(folder):
    """Write the shared workspace into ``folder`` (a card and a store take a few seconds)."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    _tables(folder)
    (folder / "s.yaml").write_text(yaml.safe_dump(SCENARIO, sort_keys=False))
    other = {**SCENARIO, "seed": 9}
    (folder / "s_seed9.yaml").write_text(yaml.safe_dump(other, sort_keys=False))
    _simcore(folder, "run", "s.yaml", "--out", "store.zarr", "--quiet")
    _simcore(folder, "run", "s_seed9.yaml", "--out", "other.zarr", "--quiet")
    card = ("--judges", "j", "--judge", "j", "--fail-labels", "FAIL")
    _simcore(folder, "card", "data.csv", *card, "--criterion", "c", "--population", "p",
             "--out", "card.json")  # fmt: skip
    _simcore(folder, "card", "data.csv", *card, "--criterion", "c", "--population", "p",
             "--expires-on-alarm", "--out", "alarm_card.json")  # fmt: skip
    _bomb(folder)
    _many_labels(folder)
    _user_files(folder)


def snapshot(folder):
    """Return ``{relative path: what it is}`` of everything under ``folder`` (links unfollowed)."""
    seen = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            key = str(path.relative_to(folder))
            if path.is_symlink():
                seen[key] = ("link", os.readlink(path))
            elif path.is_dir():
                seen[key] = ("dir",)
            else:
                with contextlib.suppress(OSError):
                    seen[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return seen


# --------------------------------------------------------------------------- running a case

PYTHON_WRAPPER = """
import sys, traceback
try:
    import simcore
    {body}
except (ValueError, TypeError) as error:
    print("REFUSED", type(error).__name__, str(error).replace(chr(10), " "), file=sys.stderr)
    sys.exit(2)
except BaseException as error:
    traceback.print_exc()
    print("UNCLEAR", type(error).__name__, file=sys.stderr)
    sys.exit(1)
"""


def _limits(memory_gb):
    def apply():
        os.setsid()
        if memory_gb:
            size = int(memory_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


def run_case(case, base):
    """Run ``case`` in a copy of the workspace ``base``; return ``(case, failures, detail)``."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as scratch:
        folder = Path(scratch) / "w"
        shutil.copytree(base, folder, symlinks=True)
        _relink(folder, base)
        mounted = []
        try:
            if case.setup:
                case.setup(folder, mounted)
            before = snapshot(folder)
            status, err = _execute(case, folder)
            after = snapshot(folder)
        finally:
            for point in reversed(mounted):
                subprocess.run(["chattr", "-R", "-i", str(point)], capture_output=True)
                subprocess.run(["umount", "-l", str(point)], capture_output=True)
            subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)
        return (case, *_classify(case, status, err, before, after))


def _relink(folder, base):
    """Point the copied links at the copy's own ``elsewhere`` (copytree keeps absolute ones)."""
    for path in folder.iterdir():
        if path.is_symlink() and str(base) in os.readlink(path):
            target = os.readlink(path).replace(str(base), str(folder))
            path.unlink()
            path.symlink_to(target)


def _execute(case, folder):
    if case.argv:
        command = [sys.executable, "-m", "simcore", *[str(a) for a in case.argv]]
    else:
        body = textwrap.indent(textwrap.dedent(case.code), "    ").strip()
        command = [sys.executable, "-c", PYTHON_WRAPPER.format(body=body)]
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits(case.memory_gb),
    )
    try:
        _, err = process.communicate(timeout=case.timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        process.communicate()
        return None, ""
    return process.returncode, err


def _classify(case, status, err, before, after):
    """Return ``(failures, detail)`` of one finished case."""
    failures, detail = [], err.strip().splitlines()[-1:] if err.strip() else []
    if status is None:
        return ["hang"], f"still running after {case.timeout:.0f} s"
    if "Traceback" in err or "internal error" in err or status not in (0, 2):
        failures.append("traceback")
    elif case.code and status == 2 and case.keyword and case.keyword not in err:
        failures.append("traceback")  # an error that does not say what to pass
        detail = [f"does not name {case.keyword!r}: {err.strip()[-200:]}"]
    if status == 0 and case.expect in ("refuse", "damaged"):
        failures.append("wrong accept")
    if status == 2 and case.expect == "ok":
        failures.append("wrong accept")  # refused what must work (counted as wrong)
    changed = [
        path
        for path, what in before.items()
        if after.get(path) != what
        and path not in case.may_change
        and not path.startswith(("store.zarr", "other.zarr"))
    ]
    if case.klass == "store damage":
        changed = []  # verify and show may not touch a store; run may repair it
    if changed:
        failures.append("user data lost")
        detail = [f"changed: {', '.join(changed[:3])}"]
    new = [path for path in after if path not in before and not path.startswith("__pycache__")]
    if status != 0 and new:
        failures.append("left behind")
        detail = [f"left: {', '.join(new[:3])}"]
    return failures, " ".join(detail)[:300]


# --------------------------------------------------------------------------- the corpus


def cli(klass, name, *argv, **options):
    return Case(klass, name, argv=argv, **options)


def py(name, code, keyword="", **options):
    return Case("Python API", name, code=code, keyword=keyword, **options)


DATA = ("data.csv", "--judges", "j")
CARD_ARGS = (*DATA, "--judge", "j", "--fail-labels", "FAIL", "--criterion", "c",
             "--population", "p")  # fmt: skip


def _existing_outputs():
    """Writing commands against the user's files, links and linked folders."""
    writers = {
        "tables": lambda out: ("tables", "store.zarr", "--table3", out),
        "card": lambda out: ("card", *CARD_ARGS, "--out", out),
        "ceiling --out": lambda out: ("ceiling", "stars.csv", "--boot", "50", "--out", out),
        "ceiling --csv": lambda out: ("ceiling", "stars.csv", "--boot", "50", "--csv", out),
        "wellposed --out": lambda out: (
            "wellposed",
            "stars.csv",
            "--judges",
            "j",
            "--boot",
            "50",
            "--out",
            out,
        ),  # fmt: skip
        "wellposed --csv": lambda out: (
            "wellposed",
            "stars.csv",
            "--judges",
            "j",
            "--boot",
            "50",
            "--csv",
            out,
        ),  # fmt: skip
        "inspect --overlap-csv": lambda out: ("inspect", *DATA, "--overlap-csv", out),
        "plot": lambda out: ("plot", "store.zarr", "--out", out),
        "monitor --plot": lambda out: (
            "monitor",
            "--production",
            "prod.csv",
            "--audit-file",
            "audit.csv",
            "--plot",
            out,
        ),  # fmt: skip
    }
    cases = []
    for name, argv in writers.items():
        for target in ("notes.md", "mynotes.json", "link.md", "link.json", "link.png",
                       "linkdir/new.md", "linkdir/target.md"):  # fmt: skip
            cases.append(cli("command line", f"{name} over {target}", *argv(target)))
    for target in ("userdir", "linkdir"):
        cases.append(
            cli(
                "command line",
                f"advise --out {target}",
                "advise",
                *DATA,
                "--trials",
                "20",
                "--out",
                target,
                timeout=240,
            )  # fmt: skip
        )
    cases.append(cli("command line", "card --check --out over notes.md", "card", *DATA,
                     "--check", "card.json", "--out", "notes.md"))  # fmt: skip
    cases.append(cli("command line", "monitor --plot out.txt", "monitor", "--production",
                     "prod.csv", "--audit-file", "audit.csv", "--plot", "out.txt"))  # fmt: skip
    cases.append(cli("command line", "run --out over notes.md", "run", "s.yaml", "--out",
                     "notes.md"))  # fmt: skip
    cases.append(cli("command line", "run --out a link", "run", "s.yaml", "--out",
                     "linkdir"))  # fmt: skip
    cases.append(cli("command line", "run --out /proc", "run", "s.yaml", "--out",
                     "/proc/x.zarr"))  # fmt: skip
    # simcore's own outputs are replaced on a second run
    cases.append(cli("command line", "card over its own card", "card", *CARD_ARGS, "--out",
                     "card.json", expect="ok", may_change=("card.json",)))  # fmt: skip
    return cases


def _calibration_inputs():
    dup = (
        ["item,human,judge", "i1,fail,fail", "i1,fail,fail"]
        + [f"i{i},pass,pass" for i in range(2, 40)]
        + ["i41,fail,pass", "i42,pass,fail"]
    )
    clash = [*dup[:2], "i1,pass,pass", *dup[3:]]

    def write(rows, name):
        def setup(folder, _):
            (folder / name).write_text("\n".join(rows) + "\n")

        return setup

    fails = ("--fails", "30", "--of", "300")
    return [
        cli(
            "command line",
            "calibrate --csv contradictory duplicate",
            "calibrate",
            "--csv",
            "clash.csv",
            *fails,
            setup=write(clash, "clash.csv"),
        ),  # fmt: skip
        cli(
            "command line", "calibrate --table 1.5", "calibrate", "--table", "1.5,6,8,72", *fails
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate --fails 130.5",
            "calibrate",
            "--table",
            "10,2,3,80",
            "--fails",
            "130.5",
            "--of",
            "300",
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate --table three entries",
            "calibrate",
            "--table",
            "10,2,3",
            *fails,
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate --table negative",
            "calibrate",
            "--table",
            "10,-2,3,80",
            *fails,
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate --fails > --of",
            "calibrate",
            "--table",
            "10,2,3,80",
            "--fails",
            "400",
            "--of",
            "300",
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate card with 1e22 counts",
            "calibrate",
            "--card",
            "huge.json",
            *fails,
            setup=_edited_card("huge.json", 1e22),
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate card with disagreeing counts",
            "calibrate",
            "--card",
            "bad.json",
            *fails,
            setup=_edited_card("bad.json", "disagree"),
        ),  # fmt: skip
        cli(
            "command line",
            "calibrate card with a duplicate key",
            "calibrate",
            "--card",
            "dup.json",
            *fails,
            setup=_duplicate_key_card("dup.json"),
        ),  # fmt: skip
    ]


def _edited_card(name, how):
    def setup(folder, _):
        card = json.loads((folder / "card.json").read_text())
        counts = _find_counts(card)
        if how == "disagree":
            for key in counts:
                if isinstance(counts[key], int):
                    counts[key] += 7
                    break
        else:
            for key in counts:
                if isinstance(counts[key], int | float):
                    counts[key] = how
        (folder / name).write_text(json.dumps(card))

    return setup


def _find_counts(card):
    """The dict of the card holding its calibration counts (the first with ``caught``)."""
    stack = [card]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any("caught" in key for key in item):
                return item
            stack.extend(item.values())
    return card


def _duplicate_key_card(name):
    def setup(folder, _):
        text = (folder / "card.json").read_text()
        (folder / name).write_text(text.replace("{", '{"judge": "other",', 1))

    return setup


def _monitor_and_others():
    extra = ["item,date,judge"] + [f"p{i},2026-01-{1 + i % 28:02d},fail,EXTRA" for i in range(50)]

    def extra_fields(folder, _):
        (folder / "extra.csv").write_text("\n".join(extra) + "\n")

    def nul_name(folder, _):
        text = (folder / "s.yaml").read_text().replace("name: tiny", 'name: "ti\\0ny"')
        (folder / "nul.yaml").write_text(text)

    def esc_name(folder, _):
        text = (folder / "s.yaml").read_text().replace("name: tiny", 'name: "ti\\eny\\a"')
        (folder / "esc.yaml").write_text(text)

    def huge_production(folder, _):
        import yaml

        raw = yaml.safe_load((REPO / "scenarios" / "coverage.yaml").read_text())
        raw["sweep"]["n_production"] = [1e21]
        (folder / "huge.yaml").write_text(yaml.safe_dump(raw))

    monitor = ("monitor", "--production", "prod.csv", "--audit-file", "audit.csv")
    return [
        cli(
            "command line",
            "monitor fail label = pass label",
            *monitor,
            "--fail-label",
            "fail",
            "--pass-label",
            "fail",
        ),  # fmt: skip
        cli(
            "command line", "monitor --expire-card without --card", *monitor, "--expire-card"
        ),  # fmt: skip
        cli(
            "command line",
            "monitor extra CSV fields",
            "monitor",
            "--production",
            "extra.csv",
            "--audit-file",
            "audit.csv",
            setup=extra_fields,
        ),  # fmt: skip
        cli(
            "command line",
            "validate scenario name with NUL",
            "validate",
            "nul.yaml",
            setup=nul_name,
        ),  # fmt: skip
        cli(
            "command line",
            "run scenario name with NUL",
            "run",
            "nul.yaml",
            "--out",
            "n.zarr",
            setup=nul_name,
        ),  # fmt: skip
        cli(
            "command line",
            "validate scenario name with ESC/BEL",
            "validate",
            "esc.yaml",
            setup=esc_name,
        ),  # fmt: skip
        cli(
            "command line",
            "validate n_production 1e21",
            "validate",
            "huge.yaml",
            setup=huge_production,
        ),  # fmt: skip
        cli(
            "command line",
            "run --workers 100000",
            "run",
            "s.yaml",
            "--out",
            "w.zarr",
            "--workers",
            "100000",
            timeout=60,
        ),  # fmt: skip
        cli(
            "command line", "run --workers 0", "run", "s.yaml", "--out", "w.zarr", "--workers", "0"
        ),  # fmt: skip
        cli(
            "command line",
            "run --threads 100000",
            "run",
            "s.yaml",
            "--out",
            "w.zarr",
            "--threads",
            "100000",
        ),  # fmt: skip
        cli(
            "command line",
            "inspect --boot 1e10",
            "inspect",
            *DATA,
            "--agreement",
            "krippendorff_alpha",
            "--boot",
            "10000000000",
            timeout=60,
        ),  # fmt: skip
        cli(
            "command line",
            "ceiling --boot 1e10",
            "ceiling",
            "stars.csv",
            "--boot",
            "10000000000",
            timeout=60,
        ),  # fmt: skip
        cli(
            "command line",
            "wellposed --boot 1e10",
            "wellposed",
            "stars.csv",
            "--judges",
            "j",
            "--boot",
            "10000000000",
            timeout=60,
        ),  # fmt: skip
        cli(
            "command line",
            "card with counts 1e22 checked",
            "card",
            *DATA,
            "--check",
            "huge.json",
            setup=_edited_card("huge.json", 1e22),
        ),  # fmt: skip
        cli(
            "command line",
            "card --check with duplicate key",
            "card",
            *DATA,
            "--check",
            "dup.json",
            setup=_duplicate_key_card("dup.json"),
        ),  # fmt: skip
        cli(
            "command line",
            "validate a 1e9-cell sweep",
            "validate",
            "big.yaml",
            setup=_big_sweep,
            timeout=30,
            expect="either",
        ),  # fmt: skip
        cli(
            "command line",
            "run a 1e9-cell sweep",
            "run",
            "big.yaml",
            "--out",
            "big.zarr",
            setup=_big_sweep,
            timeout=60,
        ),  # fmt: skip
    ]


def _big_sweep(folder, _):
    import yaml

    raw = dict(SCENARIO)
    raw["sweep"] = {
        "p_judge": [round(0.5 + i / 2000, 6) for i in range(1000)],
        "rho": [round(0.01 + i / 1100, 6) for i in range(1000)],
        "n_humans": list(range(3, 1003)),
    }
    (folder / "big.yaml").write_text(yaml.safe_dump(raw))


def _bomb(folder):
    """A 4 MiB gzip file that expands to 4 GiB of zeros after its header."""
    block = bytes(1 << 24)
    with open(folder / "bomb.csv.gz", "wb") as handle:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        handle.write(compressor.compress(b"item,rater,label\n"))
        for _ in range(256):  # 4 GiB of zeros
            handle.write(compressor.compress(block))
        handle.write(compressor.flush())


def _many_labels(folder, n=12_000):
    """Tables of ``n`` items, each with its own label: as text and as numbers."""
    for name, form in (("many.csv", "L{}"), ("numbers.csv", "{}")):
        rows = ["item,rater,label"]
        for i in range(n):
            rows += [f"i{i},h1,{form.format(i)}", f"i{i},h2,{form.format((i + 1) % n)}",
                     f"i{i},j,{form.format(i)}"]  # fmt: skip
        (folder / name).write_text("\n".join(rows) + "\n")


def _sizes():

    limit = {"memory_gb": 4, "timeout": 60}
    cases = [
        cli("command line", f"{command} on a gzip bomb", *argv, **limit)
        for command, argv in {
            "inspect": ("inspect", "bomb.csv.gz"),
            "advise": ("advise", "bomb.csv.gz", "--judges", "j"),
            "card": ("card", "bomb.csv.gz", "--judges", "j", "--judge", "j"),
            "ceiling": ("ceiling", "bomb.csv.gz"),
            "calibrate --data": (
                "calibrate",
                "--data",
                "bomb.csv.gz",
                "--judges",
                "j",
                "--judge",
                "j",
                "--fails",
                "3",
                "--of",
                "30",
            ),  # fmt: skip
            "calibrate --csv": (
                "calibrate",
                "--csv",
                "bomb.csv.gz",
                "--fails",
                "3",
                "--of",
                "30",
            ),  # fmt: skip
        }.items()
    ]
    cases += [
        cli(
            "command line",
            "wellposed on 12,000 labels",
            "wellposed",
            "many.csv",
            "--judges",
            "j",
            expect="either",
            **limit,
        ),  # fmt: skip
        cli(
            "command line",
            "wellposed on 12,000 numbers",
            "wellposed",
            "numbers.csv",
            "--judges",
            "j",
            expect="either",
            **limit,
        ),  # fmt: skip
        cli(
            "command line",
            "ceiling on 12,000 numbers",
            "ceiling",
            "numbers.csv",
            "--judges",
            "j",
            expect="either",
            **limit,
        ),  # fmt: skip
        cli(
            "command line",
            "inspect --agreement ordinal on 12,000 numbers",
            "inspect",
            "numbers.csv",
            "--judges",
            "j",
            "--agreement",
            "krippendorff_alpha",
            "--level",
            "ordinal",
            expect="either",
            **limit,
        ),  # fmt: skip
        py(
            "agreement on 20,000 labels",
            """
            import pandas as pd
            n = 20000
            rows = [(f"i{i}", r, f"L{(i + k) % n}") for i in range(n) for k, r in
                    enumerate(["h1", "h2"])]
            frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
            simcore.agreement(frame, coefficient="krippendorff_alpha", level="interval")
            """,
            expect="either",
            memory_gb=4,
            timeout=60,
        ),  # fmt: skip
    ]
    return cases


def _python_api():
    calibrate = "simcore.calibrate"
    fails = "fails=30, of=300"
    cases = [
        py("calibrate table with 1.5", f"{calibrate}(table=(1.5, 6, 8, 72), {fails})", "table"),
        py(
            "calibrate table with True", f"{calibrate}(table=(True, 6, 8, 72), {fails})", "table"
        ),  # fmt: skip
        py("calibrate table of three", f"{calibrate}(table=(5, 6, 8), {fails})", "table"),
        py("calibrate table a string", f"{calibrate}(table='5,6,8,72', {fails})", "table"),
        py(
            "calibrate fails 130.5",
            f"{calibrate}(table=(10, 2, 3, 80), fails=130.5, of=300)",
            "fails",
        ),  # fmt: skip
        py(
            "calibrate fails True",
            f"{calibrate}(table=(10, 2, 3, 80), fails=True, of=300)",
            "fails",
        ),  # fmt: skip
        py("calibrate of 1e21", f"{calibrate}(table=(10, 2, 3, 80), fails=3, of=10**21)", "of"),
        py(
            "calibrate card as a str path with bad counts",
            f"{calibrate}(card='huge.json', {fails})",
            "card",
            setup=_edited_card("huge.json", 1e22),
        ),  # fmt: skip
        py(
            "calibrate card dict with disagreeing counts",
            f"""
            import json
            card = json.load(open("bad.json"))
            {calibrate}(card=card, {fails})
            """,
            "card",
            setup=_edited_card("bad.json", "disagree"),
        ),  # fmt: skip
        py("calibrate card a list", f"{calibrate}(card=[1, 2], {fails})", "card"),
        py(
            "calibrate production a frame without columns",
            """
            import pandas as pd
            simcore.calibrate(table=(10, 2, 3, 80), production=pd.DataFrame({"x": [1]}))
            """,
            "production",
        ),  # fmt: skip
        py("run workers 0", "simcore.run('s.yaml', workers=0)", "workers"),
        py("run workers -3", "simcore.run('s.yaml', workers=-3)", "workers"),
        py("run workers 1e5", "simcore.run('s.yaml', workers=100000)", "workers", timeout=60),
        py("run workers a str", "simcore.run('s.yaml', workers='two')", "workers"),
        py("run threads 0", "simcore.run('s.yaml', threads=0)", "threads"),
        py(
            "run trials numpy int",
            """
            import numpy as np
            simcore.run('s.yaml', trials=np.int64(5))
            """,
            expect="ok",
            timeout=180,
        ),  # fmt: skip
        py("run trials 2.5", "simcore.run('s.yaml', trials=2.5)", "trials"),
        py("run trials -1", "simcore.run('s.yaml', trials=-1)", "trials"),
        py("run seed a str", "simcore.run('s.yaml', seed='x')", "seed"),
        py("run out over notes", "simcore.run('s.yaml', out='notes.md')", "notes.md"),
        py("run scenario a number", "simcore.run(5)", "scenario"),
        py("estimate scenario None", "simcore.estimate(None)", "scenario"),
        py("load_scenario missing file", "simcore.load_scenario('nope.yaml')", "nope.yaml"),
        py("inspect data a number", "simcore.inspect(5)", "data"),
        py("inspect data a dict", "simcore.inspect({'a': 1})", "data"),
        py(
            "inspect frame without rater",
            """
            import pandas as pd
            simcore.inspect(pd.DataFrame({"item": [1], "label": [1]}))
            """,
            "rater",
        ),  # fmt: skip
        py("inspect unknown option", "simcore.inspect('data.csv', bogus=1)", "bogus"),
        py(
            "card data missing judge",
            "simcore.card('data.csv', judges=['zz'], judge='zz', "
            "fail_labels=['FAIL'], criterion='c', population='p')",
            "zz",
        ),  # fmt: skip
        py(
            "card confidence 2",
            "simcore.card('data.csv', judges=['j'], judge='j', "
            "fail_labels=['FAIL'], criterion='c', population='p', confidence=2)",
            "confidence",
        ),  # fmt: skip
        py(
            "card_check card a str of json",
            "simcore.card_check('{}', 'data.csv', judges=['j'])",
            "card",
        ),  # fmt: skip
        py(
            "card_check card a dict",
            "simcore.card_check({'a': 1}, 'data.csv', judges=['j'])",
            "card",
        ),  # fmt: skip
        py("ceiling boot 0", "simcore.ceiling('stars.csv', boot=0)", "boot"),
        py("ceiling boot a float", "simcore.ceiling('stars.csv', boot=2.5)", "boot"),
        py(
            "ceiling boot 1e10", "simcore.ceiling('stars.csv', boot=10**10)", "boot", timeout=60
        ),  # fmt: skip
        py(
            "wellposed judges a str of none", "simcore.wellposed('stars.csv', judges='zz')", "zz"
        ),  # fmt: skip
        py("advise trials 0", "simcore.advise('data.csv', judges=['j'], trials=0)", "trials"),
        py(
            "advise eps nan", "simcore.advise('data.csv', judges=['j'], eps=float('nan'))", "eps"
        ),  # fmt: skip
        py(
            "advise humans a number", "simcore.advise('data.csv', humans=5, judges=['j'])", "humans"
        ),  # fmt: skip
        py(
            "agreement coefficient unknown",
            "simcore.agreement('data.csv', coefficient='zz')",
            "coefficient",
        ),  # fmt: skip
        py(
            "monitor production a frame without columns",
            """
            import pandas as pd
            simcore.monitor(production=pd.DataFrame({"x": [1]}), audit_file='audit.csv')
            """,
            "production",
        ),  # fmt: skip
        py(
            "monitor plot a txt",
            "simcore.monitor(production='prod.csv', audit_file='audit.csv', plot='out.txt')",
            "plot",
        ),  # fmt: skip
        py(
            "monitor plot over notes",
            "simcore.monitor(production='prod.csv', audit_file='audit.csv', plot='notes.md')",
            "notes.md",
        ),  # fmt: skip
        py(
            "read_annotations a folder of nothing", "simcore.read_annotations('userdir')", "userdir"
        ),  # fmt: skip
    ]
    return cases


# --------------------------------------------------------------------------- store damage


def _damage(how):
    def setup(folder, _):
        store = folder / "store.zarr"
        how(store, folder)

    return setup


def _json_edit(relative, edit):
    def how(store, _):
        path = store / relative
        data = json.loads(path.read_text())
        edit(data)
        path.write_text(json.dumps(data))

    return how


def _chunks(store, skip=(".zarray", ".zattrs", ".zgroup")):
    return sorted(
        p for p in store.rglob("*") if p.is_file() and p.name not in skip and p.parent != store
    )


def _foreign_chunks(store, folder):
    other = folder / "other.zarr"
    for chunk in _chunks(other):
        target = store / chunk.relative_to(other)
        if target.exists():
            shutil.copy(chunk, target)


def _garbage_chunk(store, _):
    chunk = _chunks(store)[len(_chunks(store)) // 2]
    chunk.write_bytes(b"\x00garbage" * 4)


def _attrs_edit(key, value):
    def edit(data):
        data[key] = value

    return _json_edit(".zattrs", edit)


def _metadata_attrs_edit(key, value):
    def edit(data):
        data["metadata"][".zattrs"][key] = value

    return _json_edit(".zmetadata", edit)


def _shape_edit(store, _):
    array = next(p for p in sorted(store.iterdir()) if (p / ".zarray").exists()
                 and len(json.loads((p / ".zarray").read_text())["shape"]) > 1)  # fmt: skip
    data = json.loads((array / ".zarray").read_text())
    data["shape"][0] += 2
    (array / ".zarray").write_text(json.dumps(data))
    meta = json.loads((store / ".zmetadata").read_text())
    meta["metadata"][f"{array.name}/.zarray"]["shape"] = data["shape"]
    (store / ".zmetadata").write_text(json.dumps(meta))


def _store_damage():
    damages = {
        "chunks of another seed's run": _foreign_chunks,
        ".zmetadata garbage": lambda s, _: (s / ".zmetadata").write_text("{garbage"),
        ".zmetadata removed": lambda s, _: (s / ".zmetadata").unlink(),
        "scenario attribute edited": lambda s, f: (
            _attrs_edit("scenario", "name: other\n")(s, f),
            _metadata_attrs_edit("scenario", "name: other\n")(s, f),
        ),
        "kind attribute edited": lambda s, f: (
            _attrs_edit("kind", "coverage")(s, f),
            _metadata_attrs_edit("kind", "coverage")(s, f),
        ),
        "scenario_hash edited": lambda s, f: (
            _attrs_edit("scenario_hash", "0" * 16)(s, f),
            _metadata_attrs_edit("scenario_hash", "0" * 16)(s, f),
        ),
        "cell_packing edited": lambda s, f: (
            _attrs_edit("cell_packing", "bogus")(s, f),
            _metadata_attrs_edit("cell_packing", "bogus")(s, f),
        ),
        "array shape edited": _shape_edit,
        "one chunk garbage": _garbage_chunk,
        "one chunk deleted": lambda s, _: _chunks(s)[0].unlink(),
        "root .zattrs truncated": lambda s, _: (s / ".zattrs").write_text('{"scen'),
        "root .zgroup removed": lambda s, _: (s / ".zgroup").unlink(),
    }
    cases = []
    for name, how in damages.items():
        cases.append(Case("store damage", f"verify: {name}", argv=("verify", "store.zarr"),
                          expect="damaged", setup=_damage(how)))  # fmt: skip
        cases.append(Case("store damage", f"show: {name}", argv=("show", "store.zarr"),
                          expect="either", setup=_damage(how)))  # fmt: skip
        cases.append(Case("store damage", f"rerun: {name}", argv=("run", "s.yaml", "--out",
                          "store.zarr", "--quiet"), expect="either", setup=_damage(how),
                          timeout=180))  # fmt: skip
    return cases


# --------------------------------------------------------------------------- file system


def _can_mount():
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory() as point:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", point],
                              capture_output=True)  # fmt: skip
        if done.returncode:
            return False
        subprocess.run(["umount", point], capture_output=True)
    return True


def _mount(folder, mounted, name, size="48k", readonly=False, fill=True):
    point = folder / name
    point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
                   check=True, capture_output=True)  # fmt: skip
    mounted.append(point)
    if fill:  # leave about 2 KiB free
        with open(point / "filler", "wb", buffering=0) as handle:
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"x" * 1024)
                    handle.flush()
        os.truncate(point / "filler", max(0, os.path.getsize(point / "filler") - 2048))
    if readonly:
        subprocess.run(["mount", "-o", "remount,ro", str(point)], check=True)
    return point


def _full(folder, mounted):
    _mount(folder, mounted, "full")


def _readonly(folder, mounted):
    _mount(folder, mounted, "ro", readonly=True, fill=False)


def _immutable(relative):
    def setup(folder, _):
        subprocess.run(["chattr", "+i", str(folder / relative)], check=True)

    return setup


def _file_system():
    writers = {
        "card --out": lambda out: ("card", *CARD_ARGS, "--out", f"{out}/card.json"),
        "advise --out": lambda out: ("advise", *DATA, "--trials", "20", "--out", f"{out}/adv"),
        "ceiling --out": lambda out: (
            "ceiling",
            "stars.csv",
            "--boot",
            "50",
            "--out",
            f"{out}/c.md",
        ),  # fmt: skip
        "ceiling --csv": lambda out: (
            "ceiling",
            "stars.csv",
            "--boot",
            "50",
            "--csv",
            f"{out}/c.csv",
        ),  # fmt: skip
        "wellposed --out": lambda out: (
            "wellposed",
            "stars.csv",
            "--judges",
            "j",
            "--boot",
            "50",
            "--out",
            f"{out}/w.md",
        ),  # fmt: skip
        "inspect --overlap-csv": lambda out: (
            "inspect",
            *DATA,
            "--overlap-csv",
            f"{out}/o.csv",
        ),  # fmt: skip
        "plot": lambda out: ("plot", "store.zarr", "--out", f"{out}/f.png"),
        "monitor --plot": lambda out: (
            "monitor",
            "--production",
            "prod.csv",
            "--audit-file",
            "audit.csv",
            "--plot",
            f"{out}/m.png",
        ),  # fmt: skip
        "tables --table3": lambda out: ("tables", "store.zarr", "--table3", f"{out}/t.md"),
        "run": lambda out: ("run", "s.yaml", "--out", f"{out}/r.zarr", "--quiet"),
    }
    cases = []
    for name, argv in writers.items():
        cases.append(cli("file system", f"{name} on a full disk", *argv("full"), setup=_full,
                         needs_root=True, timeout=240))  # fmt: skip
        cases.append(cli("file system", f"{name} on a read-only disk", *argv("ro"),
                         setup=_readonly, needs_root=True, timeout=240))  # fmt: skip
    monitor = ("monitor", "--production", "prod.csv", "--audit-file", "audit.csv")
    cases += [
        cli(
            "file system",
            "monitor --expire-card on an immutable card",
            *monitor,
            "--card",
            "alarm_card.json",
            "--expire-card",
            expect="either",
            setup=_immutable("alarm_card.json"),
            needs_root=True,
        ),  # fmt: skip
        cli(
            "file system",
            "run into an immutable store",
            "run",
            "s.yaml",
            "--out",
            "store.zarr",
            "--trials",
            "120",
            "--quiet",
            setup=_immutable("store.zarr"),
            needs_root=True,
        ),  # fmt: skip
        cli(
            "file system",
            "card over an immutable own card",
            "card",
            *CARD_ARGS,
            "--out",
            "card.json",
            setup=_immutable("card.json"),
            needs_root=True,
        ),  # fmt: skip
    ]
    return cases


def corpus():
    """Every case of the corpus."""
    return [
        *_existing_outputs(),
        *_calibration_inputs(),
        *_monitor_and_others(),
        *_sizes(),
        *_python_api(),
        *_store_damage(),
        *_file_system(),
    ]


# --------------------------------------------------------------------------- the table


def run_corpus(cases, jobs=2, workspace=None, say=print):
    """Run ``cases``; return ``[(case, failures, detail)]``."""
    with contextlib.ExitStack() as stack:
        if workspace is None:
            workspace = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "base"
            build_workspace(workspace)
        root = _can_mount()
        runnable = [case for case in cases if root or not case.needs_root]
        results = []
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for case, failures, detail in pool.map(lambda c: run_case(c, workspace), runnable):
                results.append((case, failures, detail))
                if failures:
                    say(f"  {case.klass} | {case.name}: {', '.join(failures)} -- {detail}")
        return results


def table(results):
    """Return the counts by class as a Markdown table."""
    counts = collections.defaultdict(collections.Counter)
    for case, failures, _ in results:
        counts[case.klass]["tried"] += 1
        for failure in failures:
            counts[case.klass][failure] += 1
    lines = ["| class | tried | " + " | ".join(FAILURES) + " |", "|---" * (len(FAILURES) + 2) + "|"]
    for klass in CLASSES:
        row = counts[klass]
        lines.append(f"| {klass} | {row['tried']} | " + " | ".join(str(row[f]) for f in FAILURES)
                     + " |")  # fmt: skip
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="one class, or a substring of case names")
    parser.add_argument("--workspace", type=Path, help="build the workspace here once, reuse it")
    args = parser.parse_args(argv)
    cases = corpus()
    if args.only:
        cases = [c for c in cases if args.only in (c.klass, c.name) or args.only in c.name]
    workspace = args.workspace
    if workspace is not None and not workspace.exists():
        build_workspace(workspace)
    results = run_corpus(cases, jobs=args.jobs, workspace=workspace)
    print(table(results))
    return int(any(failures for _, failures, _ in results))


if __name__ == "__main__":
    sys.exit(main())
