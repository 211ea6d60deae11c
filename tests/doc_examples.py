"""Run the examples of the README and the docs pages, and check what they show.

A page's fenced blocks, by language:

- ``console``: a shell session. ``$ COMMAND`` lines run in bash (a trailing `` \\`` continues
  the command); the lines up to the next ``$ `` are the expected combined stdout and stderr,
  compared with doctest's ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``. Every command exits 0.
- ``pycon``: a doctest session; the page's pycon blocks share one namespace.
- ``yaml``: ``# scenarios/NAME.yaml`` first: the rest is verbatim in that repository file;
  ``# save as NAME`` first: written to the working directory; else it parses as YAML.
- ``json``: parses. ``text``: shown as is, with no commands or prompts in it.
- ``sh``: instructions that are not run: ``make TARGET`` (a target of the Makefile),
  ``git clone ...`` and ``cd ...`` only.

Blocks run in page order in one scratch folder per page, with ``scenarios/`` and
``examples/`` linked from the repository and ``../shared`` resolving to the shared data.
"""

import doctest
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
LANGUAGES = ("console", "pycon", "yaml", "json", "text", "sh")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
INSTRUCTION = re.compile(r"(make [a-z0-9-]+( [A-Z_]+=\S+)*|git clone \S+( \S+)?|cd \S+)")
COMMAND_TIMEOUT = 300


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, first line number and text."""

    page: Path
    language: str
    line: int
    text: str

    def where(self):
        """Return ``page:line`` for messages."""
        page = self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page
        return f"{page}:{self.line}"


def pages():
    """Return the README and every Markdown page of the docs, in a stable order."""
    docs = sorted((REPO / "docs").rglob("*.md"))
    return [REPO / "README.md", *(p for p in docs if "_build" not in p.parts)]


def blocks(page):
    """Return the fenced blocks of ``page`` (MyST directives, ``{...}``, are not examples)."""
    found, fence, language, start, body = [], None, None, 0, []
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^(`{3,}|~{3,})\s*([^\s`]*)", stripped)
            if match:
                fence, language, start, body = match.group(1), match.group(2), number + 1, []
        elif stripped.startswith(fence) and not stripped[len(fence) :].strip():
            if not language.startswith("{"):
                found.append(Block(page, language, start, "\n".join(body) + "\n"))
            fence = None
        else:
            body.append(line)
    return found


def console_steps(block):
    """Split a console block into ``(command, expected output)`` pairs."""
    steps, lines = [], block.text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("$ "):
            raise AssertionError(f"{block.where()}: output before any '$ ' command: {line!r}")
        command = [line[2:]]
        while command[-1].endswith("\\") and index + 1 < len(lines):
            index += 1
            command.append(lines[index])
        index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        steps.append(("\n".join(command), "\n".join(output).strip("\n")))
    return steps


def scratch_folder(root):
    """Lay out a page's working directory under ``root`` and return it."""
    work = root / "repo"
    work.mkdir(parents=True)
    for name in ("scenarios", "examples"):
        (work / name).symlink_to(REPO / name)
    (root / "shared").symlink_to(SHARED.resolve())
    return work


def environment():
    """The environment of a page's commands: this Python's ``simcore`` and the repository."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["COLUMNS"] = "100"
    env.pop("FORCE_COLOR", None)
    return env


def matches(expected, actual):
    """Whether ``actual`` shows ``expected`` (doctest ``ELLIPSIS``, whitespace runs equal)."""
    return doctest.OutputChecker().check_output(expected + "\n", actual + "\n", FLAGS)


def run_console(block, work):
    """Run a console block's commands in ``work``; raise on a failure or a different output."""
    for command, expected in console_steps(block):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=work,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=COMMAND_TIMEOUT,
        )
        actual = done.stdout.rstrip("\n")
        if done.returncode != 0:
            raise AssertionError(
                f"{block.where()}: `{command}` exited {done.returncode}:\n{actual}"
            )
        if not matches(expected, actual):
            raise AssertionError(
                f"{block.where()}: `{command}` printed\n{actual}\n--- the page shows\n{expected}"
            )


def run_pycon(block, work, namespace):
    """Run a pycon block as a doctest in ``work`` with the page's ``namespace``."""
    test = doctest.DocTestParser().get_doctest(
        block.text, namespace, block.where(), str(block.page), block.line - 1
    )
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    previous = Path.cwd()
    os.chdir(work)
    try:
        runner.run(test, out=report.append, clear_globs=False)
    finally:
        os.chdir(previous)
        namespace.update(test.globs)  # a DocTest runs in a copy of the namespace it is given
    if runner.failures:
        raise AssertionError("".join(report))


def check_yaml(block, work):
    """Check a yaml block against its repository file, save it, or parse it."""
    first, _, rest = block.text.partition("\n")
    saved = re.fullmatch(r"# save as (\S+)", first.strip())
    excerpt = re.fullmatch(r"# (scenarios/\S+\.yaml)", first.strip())
    if saved:
        (work / saved.group(1)).write_text(rest)
    elif excerpt:
        source = (REPO / excerpt.group(1)).read_text()
        assert rest in source, f"{block.where()}: not verbatim in {excerpt.group(1)}"
    yaml.safe_load(rest if (saved or excerpt) else block.text)


def check_text(block):
    """A text block shows no command and no Python prompt."""
    for line in block.text.splitlines():
        assert not re.match(r"\s*(\$ |>>> |simcore )", line), (
            f"{block.where()}: a command in a text block (write it as console or pycon): {line!r}"
        )


def check_instructions(block, targets):
    """An sh block holds only instructions: make targets of the Makefile, clone, cd."""
    for line in block.text.splitlines():
        if not line.strip():
            continue
        assert INSTRUCTION.fullmatch(line.strip()), (
            f"{block.where()}: {line!r} is not an instruction (make/git clone/cd); "
            "write an example as a console block"
        )
        if line.startswith("make "):
            target = line.split()[1]
            assert target in targets, f"{block.where()}: no make target {target!r}"


def make_targets():
    """The Makefile's targets."""
    text = (REPO / "Makefile").read_text()
    names = set()
    for match in re.finditer(r"^([a-z0-9][a-z0-9 -]*):(?!=)", text, re.MULTILINE):
        names.update(match.group(1).split())
    return names


def run_page(page, root):
    """Run and check every block of ``page`` in a scratch folder under ``root``."""
    work = scratch_folder(root)
    namespace = {"__name__": "__main__"}
    targets = make_targets()
    for block in blocks(page):
        assert block.language in LANGUAGES, (
            f"{block.where()}: fence language {block.language!r} is not one of {LANGUAGES}"
        )
        if block.language == "console":
            run_console(block, work)
        elif block.language == "pycon":
            run_pycon(block, work, namespace)
        elif block.language == "yaml":
            check_yaml(block, work)
        elif block.language == "json":
            json.loads(block.text)
        elif block.language == "text":
            check_text(block)
        else:
            check_instructions(block, targets)
