"""Where every benchmark records its numbers: one section each in ``results.json``."""

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent / "results.json"


def save_section(name, results):
    """Replace section ``name`` of ``benchmarks/results.json``, keeping the others."""
    existing = json.loads(PATH.read_text()) if PATH.exists() else {}
    existing[name] = results
    PATH.write_text(json.dumps(existing, indent=2) + "\n")
    print(f"written: {PATH} ({name})")
