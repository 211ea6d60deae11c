from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


@pytest.fixture
def fig2_path():
    return SCENARIOS / "fig2.yaml"
