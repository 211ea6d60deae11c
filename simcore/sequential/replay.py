"""A finished validation replayed in rounds: what the sequential design would have spent.

A real matrix holds the labels a team bought at one fixed size. Replaying it in rounds asks
what the sequential verdict would have needed: the primary (the first human) has labelled
its items before the first round; each secondary's labels are revealed ``round_size`` per
round in an order drawn at random (the exact_m design on the items it labelled), and after
each round both readings are taken (:func:`simcore.sequential.rounds.read_rounds`): the
sequential verdict and the fixed-size point rule. The reference is the decision of the
fixed rule on the whole matrix (the sparse-overlap paper's dense reference; the matrix's
own decision, not a population truth). Over ``orders`` random orders: how often and how
soon the sequential verdict settled and on which side, and the smallest round from which
the fixed rule agrees with the whole matrix's decision in all but ``alpha`` of the orders
(the fixed plan at the same error).
"""

from dataclasses import dataclass

import numpy as np

from simcore.sequential.rounds import read_rounds


@dataclass(frozen=True)
class Replay:
    """One judge's matrix replayed in ``orders`` random orders (module docstring).

    Attributes
    ----------
    orders, round_size, rounds : int
        Orders replayed, labels per secondary per round, rounds until every label is in.
    reference_accepts : bool
        The fixed rule's decision on the whole matrix.
    settle_looks : numpy.ndarray
        ``(orders,)`` the look each order settled at (0: never).
    verdicts : numpy.ndarray
        ``(orders,)`` +1 settled accept, -1 settled reject, 0 open.
    fixed_wrong : numpy.ndarray
        ``(rounds,)`` share of orders whose fixed rule at that look disagrees with the
        reference.
    primary_labels : int
        The primary's labels, all in before the first look.
    labels_at : numpy.ndarray
        ``(rounds,)`` the secondaries' labels revealed by each look (the same in every
        order: each secondary reveals ``round_size`` a round until it has no more).
    """

    orders: int
    round_size: int
    rounds: int
    reference_accepts: bool
    settle_looks: np.ndarray
    verdicts: np.ndarray
    fixed_wrong: np.ndarray
    primary_labels: int
    labels_at: np.ndarray

    def to_dict(self, alpha):
        """Return the replay's summary; labels are the secondaries' (the primary's apart).

        ``mean_labels_to_settle`` over the orders that settled, ``p90_labels_to_settle``
        by which 90% of the orders had settled (None: fewer settled); ``fixed_labels``
        from which the fixed rule agrees with the whole matrix's decision in all but
        ``alpha`` of the orders.
        """
        spent = [self.labels_at[look - 1] for look in self.settle_looks if look]
        above = np.flatnonzero(self.fixed_wrong > alpha)
        fixed_look = int(above[-1]) + 2 if above.size else 1
        ordered = np.sort(np.where(self.settle_looks > 0, self.settle_looks, self.rounds + 1))
        p90_look = int(ordered[int(np.ceil(0.9 * self.orders)) - 1])
        reference = 1 if self.reference_accepts else -1
        return {
            "orders": self.orders,
            "round_size": self.round_size,
            "rounds": self.rounds,
            "primary_labels": self.primary_labels,
            "secondary_labels": int(self.labels_at[-1]),
            "reference": "accept" if self.reference_accepts else "reject",
            "settled": float((self.settle_looks > 0).mean()),
            "settled_accept": float((self.verdicts == 1).mean()),
            "settled_reject": float((self.verdicts == -1).mean()),
            "settled_against_reference": float(
                ((self.verdicts != 0) & (self.verdicts != reference)).mean()
            ),
            "mean_labels_to_settle": float(np.mean(spent)) if spent else None,
            "p90_labels_to_settle": (
                int(self.labels_at[p90_look - 1]) if p90_look <= self.rounds else None
            ),
            "fixed_labels": int(self.labels_at[fixed_look - 1]),
        }


def replay_rounds(rng, available, round_size):
    """Return ``(n, K)`` reveal rounds: the primary's labels 0, each secondary's at random."""
    rounds = np.where(available, 0, np.iinfo(np.int64).max // 2).astype(np.int64)
    for k in range(1, available.shape[1]):
        items = np.flatnonzero(available[:, k])
        order = rng.permutation(items.size)
        rounds[items[order], k] = np.arange(items.size) // round_size + 1
    return rounds


def replay_judge(humans, judge, settings, round_size, orders, seed):
    """Return the :class:`Replay` of one judge (module docstring).

    Parameters
    ----------
    humans : numpy.ndarray
        ``(n, K)`` human codes, negative where not labelled; the first column the primary.
    judge : numpy.ndarray
        ``(n,)`` the judge's codes.
    settings : SequentialSettings
        Rule (``point``), eps, alpha, tau.
    round_size : int
        Labels each secondary reveals per round.
    orders : int
        Random orders replayed; order ``o`` draws from ``SeedSequence([seed, o])``.
    seed : int
        Root seed.
    """
    available = humans >= 0
    most = int(available[:, 1:].sum(axis=0).max()) if humans.shape[1] > 1 else 0
    last = max(1, -(-most // round_size))
    looks, verdicts = np.zeros(orders, dtype=np.int64), np.zeros(orders, dtype=np.int64)
    wrong = np.zeros(last)
    reference = None
    for order in range(orders):
        rng = np.random.default_rng(np.random.SeedSequence([seed, order]))
        rounds = replay_rounds(rng, available, round_size)
        look, verdict, fixed = read_rounds(humans, judge, rounds, settings, last)
        reference = bool(fixed[-1]) if reference is None else reference
        looks[order], verdicts[order] = look, verdict
        wrong += fixed != reference
    counts = available[:, 1:].sum(axis=0)
    labels_at = np.minimum(counts[None, :], round_size * np.arange(1, last + 1)[:, None]).sum(
        axis=1
    )
    return Replay(
        orders,
        round_size,
        last,
        bool(reference),
        looks,
        verdicts,
        wrong / orders,
        int(available[:, 0].sum()),
        labels_at,
    )
