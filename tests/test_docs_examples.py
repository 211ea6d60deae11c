"""Every example of the README and the docs runs, and shows what the page says it shows."""

import re

import doc_examples
import pytest
from doc_examples import REPO, blocks, pages, run_page

README_MOST_LINES = 150


@pytest.mark.parametrize("page", pages(), ids=[str(p.relative_to(REPO)) for p in pages()])
def test_page_examples_run_and_show_their_output(page, tmp_path):
    run_page(page, tmp_path)


def test_readme_is_short():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines"


def test_readme_has_the_three_quickstarts():
    text = (REPO / "README.md").read_text()
    for command in ("simcore run", "simcore advise", "simcore calibrate"):
        assert f"$ {command}" in text, f"README.md has no executed `{command}` example"


def _page(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text)
    return page


def _fails(tmp_path, text):
    tmp_path = tmp_path / str(len(list(tmp_path.iterdir())))
    tmp_path.mkdir()
    page = _page(tmp_path, text)
    with pytest.raises(AssertionError) as failure:
        run_page(page, tmp_path / "work")
    return str(failure.value)


def test_a_console_output_that_differs_fails(tmp_path):
    message = _fails(tmp_path, "# t\n\n```console\n$ echo 3\n4\n```\n")
    assert "printed\n3" in message


def test_a_failing_command_fails_even_with_a_wildcard_output(tmp_path):
    message = _fails(tmp_path, "# t\n\n```console\n$ false\n...\n```\n")
    assert "exited 1" in message


def test_a_pycon_output_that_differs_fails(tmp_path):
    message = _fails(tmp_path, "# t\n\n```pycon\n>>> 1 + 1\n3\n```\n")
    assert "Expected:\n    3" in message


def test_pycon_blocks_of_a_page_share_one_namespace(tmp_path):
    page = _page(tmp_path, "```pycon\n>>> x = 41\n```\n\n```pycon\n>>> x + 1\n42\n```\n")
    run_page(page, tmp_path / "work")


def test_unknown_fences_and_commands_outside_console_fail(tmp_path):
    assert "fence language 'python'" in _fails(tmp_path, "```python\nx = 1\n```\n")
    assert "a command in a text block" in _fails(tmp_path, "```text\n$ simcore run x\n```\n")
    assert "not an instruction" in _fails(tmp_path, "```sh\nsimcore run x.yaml\n```\n")
    assert "no make target" in _fails(tmp_path, "```sh\nmake no-such-target\n```\n")


def test_yaml_excerpts_must_be_verbatim_and_saved_files_are_written(tmp_path):
    message = _fails(tmp_path, "```yaml\n# scenarios/fig2.yaml\nnot: in the file\n```\n")
    assert "not verbatim in scenarios/fig2.yaml" in message
    page = _page(
        tmp_path,
        "```yaml\n# save as mine.yaml\na: 1\n```\n\n```console\n$ cat mine.yaml\na: 1\n```\n",
    )
    run_page(page, tmp_path / "ok")


def test_blocks_are_found_with_their_lines_and_directives_skipped(tmp_path):
    page = _page(tmp_path, "# t\n\n```{toctree}\nx\n```\n\n```console\n$ echo 1\n1\n```\n")
    found = blocks(page)
    assert [(b.language, b.line, b.text) for b in found] == [("console", 8, "$ echo 1\n1\n")]
    assert doc_examples.console_steps(found[0]) == [("echo 1", "1")]


def test_no_page_refers_to_a_document_outside_the_repository():
    outside = re.compile(r"\bSPEC\b|DESIGN\.md|STYLE\.md|DEVELOPERS\.md|shared/(?!data\b)")
    for page in pages():
        for number, line in enumerate(page.read_text().splitlines(), start=1):
            assert not outside.search(line), f"{page.relative_to(REPO)}:{number}: {line}"


def test_the_readme_links_resolve_inside_the_repository():
    text = (REPO / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert targets, "README.md links nowhere"
    for target in targets:
        assert not target.startswith(("http:", "https:", "/", "..")), target
        assert (REPO / target).is_file(), f"README.md links to {target}, which is not a file"
