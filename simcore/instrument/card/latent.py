"""Judge cards measured against the latent truth of the calibration panel (``--truth latent``).

A majority card (:func:`~simcore.instrument.card.measure.measure_card`) counts the judge's
errors against the humans' majority. A latent card reads the judge's TPR and TNR from a
latent-class fit of the humans and the judge (:mod:`simcore.calibration.latent`), with
percentile bootstrap intervals, and keeps:

- ``counts``: the effective counts (whole binomial counts with the latent rates and their
  bootstrap variance), which ``calibrate --card`` and ``card --check`` read as they read a
  majority card's counts;
- ``truth``: ``kind`` ``latent``, how it was fitted (``fit``), the settings to refit a new
  sample the same way (``settings``), the latent FAIL share, and the rates the fit predicts
  against one human's label (``audit``: what ``simcore monitor``'s single-human audits
  measure when nothing has drifted);
- ``majority``: the majority-gold counts, rates and J, labelled as such.

A majority card carries ``truth`` ``{"kind": "majority", ...}``; a card without ``truth``
(written before it existed) was measured against the majority.
"""

import numpy as np

from simcore.calibration.latent import LatentSettings, binary_error, binary_panel
from simcore.instrument.card.measure import (
    count_outcomes,
    judge_outcomes,
    usability,
)
from simcore.instrument.card.truth import truth_statement
from simcore.instrument.fail_definitions import label_fail_flags

BOOTSTRAP_METHOD = "percentile bootstrap over items ({boot} refits of the latent fit)"
"""How a latent card's intervals are built."""


def binary_against_truths(matrix, judge, definition, latent, label_set):
    """Return ``(majority_counts, n_tied, latent_error)`` of ``judge`` on a binarised matrix.

    ``majority_counts`` is the :class:`~simcore.instrument.card.measure.CardCounts` against
    the majority (:func:`~simcore.instrument.card.measure.judge_outcomes`) and
    ``latent_error`` the :class:`~simcore.calibration.latent.BinaryError` of the latent fit
    under ``latent`` (:class:`~simcore.calibration.latent.LatentSettings`). An answer
    outside ``label_set`` is an error under both truths.
    """
    truth_fail, judge_fail, parsed, n_tied = judge_outcomes(matrix, judge, definition, label_set)
    majority = count_outcomes(truth_fail, judge_fail, parsed)
    parsed_of_code = np.array([label in label_set for label in matrix.labels], dtype=bool)
    fail_of_code = label_fail_flags(matrix.labels, definition, parsed_of_code)
    codes, _ = binary_panel(matrix, judge, fail_of_code, parsed_of_code, matrix.slots)
    return majority, n_tied, binary_error(codes, latent, matrix.source)


def latent_settings(card, confidence=None):
    """Return the :class:`LatentSettings` a latent card was measured with (to refit a sample)."""
    settings = card["truth"]["settings"]
    return LatentSettings(
        settings["truth_model"],
        settings["boot"],
        settings["seed"],
        card["confidence"] if confidence is None else confidence,
    )


def _rate(estimate):
    return estimate.to_dict()


def latent_card(card, error, settings):
    """Return ``card`` (a majority card's fields) measured against the latent truth instead.

    Parameters
    ----------
    card : dict
        The card :func:`~simcore.instrument.card.measure.measure_card` measured on the same
        matrix (its majority figures move into ``majority``).
    error : simcore.calibration.latent.BinaryError
        The judge's error against the latent truth.
    settings : LatentSettings
        How it was fitted (recorded, so ``card --check`` refits a new sample the same way).
    """
    from simcore.instrument.card.measure import cohen_kappa

    caught, missed, flagged, cleared = error.counts
    n_fail, n_pass = caught + missed, flagged + cleared
    j = error.youden_j
    usable, _, reason = usability(j.estimate, j.low, card["youden_floor"], n_fail, n_pass)
    audit_caught, audit_missed, audit_flagged, audit_cleared = error.audit_counts
    truth = truth_statement("latent", error.fit)
    truth.update(
        {
            "settings": {
                "truth_model": settings.model,
                "boot": settings.boot,
                "seed": settings.seed,
            },
            "fail_prevalence": _rate(error.fail_prevalence),
            "audit": {
                "tpr": _rate(error.audit_tpr),
                "tnr": _rate(error.audit_tnr),
                "counts": {
                    "caught": audit_caught,
                    "missed": audit_missed,
                    "flagged": audit_flagged,
                    "cleared": audit_cleared,
                },
            },
        }
    )
    majority = {
        key: card[key]
        for key in ("n_tied_excluded", "n", "n_fail", "n_pass", "counts", "tpr", "tnr", "youden_j")
    }
    majority["kappa"] = card["kappa"]
    latent = dict(card)
    latent.update(
        {
            "n_tied_excluded": 0,
            "n": n_fail + n_pass,
            "n_fail": n_fail,
            "n_pass": n_pass,
            "counts": {"caught": caught, "missed": missed, "flagged": flagged, "cleared": cleared},
            "tpr": _rate(error.tpr),
            "tnr": _rate(error.tnr),
            "kappa": cohen_kappa(caught, missed, flagged, cleared),
            "youden_j": {
                **_rate(j),
                "method": BOOTSTRAP_METHOD.format(boot=settings.boot),
            },
            "usable_for_rate_correction": usable,
            "reason": reason,
        }
    )
    ordered = {}
    for key, value in latent.items():
        ordered[key] = value
        if key == "fail_definition":
            ordered["truth"] = truth
    ordered["majority"] = majority
    return ordered
