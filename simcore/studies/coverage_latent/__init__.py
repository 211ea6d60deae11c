"""The latent-truth coverage study (``kind: coverage-latent``): gold column against latent truth.

The study object (study), its cells (cells), its table and figure (report). Nothing here is
imported by another package: the sweep reaches the study through
:func:`simcore.studies.study_for`.
"""

__all__: list[str] = []
