"""Judge error against the latent truth of a calibration panel, and the corrected distribution.

The humans' and the judge's confusion matrices fitted against a latent true label by
weighted EM, with bootstrap refits (panel_fit); the judge's TPR/TNR or confusion matrix on
the label scale against that truth and against the humans' majority, and the production
distribution of true labels corrected through it (judge_error); the inversion on the simplex
and the separation that refuses it (inversion); synthetic panels whose raters may share
their errors, for the coverage study and the tests (synthetic).

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "BinaryError",
    "CorrectedScale",
    "Estimate",
    "FitReport",
    "LatentFit",
    "LatentSettings",
    "MODEL_CHOICES",
    "PanelCodes",
    "PanelModel",
    "ScaleError",
    "binary_error",
    "binary_panel",
    "corrected_distribution",
    "corrected_distributions",
    "corrected_scale",
    "draw_panel",
    "draw_production",
    "fit_latent_panel",
    "fit_with_bootstrap",
    "judge_confusion",
    "latent_model",
    "latent_scale_error",
    "majority_scale_error",
    "percentile",
    "plurality",
    "scale_panel",
    "separation",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "inversion": ("corrected_distribution", "corrected_distributions", "separation"),
        "judge_error": (
            "BinaryError",
            "CorrectedScale",
            "Estimate",
            "FitReport",
            "LatentSettings",
            "ScaleError",
            "binary_error",
            "binary_panel",
            "corrected_scale",
            "latent_scale_error",
            "majority_scale_error",
            "percentile",
            "plurality",
            "scale_panel",
        ),
        "synthetic": ("PanelModel", "draw_panel", "draw_production", "judge_confusion"),
        "panel_fit": (
            "LatentFit",
            "MODEL_CHOICES",
            "PanelCodes",
            "fit_latent_panel",
            "fit_with_bootstrap",
            "latent_model",
        ),
    },
)
