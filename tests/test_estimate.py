"""What a run will cost, said before it starts: measured cell times and the store's size."""

import json
from pathlib import Path

import pytest
import xarray as xr
from test_long_sweeps import scenario

import simcore
from simcore.cli import main
from simcore.studies import study_of
from simcore.studies.synthetic.scenario import scenario_from_dict
from simcore.sweep import estimate, store_layout


def raw(p_judge=(0.9, 0.7, 0.6), rho=(0.1, 0.3), trials=40):
    """A sweep of ``len(p_judge) x len(rho)`` cells of 60 items."""
    return scenario(trials=trials, p_judge=p_judge, rho=rho, n_items=60)


class FakeClock:
    """A clock that a fake cell advances by ``fixed + per_trial x trials`` per call."""

    def __init__(self, fixed, per_trial):
        self.now, self.fixed, self.per_trial = 0.0, fixed, per_trial
        self.calls = []

    def __call__(self):
        return self.now

    def run(self, start, stop):
        self.calls.append((start, stop))
        self.now += self.fixed + self.per_trial * (stop - start)


@pytest.mark.parametrize("trials", [1, 3, 100, 10_000, 1_000_000])
def test_a_cells_time_is_its_fixed_cost_plus_its_trials(trials, monkeypatch):
    clock = FakeClock(fixed=0.003, per_trial=0.0002)
    monkeypatch.setattr(estimate.time, "perf_counter", clock)
    seconds = estimate.cell_seconds(clock.run, trials)
    assert seconds == pytest.approx(0.003 + 0.0002 * trials, rel=1e-9)
    assert max(stop for _, stop in clock.calls) <= trials  # never more than the cell runs
    # the longest timed call stops growing once it takes PROBE_SECONDS
    assert max(stop for _, stop in clock.calls) <= 4 * estimate.PROBE_SECONDS / 0.0002


def test_the_store_estimate_is_near_the_store_a_run_writes(tmp_path):
    scenario = scenario_from_dict(raw(p_judge=[0.55 + 0.02 * k for k in range(20)]))
    study = study_of(scenario)
    layout = study.layout(scenario, study.context(scenario))
    size, chunks, chunk_cells, files = estimate.store_size(layout)
    out = tmp_path / "cube.zarr"
    simcore.run(scenario, out=out)
    cube = xr.open_zarr(out)
    written = sum(cube[name].nbytes for name in cube.variables)
    on_disk = [path for path in out.rglob("*") if path.is_file()]
    assert 0.8 < size / written < 1.25, (size, written)
    assert 0.8 < files / len(on_disk) < 1.25, (files, len(on_disk))
    assert chunks == 1 and chunk_cells == 40


def test_a_million_cells_are_a_few_hundred_chunks_not_a_million():
    chunks = store_layout.cell_chunks((1000, 1000), row_bytes=8 * 30)  # rows of 30 counts
    assert chunks == (4, 1000)  # whole trailing rows: 4,000 cells of 240 bytes, ~1 MiB
    assert store_layout.cell_chunks((3, 10_000), 8 * 30) == (1, 4369)
    assert store_layout.cell_chunks((40, 50), 8 * 30) == (40, 50)
    assert store_layout.cell_chunks((7,), 8 * 30, chunk_bytes=1) == (1,)


def test_validate_says_the_expected_time_and_store_size(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(raw()))
    assert main(["validate", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "valid; 6 cells" in lines[0]
    assert "to compute in this process (measured on 3 cells here)" in lines[1]
    assert "before compression" in lines[1] and "files" in lines[1]
    assert main(["validate", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["command"] == "validate" and document["valid"] is True
    found = document["estimate"]
    assert found["cells"] == 6 and found["probed_cells"] == 3 and found["expected_seconds"] > 0
    assert found["store_bytes"] > 0 and found["files"] > 0


def test_estimate_is_the_python_face_of_validate():
    found = simcore.estimate(raw(), trials=10)
    assert found.cells == 6 and found.seconds > 0
    assert set(found.to_dict()) >= {"expected_seconds", "store_bytes", "files"}


def test_sets_must_be_a_mapping():
    fig2 = Path(__file__).resolve().parents[1] / "scenarios" / "fig2.yaml"
    with pytest.raises(TypeError, match=r"sets: must be a mapping \{'KEY': VALUE\}.*got list"):
        simcore.estimate(fig2, sets=["model.n_items=1000"])
