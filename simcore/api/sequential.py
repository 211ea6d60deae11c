"""``simcore.settle``: label until the verdict is settled, one call per round.

Reads the matrix so far through the one reader and the record of the looks already taken
(:mod:`simcore.sequential.looks`), reads every judge's anytime-valid verdict at this look
(:mod:`simcore.sequential.session`), and while a verdict is open proposes the next round,
sized by simulation (:mod:`simcore.sequential.next_round`). The record and the round are
written together, after every check, so a refused or failed run leaves both as they were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from simcore import command_options as declared
from simcore.api.data import DataSource, checked_options
from simcore.api.results import SettleResult
from simcore.options import DEFAULT, Default, given_values, suggests_keywords

__all__ = ["settle"]

ASSUMPTION = (
    "the items of each round are chosen without looking at their labels (any design of "
    "docs/explanation/designs.md), and a label once recorded never changes"
)
"""What the error rate of a settled verdict assumes."""

WEIGHTING = {
    "point": "each item's term is its pairs' margin (D + eps c) / (K - 1), so items with "
    "more pool labels carry more, as the fixed-size rule weights pairs",
    "alt_test": "each item's term is d = W_h - W_j of the alternative annotator test (one "
    "term per item)",
}
"""How each rule turns an item into a term."""


@suggests_keywords
def settle(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    *,
    looks: str | Path | None = None,
    next_round: str | Path | None = None,
    overwrite: bool = False,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    rule: str | Default = DEFAULT,
    epsilon: float | Default = DEFAULT,
    alpha: float | Default = DEFAULT,
    tau: float | Default = DEFAULT,
    design: str | Default = DEFAULT,
    power: float | Default = DEFAULT,
    trials: int | Default = DEFAULT,
    replay: int | None | Default = DEFAULT,
    round_size: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
) -> SettleResult:
    """Read every judge's sequential verdict at this look; propose the next round while open.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        The matrix so far: any input the one reader reads (its humans, primary first, and
        its judges).
    looks : str or pathlib.Path, optional
        The record of the looks already taken (``--looks``): read, checked against the data
        and, when the data holds labels no look has read, extended by this look. Created
        when missing. Without it this run is the first look and nothing is recorded.
    next_round : str or pathlib.Path, optional
        Write the proposed round here (``--next-round``): CSV ``human,item,design``, one row
        per label to collect; only the header when every judge is settled.
    overwrite : bool
        Replace ``looks`` or ``next_round`` even when simcore did not write them.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants : optional
        The one reader's keywords.
    rule, epsilon, alpha, tau, design, power, trials, replay, round_size, seed : optional
        :data:`simcore.command_options.SETTLE_OPTIONS`: the sequential rule (``point`` or
        ``alt_test``), eps, alpha (the probability of any wrong settled verdict), tau, and
        the design, power, simulated rounds and seed of the proposed round; ``replay``
        (with ``round_size``) replays the matrix in that many random orders of rounds
        instead of reading a look (:mod:`simcore.sequential.replay`).

    Returns
    -------
    SettleResult
        ``to_dict()`` is ``simcore settle --json``: ``source``, ``settings``, ``scoring``,
        ``scale``, ``weighting``, ``assumption``, and for a look ``record``, ``look``, ``new_look``,
        ``human_labels``, ``judges`` (per judge: ``judge``, ``verdict``, ``favour``,
        ``against``, ``open``, ``needed``, ``settled_look``, ``labels_spent``,
        ``comparisons`` per held-out human; under ``alt_test`` also ``winning_rate`` and
        ``advantage``) and ``next_round`` (None, or the round's ``extra``, ``labels``,
        ``design``, ``file``, ``settle_probability``, ``reached``, ``tried``,
        ``sized_from``); with ``replay``, ``replay`` per judge
        (:meth:`simcore.sequential.Replay.to_dict`) and no record or round; table
        ``judges``.
    """
    options = declared.DATA_OPTIONS + declared.SETTLE_OPTIONS
    values = checked_options("settle", given_values(locals(), options), options)
    return _settle(data, values, looks, next_round, overwrite)


def _settle(data, values, looks, next_round, overwrite):
    """Return :func:`settle`'s result after checking its outputs, then writing them."""
    from simcore.output_files import check_output_file

    if values["replay"] is not None:
        _check_replay(values, looks, next_round)

    if looks is not None:
        check_output_file(looks, "--looks", "look-record", overwrite=overwrite)
    if next_round is not None:
        check_output_file(next_round, "--next-round", "next-round", overwrite=overwrite)
    import numpy as np

    from simcore import sequential
    from simcore.realdata.annotation import DataError, require_judges
    from simcore.realdata.readers import read_annotations

    reader = {key: values[key] for key in declared.READER_KEYS}
    matrix = read_annotations(data, **reader)
    require_judges(matrix, "simcore settle")
    if matrix.slots or matrix.n_humans < 2:
        raise DataError(
            [
                f"{matrix.source}: humans: settle holds out each human in turn and needs at "
                "least two people as columns (slot columns are label positions, not people) "
                f"(got {matrix.n_humans} {'slots' if matrix.slots else 'humans'})"
            ]
        )
    settings = sequential.SequentialSettings(
        values["rule"], values["epsilon"], values["alpha"], values["tau"]
    )
    if values["replay"] is not None:
        return _replay(matrix, settings, values)
    record = sequential.read_look_record(looks) if looks is not None else None
    if record is None:
        record = sequential.new_record(settings, matrix)
        unseen = sequential.matrix_cells(matrix)
    else:
        unseen = sequential.check_record(record, looks, settings, matrix)
    snapshots = sequential.look_snapshots(record, matrix, unseen)
    verdicts, terms = sequential.judges_at_look(
        snapshots, matrix.judge_labels, matrix.judges, matrix.items, settings
    )
    human_labels = int((matrix.human_labels >= 0).sum())
    updated = sequential.with_new_look(
        record, unseen, human_labels, {name: row["verdict"] for name, row in verdicts.items()}
    )
    new_look = len(updated.looks) > len(record.looks)
    open_terms = {
        name: terms[name] for name, row in verdicts.items() if row["verdict"] == sequential.OPEN
    }
    round_document, proposal = None, None
    if open_terms:
        size = sequential.size_round(
            matrix.human_labels,
            matrix.n_labels,
            open_terms,
            settings,
            values["design"],
            values["power"],
            values["trials"],
            values["seed"],
        )
        from simcore.advisor import extend_mask

        rng = np.random.default_rng(np.random.SeedSequence([values["seed"], len(updated.looks)]))
        available = matrix.human_labels >= 0
        proposal = extend_mask(
            rng, values["design"], size.extra, matrix.human_labels, available, matrix.n_labels
        )
        round_document = {
            **size.to_dict(),
            "design": values["design"],
            "power": values["power"],
            "labels": int(proposal.sum()),
            "file": None if next_round is None else str(next_round),
        }
    document = {
        **_choices(matrix, settings),
        "record": None if looks is None else str(looks),
        "look": len(updated.looks),
        "new_look": new_look,
        "human_labels": human_labels,
        "judges": [_judge_row(name, row, matrix.humans) for name, row in verdicts.items()],
        "next_round": round_document,
    }
    _write(looks, updated, next_round, proposal, matrix, values["design"])
    text = sequential.settle_text(document)
    return SettleResult("settle", document, text, tables={"judges": "judges"})


def _choices(matrix, settings):
    """Return what every settle document states first: the data and the choices it read with."""
    from simcore import sequential
    from simcore.realdata.label_scale import matrix_scale

    return {
        "source": matrix.source,
        "settings": settings.to_dict(),
        "scoring": sequential.SCORING,
        "scale": matrix_scale(matrix).to_dict(),
        "weighting": WEIGHTING[settings.rule],
        "assumption": ASSUMPTION,
    }


def _judge_row(name, verdict, humans):
    """Return one judge's row of the document (comparisons named by their held-out human)."""
    comparisons = [
        {"human": human, **row} for human, row in zip(humans, verdict["comparisons"], strict=True)
    ]
    return {"judge": name, **verdict, "comparisons": comparisons}


def _write(looks, record, next_round, proposal, matrix, design):
    """Write the record and the round together (neither when either write fails)."""
    import json

    from simcore.output_files import write_together

    files = []
    if looks is not None:
        text = json.dumps(record.to_dict(), indent=1) + "\n"
        files.append((looks, lambda stream: stream.write(text), False))
    if next_round is not None:
        rows = [] if proposal is None else _round_rows(proposal, matrix, design)

        def write_round(stream):
            import csv

            writer = csv.writer(stream, lineterminator="\n")
            writer.writerow(["human", "item", "design"])
            writer.writerows(rows)

        files.append((next_round, write_round, False))
    if files:
        write_together(files)


def _round_rows(proposal, matrix, design):
    """Return ``[human, item, design]`` per proposed label, by human then item order."""
    import numpy as np

    rows = []
    for column in range(proposal.shape[1]):
        for row in np.flatnonzero(proposal[:, column]).tolist():
            rows.append([matrix.humans[column], matrix.items[row], design])
    return rows


def _check_replay(values, looks, next_round):
    """Refuse what a replay does not take: a record, a round, the alt_test rule."""
    given = [flag for flag, value in (("looks", looks), ("next_round", next_round)) if value]
    if given:
        raise ValueError(
            f"replay: replays a finished matrix and writes nothing; leave out "
            f"{' and '.join(given)} (got replay={values['replay']})"
        )
    if values["rule"] != "point":
        raise ValueError(
            f"replay: replays the point rule; pass rule='point' (got {values['rule']!r})"
        )


def _replay(matrix, settings, values):
    """Return the result of a replay: every judge's matrix replayed in random orders."""
    from simcore import sequential

    replays = {
        judge: sequential.replay_judge(
            matrix.human_labels,
            matrix.judge_labels[:, column],
            settings,
            values["round_size"],
            values["replay"],
            values["seed"],
        ).to_dict(settings.alpha)
        for column, judge in enumerate(matrix.judges)
    }
    rows = [{"judge": judge, **replay} for judge, replay in replays.items()]
    document = {
        **_choices(matrix, settings),
        "human_labels": int((matrix.human_labels >= 0).sum()),
        "primary": matrix.humans[0],
        "judges": rows,
        "replay": {"orders": values["replay"], "round_size": values["round_size"]},
    }
    text = sequential.replay_text(document)
    return SettleResult("settle", document, text, tables={"judges": "judges"})
