"""What a figure drawn from a store records of the store, and whether the figure is stale.

``simcore plot`` writes the store's state into the figure file's metadata: the store's
path, its scenario hash, its creation time and its trials per cell (PNG: one text chunk
each, as :data:`KEYS` names them, and a ``Description``; PDF: ``Subject`` and
``Keywords``; SVG: ``Description`` and ``Keywords``, each ``KEY=VALUE``). Other file types
carry no metadata. ``simcore run`` reads the state back from the figures at a store's
default figure paths (:func:`stale_figures`) and names each one drawn from an earlier
state of the store: fewer or more trials, or a store since replaced.
"""

import html
import re
from pathlib import Path

__all__ = [
    "KEYS",
    "STORE_ATTR",
    "figure_metadata",
    "read_state",
    "stale_figures",
    "store_state",
]

KEYS = {
    "store": "simcore store",
    "scenario_hash": "simcore scenario hash",
    "created": "simcore store created",
    "trials": "simcore trials per cell",
}
"""The metadata key of each part of a store's state, as a figure records it."""

STORE_ATTR = "store_path"
"""The cube attribute ``simcore plot`` sets (in memory) to the store it opened."""

_ATTRS = {
    "store": STORE_ATTR,
    "scenario_hash": "scenario_hash",
    "created": "created",
    "trials": "trials",
}
"""The cube attribute each part of the state is read from."""

_READ_BYTES = 16 << 20
"""How much of a PDF or SVG figure is searched for the state (simcore's figures are smaller)."""


def store_state(cube):
    """Return the state of the store ``cube`` was read from: ``{part: text}`` per :data:`KEYS`.

    Parts the cube does not record are left out (a cube drawn without a store has no
    ``store``). ``trials`` is the cube's ``trials`` attribute: every cell of a finished
    store holds that many.
    """
    attrs = cube.attrs
    state = {part: attrs.get(name) for part, name in _ATTRS.items()}
    return {part: str(value) for part, value in state.items() if value not in (None, "")}


def describe(state):
    """Return one line saying what ``state`` the figure shows."""
    source = f"store {state['store']}" if "store" in state else "a simcore cube"
    trials = f" at {state['trials']} trials per cell" if "trials" in state else ""
    return f"drawn by simcore from {source}{trials}"


def figure_metadata(cube, out):
    """Return ``savefig``'s ``metadata`` for the figure file ``out`` of ``cube``, or None.

    PNG gets a text chunk per part of the state; PDF and SVG get the state in their
    ``Keywords`` (``KEY=VALUE`` each) and a description; other types (JPEG, TIFF, EPS,
    WebP) take none from matplotlib, so None.
    """
    state = store_state(cube)
    pairs = [f"{KEYS[part]}={value}" for part, value in state.items()]
    suffix = Path(out).suffix.lower()
    if suffix == ".png":
        return {"Description": describe(state), **{KEYS[k]: v for k, v in state.items()}}
    if suffix == ".pdf":
        return {"Subject": describe(state), "Keywords": "; ".join(pairs)}
    if suffix == ".svg":
        return {"Description": describe(state), "Keywords": pairs}
    return None


def read_state(path):
    """Return the store state a figure file records (``{part: text}``), or None.

    None for a file that cannot be read, is not a PNG, PDF or SVG, or records no state.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".png":
            from PIL import Image

            with Image.open(path) as image:
                text = dict(getattr(image, "text", {}) or {})
            state = {part: text[key] for part, key in KEYS.items() if key in text}
        elif suffix in (".pdf", ".svg"):
            with open(path, "rb") as stream:
                raw = stream.read(_READ_BYTES).decode("latin-1")
            state = {}
            for part, key in KEYS.items():
                found = re.search(re.escape(key) + r"=([^;<>\r\n]*?)\s*(?:;|\)|<|$)", raw, re.M)
                if found:
                    state[part] = html.unescape(found[1])
        else:
            return None
    except Exception:  # unreadable or not an image: it records nothing simcore can use
        return None
    return state if "trials" in state and "created" in state else None


def _same_store(recorded, store):
    """Whether a figure's recorded store path names ``store`` (same path, or same name)."""
    if recorded is None:
        return True
    recorded, store = Path(recorded), Path(store)
    return recorded.name == store.name or recorded.resolve() == store.resolve()


def stale_figures(store, cube, paths):
    """Return a line for each figure in ``paths`` drawn from an earlier state of ``store``.

    A figure counts when it exists, records a store state (:func:`read_state`) of a store
    of the same name, and that state differs from the store's now (``cube``'s scenario
    hash, creation time or trials per cell). Nothing is deleted.

    Parameters
    ----------
    store : str or pathlib.Path
        The store a run just wrote.
    cube : xarray.Dataset
        Its finished cube.
    paths : iterable of str or pathlib.Path
        The store's default figure paths (those ``simcore plot STORE`` would write).

    Returns
    -------
    list of str
        ``"FIGURE was drawn from this store at N trials per cell (...); redraw it with:
        simcore plot STORE --out FIGURE"``, one per stale figure.
    """
    now = store_state(cube)
    lines = []
    for path in dict.fromkeys(str(path) for path in paths):
        drawn = read_state(path) if Path(path).is_file() else None
        if drawn is None or not _same_store(drawn.get("store"), store):
            continue
        parts = ("scenario_hash", "created", "trials")
        if all(drawn.get(part) == now.get(part) for part in parts):
            continue
        if drawn["trials"] != now.get("trials"):
            change = f"it now holds {now.get('trials')}"
        else:
            change = "the store has since been replaced"
        lines.append(
            f"{path} was drawn from this store at {drawn['trials']} trials per cell ({change}); "
            f"redraw it with: simcore plot {store} --out {path}"
        )
    return lines
