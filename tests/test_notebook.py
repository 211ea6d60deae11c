"""Run examples/fig2.ipynb end to end against a small Figure 2 store."""

from pathlib import Path

import nbclient
import nbformat
import xarray as xr

import simcore

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
NOTEBOOK = EXAMPLES / "fig2.ipynb"
SCENARIO = REPO / "scenarios" / "fig2.yaml"


def _text_outputs(nb):
    """All stdout and text/plain outputs of an executed notebook, in order."""
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stdout":
                texts.append(output["text"])
            elif "text/plain" in output.get("data", {}):
                texts.append(output["data"]["text/plain"])
    return texts


def test_stored_notebook_is_clean():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == []
            assert cell.execution_count is None
            assert "simcore" not in cell.source


def test_fig2_notebook_runs(tmp_path, monkeypatch):
    store = tmp_path / "fig2.zarr"
    png = tmp_path / "nb.png"
    simcore.run(SCENARIO, out=store, trials=100)
    monkeypatch.setenv("SIMCORE_FIG2_STORE", str(store))
    monkeypatch.setenv("SIMCORE_FIG2_PNG", str(png))

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}
    )
    client.execute()  # raises CellExecutionError if any cell fails

    errors = [
        output
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == []
    assert png.is_file() and png.stat().st_size > 0

    with xr.open_zarr(store) as cube:
        first_rate = 100 * float(cube["wrong_decision_rate"][0, 0])
        first_se = 100 * float(cube["wrong_decision_rate_se"][0, 0])
        p_judge = float(cube["p_judge"][0])
        rho = float(cube["rho"][0])
        n_cells = int(cube["n_trials"].size)
    tables = [text for text in _text_outputs(nb) if "ours % ± SE" in text]
    assert len(tables) == 1
    table = tables[0]
    assert "wrong-decision rate (%): ours ± SE vs paper" in table
    lines = table.splitlines()
    assert len(lines) == 3 + n_cells  # title, header and rule, then one row per cell
    first_row = lines[3].split()
    assert first_row[:4] == [f"{p_judge:g}", f"{rho:g}", "100", f"{first_rate:.1f}"]
    assert first_row[5] == f"{first_se:.1f}"
    assert any("largest |z| = " in text for text in _text_outputs(nb))
