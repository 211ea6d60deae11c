"""The latent-truth coverage study's tables and figure.

One table per label scale, one row per ``(n_humans, p_human, errors, n_cal)``: the judge's
error (bias, mean estimated minus true, with its SE) against the humans' majority and
against the latent truth side by side (TPR and TNR on two labels, the confusion matrix's
diagonal on five); the coverage of the corrected production rate's interval through each
(a refused correction counts as not covered); the refused share and the mean width; and
whether the latent coverage lies within 3 SEs of the confidence. The figure draws both
coverages against ``n_cal``.
"""

import math

import numpy as np

from simcore.printed_rates import rate_text
from simcore.studies.coverage_latent.cells import intervals_per_trial
from simcore.studies.figure_stamp import figure_metadata

ROW_DIMS = ("n_humans", "p_human", "errors", "n_cal")
"""The dims of a table's rows (one table per ``n_labels``)."""

MEASURES = {2: (("tpr", "TPR"), ("tnr", "TNR")), 5: (("diagonal", "diagonal"),)}
"""The error measures of each label scale: ``(variable prefix, printed name)``."""


def _bias(cell, name):
    """Return ``mean ± SE`` of an error measure (``n/a`` where no trial defined it)."""
    mean, se = float(cell[f"{name}_bias"]), float(cell[f"{name}_bias_se"])
    if math.isnan(mean):
        return "n/a"
    return f"{mean:+.3f}" + ("" if math.isnan(se) else f" ± {se:.3f}")


def _header(n_labels):
    measures = [
        f"{label} bias {estimator}"
        for _, label in MEASURES[n_labels]
        for estimator in ("majority", "latent")
    ]
    return (
        "H",
        "p_human",
        "errors",
        "n_cal",
        *measures,
        "coverage majority",
        "coverage latent",
        "refused majority / latent",
        "width majority / latent",
        "latent within 3 SE",
    )


def table_rows(cube, n_labels):
    """Return the rows (texts) of the ``n_labels`` table, one per cell of that scale."""
    scale = cube.sel(n_labels=n_labels)
    rows = []
    for index in np.ndindex(*(scale.sizes[dim] for dim in ROW_DIMS)):
        cell = scale.isel(dict(zip(ROW_DIMS, index, strict=True)))
        majority, latent = cell.sel(estimator="majority"), cell.sel(estimator="latent")
        trials = int(cell["n_trials"])
        slots = trials * intervals_per_trial(n_labels)
        biases = [
            _bias(side, name) for name, _ in MEASURES[n_labels] for side in (majority, latent)
        ]
        rows.append(
            (
                str(int(cell["n_humans"])),
                f"{float(cell['p_human']):g}",
                f"{cell['errors'].item()} (rho {float(cell['rho']):g})",
                str(int(cell["n_cal"])),
                *biases,
                rate_text(int(majority["n_covered"]), slots),
                rate_text(int(latent["n_covered"]), slots),
                f"{rate_text(int(majority['n_refused']), trials)} / "
                f"{rate_text(int(latent['n_refused']), trials)}",
                " / ".join(
                    "-" if math.isnan(float(side["width"])) else f"{float(side['width']):.3f}"
                    for side in (majority, latent)
                ),
                "yes" if bool(cell["latent_coverage_ok"]) else "NO",
            )
        )
    return rows


def _lines(cube):
    attrs = cube.attrs
    head = (
        f"{attrs.get('title', 'coverage-latent')}: {int(cube['n_trials'].max())} trials per "
        f"cell, seed {attrs.get('root_seed')}; judge accuracy {attrs['p_judge']:g}, "
        f"{attrs['production']} production items per trial, {attrs['boot']} bootstrap refits, "
        f"confidence {attrs['confidence']:g}, floor {attrs['youden_floor']:g}. Truth: "
        "`majority` reads the humans' majority as the truth (gold column; ties left out), "
        f"`latent` fits it by EM ({attrs['latent_model']}). Two labels (FAIL share "
        f"{attrs['prevalence_binary'][0]:g}): the judge's TPR and TNR, the corrected FAIL "
        "share with its Lang-Reiczigel interval; five labels (prevalence "
        f"{', '.join(f'{p:g}' for p in attrs['prevalence_scale'])}): the confusion matrix's "
        "diagonal (mean over labels), the corrected distribution with a percentile interval "
        "per label. `bias`: mean estimated minus true, ± its SE; `coverage`: % of trials (of "
        "labels x trials on five labels) whose interval covers the production stream's true "
        "share, ± binomial SE ([l, u]: exact 95% interval with under 10 misses); a refused "
        "correction counts as not covered; `width`: mean over the trials with an interval; "
        "`latent within 3 SE`: |latent coverage - confidence| <= 3 sqrt(c (1 - c) / count)."
    )
    lines = [head]
    for n_labels in (int(n) for n in cube["n_labels"].values):
        header = _header(n_labels)
        lines += [
            "",
            f"{n_labels} labels:",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
        ]
        lines += ["| " + " | ".join(row) + " |" for row in table_rows(cube, n_labels)]
    return lines


def summary(cube):
    """Return the tables ``simcore run`` and ``simcore show`` print."""
    return "\n".join(_lines(cube))


def table_markdown(cube):
    """Return ``output.table``: the tables under their title.

    The title opens with ``# Planning table:``, by which simcore knows the file as the
    ``output.table`` it wrote (and replaces it on the next run).
    """
    title = (
        "# Planning table: coverage of judge-error estimates, the humans' majority against the "
        "latent truth"
    )
    return "\n".join([title, "", *_lines(cube)]) + "\n"


FIGURE_HUMANS = 3
"""The figure's humans per item (the first swept value where 3 is not among them)."""


def plot_latent(cube, out):
    """Draw coverage against n_cal: majority (solid) and latent (dashed), a line per p_human.

    One panel per ``(n_labels, errors)``, at ``n_humans`` :data:`FIGURE_HUMANS`.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    humans = cube["n_humans"].values
    n_humans = FIGURE_HUMANS if FIGURE_HUMANS in humans else int(humans[0])
    data = cube.sel(n_humans=n_humans)
    rows, columns = data.sizes["n_labels"], data.sizes["errors"]
    figure, axes = plt.subplots(
        rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False, sharey=True
    )
    confidence = float(cube.attrs["confidence"])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for r, n_labels in enumerate(data["n_labels"].values):
        for c, errors in enumerate(data["errors"].values):
            axis = axes[r, c]
            for p, p_human in enumerate(data["p_human"].values):
                cell = data.isel(n_labels=r, errors=c, p_human=p)
                colour = colours[p % len(colours)]
                for estimator, style in (("majority", "o-"), ("latent", "s--")):
                    axis.plot(
                        cell["n_cal"],
                        cell["coverage"].sel(estimator=estimator),
                        style,
                        color=colour,
                        markersize=3,
                        label=f"{estimator}, p_human {p_human:g}",
                    )
            axis.axhline(confidence, color="grey", linewidth=0.8)
            axis.set_xscale("log")
            axis.set_xticks([int(n) for n in data["n_cal"].values])
            axis.set_xticklabels([str(int(n)) for n in data["n_cal"].values])
            axis.minorticks_off()
            axis.set_ylim(0, 1.02)
            axis.set_xlabel("calibration items n_cal", fontsize=8)
            axis.set_ylabel("coverage", fontsize=8)
            rho = float(data["rho"][c])
            axis.set_title(f"{int(n_labels)} labels, errors {errors} (rho {rho:g})", fontsize=9)
            axis.tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=6)
    figure.suptitle(
        f"Coverage of the corrected production rate: majority (solid) against latent truth "
        f"(dashed)\n{n_humans} humans, {int(cube['n_trials'].max())} trials per cell "
        f"(grey: confidence {confidence:g})",
        fontsize=9,
    )
    figure.tight_layout()
    from simcore.output_files import save_figure

    try:
        save_figure(figure, out, dpi=110, metadata=figure_metadata(cube, out))
    finally:
        plt.close(figure)
