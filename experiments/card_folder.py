"""``make cards``: a judge card for every judge and criterion of the shipped data, and a summary.

For each data set of :data:`~simcore.instrument.fail_definitions.SHIPPED_CARD_SPECS` found
under ``--data``, every judge on every criterion gets a card
``OUT/<dataset>__<criterion>__<judge>.json`` measured on the population
``<dataset>/<criterion>`` with a fixed ``--date`` (so the folder is reproducible), and
``OUT/README.md`` summarises them: how many may correct a failure rate, how many are flagged
and why, each card's numbers, and each criterion's human ceiling. The ceiling is computed
once per criterion and shared by its judges' cards.

Run as ``python -m experiments.card_folder --data ../shared/data/alttest --out
results/cards --date 2026-12-01``.
"""

import argparse
import datetime
import math
import sys
from collections import Counter
from pathlib import Path

from simcore.instrument.card.ceiling import population_ceiling
from simcore.instrument.card.file import write_card
from simcore.instrument.card.measure import (
    card_text,
    human_label_set,
    interval_text,
    measure_card,
    usability,
)
from simcore.instrument.fail_definitions import SHIPPED_CARD_SPECS, criterion_matrix
from simcore.realdata.annotation import DataError


def card_name(dataset, criterion, judge):
    """Return a card's file name: ``<dataset>__<criterion>__<judge>.json``."""
    return f"{dataset}__{criterion}__{judge}.json"


def spec_cards(spec, folder, date):
    """Return ``[(file name, card)]`` for every criterion and judge of one data set."""
    from simcore.realdata.readers import read_annotations

    matrix = read_annotations(folder, group_separator=spec.group_separator)
    label_set = human_label_set(matrix)
    cards = []
    for criterion in spec.criteria:
        part = criterion_matrix(matrix, spec, criterion)
        ceiling = population_ceiling(part)
        names = {
            "criterion": criterion,
            "population": f"{spec.dataset}/{criterion}",
            "source": str(folder),
            "group_separator": spec.group_separator,
        }
        for judge in part.judges:
            card = measure_card(
                part,
                judge,
                spec.definition,
                names=names,
                label_set=label_set,
                dates=(date, 30),
                ceiling=ceiling,
            )
            cards.append((card_name(spec.dataset, criterion, judge), card))
    return cards


def flag_reason(card):
    """Return why a card is flagged, as the category of ``usability``.

    None when the card is usable (:func:`~simcore.instrument.card.measure.usability`).
    """
    j = card["youden_j"]
    verdict = usability(
        math.nan if j["estimate"] is None else j["estimate"],
        math.nan if j["low"] is None else j["low"],
        card["youden_floor"],
        card["n_fail"],
        card["n_pass"],
    )
    return None if verdict.usable else verdict.category


def _card_row(name, card):
    """Return one summary table row of a card."""
    dataset = name.split("__", 1)[0]
    coverage = card["parse_coverage"]["share"]
    return (
        f"| {dataset} | {card['criterion']} | {card['judge']} | {card['n']} | "
        f"{card['n_fail']} | {interval_text(card['tpr'], 2)} | {interval_text(card['tnr'], 2)} | "
        f"{interval_text(card['youden_j'], 2)} | "
        f"{'n/a' if coverage is None else f'{coverage:.3f}'} | "
        f"{'yes' if card['usable_for_rate_correction'] else 'no'} | "
        f"{flag_reason(card) or 'clears the floor'} |"
    )


def _ceiling_rows(cards):
    """Return the human ceiling table's rows: one per population (criterion)."""
    rows, seen = [], set()
    for _, card in cards:
        if card["population"] in seen:
            continue
        seen.add(card["population"])
        ceiling = card["human_ceiling"]
        if ceiling["value"] is None:
            rows.append(
                f"| {card['population']} | {ceiling['measure']} | null | null | "
                f"{ceiling['reason']} |"
            )
            continue
        rows.append(
            f"| {card['population']} | {ceiling['measure']} | "
            f"{ceiling['reliability']:.3f} [{ceiling['reliability_low']:.3f}, "
            f"{ceiling['reliability_high']:.3f}] | {ceiling['value']:.3f} "
            f"[{ceiling['low']:.3f}, {ceiling['high']:.3f}] | k = {ceiling['k']:g} |"
        )
    return rows


def summary_markdown(cards, data, date):
    """Return the folder's README.md: counts of usable and flagged cards, the tables.

    ``cards`` is ``[(file name, card)]``; ``data`` the data folder and ``date`` the
    measurement date, both printed.
    """
    usable = sum(card["usable_for_rate_correction"] for _, card in cards)
    reasons = Counter(flag_reason(card) for _, card in cards if flag_reason(card))
    partial = sum(card["parse_coverage"]["unparseable"] > 0 for _, card in cards)
    lines = [
        "# Judge cards of the shipped data",
        "",
        f"Written by `make cards` from `{data}`, measured {date.isoformat()}, expiring 30 "
        "days later. One card per judge and criterion; the population of each is "
        "`<dataset>/<criterion>`; the truth is the majority of the humans' binarised labels "
        "(ties excluded). Positive class FAIL: SummEval score <= 3, CEBaB stars <= 2, "
        "CEBaB aspects Negative, WAX the relation Action.",
        "",
        f"**{len(cards)} cards: {usable} usable for rate correction, {len(cards) - usable} "
        "flagged.** A card is usable when Youden's J and the lower end of its 95% interval "
        "(MOVER from the Wilson intervals of TPR and TNR) both clear the floor 0.15.",
        "",
    ]
    lines += [f"- flagged, {reason}: {count}" for reason, count in sorted(reasons.items())]
    lines += [
        f"- cards with unparseable judge answers (counted as errors): {partial}",
        "",
        "| dataset | criterion | judge | n | FAIL rows | TPR | TNR | J | parse coverage | "
        "usable | reason |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *(_card_row(name, card) for name, card in cards),
        "",
        "## Human ceilings of the populations",
        "",
        "Symmetric ceiling c_k = r / sqrt(r + (1 - r)/k) of the humans on the criterion's own "
        "labels (Spearman's rho for scores, Cohen's kappa for categories), 95% item-bootstrap "
        "intervals.",
        "",
        "| population | measure | r (reliability) | c_k | |",
        "|---|---|---|---|---|",
        *_ceiling_rows(cards),
        "",
    ]
    return "\n".join(lines)


def write_card_folder(data, out, date, datasets=None):
    """Write every card of the shipped data sets under ``data`` and the summary; return them.

    Parameters
    ----------
    data : str or pathlib.Path
        Folder holding one ``alttest`` folder per data set (``summeval``, ...).
    out : str or pathlib.Path
        Folder the cards and ``README.md`` are written to.
    date : datetime.date
        Measurement date of every card.
    datasets : sequence of str, optional
        Only these data sets (default: every shipped one).

    Returns
    -------
    list of (str, dict)
        Each card's file name and card, in the order written.
    """
    data, out = Path(data), Path(out)
    specs = [spec for spec in SHIPPED_CARD_SPECS if datasets is None or spec.dataset in datasets]
    unknown = sorted(set(datasets or ()) - {spec.dataset for spec in SHIPPED_CARD_SPECS})
    if unknown:
        raise DataError(
            [
                f"{data}: datasets: not a shipped card data set (valid: "
                f"{', '.join(spec.dataset for spec in SHIPPED_CARD_SPECS)}) (got {unknown})"
            ]
        )
    cards = []
    for spec in specs:
        cards += spec_cards(spec, data / spec.dataset, date)
    for name, card in cards:
        write_card(card, out / name)
    (out / "README.md").write_text(summary_markdown(cards, data, date), encoding="utf-8")
    return cards


def main(argv=None):
    """Command line of ``make cards``; return the exit status (2 on bad data)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="folder of the alttest data sets")
    parser.add_argument("--out", required=True, help="folder to write the cards to")
    parser.add_argument(
        "--date",
        type=datetime.date.fromisoformat,
        default=datetime.date.today(),
        help="measurement date YYYY-MM-DD (fixed in the Makefile: reproducible cards)",
    )
    parser.add_argument("--datasets", nargs="+", help="only these data sets")
    args = parser.parse_args(argv)
    try:
        cards = write_card_folder(args.data, args.out, args.date, args.datasets)
    except DataError as error:
        print(error, file=sys.stderr)
        return 2
    usable = sum(card["usable_for_rate_correction"] for _, card in cards)
    print(f"{len(cards)} cards in {args.out} ({usable} usable for rate correction)")
    if cards:
        print(card_text(cards[0][1]).splitlines()[0] + " ...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
