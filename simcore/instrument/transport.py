"""Transporting a judge's card: Se/Sp measured on one group, the correction applied to another.

A judge card (Se, Sp measured against human truth on a calibration set) is valid for the
population the calibration set was drawn from. Users often measure it once, on one
criterion or one slice, and apply the Lang-Reiczigel corrected failure rate
(:func:`simcore.calibration.statistics.corrected_failure_rate`) to another. This module
measures what that costs, with the machinery of :mod:`simcore.calibration.real.splits`:

1. Each group ``g`` (with ``n_g`` items that have a truth) gets ``n_splits`` random splits
   per calibration size ``n_cal`` (:func:`~simcore.calibration.real.splits.draw_splits`):
   a calibration set of ``n_cal`` items and a stream of the other ``n_g - n_cal``.
2. *Same population*: the card of ``B``'s calibration set corrects ``B``'s stream.
3. *Transported*: the card of ``A``'s calibration set (split ``s`` of ``A``) corrects
   ``B``'s stream (split ``s`` of ``B``), so both arms see the same streams.
4. Either interval covers when it holds the truth's fail rate on the stream (within
   ``COVERAGE_SLACK``); coverage is over the splits where the correction was not refused.

The expected failure: when Se, Sp differ between ``A`` and ``B``, the transported estimate
``RG(q_B; Se_A, Sp_A)`` converges to a wrong rate, and no calibration size repairs it.
:func:`transport_bias` gives that limit's error on the full groups.

Seeding: the splits of group ``g`` at size ``n_cal`` use ``default_rng(SeedSequence([seed,
crc32(dataset), crc32(g), n_cal]))``, whatever the other groups, judges or rows run; every
judge sees the same splits (common random numbers), and a row can be rerun alone.
"""

import math
import zlib

import numpy as np

from simcore.calibration.real.splits import (
    draw_splits,
    full_rates,
    share_with_se,
    split_counts,
    split_results,
)
from simcore.calibration.statistics import DEFAULT_YOUDEN_FLOOR, rogan_gladen

DEFAULT_N_CALS = (50, 100, 200)
"""Calibration-set sizes of the default run."""

DEFAULT_SPLITS = 1000
"""Random splits per (group, n_cal)."""

DEFAULT_SEED = 2031
"""First entry of every group's SeedSequence."""

MIN_STREAM = 30
"""A group is a target at size ``n_cal`` only when its stream keeps at least this many items."""


def split_key(seed, dataset, group, n_cal):
    """Return the SeedSequence entropy of one group's splits at one calibration size."""
    crc = [zlib.crc32(str(text).encode("utf-8")) for text in (dataset, group)]
    return [int(seed), *crc, int(n_cal)]


def group_splits(n_items, n_cal, n_splits, seed, dataset, group):
    """Return the calibration items ``(n_splits, n_cal)`` of a group's seeded splits."""
    rng = np.random.default_rng(np.random.SeedSequence(split_key(seed, dataset, group, n_cal)))
    calibration, _ = draw_splits(n_items, n_cal, n_splits, rng)
    return calibration


def transport_splits(
    source,
    target,
    calibration_source,
    calibration_target,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Check the corrected rate's intervals, card from the source vs from the target.

    Parameters
    ----------
    source, target : tuple of (numpy.ndarray, numpy.ndarray)
        ``(truth_fail, judge_fail)`` bool ``(n,)`` flags of each group's items.
    calibration_source, calibration_target : numpy.ndarray
        int ``(S, n_cal)`` calibration items of each group's ``S`` splits; the target's
        stream of split ``s`` is every target item not in ``calibration_target[s]``.
    confidence, youden_floor : float, optional
        As in :func:`simcore.calibration.statistics.corrected_failure_rate`.

    Returns
    -------
    transported, same : dict of str to numpy.ndarray
        Per-split arrays of :func:`simcore.calibration.real.splits.coverage_splits`
        (``covered_lr``, ``width_lr``, ``refused``, ``estimate``, ...): the card of the
        source's calibration set, and of the target's own, on the target's stream.
    """
    n_splits = calibration_target.shape[0]
    if calibration_source.shape != calibration_target.shape:
        raise ValueError(
            "the source's and target's splits must have one shape (got "
            f"{calibration_source.shape} and {calibration_target.shape})"
        )
    own = split_counts(*target, calibration_target)
    card = split_counts(*source, calibration_source)
    transported = split_results(_moved(card, own), n_splits, confidence, youden_floor)
    same = split_results(own, n_splits, confidence, youden_floor)
    return transported, same


def _moved(card, own):
    """Return the target's stream counts with the source's calibration table (the card moved)."""
    return own._replace(
        fail_caught=card.fail_caught,
        fail_missed=card.fail_missed,
        pass_flagged=card.pass_flagged,
        pass_cleared=card.pass_cleared,
    )


def transport_bias(source, target):
    """Return ``RG(q_B; Se_A, Sp_A) - theta_B`` on the full groups, and its parts.

    Parameters
    ----------
    source, target : tuple of (numpy.ndarray, numpy.ndarray)
        ``(truth_fail, judge_fail)`` flags of groups ``A`` and ``B``.

    Returns
    -------
    dict of str to float
        ``bias`` (the transported Rogan-Gladen rate, clipped to [0, 1], minus ``B``'s true
        fail rate: what the transported estimate converges to as ``n_cal`` and the stream
        grow), ``se_source``, ``sp_source``, ``se_target``, ``sp_target``,
        ``prevalence_source``, ``prevalence_target``.
    """
    se_a, sp_a, _ = full_rates(*source)
    se_b, sp_b, _ = full_rates(*target)
    truth_b, judge_b = target
    theta_b = float(np.mean(truth_b))
    limit = float(rogan_gladen(float(np.mean(judge_b)), se_a, sp_a))
    return {
        "bias": limit - theta_b,
        "se_source": se_a,
        "sp_source": sp_a,
        "se_target": se_b,
        "sp_target": sp_b,
        "prevalence_source": float(np.mean(source[0])),
        "prevalence_target": theta_b,
    }


def _arm_fields(prefix, split):
    """Return ``<prefix>_coverage``, ``_se``, ``_width``, ``_refused`` of one arm's splits."""
    corrected = ~split["refused"]
    coverage, se = share_with_se(split["covered_lr"][corrected])
    width = float(np.mean(split["width_lr"][corrected])) if corrected.any() else math.nan
    return {
        f"{prefix}_coverage": coverage,
        f"{prefix}_se": se,
        f"{prefix}_width": width,
        f"{prefix}_refused": float(np.mean(split["refused"])),
    }


def transport_row(source, target, calibration_source, calibration_target, **options):
    """Return one row's coverage fields: transported and same-population, with the bias.

    ``source``, ``target`` and the calibration arrays are :func:`transport_splits`'s;
    ``options`` its ``confidence`` and ``youden_floor``.
    """
    transported, same = transport_splits(
        source, target, calibration_source, calibration_target, **options
    )
    return _row_fields(transported, same, source, target, calibration_target.shape)


def _row_fields(transported, same, source, target, splits_shape):
    """Return a row's fields from its two arms' split results and the two groups' flags."""
    n_splits, n_cal = splits_shape
    return {
        **_arm_fields("transported", transported),
        **_arm_fields("same", same),
        **transport_bias(source, target),
        "n_production": int(target[0].size - n_cal),
        "n_splits": int(n_splits),
    }


def transport_table(
    groups,
    judges,
    dataset,
    n_cals=DEFAULT_N_CALS,
    n_splits=DEFAULT_SPLITS,
    seed=DEFAULT_SEED,
    confidence=0.95,
    youden_floor=DEFAULT_YOUDEN_FLOOR,
):
    """Return a row per (source group, target group, judge, n_cal) of one data set.

    Parameters
    ----------
    groups : dict of str to tuple of (numpy.ndarray, numpy.ndarray)
        Group name -> ``(truth_fail, judge_fail)``: bool ``(n_g,)`` truth and bool
        ``(n_g, J)`` flags of the ``J`` judges, on the group's items that have a truth.
    judges : sequence of str
        The ``J`` judge names.
    dataset : str
        Name of the data set (rows and seeds carry it).
    n_cals : sequence of int, optional
        Calibration sizes; a pair is skipped at a size the source cannot supply
        (``n_cal >= n_A``) or that leaves the target a stream under :data:`MIN_STREAM`.
    n_splits, seed, confidence, youden_floor : optional
        Splits per (group, n_cal), the root seed (module docstring), the level and the
        Youden floor of the correction.

    Returns
    -------
    list of dict
        ``dataset``, ``source``, ``target``, ``judge``, ``n_cal``, the fields of
        :func:`transport_row` and ``seed_key_source``, ``seed_key_target``.
    """
    rows = []
    for n_cal in n_cals:
        splits = {
            name: group_splits(truth.size, n_cal, n_splits, seed, dataset, name)
            for name, (truth, _) in groups.items()
            if n_cal < truth.size
        }
        # each group's split counts and each target's same-population arm, once per judge
        counts = {
            (name, column): split_counts(truth, flags[:, column], splits[name])
            for name, (truth, flags) in groups.items()
            if name in splits
            for column in range(len(judges))
        }
        same = {}
        for target, (truth_b, flags_b) in groups.items():
            if truth_b.size - n_cal < MIN_STREAM:
                continue
            for source, (truth_a, flags_a) in groups.items():
                if source == target or source not in splits:
                    continue
                for column, judge in enumerate(judges):
                    own = counts[target, column]
                    if (target, column) not in same:
                        same[target, column] = split_results(
                            own, n_splits, confidence, youden_floor
                        )
                    transported = split_results(
                        _moved(counts[source, column], own), n_splits, confidence, youden_floor
                    )
                    fields = _row_fields(
                        transported,
                        same[target, column],
                        (truth_a, flags_a[:, column]),
                        (truth_b, flags_b[:, column]),
                        splits[target].shape,
                    )
                    rows.append(
                        {
                            "dataset": dataset,
                            "source": source,
                            "target": target,
                            "judge": judge,
                            "n_cal": int(n_cal),
                            **fields,
                            "seed_key_source": split_key(seed, dataset, source, n_cal),
                            "seed_key_target": split_key(seed, dataset, target, n_cal),
                        }
                    )
    return rows
