"""Fail the docs build when a built page loads a script or stylesheet it does not ship.

The site must read the same with the network unreachable: every ``<script src=...>``,
``<link rel="stylesheet" href=...>`` (and ``preload``/``modulepreload`` link) of every built
page is relative, and the file it names is in the built site. A remote address (``http:``,
``https:`` or ``//host``) or a missing file is a warning naming the page and the address, so
``make docs`` (``-W``) fails on it. The maths is typeset by the MathJax that
``sphinx-mathjax-offline`` copies into ``_static/mathjax``; this check runs after that copy.
"""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

LOADING_LINKS = frozenset({"stylesheet", "preload", "modulepreload"})
"""The ``<link rel=...>`` values whose ``href`` the browser fetches when the page loads."""


class _AssetParser(HTMLParser):
    """Collect the addresses a page's scripts and loading links fetch, in page order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.addresses = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and attributes.get("src"):
            self.addresses.append(attributes["src"])
        elif tag == "link" and attributes.get("href"):
            rels = set((attributes.get("rel") or "").lower().split())
            if rels & LOADING_LINKS:
                self.addresses.append(attributes["href"])


def page_assets(html):
    """Return the addresses of the scripts and stylesheets an HTML page loads.

    Parameters
    ----------
    html : str
        The page's text.

    Returns
    -------
    list of str
        The ``src`` of every ``<script>`` and the ``href`` of every ``<link>`` whose ``rel``
        is ``stylesheet``, ``preload`` or ``modulepreload``, in page order.
    """
    parser = _AssetParser()
    parser.feed(html)
    parser.close()
    return parser.addresses


def is_remote(address):
    """Return whether an address is fetched from another host.

    Parameters
    ----------
    address : str
        A ``src`` or ``href`` value.

    Returns
    -------
    bool
        True for an ``http:`` or ``https:`` address and for a scheme-relative ``//host/...``
        one; False for a path relative to the page or a ``data:`` address.
    """
    parts = urlsplit(address.strip())
    return parts.scheme.lower() in ("http", "https") or bool(parts.netloc)


def offline_problems(site):
    """Return every asset of a built HTML site's pages that the site does not serve itself.

    Parameters
    ----------
    site : str or pathlib.Path
        The built site's folder (``docs/_build/html``).

    Returns
    -------
    list of tuple of (str, str, str)
        ``(page, address, why)`` per offending asset, pages in sorted order: ``why`` is
        ``"remote"`` for an address on another host, ``"missing"`` for a relative one whose
        file is not in the site (its query and fragment ignored).
    """
    site = Path(site)
    problems = []
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        if name.startswith("_static/"):
            continue  # assets, not pages: the theme's Jinja macros are copied there as .html
        for address in page_assets(page.read_text(encoding="utf-8")):
            parts = urlsplit(address.strip())
            if is_remote(address):
                problems.append((name, address, "remote"))
            elif not parts.scheme and parts.path:
                root = site if parts.path.startswith("/") else page.parent
                if not (root / unquote(parts.path.lstrip("/"))).is_file():
                    problems.append((name, address, "missing"))
    return problems


def _check_site(app, exception):
    """Warn once per offending asset of the HTML just built (the build fails under -W)."""
    if exception is not None or app.builder.format != "html":
        return
    for page, address, why in offline_problems(app.outdir):
        LOGGER.warning(
            "%s: %s asset %s (the site must work offline: ship it under _static/)",
            page,
            why,
            address,
            type="offline",
            subtype=why,
        )


def setup(app):
    """Connect the check to the end of the build, after the extensions' own copying."""
    app.connect("build-finished", _check_site, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
