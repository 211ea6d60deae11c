"""Simulated validations labelled round by round: when the sequential verdict settles.

A synthetic panel (:func:`synthetic_panel`): ``n`` items with a true label uniform over
``L`` labels; each of ``K`` humans labels an item with probability ``coverage`` (the
bernoulli design; ``coverage = 1`` is a dense panel), correctly with probability
``human_accuracy`` and otherwise with one of the other labels uniformly; the judge labels
every item, correctly with probability ``judge_accuracy``. Items arrive in rounds of
``round_size``; after each round (a *look*) the team reads its verdict and stops or labels
another round. Every item is labelled in full in the round it arrives, so its terms enter
the comparisons at that look (:mod:`simcore.sequential.terms`).

:func:`optional_stopping` reads, in the same trials, the sequential verdict
(:mod:`simcore.sequential.verdict`) and the fixed-size point rule (docs/explanation/rule.md)
after every look, and returns how often each ever reads accept and reject, and the labels
spent when the sequential verdict settles. The judge's population margin
(:func:`population_margin`) says which reading is right.
"""

import math
from dataclasses import dataclass

import numpy as np

from simcore.sequential.rounds import read_rounds


@dataclass(frozen=True)
class SyntheticPanel:
    """The synthetic model of a validation labelled in rounds (module docstring).

    Attributes
    ----------
    n_humans : int
        K, at least 2.
    human_accuracy, judge_accuracy : float
        Probability of the true label, in (0, 1].
    coverage : float
        Probability that a human labels an item, in (0, 1].
    n_labels : int
        L, at least 2.
    round_size : int
        Items per round (per look).
    rounds : int
        Rounds before the budget runs out.
    """

    n_humans: int = 3
    human_accuracy: float = 0.85
    judge_accuracy: float = 0.85
    coverage: float = 1.0
    n_labels: int = 2
    round_size: int = 25
    rounds: int = 40

    def __post_init__(self):
        integers = (("n_humans", 2), ("n_labels", 2), ("round_size", 1), ("rounds", 1))
        for name, low in integers:
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or value < low:
                raise ValueError(f"{name} must be an integer >= {low} (got {value!r})")
        for name in ("human_accuracy", "judge_accuracy", "coverage"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0.0 < value <= 1.0):
                raise ValueError(f"{name} must be in (0, 1] (got {value!r})")

    @property
    def n_items(self):
        """Items in the whole budget: ``round_size * rounds``."""
        return self.round_size * self.rounds


def synthetic_panel(rng, panel, trials):
    """Return ``(humans (T, n, K), judge (T, n))`` label codes; -1 where not labelled."""
    shape = (trials, panel.n_items)
    truth = rng.integers(0, panel.n_labels, size=shape)

    def noisy(accuracy, size):
        wrong = rng.random(size) >= accuracy
        shift = rng.integers(1, panel.n_labels, size=size)
        base = truth if len(size) == 2 else truth[..., None]
        return np.where(wrong, (base + shift) % panel.n_labels, base)

    humans = noisy(panel.human_accuracy, (*shape, panel.n_humans))
    labelled = rng.random((*shape, panel.n_humans)) < panel.coverage
    judge = noisy(panel.judge_accuracy, shape)
    return np.where(labelled, humans, -1), judge


def population_margin(panel):
    """Return the judge's population margin ``d`` of every comparison (all equal here).

    ``P(agree) = a b + (1 - a)(1 - b) / (L - 1)`` for two raters of accuracies ``a, b``
    with errors uniform over the other labels; ``d = P(judge, human) - P(human, human)``.
    """
    share = 1.0 / (panel.n_labels - 1)
    a, h = panel.judge_accuracy, panel.human_accuracy
    return (a * h + (1 - a) * (1 - h) * share) - (h * h + (1 - h) * (1 - h) * share)


@dataclass(frozen=True)
class StoppingRates:
    """How often each reading, taken after every look, ever said accept or reject.

    Attributes
    ----------
    trials : int
        Simulated validations.
    sequential_accept, sequential_reject : float
        Share of trials whose sequential verdict settled accept (reject) within the budget.
    fixed_accept, fixed_reject : float
        Share whose fixed-size point rule read accept (reject) at some look.
    labels_to_settle : numpy.ndarray
        Human labels spent when the sequential verdict settled, per settled trial.
    """

    trials: int
    sequential_accept: float
    sequential_reject: float
    fixed_accept: float
    fixed_reject: float
    labels_to_settle: np.ndarray

    def se(self, share):
        """Return the Monte Carlo SE ``sqrt(p (1 - p) / T)`` of a share."""
        return math.sqrt(max(share * (1.0 - share), 0.0) / self.trials)


def optional_stopping(panel, settings, trials, seed):
    """Return :class:`StoppingRates` of ``trials`` simulated validations (module docstring).

    Each trial's labels arrive whole with their item, item ``i`` in round
    ``i // round_size + 1``, and are read after every round by
    :func:`simcore.sequential.rounds.read_rounds`.
    """
    rng = np.random.default_rng(seed)
    humans, judge = synthetic_panel(rng, panel, trials)
    arrival = np.arange(panel.n_items) // panel.round_size + 1
    never = panel.rounds + 1
    verdicts = np.zeros(trials, dtype=np.int64)
    fixed_accept, fixed_reject = np.zeros(trials, bool), np.zeros(trials, bool)
    spent = []
    for trial in range(trials):
        labelled = humans[trial] >= 0
        rounds = np.where(labelled, arrival[:, None], never)
        look, verdicts[trial], fixed = read_rounds(
            humans[trial], judge[trial], rounds, settings, panel.rounds
        )
        fixed_accept[trial], fixed_reject[trial] = fixed.any(), (~fixed).any()
        if look:
            spent.append(int(labelled[: look * panel.round_size].sum()))
    return StoppingRates(
        trials,
        float((verdicts == 1).mean()),
        float((verdicts == -1).mean()),
        float(fixed_accept.mean()),
        float(fixed_reject.mean()),
        np.array(spent, dtype=np.int64),
    )
