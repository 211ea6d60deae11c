"""Real annotation matrices: loading, validation, thinning and inspection.

The matrix and its problem reports (annotation) are built from parsed raters (assembly) by
the loaders of the JSON pair and the long CSV (loaders, csv_table; files opens gzip and
tells the formats apart) or a scenario's data block (data_block), and described for
``simcore inspect`` (describe, with the sparse overlaps and equality-count agreement of
overlap); matrix is the import path of them all. Thinning masks a matrix's secondary
labels by a design (thinning). Imports engine and model only.
"""
