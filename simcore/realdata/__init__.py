"""Real annotation matrices: loading, validation, thinning and inspection.

Loaders for the JSON pair and the long CSV build an annotation matrix (matrix); thinning
masks a matrix's secondary labels by a design (thinning). Imports engine and model only.
"""
