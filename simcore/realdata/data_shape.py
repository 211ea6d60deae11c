"""A matrix's shape, named: dense panel, sparse panel or crowd, with the numbers behind the call.

The leave-one-out rule compares each held-out human with the others on the items they
share, so what a verdict rests on is the shape of the matrix more than its size:

- **dense panel**: every human labels every item;
- **sparse panel**: a fixed set of humans (fewer than :data:`CROWD_HUMANS`, or more who
  each label a large share of the items), each on part of the corpus;
- **crowd**: at least :data:`CROWD_HUMANS` humans whose median coverage is at most
  :data:`CROWD_COVERAGE`: many raters, few items each;
- **slots**: the human columns are label positions (slot 1 holds each item's first label),
  not people. Only the caller can say so (``--slots``, ``data.slots``); it is never guessed
  from the labels.

Beside the kind: each held-out human's comparison rests on the items it shares with
another human (``c_k = #{i : A_ik and m_i >= 2}``, ``m_i`` the humans on item ``i``); a
comparison is *empty* with ``c_k = 0`` and *thin* below :data:`THIN_ITEMS`. The
co-labelled pairs of labels, ``sum_i m_i (m_i - 1) / 2``, are *concentrated* when half of
them rest on at most :data:`FEW_ITEMS` items or 1% of the items with a pair, whichever is
more, and on at most a tenth of those items: then a few items carry most raters and pair
statistics weighted per pair of raters rest on them.
"""

from dataclasses import dataclass

import numpy as np

from simcore.model.rule_form import resolve_form

CROWD_HUMANS = 20
"""At least this many humans, each on a small share of the items, make a crowd."""

CROWD_COVERAGE = 0.2
"""A crowd's median human labels at most this share of the items."""

THIN_ITEMS = 10
"""A comparison sharing fewer items than this with the other humans is thin."""

FEW_ITEMS = 2
"""Half the co-labelled pairs on at most this many items (or 1% of them) is concentrated."""


@dataclass(frozen=True)
class DataShape:
    """The shape of an annotation matrix's human part (:func:`data_shape`).

    Attributes
    ----------
    kind : str
        ``dense panel``, ``sparse panel``, ``crowd``, ``slots`` or ``no humans``.
    humans, items : int
        K and n.
    items_per_human : tuple
        ``(min, median, max)`` of the items each human labels.
    median_coverage : float
        The median human's share of the items.
    comparison_items : tuple
        ``(min, median, max)`` of ``c_k``, the items each held-out human shares.
    thin_share, empty_share : float
        Shares of the K comparisons with ``c_k < THIN_ITEMS`` and with ``c_k = 0``.
    half_pairs_items : int
        The fewest items that carry half of the co-labelled pairs of labels.
    concentrated : bool
        Whether those items are at most ``max(FEW_ITEMS, 1%)`` and at most 10% of the
        items with a pair.
    """

    kind: str
    humans: int
    items: int
    items_per_human: tuple
    median_coverage: float
    comparison_items: tuple
    thin_share: float
    empty_share: float
    half_pairs_items: int
    concentrated: bool

    def text(self):
        """Return the two ``shape:`` lines ``simcore inspect`` prints."""
        if self.kind == "no humans":
            return "shape: no humans (nothing to compare a judge with)"
        low, median, high = self.items_per_human
        lines = [
            f"shape: {self.kind} ({self.humans} {'slots' if self.kind == 'slots' else 'humans'}; "
            f"items per human min {low}, median "
            f"{median:g}, max {high}; median coverage {self.median_coverage:.1%})",
            f"  comparisons (a held-out human against the others): items shared min "
            f"{self.comparison_items[0]}, median {self.comparison_items[1]:g}; "
            f"{self.thin_share:.1%} thin (< {THIN_ITEMS} items), {self.empty_share:.1%} empty",
        ]
        form = self.auto_form()
        lines.append(
            f"  rule form under auto (rule.form, advise --form): {form.form}, min_comparisons "
            f"{form.min_comparisons}"
        )
        if self.concentrated:
            lines.append(
                f"  concentrated: half of the co-labelled pairs of labels rest on "
                f"{self.half_pairs_items} item{'s' if self.half_pairs_items != 1 else ''}"
            )
        return "\n".join(lines)

    def auto_form(self):
        """Return the rule form ``auto`` picks on this shape.

        See :func:`simcore.model.rule_form.resolve_form`.
        """
        return resolve_form("auto", self.kind, concentrated=self.concentrated)

    def to_dict(self):
        """Return the shape as plain numbers (``inspect --json``'s ``shape``)."""
        return {
            "auto_rule_form": self.auto_form().to_dict(),
            "kind": self.kind,
            "humans": self.humans,
            "items": self.items,
            "items_per_human": dict(
                zip(("min", "median", "max"), self.items_per_human, strict=True)
            ),
            "median_coverage": self.median_coverage,
            "comparison_items": dict(
                zip(("min", "median", "max"), self.comparison_items, strict=True)
            ),
            "thin_items": THIN_ITEMS,
            "thin_share": self.thin_share,
            "empty_share": self.empty_share,
            "half_pairs_items": self.half_pairs_items,
            "concentrated": self.concentrated,
        }


def _spread(values):
    return int(values.min()), float(np.median(values)), int(values.max())


def shared_items(available):
    """Return ``c_k = #{i : A_ik and m_i >= 2}``, the items each held-out human shares, ``(K,)``."""
    available = np.asarray(available, dtype=bool)
    paired = available.sum(axis=1) >= 2
    return (available & paired[:, None]).sum(axis=0)


def half_weight_items(weights):
    """Return the fewest items holding half of ``sum_i w_i``, heaviest first (none: ``()``)."""
    weights = np.asarray(weights, dtype=np.float64)
    total = weights.sum()
    if total <= 0:
        return ()
    order = np.argsort(-weights, kind="stable")
    half = int(np.searchsorted(np.cumsum(weights[order]), total / 2) + 1)
    return tuple(int(i) for i in order[:half])


def heavy_items(weights):
    """Return :func:`half_weight_items` when a few items carry the weight, else ``()``.

    A few: at most ``max(FEW_ITEMS, 1%)`` of the ``n_w`` items with weight, and at most
    ``n_w / 10`` of them (the *concentrated* rule of this module's docstring).
    """
    half = half_weight_items(weights)
    weighted = int((np.asarray(weights) > 0).sum())
    few = 0 < len(half) <= max(FEW_ITEMS, weighted // 100) and len(half) <= weighted / 10
    return half if few else ()


def half_pairs_items(per_item):
    """Return the fewest items holding half of ``sum_i m_i (m_i - 1) / 2`` (0 without pairs)."""
    return len(half_weight_items(pair_weights(per_item)))


def pair_weights(per_item):
    """Return each item's co-labelled pairs of labels, ``m_i (m_i - 1) / 2``."""
    per_item = np.asarray(per_item, dtype=np.int64)
    return per_item * (per_item - 1) // 2


def classify(humans, items, median_coverage, dense, slots=False):
    """Return the kind of a matrix of ``humans`` x ``items`` (see the module)."""
    if humans == 0 or items == 0:
        return "no humans"
    if slots:
        return "slots"
    if dense:
        return "dense panel"
    if humans >= CROWD_HUMANS and median_coverage <= CROWD_COVERAGE:
        return "crowd"
    return "sparse panel"


def data_shape(matrix):
    """Return the :class:`DataShape` of ``matrix``'s humans (``available``: items x K).

    Costs a pass over the ``n x K`` availability the matrix already holds.
    """
    available = np.asarray(matrix.available, dtype=bool)
    n_items, n_humans = available.shape
    if n_humans == 0 or n_items == 0:
        zeros = (0, 0.0, 0)
        return DataShape("no humans", n_humans, n_items, zeros, 0.0, zeros, 0.0, 0.0, 0, False)
    per_human = available.sum(axis=0)
    per_item = available.sum(axis=1).astype(np.int64)
    shared = shared_items(available)
    coverage = float(np.median(per_human) / n_items)
    weights = pair_weights(per_item)
    half = len(half_weight_items(weights))
    return DataShape(
        kind=classify(
            n_humans, n_items, coverage, bool(available.all()), getattr(matrix, "slots", False)
        ),
        humans=n_humans,
        items=n_items,
        items_per_human=_spread(per_human),
        median_coverage=coverage,
        comparison_items=_spread(shared),
        thin_share=float((shared < THIN_ITEMS).mean()),
        empty_share=float((shared == 0).mean()),
        half_pairs_items=half,
        concentrated=bool(heavy_items(weights)),
    )
