"""The judge-as-instrument commands as results: ceiling, well-posedness, cards and their check.

Each ``*_result`` function takes the input and the checked option values of its Python
function in :mod:`simcore.api.data` and returns the command's typed result
(:class:`~simcore.api.results.CeilingResult`, :class:`~simcore.api.results.WellposedResult`,
:class:`~simcore.api.results.CardResult` or :class:`~simcore.api.results.CardCheckResult`)
whose text is what the command prints and whose document is its ``--json``. Bad input raises
:class:`~simcore.realdata.annotation.DataError` or
:class:`~simcore.calibration.command.CalibrationInputError` (both ``ValueError``).
"""

from simcore.api.results import (
    CardCheckResult,
    CardResult,
    CeilingResult,
    WellposedResult,
    plain_row,
)
from simcore.command_options import READER_KEYS

BOOT_BYTES = {"ceiling": 16, "wellposed": 24}
"""Bytes per (replicate, item) of each command's bootstrap: the int64 item draws and, for
well-posedness, their int64 counts and float64 weights."""


def check_bootstrap_fits(source, boot, n_items, per_cell):
    """Refuse ``boot`` bootstrap draws of ``n_items`` items that cannot fit in memory.

    Raises
    ------
    simcore.realdata.annotation.DataError
        ``SOURCE: boot: N bootstrap draws of n items need about X GiB ...`` before any
        draw is made.
    """
    from simcore.realdata.allocation import check_memory

    check_memory(
        per_cell * (boot + 1) * n_items + 160 * (boot + 1),
        f"{source}: boot",
        f"{boot} bootstrap draws of {n_items} items",
        "lower --boot (Python: boot)",
        f"boot {boot} with {n_items} items",
    )


def check_pair_tables_fit(source, n_judges, n_labels, boot):
    """Refuse judge-pair ``L x L`` tables that cannot fit in memory or take hours (DataError).

    The cost grows with the square of the label count ``L``
    (:func:`simcore.instrument.wellposed.agreement.pair_table_size`); it is checked before any table
    is built, against the memory available and :data:`~simcore.realdata.allocation.WORK_LIMIT`.
    """
    from simcore.instrument.wellposed.agreement import pair_table_size
    from simcore.realdata.allocation import check_memory, check_work

    need, operations = pair_table_size(n_judges, n_labels, boot)
    pairs = n_judges * (n_judges - 1) // 2
    tables = f"{pairs} judge-pair tables of {n_labels:,} x {n_labels:,} labels"
    advice = "lower --boot (Python: boot), name fewer --judges, or merge labels"
    got = f"{n_labels:,} distinct labels, {n_judges} judges, boot {boot}"
    check_memory(need, f"{source}: labels", f"the {tables} of one resample", advice, got)
    check_work(operations, f"{source}: labels", f"{boot + 1} sets of {tables}", advice, got)


CELL_OPERATIONS = 400
"""Array operations per gathered (replicate, cell) of the ceilings' bootstrap: the gather,
the sort that ranks or tallies, and the grouped sums (measured: 1,000 replicates of 12,000
items x 5 humans, 240,000 cells each, take about 90 s)."""


def check_ceiling_fits(matrix, measure, boot):
    """Refuse human ceilings that cannot fit in memory or would take hours (DataError).

    Every replicate gathers the ``c_2`` cells of the human pairs' shared items and twice
    the ``c`` labelled cells (a rater against the consensus, with and without it), at about
    :data:`CELL_OPERATIONS` operations a cell. Spearman's rho (``measure`` True) ranks the
    labels and needs nothing more. Kappa and the chosen coefficients tally every item's
    ``L`` labels: ``n L`` counts, and two ``c L`` copies (the consensus of each cell's
    item), 8 bytes each; a chosen coefficient also weighs each cell's votes by an ``L x L``
    matrix (``c L^2`` operations) and scores ``G`` ``L x L`` tables per replicate, ``G = P +
    2 K`` (the pairs and twice the humans), where kappa reads ``G L`` counters.
    """
    import numpy as np

    from simcore.instrument.grouped_scores import averaged
    from simcore.model.weighted import Scoring
    from simcore.realdata.allocation import check_memory, check_work

    humans, n_labels = matrix.n_humans, len(matrix.labels)
    per_item = (np.asarray(matrix.human_labels) >= 0).sum(axis=1).astype(np.int64)
    cells = int(per_item.sum())
    gathered = int((per_item * (per_item - 1) // 2).sum()) + 2 * cells
    got = f"{n_labels:,} labels, {matrix.n_items:,} items, {humans} humans, boot {boot}"
    where = f"{matrix.source}: boot"
    what = f"{boot:,} bootstrap replicates of {gathered:,} cells"
    check_work((boot + 1) * gathered * CELL_OPERATIONS, where, what, "lower --boot", got)
    if averaged(measure):
        return
    groups = humans * (humans - 1) // 2 + 2 * humans
    table = n_labels**2 if isinstance(measure, Scoring) else n_labels
    operations = 4 * cells * table + 8 * (boot + 1) * groups * table
    what = f"the label tallies of {cells:,} human labels over {n_labels:,} distinct labels"
    advice = "merge labels, or read fewer items or humans; lower --boot (Python: boot)"
    where = f"{matrix.source}: labels"
    check_memory(8 * n_labels * (matrix.n_items + 2 * cells), where, what, advice, got)
    check_work(operations, where, what, advice, got)


def _roles(values):
    return {key: values.get(key) for key in READER_KEYS}


def ceiling_result(data, values):
    """Return ``simcore ceiling``'s result."""
    from simcore.instrument import scale_scorings
    from simcore.instrument.ceiling import report
    from simcore.realdata.data_shape import data_shape
    from simcore.realdata.label_scale import matrix_scale
    from simcore.realdata.readers import read_annotations

    matrix = read_annotations(data, **_roles(values))
    check_bootstrap_fits(matrix.source, values["boot"], matrix.n_items, BOOT_BYTES["ceiling"])
    scoring = matrix_scoring(matrix, values)
    scale = matrix_scale(matrix)
    graded = scale.is_rating if values["graded"] is None else values["graded"]
    measure = graded if scoring is None else scoring
    check_ceiling_fits(matrix, measure, values["boot"])
    if scale.is_rating and isinstance(measure, bool):
        # the judges' positions are also read under the other scoring (scale_scorings)
        check_ceiling_fits(matrix, not measure, values["boot"])
    scores = None
    if values["judge_scores"]:
        scores = report.read_judge_scores(values["judge_scores"], values["score_column"])
        report.check_judge_groups(scores, matrix.group_names, values["judge_scores"])
    settings = {
        "groups": values["criterion"],
        "judge_scores": scores,
        "n_boot": values["boot"],
        "seed": values["seed"],
        "min_shared": values["min_shared"],
    }
    results = report.group_ceilings(matrix, measure, **settings)
    scale_document, first, position_lines = scale_scorings.ceiling_scale(
        matrix, scale, measure, results, settings
    )
    rows = [plain_row(row) for row in report.csv_rows(results)]
    for row, result in zip(rows, results, strict=True):
        row["judges"] = [plain_row(judge._asdict()) for judge in result.judges]
    from simcore.realdata.readers import roles_note

    note = roles_note(data, _roles(values))
    shape = data_shape(matrix)
    document = {
        "source": matrix.source,
        "shape": shape.to_dict(),
        "graded": None if scoring is not None else bool(graded),
        "coefficient": None if scoring is None else scoring.name,
        "scale": scale_document,
        "boot": values["boot"],
        "seed": values["seed"],
        "min_shared": values["min_shared"],
        "groups": rows,
        "roles_note": note,
    }
    text = report.markdown_report(results, measure) + (f"\n{note}\n" if note else "")
    if position_lines:
        text += "\n\n" + "\n".join(position_lines)
    text = f"{first}\n{shape.text()}\n\n{text}"
    return CeilingResult("ceiling", document, text, {"groups": "groups"})


def matrix_scoring(matrix, values):
    """Return the :class:`simcore.model.weighted.Scoring` of a ceiling's ``--coefficient``.

    As :func:`pair_scoring` for the judges' table, with the label values of an annotation
    matrix (:func:`simcore.realdata.agreement.label_values`: numbers, else the order of
    ``--label-order``), or None without a coefficient.
    """
    from simcore.model import weighted
    from simcore.realdata.agreement import label_values

    if not checked_coefficient(matrix.source, values):
        return None
    coefficient, level, weights = values["coefficient"], values["level"], values["weights"]
    numbers, _ = label_values(matrix, weighted.values_needed(level, weights))
    return weighted.scoring_of(coefficient, numbers, level, weights)


def checked_coefficient(source, values):
    """Return whether ``values`` choose a coefficient; refuse what does not fit (DataError).

    Refused: a level or weights without ``--coefficient``, a coefficient beside
    ``--graded`` / ``--categorical``, a level or weights the coefficient does not take.
    """
    from simcore.model import weighted
    from simcore.realdata.annotation import DataError

    coefficient, level, weights = values["coefficient"], values["level"], values["weights"]
    if coefficient is None:
        if weighted.is_weighted(level, weights):
            flag = "--level" if level != "nominal" else "--weights"
            raise DataError([f"{source}: {flag[2:]}: {flag} needs --coefficient"])
        return False
    if values["graded"] is not None:
        raise DataError(
            [
                f"{source}: graded: --coefficient {coefficient} replaces Spearman's rho "
                "and Cohen's kappa; drop --graded/--categorical"
            ]
        )
    misplaced = weighted.misplaced_message(coefficient, level, weights)
    if misplaced:
        raise DataError([f"{source}: {misplaced}"])
    return True


def pair_scoring(table, values):
    """Return the :class:`simcore.model.weighted.Scoring` of ``--coefficient``, or None.

    Refused (a ``DataError`` naming the file): what :func:`checked_coefficient` refuses,
    and a level or weights on labels that are not numbers (the judges' labels are read in
    numeric order when every label is a number).
    """
    import numpy as np

    from simcore.model import weighted
    from simcore.realdata.annotation import DataError, label_numbers

    if not checked_coefficient(table.source, values):
        return None
    coefficient, level, weights = values["coefficient"], values["level"], values["weights"]
    numbers = label_numbers(table.labels)
    if weighted.values_needed(level, weights) != "none" and numbers is None:
        raise DataError(
            [
                f"{table.source}: labels: {', '.join(table.labels)} are not numbers; this level "
                "or these weights need them (relabel them with numbers, or use level nominal "
                "and weights identity)"
            ]
        )
    codes = np.arange(len(table.labels), dtype=float)
    return weighted.scoring_of(coefficient, codes if numbers is None else numbers, level, weights)


def _check_criterion(table, criterion):
    """Refuse a ``--criterion`` that names no group of the judges' table (DataError)."""
    from simcore.realdata.annotation import DataError

    if criterion is not None and criterion not in table.group_names:
        raise DataError(
            [
                f"{table.source}: criterion: unknown group (groups: "
                f"{', '.join(table.group_names)}) (got {criterion!r})"
            ]
        )


def wellposed_result(data, values):
    """Return ``simcore wellposed``'s result."""
    from simcore.instrument.scale_scorings import scoring_words
    from simcore.instrument.wellposed.agreement import group_agreements
    from simcore.instrument.wellposed.data import load_judge_table
    from simcore.instrument.wellposed.report import agreement_lines, agreement_rows
    from simcore.realdata.label_scale import label_scale, scale_line
    from simcore.realdata.readers import name_list

    reading = (values[key] for key in ("group_separator", "merge_label_variants"))
    table = load_judge_table(data, name_list(values["judges"]), *reading)
    n_items = len(table.codes)
    check_bootstrap_fits(table.source, values["boot"], n_items, BOOT_BYTES["wellposed"])
    check_pair_tables_fit(table.source, len(table.judges), len(table.labels), values["boot"])
    _check_criterion(table, values["criterion"])
    scoring = pair_scoring(table, values)
    labels_scale = label_scale(table.labels)
    graded = labels_scale.is_rating if values["graded"] is None else values["graded"]
    measure = graded if scoring is None else scoring
    only = None if values["criterion"] is None else [values["criterion"]]
    columns = (table.codes, table.groups, table.group_names, graded)
    agreements = group_agreements(
        *columns, values["boot"], values["seed"], only=only, scoring=scoring
    )
    text = "\n".join(
        [
            f"# Is the question well posed? {table.source}",
            "",
            scale_line(labels_scale, scoring_words(measure)),
            "",
            f"{len(table.judges)} judges ({', '.join(table.judges)}); {values['boot']} "
            f"bootstrap resamples of the items, seed {values['seed']}.",
            "",
            *agreement_lines(agreements, table.judges),
            "",
            "Low agreement among judges warns that the criterion may be too vague for any "
            "judge to be calibrated on it (docs/explanation/well-posedness.md).",
        ]
    )
    document = {
        "source": table.source,
        "judges": list(table.judges),
        "labels": list(table.labels),
        "graded": None if scoring is not None else bool(graded),
        "coefficient": None if scoring is None else scoring.name,
        "scale": {**labels_scale.to_dict(), "scoring": scoring_words(measure)},
        "boot": values["boot"],
        "seed": values["seed"],
        "groups": [
            plain_row(row) for row in agreement_rows(agreements, table.judges, values["seed"])
        ],
    }
    return WellposedResult("wellposed", document, text, {"groups": "groups"})


def card_result(data, values):
    """Return ``simcore card``'s result: the measured card (not written anywhere)."""
    from simcore.calibration.errors import CalibrationInputError
    from simcore.instrument.card.measure import card_text, load_criterion, measure_card
    from simcore.instrument.fail_definitions import definition_of
    from simcore.realdata.label_scale import label_scale, scale_line

    missing = [name for name in ("judge", "criterion", "population") if not values[name]]
    if missing:
        raise CalibrationInputError(
            f"card: {', '.join('--' + name for name in missing)} required to measure a card"
        )
    definition = definition_of(values["fail_at_most"], values["fail_labels"], "card")
    _check_expiry(values["date"], values["expires_days"])
    expires_days = None if values["expires_on_alarm"] else values["expires_days"]
    separator = values["group_separator"] or None
    matrix, label_set = load_criterion(
        data,
        values["criterion"],
        separator,
        judge=values["judge"],
        **{key: values[key] for key in ("humans", "judges", "judges_file", "columns")},
    )
    from simcore.instrument.card.ceiling import CEILING_BOOT

    check_ceiling_fits(matrix, label_scale(matrix.labels, matrix.ordinal).is_rating, CEILING_BOOT)
    names = {
        "criterion": values["criterion"],
        "population": values["population"],
        "source": str(matrix.source),
        "group_separator": separator,
    }
    card = measure_card(
        matrix,
        values["judge"],
        definition,
        names=names,
        label_set=values["labels"] or label_set,
        dates=(values["date"], expires_days),
        settings={"confidence": values["confidence"], "youden_floor": values["youden_floor"]},
    )
    card = _with_truth(card, matrix, definition, values, values["labels"] or label_set)
    scale = label_scale(matrix.labels, matrix.ordinal)
    against = "the latent truth" if values["truth"] == "latent" else "the humans' majority"
    scoring = (
        f"{card['fail_definition']['text']} against {against}; human ceiling by "
        f"{card['human_ceiling']['measure']}"
    )
    from simcore.realdata.readers import roles_note

    note = roles_note(data, _roles(values))
    document = {"card": card, "scale": {**scale.to_dict(), "scoring": scoring}, "roles_note": note}
    text = f"{scale_line(scale, scoring)}\n{card_text(card)}" + (f"\n{note}" if note else "")
    return CardResult("card", document, text)


def _with_truth(card, matrix, definition, values, label_set):
    """Return ``card`` with its ``truth``: the majority's as measured, or the latent truth's."""
    from simcore.calibration.latent import LatentSettings
    from simcore.instrument.card.latent import binary_against_truths, latent_card
    from simcore.instrument.card.truth import truth_statement

    if values["truth"] != "latent":
        ordered = {}
        for key, value in card.items():
            ordered[key] = value
            if key == "fail_definition":
                ordered["truth"] = truth_statement("majority")
        return ordered
    settings = LatentSettings(
        values["truth_model"], values["boot"], values["seed"], values["confidence"]
    )
    _, _, error = binary_against_truths(matrix, values["judge"], definition, settings, label_set)
    return latent_card(card, error, settings)


def _check_expiry(measured, days):
    """Refuse an expiry beyond the calendar (9999-12-31) before the card is measured."""
    import datetime

    from simcore.calibration.errors import CalibrationInputError

    start = measured or datetime.date.today()
    try:
        start + datetime.timedelta(days=int(days))
    except OverflowError:
        raise CalibrationInputError(
            f"card: --expires-days: the card would expire after {datetime.date.max}, the "
            f"calendar's last day (got {days} days from {start})"
        ) from None


def card_check_result(card_path, data, values):
    """Return ``simcore card --check``'s result."""
    from simcore.instrument.card.check import transport_check
    from simcore.instrument.card.file import card_definition, read_card
    from simcore.instrument.card.latent import binary_against_truths, latent_settings
    from simcore.instrument.card.measure import count_outcomes, judge_outcomes, load_criterion
    from simcore.instrument.card.truth import card_truth

    card = read_card(card_path)
    separator = (
        card["group_separator"]
        if values["group_separator"] is None
        else (values["group_separator"])
    )
    matrix, _ = load_criterion(
        data,
        card["criterion"],
        separator or None,
        judge=card["judge"],
        **{key: values[key] for key in ("humans", "judges", "judges_file", "columns")},
    )
    label_set = values["labels"] or tuple(card["label_set"])
    truth = card_truth(card)
    if truth["kind"] == "latent":
        majority, n_tied, error = binary_against_truths(
            matrix, card["judge"], card_definition(card), latent_settings(card), label_set
        )
        counts = majority._replace(
            **dict(zip(("caught", "missed", "flagged", "cleared"), error.counts, strict=True))
        )
    else:
        truth_fail, judge_fail, parsed, n_tied = judge_outcomes(
            matrix, card["judge"], card_definition(card), label_set
        )
        counts = count_outcomes(truth_fail, judge_fail, parsed)
    old = card["counts"]
    result = transport_check(
        (old["caught"], old["missed"], old["flagged"], old["cleared"]),
        counts.table,
        drop=values["drop"],
        alpha=values["alpha"],
    )
    unparseable = counts.unparseable_fail + counts.unparseable_pass
    head = (
        f"check of card {card_path} (judge {card['judge']}, criterion {card['criterion']}, "
        f"population {card['population']}, {card['fail_definition']['text']}) on "
        f"{matrix.source}: {counts.n} rows with a human truth ({n_tied} tied, excluded), "
        f"{unparseable} unparseable answers counted as errors"
    )
    head += f"\ntruth: {truth['kind']}: {truth['text']}"
    if truth["kind"] == "latent":
        head = (
            f"check of card {card_path} (judge {card['judge']}, criterion "
            f"{card['criterion']}, population {card['population']}, "
            f"{card['fail_definition']['text']}) on {matrix.source}: the new sample refitted "
            f"as the card was measured, against the latent truth ({error.fit.model} fit on "
            f"{error.fit.items} items, {error.fit.boot} bootstrap refits); "
            f"the rates' effective counts are tested, {unparseable} unparseable answers "
            "counted as errors"
        )
    document = {
        "card": str(card_path),
        "judge": card["judge"],
        "criterion": card["criterion"],
        "population": card["population"],
        "n": int(counts.n),
        "tied": int(n_tied),
        "unparseable": int(unparseable),
        "verdict": result.verdict,
        "expires": card["expires"],
        "truth": truth if truth["kind"] != "latent" else {**truth, "fit": error.fit.to_dict()},
        "rates": [plain_row(check._asdict()) for check in result.checks],
    }
    return CardCheckResult("card", document, "\n".join([head, *result.lines]), {"rates": "rates"})
