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
