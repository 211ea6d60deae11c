"""Sphinx configuration of the simcore docs (``make docs``; warnings are errors).

MyST Markdown pages, numpydoc docstrings rendered by autosummary, the command line rendered
from its parser (sphinx-argparse), the scenario keys and cube variables rendered from their
declarations (``docs/_ext``), and the PyData theme, as numpy and xarray build theirs.
"""

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS / "_ext"))

from simcore import __version__  # noqa: E402

project = "simcore"
author = "the simcore developers"
copyright = "2026, the simcore developers"
version = release = __version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinxarg.ext",
    "declared_options",
    "page_references",
    "console_lexer",
    "offline_assets",
]

# .rst first: autosummary writes its stubs in the first suffix
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "jupyter_execute"]
# Not nitpicky: docstrings name internal helpers in passing (rendered as code, not pages);
# a page's own Python reference that resolves nowhere is an error (docs/_ext/page_references).
nitpicky = False

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
smartquotes = False  # options keep their two hyphens

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = {"GL08"}  # every public name has a docstring
numpydoc_validation_exclude = {r"\.__init__$"}  # a dataclass documents its fields on the class

html_theme = "pydata_sphinx_theme"
html_title = f"simcore {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
    # The reference's wide tables (docs/_ext/declared_options.py) take the page's full width:
    # their pages have no "On this page" column.
    "secondary_sidebar_items": {
        "**": ["page-toc", "edit-this-page", "sourcelink"],
        "reference/scenario-keys": [],
        "reference/cube": [],
    },
}
html_static_path = ["_static"]
html_css_files = ["simcore.css"]

# The site works offline: the maths is typeset by the MathJax 3 that sphinx-mathjax-offline
# copies into _static/mathjax (Sphinx's default loads it from a CDN, and a page read without
# the network showed raw TeX); notebooks load no widget scripts from a CDN; offline_assets
# (docs/_ext) fails the build on any remote script or stylesheet left in a built page.
mathjax_path = "mathjax/tex-chtml.js"
nb_ipywidgets_js = {}

# The example notebooks of examples/ are executed at build time (myst-nb) from a copy in
# docs/examples/ (ignored); the Figure 2 notebook reads a small store made here first.
EXAMPLES = DOCS / "examples"
EXAMPLES.mkdir(exist_ok=True)
for notebook in sorted((DOCS.parent / "examples").glob("*.ipynb")):
    shutil.copyfile(notebook, EXAMPLES / notebook.name)
FIG2_STORE = DOCS / "_build" / "fig2_notebook.zarr"
if not FIG2_STORE.exists():
    import simcore

    simcore.run(DOCS.parent / "scenarios" / "fig2.yaml", out=FIG2_STORE, trials=100)
os.environ["SIMCORE_FIG2_STORE"] = str(FIG2_STORE)
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_merge_streams = True
