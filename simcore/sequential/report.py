"""What ``simcore settle`` prints: the verdicts at this look, their comparisons, the next round."""

from simcore.markdown_table import markdown_table

RULE_NAMES = {"point": "leave-one-out point comparison", "alt_test": "alternative annotator test"}
"""How the text names each rule."""


def _number(value, digits=3):
    """Return a number as printed (``-`` for None)."""
    return "-" if value is None else f"{value:.{digits}f}"


def settle_text(document):
    """Return the Markdown of a ``simcore settle`` document (:func:`simcore.settle`)."""
    settings = document["settings"]
    rule = settings["rule"]
    scale = document["scale"]
    record = document["record"]
    if record is None:
        where = "no record of looks (pass --looks FILE to keep one): this read is look 1"
    elif document["new_look"]:
        where = f"look {document['look']}, recorded in {record}"
    else:
        where = f"no new labels since look {document['look']} (nothing added to {record})"
    lines = [
        "# simcore settle",
        "",
        f"{document['source']}: {document['human_labels']} human labels; {where}.",
        "",
        f"Rule: {RULE_NAMES[rule]} (sequential), eps {settings['epsilon']:g}, "
        f"tau {settings['tau']:g}; "
        + (
            f"the probability that any settled verdict is wrong is at most alpha "
            f"{settings['alpha']:g}, at every look and under any rule for stopping."
            if rule == "point"
            else f"e-values per human with e-BH at level alpha {settings['alpha']:g} (false "
            "discovery rate of the humans won, at every look)."
        ),
        f"Scoring: {document['scoring']} (observed agreement) on the labels "
        f"{', '.join(scale['labels'])} ({scale['kind']}); {document['weighting']}.",
        f"Assumes {document['assumption']}.",
        "",
        "## Verdicts",
        "",
    ]
    rows = [
        (
            row["judge"],
            row["verdict"],
            f"{row['favour']}/{row['against']}/{row['open']}",
            row["needed"],
            "-" if row["settled_look"] is None else row["settled_look"],
            row["labels_spent"],
        )
        for row in document["judges"]
    ]
    header = ("judge", "verdict", "for/against/open", "needed", "settled at look", "labels spent")
    lines += markdown_table(header, rows)
    scale_name = "margin per pair-weighted item" if rule == "point" else "E[d] = E[W_h - W_j]"
    for row in document["judges"]:
        lines += ["", f"## {row['judge']}: each held-out human ({scale_name}, interval now)", ""]
        comparisons = [
            (
                comparison["human"],
                comparison["items"],
                comparison["status"],
                "-" if comparison["settled_look"] is None else comparison["settled_look"],
                f"[{_number(comparison['low'])}, {_number(comparison['high'])}]",
                *((_number(comparison["e_value"], 2),) if rule == "alt_test" else ()),
            )
            for comparison in row["comparisons"]
        ]
        columns = ("held-out human", "items", "status", "settled at look", "interval")
        columns += ("e-value",) if rule == "alt_test" else ()
        lines += markdown_table(columns, comparisons)
        if rule == "alt_test":
            low, high = row["winning_rate"]
            lines.append("")
            lines.append(
                f"Winning rate in [{low:.3f}, {high:.3f}]; advantage probability in "
                f"[{row['advantage'][0]:.3f}, {row['advantage'][1]:.3f}]."
            )
    lines += ["", "## Next round", ""]
    lines.append(_round_text(document["next_round"]))
    return "\n".join(lines)


def _round_text(proposal):
    """Return the sentence on the proposed round."""
    if proposal is None:
        return "None: every judge's verdict is settled. Stop labelling."
    where = f" (written to {proposal['file']})" if proposal["file"] else " (pass --next-round FILE)"
    chance = ", ".join(
        f"{judge} {share:.2f}" for judge, share in proposal["settle_probability"].items()
    )
    reached = (
        f"the simulation settles every open judge with probability at least {proposal['power']:g}"
        if proposal["reached"]
        else f"no round within the items left settles every open judge with probability "
        f"{proposal['power']:g}; this is the largest"
    )
    if not proposal["settle_probability"]:
        reached = "too few co-labelled items to size it by simulation yet"
    return (
        f"{proposal['labels']} labels: {proposal['extra']} items per secondary by "
        f"`{proposal['design']}`{where}; {reached} (P(settle): {chance or 'not simulated'})."
    )


def replay_text(document):
    """Return the Markdown of a ``simcore settle --replay`` document."""
    settings = document["settings"]
    replay = document["replay"]
    lines = [
        "# simcore settle --replay",
        "",
        f"{document['source']}: the primary ({document['primary']}) labelled first; each "
        f"secondary's labels revealed {replay['round_size']} per round in "
        f"{replay['orders']} random orders, the sequential verdict and the fixed-size point "
        "rule read after every round.",
        "",
        f"Rule: {RULE_NAMES[settings['rule']]} (sequential), eps {settings['epsilon']:g}, tau "
        f"{settings['tau']:g}, alpha {settings['alpha']:g}; scoring {document['scoring']} on "
        f"the labels {', '.join(document['scale']['labels'])} ({document['scale']['kind']}). The "
        "reference is the fixed rule's decision on the whole matrix. Labels are the "
        "secondaries' (the primary's are in before the first look). `fixed plan`: the "
        "labels from which the fixed rule agrees with the whole matrix in all but alpha of "
        "the orders (a size chosen knowing the answer).",
        "",
    ]
    header = (
        "judge",
        "whole matrix",
        "settled",
        "against it",
        "mean labels to settle",
        "p90",
        "fixed plan",
        "labels bought",
    )
    rows = [
        (
            row["judge"],
            row["reference"],
            f"{100 * row['settled']:.0f}%",
            f"{100 * row['settled_against_reference']:.0f}%",
            "-" if row["mean_labels_to_settle"] is None else f"{row['mean_labels_to_settle']:.0f}",
            "-" if row["p90_labels_to_settle"] is None else str(row["p90_labels_to_settle"]),
            str(row["fixed_labels"]),
            str(row["secondary_labels"]),
        )
        for row in document["judges"]
    ]
    return "\n".join([*lines, *markdown_table(header, rows)])
