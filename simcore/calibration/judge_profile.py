"""The judge as a diagnostic test of FAIL on one stream: sensitivity, specificity, prevalence.

Three rates describe how a binary judge's labels arise from the human truth, FAIL the
positive class: its sensitivity ``Se = P(judge FAIL | truth FAIL)``, its specificity
``Sp = P(judge PASS | truth PASS)`` and the stream's failure rate ``theta = P(truth FAIL)``.
From them follow the share the judge flags, ``q = theta Se + (1 - theta)(1 - Sp)``, Youden's
``J = Se + Sp - 1`` and the human FAIL share within each judge label,
``p1 = theta Se / q`` and ``p0 = theta (1 - Se) / (1 - q)``: what a calibration plan
(:mod:`simcore.planning.calibration`) simulates. :class:`JudgeProfile` holds the three,
checked once; a pilot's 2 x 2 table gives one (:meth:`JudgeProfile.from_pilot`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from simcore.calibration.table import CalibrationTable
from simcore.options import number_value, shown_value

__all__ = ["JudgeProfile"]


@dataclass(frozen=True, slots=True)
class JudgeProfile:
    """A binary judge's sensitivity and specificity and its stream's failure rate.

    Parameters
    ----------
    sensitivity : float
        ``Se = P(judge FAIL | truth FAIL)``, in [0, 1].
    specificity : float
        ``Sp = P(judge PASS | truth PASS)``, in [0, 1].
    prevalence : float
        The failure rate ``theta = P(truth FAIL)``, in [0, 1].

    Each is stored as a Python float; a bool, a text or NaN is refused, never parsed.

    Raises
    ------
    TypeError
        A rate that is not a number, naming the field (``specificity: must be a number in
        [0, 1] ...``).
    ValueError
        A rate outside [0, 1], naming the field.

    See Also
    --------
    simcore.calibration.CalibrationTable : the 2 x 2 counts a profile is estimated from.

    Examples
    --------
    >>> judge = JudgeProfile(0.9, 0.95, 0.1)
    >>> round(judge.flag_rate, 4), round(judge.youden, 2)
    (0.135, 0.85)
    >>> JudgeProfile.from_dict(judge.to_dict()) == judge
    True
    """

    sensitivity: float
    specificity: float
    prevalence: float

    def __post_init__(self) -> None:
        """Check each rate once and store it as a Python float."""
        for field in fields(self):
            value = number_value(getattr(self, field.name), field.name, 0.0, 1.0)
            object.__setattr__(self, field.name, value)

    @classmethod
    def from_pilot(
        cls, table: CalibrationTable | Sequence[int], judge_fails: int, n_production: int
    ) -> JudgeProfile:
        """Return the profile a pilot calibration table gives for a production stream.

        ``Se = caught / (caught + missed)``, ``Sp = cleared / (flagged + cleared)`` and
        theta the stratified estimate ``q caught / (caught + flagged) + (1 - q) missed /
        (missed + cleared)`` with ``q = judge_fails / n_production`` the stream's judge
        FAIL share (the pilot's human FAIL share where a judge label has no pilot rows).

        Parameters
        ----------
        table : CalibrationTable or sequence of four ints
            ``(caught, missed, flagged, cleared)``.
        judge_fails, n_production : int
            The stream's judge FAIL count and its size.

        Raises
        ------
        TypeError, ValueError
            ``table`` is not four counts (:meth:`CalibrationTable.from_counts`).
        ValueError
            The pilot has no human FAIL or no human PASS rows (Se or Sp undefined).
        """
        caught, missed, flagged, cleared = CalibrationTable.from_counts(table).as_tuple()
        if caught + missed == 0 or flagged + cleared == 0:
            raise ValueError("the pilot needs human FAIL and human PASS rows (Se and Sp undefined)")
        q = judge_fails / n_production
        if caught + flagged and missed + cleared:
            theta = q * caught / (caught + flagged) + (1 - q) * missed / (missed + cleared)
        else:
            theta = (caught + missed) / (caught + missed + flagged + cleared)
        return cls(caught / (caught + missed), cleared / (flagged + cleared), theta)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeProfile:
        """Return the profile of ``data``, a mapping with exactly the three fields.

        Raises
        ------
        TypeError
            ``data`` is not a mapping, or has a missing or an unknown key (named).
        """
        names = [field.name for field in fields(cls)]
        if not isinstance(data, Mapping):
            raise TypeError(f"judge profile: must be a mapping (got {shown_value(data)})")
        unknown = sorted(set(data) - set(names), key=str)
        missing = [name for name in names if name not in data]
        if unknown or missing:
            problem = f"unknown key {unknown[0]!r}" if unknown else f"missing {missing[0]!r}"
            raise TypeError(f"judge profile: {problem}; the keys are {', '.join(names)}")
        return cls(**{name: data[name] for name in names})

    def to_dict(self) -> dict[str, float]:
        """Return ``{"sensitivity": Se, "specificity": Sp, "prevalence": theta}``."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    @property
    def youden(self) -> float:
        """Youden's ``J = Se + Sp - 1``: 0 for a judge no better than chance."""
        return self.sensitivity + self.specificity - 1

    @property
    def flag_rate(self) -> float:
        """The share the judge labels FAIL, ``q = theta Se + (1 - theta)(1 - Sp)``."""
        theta = self.prevalence
        return theta * self.sensitivity + (1 - theta) * (1 - self.specificity)

    @property
    def strata(self) -> tuple[float, float, float]:
        """``(q, p1, p0)``: the judge's FAIL share and the human FAIL share in each label.

        ``p1 = theta Se / q`` among the judge's FAILs and ``p0 = theta (1 - Se) / (1 - q)``
        among its PASSes, 0 where the label is never given.
        """
        q, theta, se = self.flag_rate, self.prevalence, self.sensitivity
        p1 = theta * se / q if q > 0 else 0.0
        p0 = theta * (1 - se) / (1 - q) if q < 1 else 0.0
        return q, p1, p0

    def __str__(self) -> str:
        """One line, as the plan report opens: ``judge Se 0.900, Sp 0.950; failure rate ...``."""
        return (
            f"judge Se {self.sensitivity:.3f}, Sp {self.specificity:.3f}; "
            f"failure rate {self.prevalence:.4f}"
        )
