"""The bitset engine: a trial's labels and masks as bitsets of 64-bit words.

A trial is drawn as label planes and mask words (draws, on the random words and exact
Bernoulli bitsets of words), the point rule's pair margins are popcounts of ANDs (margins),
the interval verdict and the alternative annotator test read per-item counts from the same
words (verdicts), clustered items get their own lane classes (clusters), and trials runs a
cell's trials in parallel with its own stream version (``BITSET_STREAMS``).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "BITSET_STREAMS",
    "CLUSTER_WORDS_LIMIT",
    "class_words",
    "planes_model",
    "simulate_bitset",
    "symmetric_accuracies",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "clusters": (
            "CLUSTER_WORDS_LIMIT",
            "class_words",
        ),
        "draws": (
            "planes_model",
            "symmetric_accuracies",
        ),
        "trials": (
            "BITSET_STREAMS",
            "simulate_bitset",
        ),
    },
)
