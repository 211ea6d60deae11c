"""What a judge card was measured against: the humans' majority or the latent truth.

Every card states it in ``truth`` (``kind``, ``text``; a latent card adds how it was fitted,
:mod:`simcore.instrument.card.latent`). A card written before cards recorded their truth has
no ``truth`` key and was measured against the majority.
"""

MAJORITY_TEXT = "the humans' majority label of each item (a tie leaves the item out)"
"""How the majority truth is formed, as every output states it."""

LATENT_TEXT = (
    "the latent true label of a latent-class fit of the humans and the judge (the humans may "
    "err; raters independent given the truth)"
)
"""How the latent truth is formed, as every output states it."""


def truth_statement(kind, fit=None):
    """Return a ``truth`` field: ``kind``, ``text`` and, for the latent truth, the fit."""
    statement = {"kind": kind, "text": MAJORITY_TEXT if kind == "majority" else LATENT_TEXT}
    if fit is not None:
        statement["fit"] = fit.to_dict()
    return statement


def card_truth(card):
    """Return a card's ``truth`` (a card without one was measured against the majority)."""
    recorded = card.get("truth")
    return truth_statement("majority") if recorded is None else dict(recorded)


def truth_lines(card):
    """Return the lines stating a card's truth (a latent card: the majority's figures too)."""
    truth = card_truth(card)
    lines = [f"truth: {truth['kind']}: {truth['text']}"]
    if truth["kind"] != "latent":
        return lines
    fit = truth["fit"]
    lines.append(
        f"latent fit: {fit['model']} ({fit['reason']}) on {fit['items']} items, "
        f"{'converged' if fit['converged'] else 'NOT converged'}; intervals: "
        f"{card['youden_j']['method']}; counts are effective counts"
    )
    majority = card["majority"]
    shift = []
    for name in ("tpr", "tnr"):
        latent_value, gold = card[name]["estimate"], majority[name]["estimate"]
        if latent_value is not None and gold is not None:
            shift.append(f"{name.upper()} {latent_value - gold:+.3f}")
    lines.append(
        f"majority gold (for comparison): TPR {_text(majority['tpr'])}, TNR "
        f"{_text(majority['tnr'])} (Wilson; {majority['n_tied_excluded']} tied items "
        f"excluded); latent - majority: {', '.join(shift) or 'n/a'}"
    )
    return lines


def _text(rate):
    if rate["estimate"] is None:
        return "n/a"
    return f"{rate['estimate']:.3f} [{rate['low']:.3f}, {rate['high']:.3f}]"
