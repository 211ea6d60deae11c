"""The humans a verdict leans on too hard: pivotal comparisons and worse-than-chance humans.

Two checks of each judge's verdict, named in the summary, ``report.md`` and the JSON
(:func:`suspects_document`):

- **pivotal humans** (:func:`pivotal_humans`): the held-out humans whose comparison alone
  carries the verdict. Under the point rule comparison ``k`` passes when ``d_k >= -eps``
  and the judge is accepted when ``omega = passes / K >= tau``; a comparison is pivotal
  when flipping its outcome alone (pass to fail, or fail to pass) changes the decision:
  with ``omega = 5/10`` and ``tau = 0.5`` every passing comparison is. Under the
  alternative annotator test the same with each tested human's win.
- **below chance** (:func:`below_chance`): a human whose fitted accuracy, in the judge's
  latent-class model, is at or below chance, ``1 / L`` for ``L`` labels (the point
  estimate; its bootstrap SE is printed beside it). Beating such a human is no evidence
  for the judge, and a verdict that rests on that comparison rests on nothing.
"""

import math

from simcore.advisor.verdict import DECISIONS, point_verdict
from simcore.model.rule import decide_counts


def _decision_name(code):
    """Return a decision code of :mod:`simcore.model.rule` as the verdict rows name it."""
    return DECISIONS[int(code)]


def flipped_decisions(row, tau, min_pairs=0):
    """Return ``[(k, decision)]``: the decision with comparison ``k``'s outcome flipped alone.

    Point rule: comparison ``k``'s ``passes`` negated, omega recomputed over the comparisons
    kept (:func:`simcore.advisor.verdict.point_verdict`); alternative annotator test: tested
    human ``k``'s win negated, the winning rate recomputed (``wins / tested >= tau``). A
    comparison left out (fewer than ``min_pairs`` pairs) or a human not tested is skipped.
    """
    if "alt_test" in row:
        wins, tested = row["wins"], row["tested"]
        flips = []
        for k, test in enumerate(row["alt_test"]):
            if test["tested"]:
                changed = wins - 1 if test["won"] else wins + 1
                code = decide_counts(changed, tested - changed, tested, tau, kind="alt_test")
                flips.append((k, _decision_name(code)))
        return flips
    comparisons = row["comparisons"]
    flips = []
    for k, comparison in enumerate(comparisons):
        if comparison["pairs"] < min_pairs:
            continue
        flipped = [
            dict(c, passes=not c["passes"]) if i == k else c for i, c in enumerate(comparisons)
        ]
        flips.append((k, _decision_name(point_verdict(flipped, tau, min_pairs)[1])))
    return flips


def pivotal_humans(row, humans, tau, min_pairs=0):
    """Return ``(names, decision)``: the humans whose flipped comparison alone changes the verdict.

    ``decision`` is the verdict those flips give (None when no comparison is pivotal).
    """
    changed = [
        (k, new) for k, new in flipped_decisions(row, tau, min_pairs) if new != row["decision"]
    ]
    return [humans[k] for k, _ in changed], (changed[0][1] if changed else None)


def below_chance(model, humans, n_labels):
    """Return one dict per human whose fitted accuracy is at or below chance ``1 / L``.

    ``{"human", "accuracy", "se", "chance"}``, ``se`` the bootstrap SE of the accuracy;
    the accuracy is the judge's model's (one model per judge).
    """
    chance = 1.0 / n_labels
    rows = []
    for human in humans:
        if human not in model.rater_names:
            continue
        r = model.rater_names.index(human)
        accuracy = float(model.fit.accuracies[r])
        if accuracy <= chance:
            se = float(model.errors.accuracies[r])
            rows.append({"human": human, "accuracy": accuracy, "se": se, "chance": chance})
    return rows


def _accuracy_words(row, n_labels):
    """Return ``fitted accuracy 0.17 ± 0.04, at or below chance 0.20 on 5 labels``."""
    se = "" if math.isnan(row["se"]) else f" ± {row['se']:.2f}"
    return (
        f"fitted accuracy {row['accuracy']:.2f}{se}, at or below chance {row['chance']:.2f} "
        f"on {n_labels} labels"
    )


def suspects_document(advice):
    """Return ``--json``'s ``suspect_humans``: per judge its pivotal and worse-than-chance humans.

    ``{judge: {"decision", "pivotal_humans", "flipped_decision", "below_chance", "text"}}``:
    ``pivotal_humans`` the held-out humans whose comparison's outcome flipped alone changes
    the decision (to ``flipped_decision``), ``below_chance`` the humans whose fitted
    accuracy in the judge's model is at or below ``1 / L`` (:func:`below_chance`), ``text``
    the summary's line (None when there is nothing to say).
    """
    n_labels = len(advice.labels)
    tau = advice.tau
    document = {}
    for row in advice.verdicts:
        name = row["judge"]
        pivotal, flipped = pivotal_humans(row, advice.humans, tau, advice.min_pairs)
        model = advice.models.get(name)
        weak = below_chance(model, advice.humans, n_labels) if model is not None else []
        document[name] = {
            "decision": row["decision"],
            "pivotal_humans": pivotal,
            "flipped_decision": flipped,
            "below_chance": weak,
            "text": _suspect_text(name, row["decision"], pivotal, flipped, weak, n_labels),
        }
    return document


def _suspect_text(name, decision, pivotal, flipped, weak, n_labels):
    """Return the summary's line on one judge's suspect humans, or None."""
    if not pivotal and not weak:
        return None
    words = {row["human"]: _accuracy_words(row, n_labels) for row in weak}
    parts = []
    if pivotal:
        named = ", ".join(f"{h} ({words[h]})" if h in words else h for h in pivotal)
        count = "one comparison" if len(pivotal) == 1 else "any one of these comparisons"
        parts.append(
            f"the {decision} rests on comparisons with {named}; {count} flipping would make "
            f"it {flipped}"
        )
    others = [row["human"] for row in weak if row["human"] not in pivotal]
    if others:
        parts.append(
            "humans at or below chance, whose comparisons are not pivotal: "
            + ", ".join(f"{h} ({words[h]})" for h in others)
        )
    return f"{name}: " + "; ".join(parts)


def suspect_lines(advice):
    """Return the summary's lines on suspect humans, one per judge with something to say."""
    return [entry["text"] for entry in suspects_document(advice).values() if entry["text"]]


def suspect_section(advice):
    """Return ``report.md``'s paragraph on pivotal and worse-than-chance humans (or none)."""
    lines = suspect_lines(advice)
    if not lines:
        return []
    return [
        "",
        "Suspect humans. A comparison is *pivotal* when flipping its outcome alone (pass to "
        "fail, or fail to pass; a win under alt_test) changes the decision; a human is *at or "
        "below chance* when its fitted accuracy in the judge's model is at most 1/L for L "
        "labels (± bootstrap SE): beating such a human is no evidence for the judge.",
        "",
        *(f"- {line}" for line in lines),
        "",
    ]
