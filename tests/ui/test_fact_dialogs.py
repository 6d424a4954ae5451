"""The fact forms as a new user met them: a confidence out of range, errors that stay or do not
fit, a refusal that closed the form, a completer that is not prefix-first, and a typo that
silently makes a new entity."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from factlines.ui.forms.dialogs import EndFactDialog, FactDialog
from factlines.ui.forms.fields import name_matches
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, file_fact, find_fact


def settle(qtbot, ms: int = 0) -> None:
    if ms:
        qtbot.wait(ms)
    QApplication.processEvents()


# ── Confidence: refused in words, never rewritten ──────────────────────────


@pytest.mark.parametrize("typed", ["5", "5.00", "-0.1", "1.5", "high", ""])
def test_a_confidence_out_of_range_is_refused_and_nothing_written(
    window, demo, answer_dialogs, typed
):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)

    def fill(dialog):
        dialog.predicate.setCurrentText("uses")
        dialog.object.setText("Zig")
        dialog.confidence.setText(typed)

    answer_dialogs.append(fill)
    assert window.fact_actions.add_fact_dialog() is None
    dialog = answer_dialogs.seen[-1]
    assert dialog.result() != dialog.DialogCode.Accepted  # it stays open
    assert "between 0 and 1" in dialog.error.text()
    assert "between 0 and 1" in dialog.confidence.hint.text()  # beside the field, too
    assert dialog.confidence.text() == typed  # as typed: not clamped, not 0.00
    assert dump(demo.db_path) == before
    assert window.undo_stack.count() == 0


def test_editing_a_fact_refuses_confidence_five(window, demo, answer_dialogs):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)
    answer_dialogs.append(lambda dialog: dialog.confidence.setText("5"))
    assert not window.fact_actions.edit_fact_dialog(orion["id"])
    assert "between 0 and 1" in answer_dialogs.seen[-1].error.text()
    assert dump(demo.db_path) == before


def test_a_confidence_in_range_is_stored_as_typed(window, demo, answer_dialogs):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    answer_dialogs.append(lambda dialog: dialog.confidence.setText("0,35"))
    assert window.fact_actions.edit_fact_dialog(orion["id"])
    assert file_fact(demo.db_path, orion["id"])["confidence"] == pytest.approx(0.35)


# ── Errors: shown whole, gone when fixed, and a refusal keeps the form ─────


def test_the_end_dialog_grows_to_show_its_whole_error(qtbot, demo):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    dialog = EndFactDialog(demo.get_fact(nova["id"]), "2026-01-01")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for typed in ("2026-02-30", "2025-01-01"):
        dialog.ended.setText(typed)
        dialog.accept()
        settle(qtbot)
        assert dialog.isVisible() and dialog.error.isVisible()
        error, buttons, field = dialog.error, dialog.buttons, dialog.ended.edit
        # The whole message, above the buttons, and the date field at its full height.
        assert error.height() >= error.heightForWidth(error.width())
        assert error.geometry().bottom() < buttons.geometry().top()
        assert field.height() >= field.sizeHint().height()
        assert dialog.height() >= dialog.layout().totalHeightForWidth(dialog.width())
    assert "a fact cannot end before it starts" in dialog.error.text()


def test_subject_is_required_goes_away_once_the_subject_is_filled(qtbot, demo):
    dialog = FactDialog(demo.entity_names(), demo.predicates())
    qtbot.addWidget(dialog)
    dialog.accept()
    assert dialog.error.text() == "Subject is required"
    dialog.subject.setText("Kai Moreno")
    assert "Subject" not in dialog.error.text()  # now the next thing missing
    dialog.predicate.setCurrentText("uses")
    dialog.object.setText("Zig")
    assert dialog.error.isHidden()


def test_a_bad_date_is_said_in_the_forms_words(qtbot, demo):
    dialog = FactDialog(demo.entity_names(), demo.predicates(), subject="Kai Moreno")
    qtbot.addWidget(dialog)
    dialog.predicate.setCurrentText("uses")
    dialog.object.setText("Zig")
    dialog.valid_from.setText("2026-02-30")
    dialog.accept()
    assert dialog.error.text().startswith("Valid from: “2026-02-30” is not a date or time")
    assert "valid_from=" not in dialog.error.text()


def test_a_refused_replacement_keeps_the_form_open(window, demo, answer_dialogs):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)
    answer_dialogs.append(lambda dialog: dialog.new_object.setText("Nova"))
    assert not window.fact_actions.replace_fact_dialog(nova["id"])
    dialog = answer_dialogs.seen[-1]
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "already has 'Nova' as its object" in dialog.error.text()
    assert dialog.new_object.text() == "Nova"
    assert dump(demo.db_path) == before


# ── Names: prefix-first completion, and "new entity" before OK ────────────


def test_name_matches_put_prefixes_first():
    names = ["Oslo", "Boris", "Nova Labs", "orion", "Theo", "Zora"]
    assert name_matches("o", names) == ["orion", "Oslo", "Boris", "Nova Labs", "Theo", "Zora"]
    assert name_matches("OR", names) == ["orion", "Boris", "Zora"]
    assert name_matches("  ", names) == []


def test_the_object_completer_offers_prefix_matches_first(qtbot, demo):
    dialog = FactDialog(demo.entity_names(), demo.predicates(), subject="Kai Moreno")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    completer = dialog.completers["objectEdit"]
    dialog.object.setFocus()
    qtbot.keyClicks(dialog.object, "o")
    offered = completer.matches()
    starting = [n for n in offered if n.lower().startswith("o")]
    assert starting and offered[: len(starting)] == starting
    assert len(offered) > len(starting)  # then the names that contain it
    assert completer.maxVisibleItems() <= 7  # a short list: it covers the fields below
    # The one name, typed whole: nothing left to offer, the list gets out of the way.
    dialog.object.clear()
    qtbot.keyClicks(dialog.object, "Orion")
    assert completer.matches() == [] and not completer.popup().isVisible()


def test_a_typo_is_said_to_make_a_new_entity_with_the_closest_names(qtbot, demo):
    dialog = FactDialog(demo.entity_names(), demo.predicates())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    hint = dialog.hints["subjectEdit"]
    dialog.subject.setText("Kai Morenoo")
    qtbot.waitUntil(hint.isVisible, timeout=2000)
    assert "New entity" in hint.text() and hint.suggestions[0] == "Kai Moreno"
    hint.linkActivated.emit("#0")  # a click on the name offered takes it
    assert dialog.subject.text() == "Kai Moreno" and hint.isHidden()
    dialog.subject.setText("kai moreno")  # an existing entity, in any case
    settle(qtbot, 300)
    assert hint.isHidden()
    dialog.object.setText("Zzyzx Quux")  # nothing close: still said
    qtbot.waitUntil(dialog.hints["objectEdit"].isVisible, timeout=2000)
    assert dialog.hints["objectEdit"].suggestions == []


def test_the_replace_dialog_says_new_entity_too(window, demo, answer_dialogs):
    """Through the window, so the graph itself says which names are entities."""
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    said = []

    def fill(dialog):
        dialog.new_object.setText("Helioss")
        dialog.hints["newObjectEdit"].refresh()
        said.append((dialog.hints["newObjectEdit"].isVisibleTo(dialog), dialog.hints))
        return False  # cancel

    answer_dialogs.append(fill)
    assert not window.fact_actions.replace_fact_dialog(nova["id"])
    visible, hints = said[0]
    assert visible and hints["newObjectEdit"].suggestions == ["Helios"]
