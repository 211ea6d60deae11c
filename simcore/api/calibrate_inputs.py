"""The calibration sources :func:`simcore.calibrate` takes, checked for type before any work.

``table`` must be four integer counts or a
:class:`~simcore.calibration.table.CalibrationTable`, ``card`` a card's document or file
(checked as a card file is), ``csv`` a path, ``production`` a path or a DataFrame with
``rater`` and ``label`` columns; each refusal names the keyword and what to pass (issue 46).
"""

from simcore.calibration.errors import CalibrationInputError
from simcore.calibration.table import CalibrationTable

__all__ = ["checked_sources", "table_counts"]


def table_counts(table, name="table"):
    """Return ``table`` as four Python ints ``(caught, missed, flagged, cleared)``.

    A :class:`~simcore.calibration.table.CalibrationTable`, or four entries (a tuple, list or
    1-D array), each a Python or NumPy integer from 0 to 2**53
    (:func:`simcore.options.count_value`): a bool, a float (even ``6.0``) or a text is
    refused, never rounded or parsed. The one check is the table's
    (:meth:`~simcore.calibration.table.CalibrationTable.from_counts`).

    Raises
    ------
    TypeError
        Not a table nor a sequence of four, or an entry that is not an integer, naming
        ``table`` and the entry.
    ValueError
        A negative entry or one above 2**53.
    """
    return CalibrationTable.from_counts(table, name).as_tuple()


def checked_sources(table, card, csv, production):
    """Return ``(table, card, csv, production)`` checked for type before any work.

    ``table`` becomes four ints (:func:`table_counts`), ``card`` the checked card's document
    (:func:`simcore.instrument.card.file.card_argument`), ``csv`` must be a path and
    ``production`` a path or a DataFrame with ``rater`` and ``label`` columns.
    """
    from simcore.options import path_value
    from simcore.realdata.readers import is_frame, production_frame_problem

    if table is not None:
        table = table_counts(table)
    if card is not None:
        from simcore.instrument.card.file import card_argument

        card = card_argument(card, "card")
    csv = path_value(csv, "csv", optional=True)
    if production is not None and not is_frame(production):
        production = path_value(production, "production")
    elif production is not None and production_frame_problem(production):
        raise CalibrationInputError(production_frame_problem(production))
    return table, card, csv, production
