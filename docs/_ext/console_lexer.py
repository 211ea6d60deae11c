"""The ``console`` highlighting of the docs: only ``$ `` starts a command.

Pygments' bash-session lexer also takes a line starting with ``#`` or ``%`` for a prompt,
and simcore prints Markdown headings (``# Real matrices: ...``) and percentages: such an
output line was lexed as a command, and a quote in it failed the build's highlighting. The
examples test (``tests/doc_examples.py``) reads ``$ `` alone as the prompt; so does this.
"""

import re

from pygments.lexers.shell import BashSessionLexer


class DollarSessionLexer(BashSessionLexer):
    """A bash session whose one prompt is ``$ `` at the start of a line."""

    _ps1rgx = re.compile(r"^(\$ )(.*\n?)")


def setup(app):
    """Highlight ``console`` blocks with :class:`DollarSessionLexer`."""
    app.add_lexer("console", DollarSessionLexer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
