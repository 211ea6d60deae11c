"""Sphinx directives that render simcore's declared options (filled in by the reference)."""


def setup(app):
    """Register the directives."""
    return {"parallel_read_safe": True, "parallel_write_safe": True}
