"""One agreement coefficient over chosen raters of a matrix, with an item-bootstrap interval.

What ``simcore.agreement`` and ``simcore inspect --agreement`` report: the coefficient of
:mod:`simcore.model.weighted` its authors define for several raters with missing labels
(Cohen's kappa for two), over the raters named (every human by default; a judge only when
named), and a percentile interval from resampling items with replacement. The labels'
numbers are read, never guessed: a metric or weights that need distances (Krippendorff's
ordinal, interval and ratio levels; linear and quadratic weights) take each label's number
when every label is one, the declared order (``ordinal``) for the ordinal level and weights
on ranks, and are refused otherwise.
"""

import numpy as np

from simcore.command_options import AGREEMENT_COEFFICIENT
from simcore.markdown_table import markdown_table
from simcore.model import weighted
from simcore.realdata.annotation import DataError, label_numbers, unknown_names
from simcore.realdata.label_scale import label_scale, matrix_scale

COEFFICIENTS = AGREEMENT_COEFFICIENT.choices
"""Coefficients ``agreement`` reports (``observed``: the percent agreement, weighted or not)."""


def label_values(matrix, need):
    """Return ``(values, basis)``: each label's number and where it came from.

    ``need`` is ``"none"`` (nominal: the codes), ``"order"`` (the ordinal level or weights:
    numbers, else the declared order) or ``"numbers"`` (the interval and ratio levels).
    """
    if need == "none":
        return np.arange(len(matrix.labels), dtype=float), "codes"
    numbers = label_numbers(matrix.labels)
    if numbers is not None:
        return numbers, "numbers"
    if need == "order" and matrix.ordinal:
        return np.arange(len(matrix.labels), dtype=float), "declared order"
    if need == "numbers":
        what, fix = "numbers", "relabel them with numbers, or use the ordinal or nominal level"
    else:
        what = "numbers or a declared order"
        fix = (
            "declare their order: --label-order A,B,..., Python label_order=[...], a "
            "scenario's data.labels with data.scale: ordinal; or use level nominal and "
            "weights identity"
        )
    raise DataError(
        [
            f"{matrix.source}: labels: {', '.join(matrix.labels)} are not {what}; this level "
            f"or these weights need them ({fix})"
        ]
    )


def _chosen_raters(matrix, raters):
    """Return the codes ``(n, R)`` and names of the raters asked for (default the humans)."""
    if raters is None:
        return matrix.human_labels, list(matrix.humans)
    names = [name.strip() for name in raters.split(",")] if isinstance(raters, str) else raters
    known = {h: (matrix.human_labels, i) for i, h in enumerate(matrix.humans)}
    known.update({j: (matrix.judge_labels, i) for i, j in enumerate(matrix.judges)})
    repeated = [name for name in names if names.count(name) > 1]
    if repeated:
        raise DataError([f"{matrix.source}: raters: {repeated[0]!r} is named twice"])
    problems = unknown_names(names, list(known), matrix.source, "raters", "rater", "raters")
    if problems:
        raise DataError(problems)
    columns = [known[name][0][:, known[name][1]] for name in names]
    return np.stack(columns, axis=1).astype(np.int64), list(names)


def _checked_settings(source, coefficient, level, weights, n_raters):
    """Refuse a level or weights the coefficient does not take, and kappa on > 2 raters.

    The coefficient's and options' own values are checked where every option is
    (:data:`simcore.command_options.AGREEMENT_COEFFICIENT`, ``AGREEMENT_OPTIONS``).
    """
    misplaced = weighted.misplaced_message(coefficient, level, weights)
    if misplaced:
        raise DataError([f"{source}: {misplaced}"])
    if coefficient == "cohen_kappa" and n_raters != 2:
        raise DataError(
            [f"{source}: raters: Cohen's kappa takes two raters (got {n_raters}); name two"]
        )
    if n_raters < 2:
        raise DataError([f"{source}: raters: agreement needs two raters or more"])


def coefficient_of(codes, values, coefficient, level, weights):
    """Return ``coefficient`` of ``codes`` ``(n, R)`` (:mod:`simcore.model.weighted`)."""
    if coefficient == "krippendorff_alpha":
        return weighted.krippendorff_alpha(codes, values, level)
    if coefficient == "cohen_kappa":
        return weighted.cohen_kappa(codes[:, 0], codes[:, 1], values, weights)
    if coefficient == "observed":
        return weighted.percent_agreement(codes, values, weights)
    return weighted.gwet_ac2(codes, values, weights)


def check_agreement_fits(source, shape, n_labels, coefficient, boot):
    """Refuse a coefficient whose arrays cannot fit or that would take hours (DataError).

    One computation holds the ``n x L`` label counts (and a float copy) and about six
    ``L x L`` float64 arrays (coincidences or a table, weights, distances and their
    products), and, for the coefficients of several raters, sums ``n L^2`` products
    (Krippendorff's coincidences, the weighted agreement of AC2 and the percent agreement);
    Cohen's kappa tables ``n`` pairs instead. The bootstrap draws its ``boot x n`` int64
    item indices at once and repeats the computation ``boot`` times. Checked first for one
    computation (``SOURCE: labels``), then with the bootstrap (``SOURCE: boot``).
    """
    from simcore.realdata.allocation import check_memory, check_work

    n_items, n_raters = shape
    square = n_labels**2
    per_item = n_labels if coefficient == "cohen_kappa" else square
    operations = 6 * square + n_items * (per_item + 3 * n_labels)
    need = 8 * (3 * n_items * n_labels + 6 * square)
    got = f"{n_labels:,} labels, {n_items:,} items, {n_raters} raters, boot {boot}"
    what = f"{coefficient} over {n_labels:,} distinct labels and {n_items:,} items"
    advice = "merge labels, or read fewer items"
    check_memory(need, f"{source}: labels", what, advice, got)
    check_work(operations, f"{source}: labels", what, advice, got)
    what = f"{boot:,} bootstrap replicates of {what}"
    advice = "lower --boot (Python: boot)"
    check_memory(need + 8 * boot * n_items, f"{source}: boot", what, advice, got)
    check_work((boot + 1) * operations, f"{source}: boot", what, advice, got)


def agreement_document(matrix, settings):
    """Return ``simcore.agreement``'s document for a matrix already read.

    ``settings``: ``coefficient``, ``level``, ``weights``, ``raters``, ``boot``, ``seed``,
    ``confidence``. The interval is the percentile interval of ``boot`` item-bootstrap
    replicates (NaN replicates left out; None with none left).
    """
    coefficient, level, weights = settings["coefficient"], settings["level"], settings["weights"]
    codes, names = _chosen_raters(matrix, settings["raters"])
    _checked_settings(matrix.source, coefficient, level, weights, codes.shape[1])
    values, basis = label_values(matrix, weighted.values_needed(level, weights))
    check_agreement_fits(matrix.source, codes.shape, len(values), coefficient, settings["boot"])
    value = coefficient_of(codes, values, coefficient, level, weights)
    generator = np.random.default_rng(settings["seed"])
    replicates = np.array(
        [
            coefficient_of(codes[draw], values, coefficient, level, weights)
            for draw in generator.integers(
                0, codes.shape[0], size=(settings["boot"], codes.shape[0])
            )
        ]
    )
    kept = replicates[np.isfinite(replicates)]
    tail = (1 - settings["confidence"]) / 2
    low, high = np.quantile(kept, [tail, 1 - tail]) if kept.size else (None, None)
    return {
        "source": matrix.source,
        "coefficient": coefficient,
        "level": level,
        "weights": weights,
        "raters": names,
        "items": int(codes.shape[0]),
        "pairable_items": int(((codes >= 0).sum(axis=1) >= 2).sum()),
        "label_values": dict(zip(matrix.labels, values.tolist(), strict=True)),
        "values_from": basis,
        "scale": matrix_scale(matrix).to_dict(),
        "agreement": None if np.isnan(value) else value,
        "interval": {
            "confidence": settings["confidence"],
            "low": None if low is None else float(low),
            "high": None if high is None else float(high),
            "boot": settings["boot"],
            "seed": settings["seed"],
        },
    }


def _scale_line(scale, name, blind):
    """Return the line naming a rating scale scored blind to its distances ([] otherwise)."""
    if scale.get("kind") != "rating" or not blind:
        return []
    return [
        f"labels: {label_scale(scale['labels'], scale['basis'] == 'declared order').text()}; "
        f"{name} scores every disagreement alike (--level ordinal for alpha, or --weights "
        "linear/quadratic, read the scale's distances)",
        "",
    ]


def agreement_text(document):
    """Return the document as a short Markdown table."""
    interval = document["interval"]
    name = document["coefficient"]
    if name == "krippendorff_alpha":
        name += f" ({document['level']})"
    elif document["weights"] != "identity":
        name += f" ({document['weights']} weights)"

    def shown(number):
        return "undefined" if number is None else f"{number:.3f}"

    percent = round(100 * interval["confidence"])
    span = f"{shown(interval['low'])} to {shown(interval['high'])}"
    scale = document.get("scale") or {}
    blind = document["level"] == "nominal" and document["weights"] == "identity"
    return "\n".join(
        [
            *_scale_line(scale, name, blind),
            *markdown_table(
                ("coefficient", "raters", "items (pairable)", "agreement", f"{percent}% interval"),
                [
                    (
                        name,
                        len(document["raters"]),
                        f"{document['items']} ({document['pairable_items']})",
                        shown(document["agreement"]),
                        span,
                    )
                ],
            ),
            f"label values from {document['values_from']}; interval: {interval['boot']} "
            f"item-bootstrap replicates, seed {interval['seed']}",
        ]
    )
