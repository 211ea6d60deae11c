"""The judge's 2 x 2 calibration table as one frozen, validated value object.

A judge is calibrated against the human truth with FAIL the positive class. Its table holds
four counts:

=============  ===============  ===============
               truth FAIL       truth PASS
=============  ===============  ===============
judge FAIL     ``caught``       ``flagged``
judge PASS     ``missed``       ``cleared``
=============  ===============  ===============

:class:`CalibrationTable` checks the four counts once, when it is built (each a Python or
NumPy integer from 0 to 2**53, :func:`simcore.options.count_value`), and derives from them the
judge's TPR, TNR and Youden's J, the Wilson intervals of TPR and TNR that simcore reports
everywhere (:func:`simcore.calibration.statistics.wilson_interval`), a dict for JSON and a
Markdown ``summary()``, in the manner of statsmodels' ``Table2x2``. ``as_tuple()`` gives the
``(caught, missed, flagged, cleared)`` order that ``simcore calibrate --table`` takes.

The module imports nothing heavy: the interval functions (and with them SciPy and numba) are
imported when an interval is first asked for.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

from simcore.options import count_value, shown_value

__all__ = ["CalibrationTable"]

_FIELDS = ("caught", "missed", "flagged", "cleared")
"""The counts in the ``calibrate --table`` order."""


def _ratio(numerator, denominator):
    """Return ``numerator / denominator`` as a float, NaN when ``denominator`` is 0."""
    return numerator / denominator if denominator else float("nan")


def _rate_line(label, events, trials, rate, interval, rows):
    """Return the summary's Markdown line for one rate with its 95% Wilson interval."""
    if not trials:
        return f"- {label}: undefined (no {rows} rows)"
    low, high = interval
    return (
        f"- {label} = {events} / {trials} = {rate:.3f}, 95% Wilson interval [{low:.3f}, {high:.3f}]"
    )


@dataclass(frozen=True, slots=True)
class CalibrationTable:
    """A judge's 2 x 2 calibration table against the human truth, FAIL the positive class.

    Parameters
    ----------
    caught : int
        Judge FAIL and truth FAIL (true positives).
    missed : int
        Judge PASS and truth FAIL (false negatives).
    flagged : int
        Judge FAIL and truth PASS (false positives).
    cleared : int
        Judge PASS and truth PASS (true negatives).

    Each count must be a Python or NumPy integer from 0 to 2**53; it is stored as a Python
    int. A bool, a float (even ``6.0``) or a text is refused, never rounded or parsed.

    Raises
    ------
    TypeError
        A count that is not an integer, naming the field (``missed: must be an integer
        ...``).
    ValueError
        A negative count or one above 2**53, naming the field.

    See Also
    --------
    simcore.calibration.statistics.judge_rates : the same rates on arrays of counts.

    Examples
    --------
    >>> table = CalibrationTable(8, 2, 3, 87)
    >>> table.tpr, round(table.tnr, 4), table.n
    (0.8, 0.9667, 100)
    >>> CalibrationTable.from_dict(table.to_dict()) == table
    True
    """

    caught: int
    missed: int
    flagged: int
    cleared: int

    def __post_init__(self):
        """Check each count once and store it as a Python int."""
        for field in _FIELDS:
            object.__setattr__(self, field, count_value(getattr(self, field), f"{field}"))

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_counts(cls, counts, name="table"):
        """Return the table of ``counts``: a sequence of four or a :class:`CalibrationTable`.

        Parameters
        ----------
        counts : tuple, list, 1-D numpy.ndarray or CalibrationTable
            ``(caught, missed, flagged, cleared)``; a table is returned unchanged.
        name : str, optional
            What the caller calls ``counts``, opening every error message.

        Raises
        ------
        TypeError
            Not a table nor a sequence of four (``NAME: must be four integer counts ...``),
            or an entry that is not an integer (``NAME: missed: must be an integer ...``).
        ValueError
            A negative entry or one above 2**53, naming ``name`` and the entry.
        """
        import numpy as np

        if isinstance(counts, CalibrationTable):
            return counts
        if isinstance(counts, np.ndarray) and counts.ndim == 1:
            counts = counts.tolist()
        if not isinstance(counts, tuple | list) or len(counts) != len(_FIELDS):
            raise TypeError(
                f"{name}: must be four integer counts (caught, missed, flagged, cleared), as a "
                f"tuple or list (got {shown_value(counts)})"
            )
        try:
            return cls(*counts)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name}: {error}") from None

    @classmethod
    def from_dict(cls, data):
        """Return the table of ``data``, a mapping with exactly the keys of :meth:`to_dict`.

        Parameters
        ----------
        data : Mapping
            ``{"caught": .., "missed": .., "flagged": .., "cleared": ..}``.

        Raises
        ------
        TypeError
            ``data`` is not a mapping, or a count is not an integer (naming its key).
        ValueError
            A missing or unknown key (each named, with the valid keys), or a count out of
            range (naming its key).
        """
        if not isinstance(data, Mapping):
            raise TypeError(
                f"a calibration table's dict must be a mapping with keys {', '.join(_FIELDS)} "
                f"(got {shown_value(data)})"
            )
        missing = [key for key in _FIELDS if key not in data]
        unknown = [repr(key) for key in data if key not in _FIELDS]
        problems = [f"missing key {key!r}" for key in missing]
        problems += [f"unknown key {key}" for key in unknown]
        if problems:
            raise ValueError(
                f"a calibration table's dict: {'; '.join(problems)} "
                f"(valid keys: {', '.join(_FIELDS)})"
            )
        return cls(**{key: data[key] for key in _FIELDS})

    # ------------------------------------------------------------------ views

    def as_tuple(self):
        """Return ``(caught, missed, flagged, cleared)``, the ``calibrate --table`` order."""
        return self.caught, self.missed, self.flagged, self.cleared

    def to_dict(self):
        """Return ``{"caught": .., "missed": .., "flagged": .., "cleared": ..}`` (plain ints)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    # ------------------------------------------------------------------ margins and rates

    @property
    def positives(self):
        """Return the truth-FAIL rows, ``caught + missed``."""
        return self.caught + self.missed

    @property
    def negatives(self):
        """Return the truth-PASS rows, ``flagged + cleared``."""
        return self.flagged + self.cleared

    @property
    def n(self):
        """Return every row, ``caught + missed + flagged + cleared``."""
        return self.positives + self.negatives

    @property
    def tpr(self):
        """Return the true positive rate (sensitivity), ``caught / (caught + missed)``.

        NaN when there are no truth-FAIL rows.
        """
        return _ratio(self.caught, self.positives)

    @property
    def tnr(self):
        """Return the true negative rate (specificity), ``cleared / (flagged + cleared)``.

        NaN when there are no truth-PASS rows.
        """
        return _ratio(self.cleared, self.negatives)

    @property
    def youden(self):
        """Return Youden's index ``J = TPR + TNR - 1`` (NaN when either rate is NaN)."""
        return self.tpr + self.tnr - 1.0

    # ------------------------------------------------------------------ intervals

    def tpr_interval(self, confidence=0.95):
        """Return the Wilson score interval ``(low, high)`` of the TPR.

        The interval simcore reports for a judge's TPR everywhere (``judge_rates``, judge
        cards): :func:`simcore.calibration.statistics.wilson_interval` of ``caught``
        successes in ``caught + missed`` trials. With ``z = Phi^-1(1 - (1 - confidence) /
        2)``, ``x = caught`` and ``n = caught + missed``::

            centre = (x + z^2/2) / (n + z^2)
            half   = z sqrt(x (n - x) / n + z^2/4) / (n + z^2)
            (low, high) = (centre - half, centre + half)

        ``(0.0, 1.0)`` when there are no truth-FAIL rows.

        Parameters
        ----------
        confidence : float, optional
            Two-sided confidence level, strictly between 0 and 1.

        Returns
        -------
        tuple of float
        """
        return _wilson(self.caught, self.positives, confidence)

    def tnr_interval(self, confidence=0.95):
        """Return the Wilson score interval ``(low, high)`` of the TNR.

        :func:`simcore.calibration.statistics.wilson_interval` of ``cleared`` successes in
        ``flagged + cleared`` trials (the formula of :meth:`tpr_interval` with ``x =
        cleared``, ``n = flagged + cleared``); ``(0.0, 1.0)`` when there are no truth-PASS
        rows.

        Parameters
        ----------
        confidence : float, optional
            Two-sided confidence level, strictly between 0 and 1.

        Returns
        -------
        tuple of float
        """
        return _wilson(self.cleared, self.negatives, confidence)

    # ------------------------------------------------------------------ rendering

    def summary(self):
        """Return the table and its rates as short Markdown text.

        The 2 x 2 table (rows judge FAIL / judge PASS, columns truth FAIL / truth PASS, with
        totals), then TPR and TNR with their 95% Wilson intervals and Youden's J.
        """
        from simcore.markdown_table import markdown_table

        counts = (
            ("judge FAIL", self.caught, self.flagged, self.caught + self.flagged),
            ("judge PASS", self.missed, self.cleared, self.missed + self.cleared),
            ("total", self.positives, self.negatives, self.n),
        )
        rows = [
            "Calibration table (judge against the human truth; FAIL is the positive class)",
            "",
            *markdown_table(("", "truth FAIL", "truth PASS", "total"), counts, "lrrr"),
            "",
            _rate_line(
                "TPR", self.caught, self.positives, self.tpr, self.tpr_interval(), "truth-FAIL"
            ),
            _rate_line(
                "TNR", self.cleared, self.negatives, self.tnr, self.tnr_interval(), "truth-PASS"
            ),
        ]
        youden = self.youden
        rows.append(
            f"- Youden's J = TPR + TNR - 1 = {youden:.3f}"
            if math.isfinite(youden)
            else "- Youden's J: undefined (TPR or TNR undefined)"
        )
        return "\n".join(rows) + "\n"

    def __str__(self):
        """Return :meth:`summary`."""
        return self.summary()


def _wilson(successes, trials, confidence):
    """Return :func:`~simcore.calibration.statistics.wilson_interval` as two Python floats."""
    from simcore.calibration.statistics import wilson_interval

    low, high = wilson_interval(successes, trials, confidence)
    return float(low), float(high)
