"""The synthetic study's ``model`` section: the generative model's fields.

The corpus, the humans and judges and their channels, the prevalence, clusters and the
rating-scale channel (docs/explanation/model.md), each field declared once with its type,
default, range and description; :mod:`simcore.studies.synthetic.config` builds the cells
from it.
"""

from dataclasses import dataclass

from simcore.model.fields import declared_field
from simcore.model.generative import Skew


@dataclass(frozen=True)
class ModelConfig:
    """The synthetic generative model (docs/explanation/model.md)."""

    n_items: int = declared_field(500, "int", "items in the corpus, n", minimum=2)
    n_humans: int = declared_field(4, "int", "humans K (primary plus K - 1 secondaries)", minimum=2)
    n_labels: int = declared_field(2, "int", "label categories L", minimum=2)
    p_human: float | tuple = declared_field(
        0.85, "probabilities", "accuracy of every human, or a list with one per human"
    )
    p_judge: float | tuple = declared_field(
        0.85, "probabilities", "accuracy of the judge, or a list: one judge each (ranking)"
    )
    prevalence: tuple | Skew | None = declared_field(
        None,
        "prevalence",
        "probability of each label: null (uniform), a list, or {skew: s} (s on label 0, the "
        "rest spread evenly)",
        optional=True,
    )
    confusion_human: tuple | None = declared_field(
        None,
        "matrices",
        "confusion matrix (rows: true label, columns: reported) for every human, or one per "
        "human; replaces p_human",
        optional=True,
    )
    confusion_judge: tuple | None = declared_field(
        None, "matrices", "confusion matrix of the judge; replaces p_judge", optional=True
    )
    n_clusters: int = declared_field(
        1, "int", "item clusters (item i in cluster i mod n_clusters)", minimum=1
    )
    margin: float | None = declared_field(
        None,
        "float",
        "signed population margin S_j - S_h + eps (docs/explanation/model.md); sets p_judge",
        minimum=-1.0,
        maximum=1.0,
        optional=True,
    )
    cluster_spread: float = declared_field(
        0.0,
        "float",
        "half-width of each cluster's shared uniform accuracy shift",
        minimum=0.0,
        maximum=1.0,
    )
    adjacent: float | None = declared_field(
        None,
        "float",
        "share of errors on a neighbouring label",
        minimum=0,
        maximum=1,
        optional=True,
    )


MODEL_KEYS_WRITTEN_WHEN_SET = {"adjacent": None}
"""Model keys added after stores were published, with their defaults: a scenario writes them
only when set, so a scenario that does not set them keeps its YAML text and content hash."""
