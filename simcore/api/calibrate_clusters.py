"""``simcore.calibrate(cluster_column=...)``: the corrected failure rate of clustered items.

The calibration set is a per-item CSV with a cluster column
(:func:`simcore.calibration.item_csv.read_clustered_calibration`); production is a per-item
CSV with the same column (:func:`~simcore.calibration.item_csv.read_clustered_production`)
or the counts ``fails`` of ``of``, whose rows are then taken as independent. The result is
the calibrate report with cluster-robust intervals
(:func:`simcore.calibration.clustered.clustered_rates`).
"""

from simcore.api.results import ClusteredCalibrationResult
from simcore.calibration.errors import CalibrationInputError
from simcore.calibration.method_report import method_rows


def _number(value):
    value = float(value)
    return value if value == value else None


def clustered_calibration(sources, cluster_column, production, counts, method, settings):
    """Return the calibrate result of clustered items (see :func:`simcore.calibrate`).

    ``sources`` are calibrate's ``(data, table, card, csv)`` (only ``csv`` carries item
    clusters), ``counts`` its ``(fails, of)``, ``settings`` ``(confidence, youden_floor)``.
    """
    from simcore.calibration.clustered import clustered_rates
    from simcore.calibration.clustered_report import format_clustered_report
    from simcore.calibration.item_csv import (
        read_clustered_calibration,
        read_clustered_production,
    )
    from simcore.calibration.methods import METHODS
    from simcore.calibration.statistics import judge_rates

    data, table, card, csv = sources
    if csv is None:
        given = "data" if data is not None else "table" if table is not None else "card"
        raise CalibrationInputError(
            f"cluster_column: clusters are read from a per-item csv; {given} has no item "
            f"clusters (got {given} with cluster_column={cluster_column!r})"
        )
    fails, of = counts
    if (production is None) == (fails is None):
        raise CalibrationInputError(
            "production: give a per-item production CSV or fails/of, one of them "
            f"(got production={production!r}, fails={fails!r})"
        )
    _, *calibration = read_clustered_calibration(csv, cluster_column)
    if production is not None:
        _, production_fails, production_rows = read_clustered_production(production, cluster_column)
    else:
        if of is None or of < 1 or not 0 <= fails <= of:
            raise CalibrationInputError(
                f"--fails/--of: need 0 <= fails <= N, N >= 1 (got {fails}/{of})"
            )
        production_fails, production_rows = fails, of
    confidence, youden_floor = settings
    chosen = METHODS if method == "all" else (method,)
    try:
        clustered = clustered_rates(
            production_fails,
            production_rows,
            *calibration,
            confidence=confidence,
            youden_floor=youden_floor,
            methods=chosen,
            independent_production=production is None,
        )
    except ValueError as error:
        raise CalibrationInputError(f"{csv}: {error}") from None
    text = format_clustered_report(clustered, cluster_column, confidence, youden_floor)
    rates = judge_rates(*clustered.effective_counts[2:], confidence=confidence)
    document = _document(clustered, cluster_column, rates)
    return ClusteredCalibrationResult("calibrate", document, text, {"methods": "methods"})


def _document(clustered, cluster_column, rates):
    """Return the JSON document of a clustered calibration report (``rates``: TPR, TNR)."""
    fails, n, caught, missed, flagged, cleared = clustered.counts
    first = clustered.rates[0]
    return {
        "calibration": {
            "caught": caught,
            "missed": missed,
            "flagged": flagged,
            "cleared": cleared,
            "rows": caught + missed + flagged + cleared,
        },
        "tpr": {
            "estimate": _number(rates.tpr),
            "low": _number(rates.tpr_low),
            "high": _number(rates.tpr_high),
        },
        "tnr": {
            "estimate": _number(rates.tnr),
            "low": _number(rates.tnr_low),
            "high": _number(rates.tnr_high),
        },
        "production": {"fails": fails, "of": n},
        "clusters": {
            "column": cluster_column,
            "calibration": clustered.clusters,
            "production": clustered.production_clusters,
            "design_effects": {
                name: _number(value) for name, value in clustered.design_effects.items()
            },
        },
        "corrected": bool(first.corrected),
        "refusal": str(first.refusal),
        "estimate": _number(first.estimate),
        "interval": {
            "method": f"cluster-robust {first.method}",
            "low": _number(first.low),
            "high": _number(first.high),
        },
        "methods": method_rows(clustered.rates),
        "truth": {
            "kind": "given",
            "text": "the human truth of the per-item csv's human column, as given",
        },
    }
