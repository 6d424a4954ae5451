"""The ``h`` fixture: a chart on the demo graph with Kai Moreno selected (see chart_harness)."""

import pytest
from chart_harness import KAI, Harness


@pytest.fixture
def h(qtbot, demo):
    harness = Harness(demo, qtbot)
    harness.state.select_entity(KAI)
    harness.settle()
    return harness
