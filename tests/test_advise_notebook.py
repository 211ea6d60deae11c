"""Run examples/advise.ipynb's code cells in order, in one namespace, from the repo root.

No Jupyter kernel: the notebook's JSON is read and each code cell executed with ``exec``,
so the test needs neither nbclient nor ipykernel.
"""

import json
from pathlib import Path

import pytest

from simcore.advisor.advice import Advice

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "examples" / "advise.ipynb"
SUMMEVAL = REPO.parent / "shared" / "data" / "alttest" / "summeval"


def code_cells():
    """The source of every code cell of the notebook, in order."""
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_the_stored_notebook_is_clean():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.skipif(not SUMMEVAL.is_dir(), reason="../shared/data/alttest/summeval is absent")
def test_the_advise_notebook_runs_and_gives_an_advice(monkeypatch):
    monkeypatch.chdir(REPO)
    namespace = {"__name__": "__main__"}
    for number, source in enumerate(code_cells(), start=1):
        exec(compile(source, f"{NOTEBOOK.name} cell {number}", "exec"), namespace)
    advice = namespace["advice"]
    assert isinstance(advice, Advice)
    assert advice.judges == ("gpt-4o", "llama-31") and advice.humans == ("e0", "e1", "e2")
    assert len(advice.items) == 1600  # SummEval's coherence ratings
    assert advice.budget == 200 and len(advice.budget_table) == 6
    assert len(advice.next_round) == int(advice.proposal.sum())
    # labels are proposed exactly when some judge's risk now is above the target
    assert (len(advice.next_round) > 0) == (advice.recommendation.kind != "none")
    assert advice.recommendation.text and advice.recommendation.labels == len(advice.next_round)
    assert type(namespace["figure"]).__name__ == "Figure"
