"""Judge card files: write one, read one back with every key checked, use one in calibrate.

:func:`write_card` writes a card (:func:`simcore.instrument.card.measure.measure_card`) as JSON;
:func:`read_card` reads it and checks every key (type, range, the counts adding up, the
rates matching the counts, the dates), raising :class:`CardError` with one
``FILE: key: what is wrong (got VALUE)`` line per problem; :func:`check_card` is the same
check of a card passed as a mapping. :func:`card_calibration_table`
is ``simcore calibrate --card``: the card's four counts, refused when the card has expired
or was measured on another population unless the caller accepts the transport.
"""

import datetime
import json
import math
from pathlib import Path

from simcore.calibration.errors import CalibrationInputError
from simcore.instrument.card.measure import CARD_FORMAT, ON_ALARM, expiry_text
from simcore.instrument.fail_definitions import FailDefinition
from simcore.options import LARGEST_COUNT, plain_numbers, shown_value
from simcore.realdata.annotation import got_text
from simcore.realdata.files import FileProblem, json_value, missing_path


class CardError(CalibrationInputError):
    """A bad or refused card (exit status 2); ``problems`` lists 'FILE: key: problem (got V)'."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def write_card(card, path):
    """Write ``card`` to ``path`` as indented JSON, atomically; return the path.

    The file is written to a temporary name beside ``path`` and renamed
    (:func:`simcore.output_files.write_text`, parent folders created): a failed write
    leaves the earlier card as it was and raises :class:`simcore.output_files.OutputError`.
    """
    from simcore.output_files import write_text

    return write_text(path, json.dumps(card, indent=2) + "\n")


# --------------------------------------------------------------------------- checkers
# Each returns None when the value is fine, else what is wrong.


def _text(value):
    return None if isinstance(value, str) and value.strip() else "must be non-empty text"


def _count(value):
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if ok and value > LARGEST_COUNT:
        return f"must be at most 2**53 = {LARGEST_COUNT}, a count a float64 holds exactly"
    return None if ok else "must be a non-negative integer"


def _is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number_or_null(value):
    return None if value is None or _is_number(value) else "must be a finite number or null"


def _share_or_null(value):
    if value is None or (_is_number(value) and 0.0 <= value <= 1.0):
        return None
    return "must be a number in [0, 1] or null"


def _share(value):
    return None if _is_number(value) and 0.0 <= value <= 1.0 else "must be a number in [0, 1]"


def _date(value):
    try:
        datetime.date.fromisoformat(value)
    except (TypeError, ValueError):
        return "must be a date YYYY-MM-DD"
    return None


def _expiry(value):
    return None if value == ON_ALARM else _date(value)


def _equals(expected):
    return lambda value: None if value == expected else f"must be {expected!r}"


def _labels(value):
    ok = isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)
    return None if ok else "must be a non-empty list of label texts"


def _labels_or_null(value):
    return None if value is None else _labels(value)


def _boolean(value):
    return None if isinstance(value, bool) else "must be true or false"


def _confidence(value):
    return None if _is_number(value) and 0.0 < value < 1.0 else "must be a number in (0, 1)"


def _text_or_null(value):
    return None if value is None else _text(value)


RATE_KEYS = {"estimate": _share_or_null, "low": _share, "high": _share}


def _truth_kind(value):
    return None if value in ("majority", "latent") else "must be 'majority' or 'latent'"


COUNT_KEYS = {"caught": _count, "missed": _count, "flagged": _count, "cleared": _count}

CARD_KEYS = {
    "format": _equals(CARD_FORMAT),
    "judge": _text,
    "criterion": _text,
    "population": _text,
    "positive_class": _equals("FAIL"),
    "fail_definition": {
        "fail_at_most": _number_or_null,
        "fail_labels": _labels_or_null,
        "text": _text,
    },
    "truth": {"kind": _truth_kind, "text": _text, "*": None},
    "label_set": _labels,
    "n_tied_excluded": _count,
    "n": _count,
    "n_fail": _count,
    "n_pass": _count,
    "counts": {"caught": _count, "missed": _count, "flagged": _count, "cleared": _count},
    "confidence": _confidence,
    "tpr": RATE_KEYS,
    "tnr": RATE_KEYS,
    "kappa": _number_or_null,
    "youden_j": {
        "estimate": _number_or_null,
        "low": _number_or_null,
        "high": _number_or_null,
        "method": _text,
    },
    "parse_coverage": {
        "share": _share_or_null,
        "unparseable": _count,
        "unparseable_fail_rows_counted_missed": _count,
        "unparseable_pass_rows_counted_flagged": _count,
    },
    "youden_floor": _number_or_null,
    "usable_for_rate_correction": _boolean,
    "reason": _text,
    "human_ceiling": {"value": _number_or_null, "reason": _text_or_null, "*": None},
    "measured": _date,
    "expires": _expiry,
    "source": _text,
    "group_separator": _text_or_null,
    "simcore_version": _text,
    "majority": {"counts": COUNT_KEYS, "tpr": RATE_KEYS, "tnr": RATE_KEYS, "*": None},
}
"""Every key of a card and its check; a nested dict is a mapping checked key by key
(``"*"``: further keys allowed and not checked)."""

OPTIONAL_KEYS = ("truth", "majority")
"""Keys a card may leave out: a card written before cards recorded their truth has neither
(it was measured against the majority); a majority card has no ``majority`` block."""

LATENT_KEYS = {
    "fit": {"model": _text, "*": None},
    "settings": {
        "truth_model": lambda value: (
            None
            if value in ("auto", "dawid-skene", "one-coin")
            else "must be auto, dawid-skene or one-coin"
        ),
        "boot": _count,
        "seed": _count,
    },
    "audit": {"tpr": RATE_KEYS, "tnr": RATE_KEYS, "counts": COUNT_KEYS},
    "*": None,
}
"""The keys a latent card's ``truth`` must hold besides ``kind`` and ``text``."""


def card_keys():
    """Return the card's top-level keys in file order."""
    return tuple(CARD_KEYS)


def _check_mapping(value, schema, where, source, problems):
    """Append a problem per missing, unknown or bad key of mapping ``value`` at ``where``."""
    if not isinstance(value, dict):
        problems.append(f"{source}: {where or 'card'}: must be a mapping (got {got_text(value)})")
        return
    prefix = f"{where}." if where else ""
    for key, check in schema.items():
        if key == "*" or (not where and key in OPTIONAL_KEYS and key not in value):
            continue
        if key not in value:
            problems.append(f"{source}: {prefix}{key}: missing (got no such key)")
        elif isinstance(check, dict):
            _check_mapping(value[key], check, prefix + key, source, problems)
        else:
            problem = check(value[key])
            if problem:
                problems.append(f"{source}: {prefix}{key}: {problem} (got {got_text(value[key])})")
    if "*" not in schema:
        for key in value:
            if key not in schema:
                problems.append(
                    f"{source}: {prefix}{key}: unknown key (valid: {', '.join(schema)}) "
                    f"(got {got_text(value[key])})"
                )


def _check_consistency(card, source, problems):
    """Append a problem when the counts, the rates or the dates of a well-typed card disagree."""
    counts = card["counts"]
    sums = {
        "n_fail": counts["caught"] + counts["missed"],
        "n_pass": counts["flagged"] + counts["cleared"],
        "n": sum(counts.values()),
    }
    for key, expected in sums.items():
        if card[key] != expected:
            problems.append(
                f"{source}: {key}: must equal the counts' sum {expected} (got {card[key]})"
            )
    rates = {
        "tpr": (counts["caught"], sums["n_fail"]),
        "tnr": (counts["cleared"], sums["n_pass"]),
    }
    latent = card.get("truth", {}).get("kind") == "latent"
    if latent:
        _check_mapping(card["truth"], LATENT_KEYS, "truth", source, problems)
        if "majority" not in card:
            problems.append(f"{source}: majority: missing (got no such key)")
    for key, (hits, rows) in rates.items():
        estimate = card[key]["estimate"]
        expected = hits / rows if rows else None
        # a latent card's counts are effective counts: its rate, rounded to whole rows
        slack = 0.5 / rows + 1e-9 if latent and rows else 1e-9
        if (estimate is None) != (expected is None) or (
            expected is not None and abs(estimate - expected) > slack
        ):
            problems.append(
                f"{source}: {key}.estimate: must equal the counts' rate "
                f"{'null' if expected is None else f'{expected:.6f}'} (got {got_text(estimate)})"
            )
    if card["expires"] != ON_ALARM and card["expires"] < card["measured"]:
        problems.append(
            f"{source}: expires: must not come before measured {card['measured']} "
            f"(got {card['expires']!r})"
        )
    try:
        card_definition(card).check()
    except ValueError as error:
        problems.append(f"{source}: fail_definition: {error}")


def read_card(path):
    """Read a card written by :func:`write_card`, checking every key.

    Parameters
    ----------
    path : str or pathlib.Path
        The card's JSON file.

    Returns
    -------
    dict
        The card, as written.

    Raises
    ------
    CardError
        Listing every problem as ``FILE: key: what is wrong (got VALUE)``: an unreadable
        file or invalid JSON, a key named twice in one mapping, a missing or unknown key, a
        value of the wrong type or range (a count above 2**53 included),
        counts that do not add up to ``n``, ``n_fail``, ``n_pass``, a rate that does not
        match its counts, an expiry before the measurement, both or neither FAIL definition.
    """
    source = str(path)
    if not Path(path).is_file():
        raise CardError([missing_path(path, "card")])
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CardError([f"{source}: unreadable: {error} (got {got_text(source)})"]) from None
    try:
        card = json_value(text)
    except FileProblem as error:
        raise CardError([f"{source}: {error}"]) from None
    repeated = _repeated_key(text)
    if repeated:
        raise CardError([f"{source}: {repeated}"])
    return check_card(card, source)


class _RepeatedKey(Exception):
    """A JSON object names one key twice (raised while parsing)."""


def _unique_pairs(pairs):
    """``object_pairs_hook`` of :func:`json.loads`: the object, refusing a key named twice."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _RepeatedKey(key)
        seen[key] = value
    return seen


def _repeated_key(text):
    """Return the problem of a JSON object naming a key twice in ``text`` ("" when none).

    A repeated key would let the second value win silently (``json.loads`` keeps the last),
    so a card whose ``judge`` or counts appear twice is refused, naming the key.
    """
    try:
        json.loads(text, object_pairs_hook=_unique_pairs)
    except _RepeatedKey as error:
        key = error.args[0]
        return f"{key}: appears twice in one mapping; a card names each key once (got {key!r})"
    except ValueError:  # already read once by json_value; no second opinion needed
        return ""
    return ""


def check_card(card, source="card"):
    """Return ``card`` (a card's document) after checking every key, as :func:`read_card` does.

    One check for every way a card arrives: read from a file (:func:`read_card`) or passed
    as a mapping to :func:`simcore.calibrate` or :func:`simcore.monitor` (``card=``).
    NumPy numbers in a mapping are taken as the Python numbers they hold.

    Parameters
    ----------
    card : dict
        The card's document (``simcore.card(...).to_dict()["card"]``).
    source : str
        What the messages name: the file, or the keyword.

    Returns
    -------
    dict
        The card, with NumPy numbers as Python numbers.

    Raises
    ------
    CardError
        Every problem, as :func:`read_card` lists them.
    """
    card = plain_numbers(card) if isinstance(card, dict) else card
    problems = []
    _check_mapping(card, CARD_KEYS, "", source, problems)
    if not problems:
        _check_consistency(card, source, problems)
    if problems:
        raise CardError(problems)
    return card


def card_argument(card, name="card"):
    """Return the checked card a Python function was given as ``name``: a mapping or a file.

    A mapping (the card's document, ``simcore.card(...).to_dict()["card"]``) is checked by
    :func:`check_card`, a ``str`` or ``pathlib.Path`` is read by :func:`read_card`; the
    messages start with ``name``. The card's expiry and population are not checked here
    (``simcore calibrate --card`` checks them against ``--population``).

    Raises
    ------
    TypeError
        Anything else: ``card: must be a card's document (dict) or its file (str or
        pathlib.Path) (got list [1, 2])``.
    CardError
        A bad card (every problem, each line starting with ``name``).
    """
    import os

    if isinstance(card, dict):
        return check_card(card, name)
    if not isinstance(card, str | os.PathLike) or isinstance(os.fspath(card), bytes):
        raise TypeError(
            f"{name}: must be a card's document (a dict, simcore.card(...).to_dict()['card']) "
            f"or its JSON file (str or pathlib.Path) (got {shown_value(card)})"
        )
    try:
        return read_card(card)
    except CardError as error:
        raise CardError([f"{name}: {problem}" for problem in error.problems]) from None


def card_definition(card):
    """Return the card's :class:`~simcore.instrument.fail_definitions.FailDefinition`."""
    given = card["fail_definition"]
    labels = given["fail_labels"]
    return FailDefinition(given["fail_at_most"], None if labels is None else tuple(labels))


def transport_problems(card, source, population, today):
    """Return why ``card`` may not be used on ``population`` on ``today`` (empty: it may).

    Two reasons: the card has expired (``today > expires``), or it was measured on another
    population (the labels differ as text).
    """
    reasons = []
    on_alarm = card["expires"] == ON_ALARM
    expires = None if on_alarm else datetime.date.fromisoformat(card["expires"])
    if not on_alarm and today > expires:
        reasons.append(
            f"{source}: expires: the card expired on {expires.isoformat()} (today is "
            f"{today.isoformat()}, measured {card['measured']}); measure a new card "
            f"(got {card['expires']!r})"
        )
    if population != card["population"]:
        reasons.append(
            f"{source}: population: the card was measured on population "
            f"{card['population']!r}, not on {population!r}; a Se/Sp pair need not carry "
            f"over (check it with simcore card --check) (got {population!r})"
        )
    return reasons


def card_calibration_table(path, population, today=None, accept_transport=False):
    """Return ``(table, lines)``: a card's four counts and the lines to print before the report.

    Parameters
    ----------
    path : str or pathlib.Path
        A card file (:func:`read_card`).
    population : str
        The population the production count comes from.
    today : datetime.date, optional
        The date the card is used on; default today.
    accept_transport : bool, optional
        Use an expired card or another population's card anyway, with a warning line.

    Returns
    -------
    table : tuple of int
        ``(caught, missed, flagged, cleared)``, as ``calibrate --table`` takes them.
    lines : list of str
        The card's header line, a warning per accepted transport, and a note when the card
        is not usable for rate correction.

    Raises
    ------
    CardError
        A bad card, or a refused one (expired, other population) without
        ``accept_transport``; the message names the reason, the file and the values.
    """
    card = read_card(path)
    today = today or datetime.date.today()
    reasons = transport_problems(card, str(path), population, today)
    if reasons and not accept_transport:
        raise CardError(
            [*reasons, f"{path}: pass --accept-transport to use the card anyway (got no flag)"]
        )
    counts = card["counts"]
    lines = [
        f"card: {path}: judge {card['judge']}, criterion {card['criterion']}, population "
        f"{card['population']}, {card['fail_definition']['text']}, measured "
        f"{card['measured']}, {expiry_text(card)}"
    ]
    lines += [f"WARNING (--accept-transport): {reason}" for reason in reasons]
    if not card["usable_for_rate_correction"]:
        lines.append(f"card: not usable for rate correction: {card['reason']}")
    return (counts["caught"], counts["missed"], counts["flagged"], counts["cleared"]), lines
