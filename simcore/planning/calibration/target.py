"""What a calibration plan is asked and aims at: an interval's width on a stream, clusters.

``simcore calibrate --plan`` is asked a :class:`PlanRequest`: the judge (a pilot's table or its
rates), the target, the estimator whose failure rate is planned for and the clusters' shape,
each value checked once with its flag named. A plan asks for the calibration labels that give
the corrected failure rate of a production stream of ``N`` outputs an interval of half-width
``h`` at a two-sided ``confidence``, each candidate size checked on ``trials`` simulated trials:
a :class:`PlanTarget`. Where items come in clusters of ``M`` with intra-cluster correlation
``rho``, a :class:`ClusterShape` says so. Both are checked once, when built, and name the field
they refuse.
"""

from dataclasses import dataclass
from typing import cast

from simcore.calibration.errors import CalibrationInputError
from simcore.options import count_value, number_value

__all__ = ["ClusterShape", "PlanRequest", "PlanTarget", "flag_in_range"]


@dataclass(frozen=True, slots=True)
class PlanTarget:
    """The interval a calibration plan is for, and how hard each size is checked.

    Parameters
    ----------
    n_production : int
        The production stream's size ``N`` (at least 1).
    half_width : float
        The interval's target half-width ``h``, in (0, 0.5].
    confidence : float
        Its two-sided confidence, in [0.5, 0.9999].
    trials : int
        Simulated trials per size tried and for each check (at least 1).

    Raises
    ------
    TypeError, ValueError
        A field of the wrong type or out of range, named (``half_width: must be in (0,
        0.5] (got 0.7)``).

    Examples
    --------
    >>> target = PlanTarget(10_000, 0.03)
    >>> round(target.z, 3)
    1.96
    """

    n_production: int
    half_width: float
    confidence: float = 0.95
    trials: int = 2000

    def __post_init__(self) -> None:
        """Check each field once."""
        set_field = object.__setattr__
        set_field(self, "n_production", count_value(self.n_production, "n_production", 1))
        set_field(self, "half_width", number_value(self.half_width, "half_width", 0, 0.5, True))
        set_field(self, "confidence", number_value(self.confidence, "confidence", 0.5, 0.9999))
        set_field(self, "trials", count_value(self.trials, "trials", 1))

    @property
    def z(self) -> float:
        """The normal quantile ``z = Phi^-1(1/2 + confidence/2)`` of the two-sided interval."""
        from scipy import stats

        return float(stats.norm.ppf(0.5 + self.confidence / 2))


@dataclass(frozen=True, slots=True)
class ClusterShape:
    """Items in clusters of ``size`` whose failures and judge errors correlate by ``icc``.

    Parameters
    ----------
    size : int
        Items per cluster ``M`` (at least 1).
    icc : float
        The intra-cluster correlation ``rho``, in [0, 0.99].

    Examples
    --------
    >>> ClusterShape(5, 0.25).design_effect
    2.0
    """

    size: int
    icc: float

    def __post_init__(self) -> None:
        """Check each field once."""
        object.__setattr__(self, "size", count_value(self.size, "size", 1))
        object.__setattr__(self, "icc", number_value(self.icc, "icc", 0.0, 0.99))

    @property
    def design_effect(self) -> float:
        """Kish's design effect ``d = 1 + (M - 1) rho``."""
        return 1.0 + (self.size - 1) * self.icc


def flag_in_range(value, flag, low, high, closed_low=True, closed_high=True):
    """Return ``value`` if within ``[low, high]`` (open at an end not ``closed_``)."""
    above = value is not None and (low <= value if closed_low else low < value)
    if not above or not (value <= high if closed_high else value < high):
        left, right = "[" if closed_low else "(", "]" if closed_high else ")"
        bounds = f"{left}{low:g}, {high:g}{right}"
        raise CalibrationInputError(f"{flag}: must be in {bounds} (got {value})")
    return value


def _check_sources(table, rates):
    """Refuse a pilot ``table`` with any of ``rates`` ``(se, sp, theta)``, or neither whole."""
    given = [
        flag for flag, value in zip(("se", "sp", "theta"), rates, strict=True) if value is not None
    ]
    if table is not None and given:
        value = rates[("se", "sp", "theta").index(given[0])]
        raise CalibrationInputError(
            f"--plan: give a pilot (--table/--csv) or --se/--sp/--theta, not both "
            f"(got --{given[0]} {value})"
        )
    if table is None and len(given) < 3:
        missing = next(f"--{f}" for f in ("se", "sp", "theta") if f not in given)
        raise CalibrationInputError(f"--plan: needs a pilot (--table or --csv) or {missing}")


def _checked_shape(shape):
    """Return ``shape`` as a :class:`ClusterShape`; CalibrationInputError naming the flag."""
    size, icc = shape
    if size is None or icc is None:
        missing = "--cluster-size" if size is None else "--icc"
        raise CalibrationInputError(f"--plan in clusters: needs {missing} (got none)")
    size = int(flag_in_range(size, "--cluster-size", 1, 10**6))
    return ClusterShape(size, flag_in_range(icc, "--icc", 0.0, 0.99))


@dataclass(frozen=True)
class PlanRequest:
    """What ``calibrate --plan`` is asked, checked once with each flag named.

    The judge is a pilot ``table`` ``(caught, missed, flagged, cleared)`` with ``fails`` of the
    ``of`` production rows judged FAIL, or ``rates`` ``(se, sp, theta)`` (not both); the
    interval is ``of``'s, of ``half_width`` at ``confidence``, each size checked on ``trials``
    trials; ``shape`` ``(cluster size M, icc)`` plans calibration clusters too. With a pilot the
    failure rate planned for is ``plan_theta``
    (:func:`simcore.planning.plan_theta.planned_theta`): ``reported``, the estimate ``simcore
    calibrate --method METHOD --confidence C --youden-floor F`` reports for the pilot
    (``method``, ``confidence``, ``youden_floor``), ``stratified``, or a rate.

    Raises
    ------
    CalibrationInputError
        Naming the flag and value of any bad input (``--half-width: must be in (0, 0.5]
        (got 0.7)``).
    """

    of: int | None
    half_width: float | None
    table: tuple[int, int, int, int] | None = None
    fails: int | None = None
    rates: tuple = (None, None, None)
    confidence: float = 0.95
    trials: int = 2000
    youden_floor: float = 0.15
    shape: tuple | None = None
    plan_theta: str | float = "reported"
    method: str = "lr"

    def __post_init__(self) -> None:
        """Check the sources, the target and the clusters' shape, in that order."""
        _check_sources(self.table, self.rates)
        object.__setattr__(self, "of", int(flag_in_range(self.of, "--of", 1, 1e12)))
        flag_in_range(self.half_width, "--half-width", 0.0, 0.5, closed_low=False)
        flag_in_range(self.confidence, "--confidence", 0.5, 0.9999)
        object.__setattr__(
            self, "trials", int(flag_in_range(self.trials, "--plan-trials", 100, 10**6))
        )
        if self.shape is not None:
            object.__setattr__(self, "shape", _checked_shape(self.shape))

    @property
    def target(self) -> PlanTarget:
        """The :class:`~simcore.planning.calibration.target.PlanTarget` asked for."""
        of, half_width = cast(int, self.of), cast(float, self.half_width)  # checked on building
        return PlanTarget(of, half_width, self.confidence, self.trials)
