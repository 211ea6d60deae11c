"""Names and paths a scenario gives, checked before they become file or folder names.

A scenario's ``name`` becomes a file name (``results/NAME.zarr``, a figure's title); its
``output`` paths become files. A name holding a NUL, ESC, BEL or another control character,
a slash, or a leading dot would make a file that cannot be named, a hidden one, or one
outside its folder, so :func:`name_problem` refuses it at validation, before any work.
"""

__all__ = ["NAME_LIMIT", "check_name", "check_path_text", "name_problem", "scenario_name_problems"]

NAME_LIMIT = 200
"""The longest scenario name: it becomes a file name (``results/NAME.zarr``), and file
systems allow 255 bytes."""


def name_problem(value):
    """Return what is wrong with ``value`` as a name that becomes a file or folder name.

    A name is a non-empty text of at most :data:`NAME_LIMIT` characters, without control
    characters (NUL, ESC, BEL, a line break, ...), without a slash or backslash and not
    starting with ``.``; None when it is fine.
    """
    if not isinstance(value, str):
        return "must be a text"
    if not value.strip():
        return "must be a non-empty text"
    if len(value) > NAME_LIMIT:
        return f"must be at most {NAME_LIMIT} characters (it becomes a file name)"
    control = _control_character(value)
    if control:
        return f"must not hold control characters (it becomes a file name; found {control})"
    if "/" in value or "\\" in value:
        return "must not hold / or \\ (it becomes one file name, not a path)"
    if value.startswith("."):
        return "must not start with '.' (it becomes a file name, hidden or a folder's own)"
    return None


def _control_character(text):
    """Return the first control, format or line-separator character of ``text`` as U+XXXX."""
    import unicodedata

    for character in text:
        if unicodedata.category(character) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            return f"U+{ord(character):04X}"
    return ""


def check_name(value, meta):
    """Check a scenario field of kind ``name``: ``(value, None)`` or ``(None, problem)``."""
    problem = name_problem(value)
    return (None, problem) if problem else (value, None)


def check_path_text(value, meta):
    """Check a scenario field of kind ``path``: a non-empty text without control characters."""
    if not isinstance(value, str) or not value.strip():
        return None, "must be a path (a non-empty text)"
    control = _control_character(value)
    if control:
        return None, f"must not hold control characters (found {control})"
    return value, None


def scenario_name_problems(raw, source):
    """Return the problem of a raw scenario's ``name`` (a list of at most one message).

    For the kinds whose top-level keys are not declared fields (``real``, ``coverage``):
    ``FILE: name: what is wrong (got VALUE)``; an absent or null name is fine (the file's
    stem is used).
    """
    name = raw.get("name") if isinstance(raw, dict) else None
    problem = None if name is None else name_problem(name)
    return [f"{source}: name: {problem} (got {name!r})"] if problem else []
