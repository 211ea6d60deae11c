"""Make a page's unresolved Python reference a warning (so ``make docs -W`` fails on it).

Sphinx reports unresolved ``{func}`` / ``{class}`` / ``{mod}`` references only in nitpicky
mode, which would also report every internal name a docstring mentions in passing (those
render as code, not links, and are not pages of the reference). A reference written in a
page of ``docs/`` names a public object a reader is sent to, so it must resolve.
"""

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def _warn_on_page_reference(app, env, node, contnode):
    """Warn when a ``py`` reference in a Markdown page has no target; never resolve it."""
    source = node.source or ""
    if node.get("refdomain") == "py" and source.endswith(".md"):
        LOGGER.warning(
            "py:%s reference target not found: %s",
            node.get("reftype"),
            node.get("reftarget"),
            location=node,
            type="ref",
            subtype="page",
        )
    return None


def setup(app):
    """Connect the check to unresolved references."""
    app.connect("missing-reference", _warn_on_page_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
