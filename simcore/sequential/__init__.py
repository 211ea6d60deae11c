"""The anytime-valid verdict: label until the verdict is settled, at any number of looks.

Each comparison's per-item terms, frozen at the look an item entered (terms); the settled or
open verdict of a judge from their betting capital, for the leave-one-out rule and the
alternative annotator test (verdict); the record of the looks already taken (looks); the
synthetic validations that show its error under optional stopping and size the next round
(simulation, next_round). It uses the betting e-processes of :mod:`simcore.calibration` and
the overlap designs of :mod:`simcore.advisor`.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "OPEN",
    "RULES",
    "Replay",
    "SCORING",
    "SETTLED_ACCEPT",
    "SETTLED_REJECT",
    "Look",
    "LookRecord",
    "RoundSize",
    "SequentialSettings",
    "StoppingRates",
    "SyntheticPanel",
    "check_record",
    "comparison_sequence",
    "entry_looks",
    "item_order",
    "item_terms",
    "judge_verdict",
    "judges_at_look",
    "look_snapshots",
    "matrix_cells",
    "new_record",
    "optional_stopping",
    "population_margin",
    "read_look_record",
    "replay_judge",
    "replay_text",
    "settle_text",
    "size_round",
    "synthetic_panel",
    "with_new_look",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "terms": ("RULES", "comparison_sequence", "entry_looks", "item_order", "item_terms"),
        "verdict": (
            "OPEN",
            "SETTLED_ACCEPT",
            "SETTLED_REJECT",
            "SequentialSettings",
            "judge_verdict",
        ),
        "looks": (
            "SCORING",
            "Look",
            "LookRecord",
            "check_record",
            "look_snapshots",
            "matrix_cells",
            "new_record",
            "read_look_record",
            "with_new_look",
        ),
        "next_round": ("RoundSize", "size_round"),
        "replay": ("Replay", "replay_judge"),
        "report": ("replay_text", "settle_text"),
        "session": ("judges_at_look",),
        "simulation": (
            "StoppingRates",
            "SyntheticPanel",
            "optional_stopping",
            "population_margin",
            "synthetic_panel",
        ),
    },
)
