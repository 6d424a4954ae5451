"""The ``h`` fixture: a chart on the demo graph with Kai Moreno selected (see chart_harness)."""

import pytest
from chart_harness import KAI, Harness

from ui_fixtures import answer_dialogs  # noqa: F401  (the forms a drag opens)


@pytest.fixture
def h(qtbot, demo):
    harness = Harness(demo, qtbot)
    harness.state.select_entity(KAI)
    harness.settle()
    return harness
