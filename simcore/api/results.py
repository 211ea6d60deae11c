"""The result of a data command: its numbers, its text and its tables, in one object.

Every Python function of a command (:func:`simcore.inspect`, :func:`simcore.calibrate`,
:func:`simcore.ceiling`, :func:`simcore.card`, :func:`simcore.card_check`,
:func:`simcore.wellposed`) returns a :class:`CommandResult`: ``to_dict()`` is the JSON
document the command prints with ``--json`` (keys documented in the command's docs page and
stable), ``to_markdown()`` the text it prints without, and :meth:`~CommandResult.table` (or
the attribute of the same name) a table of rows as a pandas DataFrame. Results render
themselves, as statsmodels' ``HolderTuple`` does, so a notebook shows the text.
"""

import copy

__all__ = ["CommandResult", "plain_row"]


def plain_row(row):
    """Return a mapping with NumPy scalars as plain Python numbers (JSON-ready), keys as text."""
    return {
        str(key): value.item() if hasattr(value, "item") else value for key, value in row.items()
    }


class CommandResult:
    """A command's result.

    Parameters
    ----------
    command : str
        The command that made it (``"ceiling"``).
    document : dict
        The numbers, JSON-ready (numbers, texts, lists, dicts, None); the ``--json`` output.
    text : str
        What the command prints.
    tables : dict, optional
        ``{name: key}``: each table is the list of row mappings at ``document[key]`` (a
        tuple of keys reaches into nested mappings: ``document[k1][k2]``).
    """

    def __init__(self, command, document, text, tables=None):
        self.command = command
        self._document = {"command": command, **document}
        self._text = text
        self._tables = dict(tables or {})

    def to_dict(self):
        """Return the JSON document (a copy: changing it changes nothing here)."""
        return copy.deepcopy(self._document)

    def to_markdown(self):
        """Return the text the command prints."""
        return self._text

    @property
    def tables(self):
        """The names of the tables :meth:`table` gives."""
        return tuple(self._tables)

    def table(self, name):
        """Return table ``name`` as a pandas DataFrame, one row per entry."""
        import pandas as pd

        if name not in self._tables:
            raise KeyError(f"{name!r}: no such table (tables: {', '.join(self._tables)})")
        key = self._tables[name]
        rows = self._document
        for part in key if isinstance(key, tuple) else (key,):
            rows = rows[part]
        return pd.DataFrame(rows)

    def __getattr__(self, name):
        tables = self.__dict__.get("_tables", {})
        if name in tables:
            return self.table(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __getitem__(self, key):
        return self._document[key]

    def __repr__(self):
        return self._text

    def _repr_markdown_(self):
        return self._text
