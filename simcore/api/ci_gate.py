"""``--fail-if``: the conditions a pipeline stops on, read from a command's result.

A CI job runs a judge command and needs one bit: go on, or stop. Each judge command takes
conditions (``--fail-if``, repeatable; :func:`gate` in Python) and, after printing its
result as usual, exits with :data:`simcore.cli.common.EXIT_GATE` (3) when any holds, distinct
from bad input (2) and from an internal error (1):

==========================  ==========================================================
condition                   holds when
==========================  ==========================================================
``not-settled-accept``      ``settle``: some judge's sequential verdict is not settled
                            accept (open or settled reject)
``not-accept``              ``advise``: some judge's verdict is not accept
``risk>X``                  ``advise``: some judge's risk of a wrong verdict now is above
                            X (a share in [0, 1])
``drift``                   ``card --check``: the card's rates moved; ``monitor``: the
                            drift alarm fired at some look
``card-expired``            ``card --check``, ``monitor``: the card's expiry date is
                            before today (a card valid until an alarm expires with it:
                            ``drift``)
==========================  ==========================================================

A condition a command cannot read is refused (exit 2) before any work.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simcore.api.results import CommandResult

__all__ = ["CONDITIONS", "Condition", "gate", "parse_conditions"]

CONDITIONS = {
    "settle": ("not-settled-accept",),
    "advise": ("not-accept", "risk>X"),
    "card": ("drift", "card-expired"),
    "monitor": ("drift", "card-expired"),
}
"""The conditions each judge command reads (``card``: with ``--check``)."""


@dataclass(frozen=True)
class Condition:
    """One ``--fail-if`` condition: its name and, for ``risk>X``, the threshold X."""

    name: str
    threshold: float | None = None

    def __str__(self):
        return self.name if self.threshold is None else f"risk>{self.threshold:g}"


def parse_conditions(command, texts):
    """Return the :class:`Condition` of each text; refuse one ``command`` cannot read.

    Raises
    ------
    ValueError
        ``--fail-if: ...`` naming the value and the command's conditions.
    """
    known = CONDITIONS.get(command, ())
    conditions = []
    for text in texts or ():
        value = str(text).strip()
        if value.startswith("risk>") and "risk>X" in known:
            try:
                threshold = float(value[len("risk>") :])
            except ValueError:
                threshold = float("nan")
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(
                    f"--fail-if: risk>X takes a share X in [0, 1], e.g. risk>0.05 (got {value!r})"
                )
            conditions.append(Condition("risk>X", threshold))
        elif value in known and value != "risk>X":
            conditions.append(Condition(value))
        else:
            raise ValueError(
                f"--fail-if: simcore {command} reads {', '.join(known) or 'no condition'} "
                f"(got {value!r})"
            )
    return tuple(conditions)


def gate(
    result: CommandResult | Mapping[str, Any],
    fail_if: Sequence[str | Condition],
    today: datetime.date | None = None,
) -> list[str]:
    """Return the reason of each ``fail_if`` condition that holds on ``result`` (empty: pass).

    Parameters
    ----------
    result : CommandResult or dict
        A judge command's result (:func:`simcore.settle`, :func:`simcore.card_check`,
        :func:`simcore.monitor`), or the ``--json`` document of one (``command`` names it;
        ``simcore advise --json``'s document, or ``{"command": "advise", "groups":
        {name: advice.to_dict()}}`` for :func:`simcore.advise`'s advice).
    fail_if : sequence of str or Condition
        The conditions (module docstring).
    today : datetime.date, optional
        The date ``card-expired`` compares with (default today).

    Returns
    -------
    list of str
        One line per condition that holds, saying what was read.
    """
    document = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    command = document.get("command")
    if command not in CONDITIONS:
        raise ValueError(
            f"fail_if: reads the result of {', '.join(CONDITIONS)} (got a {command!r} result)"
        )
    conditions = [
        condition if isinstance(condition, Condition) else parse_conditions(command, [condition])[0]
        for condition in fail_if
    ]
    reasons = []
    for condition in conditions:
        reasons += READERS[condition.name](document, condition, today or datetime.date.today())
    return reasons


def _not_settled_accept(document, condition, today):
    if document.get("replay"):
        raise ValueError("--fail-if: not-settled-accept reads a look, not a --replay")
    return [
        f"not-settled-accept: judge {row['judge']} is {row['verdict']}"
        for row in document["judges"]
        if row["verdict"] != "settled accept"
    ]


def _advice_documents(document):
    """Return ``{group: advice document}`` of an advise document (one group: its name '')."""
    return document["groups"] if "groups" in document else {"": document}


def _not_accept(document, condition, today):
    reasons = []
    for group, advice in _advice_documents(document).items():
        where = f" (group {group})" if group else ""
        reasons += [
            f"not-accept: judge {row['judge']}{where} is {row['decision']}"
            for row in advice["verdicts"]
            if row["decision"] != "accept"
        ]
    return reasons


def _risk_above(document, condition, today):
    reasons = []
    for group, advice in _advice_documents(document).items():
        where = f" (group {group})" if group else ""
        for judge, risk in advice["risk_now"].items():
            if risk["risk"] > condition.threshold:
                reasons.append(
                    f"{condition}: judge {judge}{where} has risk {risk['risk']:.4g} "
                    f"(SE {risk['se']:.2g}) of a wrong verdict"
                )
    return reasons


def _drift(document, condition, today):
    if document["command"] == "card":
        moved = document["verdict"] == "moved"
        return [f"drift: card {document['card']}: its rates moved"] if moved else []
    alarm = document.get("alarm")
    if alarm is None:
        raise ValueError("--fail-if: drift: the monitor raises its alarm only with --card")
    fired = [
        f"{rate} from {date}"
        for rate, date in (("TPR", alarm["first_tpr_alarm"]), ("TNR", alarm["first_tnr_alarm"]))
        if date is not None
    ]
    return [f"drift: the alarm fired on the {' and '.join(fired)}"] if fired else []


def _card_expired(document, condition, today):
    if document["command"] == "card":
        expires = document["expires"]
    elif document.get("alarm") is None:
        raise ValueError("--fail-if: card-expired: the monitor reads a card only with --card")
    else:
        expires = document["alarm"]["card_expires"]
    try:
        date = datetime.date.fromisoformat(str(expires))
    except ValueError:  # valid until an alarm: drift says when
        return []
    if date < today:
        return [f"card-expired: the card expired on {date.isoformat()} (today is {today})"]
    return []


READERS = {
    "not-settled-accept": _not_settled_accept,
    "not-accept": _not_accept,
    "risk>X": _risk_above,
    "drift": _drift,
    "card-expired": _card_expired,
}
"""The reader of each condition: ``(document, condition, today) -> reasons``."""
