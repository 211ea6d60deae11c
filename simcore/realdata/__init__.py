"""Real annotation matrices: loading, validation, thinning and inspection.

The matrix and its problem reports (annotation) are built from parsed raters (assembly) by
the loaders of the JSON pair and the long CSV (loaders, csv_table; files opens gzip and
tells the formats apart) or a scenario's data block (data_block), and described for
``simcore inspect`` (describe, with the sparse overlaps and equality-count agreement of
overlap); matrix is the import path of them all. Thinning masks a matrix's secondary
labels by a design (thinning). Imports engine and model only.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "CSV_COLUMNS",
    "DEFINITIONS",
    "DataError",
    "FileProblem",
    "HUMAN_FILE",
    "JUDGE_FILE",
    "JUDGE_STRATIFIED",
    "REAL_DESIGNS",
    "alttest_folder",
    "choose_for_human",
    "existing_variant",
    "file_format",
    "got_text",
    "list_text",
    "load_alttest",
    "load_data",
    "load_ratings",
    "long_table_matrix",
    "matrix",
    "open_text",
    "read_json",
    "primary_layer",
    "read_alttest_raters",
    "read_csv_ratings",
    "read_rows",
    "require_judges",
    "thin",
    "virtual_annotation",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "annotation": ("DataError", "got_text", "list_text"),
        "csv_table": ("CSV_COLUMNS", "read_csv_ratings", "read_rows"),
        "files": ("FileProblem", "existing_variant", "file_format", "open_text", "read_json"),
        "loaders": (
            "HUMAN_FILE",
            "JUDGE_FILE",
            "alttest_folder",
            "load_ratings",
            "long_table_matrix",
            "read_alttest_raters",
        ),
        "matrix": ("matrix", "load_alttest", "load_data", "require_judges"),
        "rule_forms": ("virtual_annotation",),
        "strat_variants": ("DEFINITIONS", "JUDGE_STRATIFIED"),
        "thinning": ("REAL_DESIGNS", "choose_for_human", "primary_layer", "thin"),
    },
)
