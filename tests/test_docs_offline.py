"""The docs site works offline: the check that fails the build on a remote asset, tested."""

import importlib.util

import pytest
from doc_examples import REPO

SPEC = importlib.util.spec_from_file_location(
    "offline_assets", REPO / "docs" / "_ext" / "offline_assets.py"
)
offline_assets = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(offline_assets)

SITE = REPO / "docs" / "_build" / "html"

PAGE = """<!DOCTYPE html>
<html><head>
<link rel="stylesheet" type="text/css" href="{root}_static/local.css?v=1" />
<link rel="preload" as="script" href="{root}_static/local.js?digest=abc" />
<link rel="stylesheet" href="https://fonts.example.org/font.css" />
<link rel="icon" href="https://example.org/favicon.ico" />
<link rel="next" href="https://example.org/next.html" />
<script src="{root}_static/local.js?digest=abc"></script>
<script defer="defer" src="https://cdn.example.org/mathjax@4/tex-mml-chtml.js"></script>
<script src="//cdn.example.org/require.min.js"></script>
<script src="{root}_static/gone.js"></script>
<script>window.MathJax = {{}}</script>
</head><body><a href="https://example.org/">a link is not an asset</a>
<img src="data:image/png;base64,AAAA" /></body></html>
"""


@pytest.fixture
def site(tmp_path):
    """A two-page site: a page at the root and one a folder down, each with the same assets."""
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "local.css").write_text("body {}")
    (tmp_path / "_static" / "local.js").write_text("")
    (tmp_path / "_static" / "macros.html").write_text('<script src="{{ pathto(x) }}"></script>')
    (tmp_path / "index.html").write_text(PAGE.format(root=""))
    (tmp_path / "howto").mkdir()
    (tmp_path / "howto" / "run.html").write_text(PAGE.format(root="../"))
    return tmp_path


def test_page_assets_lists_scripts_and_loading_links_in_order():
    assets = offline_assets.page_assets(PAGE.format(root=""))
    assert assets == [
        "_static/local.css?v=1",
        "_static/local.js?digest=abc",
        "https://fonts.example.org/font.css",
        "_static/local.js?digest=abc",
        "https://cdn.example.org/mathjax@4/tex-mml-chtml.js",
        "//cdn.example.org/require.min.js",
        "_static/gone.js",
    ]


@pytest.mark.parametrize(
    ("address", "remote"),
    [
        ("https://cdn.example.org/a.js", True),
        ("HTTP://cdn.example.org/a.js", True),
        ("//cdn.example.org/a.js", True),
        (" https://cdn.example.org/a.js", True),
        ("_static/mathjax/tex-chtml.js", False),
        ("../_static/a.css?v=1", False),
        ("data:text/css,body{}", False),
    ],
)
def test_is_remote(address, remote):
    assert offline_assets.is_remote(address) is remote


def test_remote_and_missing_assets_are_found_local_ones_pass(site):
    remote = [
        "https://fonts.example.org/font.css",
        "https://cdn.example.org/mathjax@4/tex-mml-chtml.js",
        "//cdn.example.org/require.min.js",
    ]
    assert offline_assets.offline_problems(site) == [
        *(("howto/run.html", address, "remote") for address in remote),
        ("howto/run.html", "../_static/gone.js", "missing"),
        *(("index.html", address, "remote") for address in remote),
        ("index.html", "_static/gone.js", "missing"),
    ]


def test_a_site_of_local_assets_passes(site):
    for page in (site / "index.html", site / "howto" / "run.html"):
        root = "../" if page.parent.name == "howto" else ""
        page.write_text(
            f'<link rel="stylesheet" href="{root}_static/local.css?v=1" />'
            f'<script src="{root}_static/local.js"></script><script>var x = 1;</script>'
        )
    assert offline_assets.offline_problems(site) == []


@pytest.mark.skipif(not (SITE / "index.html").is_file(), reason="docs not built (make docs)")
def test_the_built_docs_load_nothing_from_the_network():
    assert offline_assets.offline_problems(SITE) == []
    assert (SITE / "_static" / "mathjax" / "tex-chtml.js").is_file()


def build(tmp_path, extensions):
    """Build a one-page site with some maths under ``-W``; return (status, stderr text)."""
    from sphinx.cmd.build import build_main

    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(REPO / 'docs' / '_ext')!r})\n"
        f"extensions = {extensions!r}\n"
    )
    (source / "index.rst").write_text("Page\n====\n\nInline :math:`a^2 + b^2`.\n")
    warnings = tmp_path / "warnings.txt"
    status = build_main(
        ["-W", "-q", "-b", "html", "-w", str(warnings), str(source), str(tmp_path / "html")]
    )
    return status, warnings.read_text()


def test_a_build_that_loads_mathjax_from_a_cdn_fails(tmp_path):
    status, warnings = build(tmp_path, ["sphinx.ext.mathjax", "offline_assets"])
    assert status != 0
    assert "index.html: remote asset https://" in warnings


def test_a_build_with_mathjax_copied_into_the_site_passes(tmp_path):
    extensions = ["sphinx.ext.mathjax", "sphinx-mathjax-offline", "offline_assets"]
    status, warnings = build(tmp_path, extensions)
    assert (status, warnings) == (0, "")
    page = (tmp_path / "html" / "index.html").read_text()
    assert offline_assets.page_assets(page).count("_static/mathjax/tex-chtml.js") == 1
    assert (tmp_path / "html" / "_static" / "mathjax" / "tex-chtml.js").is_file()
