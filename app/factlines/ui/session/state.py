"""The one state object: the open graph, ``as_of``, the selected entity and fact.

Views read from it and listen to its signals; none keeps its own copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from factlines.core import temporal
from factlines.core.collector import collector_paused
from factlines.core.store import KnowledgeGraph, Touched
from factlines.ui.look import style
from factlines.ui.session.entity_facts import EntityFacts, FactsPatch
from factlines.ui.turns import Turns

# From this many facts of the selected entity, the views reload a turn of the event loop apart
# after it is selected or after a write that may have changed every row: each view's reload
# reads or lays out every fact, and all of them in one event would stall the window.
SPREAD_FROM = 400


class AppState(QObject):
    graphChanged = Signal()  # another file is open (or none)
    asOfChanged = Signal(object)  # stored form, or None for "all time"
    entityChanged = Signal(object)  # entity id, or None
    factChanged = Signal(object)  # triple id, or None
    dataChanged = Signal(object)  # a Touched: rows written (by us, or by another program)
    factsChanged = Signal(object)  # a FactsPatch of the selected entity's facts, after dataChanged
    message = Signal(str)  # a refused action or a result, for the status bar
    _written = Signal(object)  # the store's report of a commit, brought to this thread

    def __init__(self, kg: KnowledgeGraph | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._kg = kg
        self._as_of: str | None = None
        self._entity: str | None = None
        self._fact: str | None = None
        self._facts: EntityFacts | None = None
        self._flipped = np.zeros(0, dtype=np.int64)
        self._reload_pending = False
        self._spreading = False
        self._waiting: dict[object, Callable[[], None]] = {}  # view -> its reload, in turn
        self.reloads = Turns(self)  # ``reloads.done``: every view waiting has reloaded
        # A yes-or-no question to the person (title, question) -> yes; the window answers it.
        self.ask: Callable[[str, str], bool] = lambda _title, _question: False
        # The window's long write on a worker thread now, in words ("the undo of “Import
        # rows.csv”"), or None: until it ends, every other edit, undo and redo is refused.
        self.long_write: str | None = None
        # ``long_replay(command, verb, force)``: the undo or redo of a big step on a worker
        # thread (the window's); None: every step is replayed here.
        self.long_replay: Callable[[object, str, bool], object] | None = None
        # ``read_elsewhere(read, done)``: ``read(kg)`` on a worker, through a read-only store
        # of its own, then ``done(answer)`` here (``done(None)`` when it could not: read here
        # then); the window's. None: a big entity's facts are read here, in a turn of their own.
        self.read_elsewhere: Callable[[Callable[[KnowledgeGraph], object], Callable], None] | None
        self.read_elsewhere = None
        self._reading: EntityFacts | None = None  # the selected entity's, read elsewhere now
        self._written_meanwhile: list[Touched] = []  # the writes seen while they are read
        self._preparers: dict[object, Callable[[KnowledgeGraph, EntityFacts], object]] = {}
        self._written.connect(self.notify_data_changed)
        if kg is not None:
            kg.add_listener(self._store_wrote)

    # The graph
    @property
    def kg(self) -> KnowledgeGraph | None:
        return self._kg

    def set_kg(self, kg: KnowledgeGraph | None) -> None:
        if self._kg is not None and not self._kg.closed:
            self._kg.remove_listener(self._store_wrote)
        self._kg = kg
        if kg is not None:
            kg.add_listener(self._store_wrote)
        self._follow_colours(Touched.all_rows())
        self._forget_facts()
        self._entity = None
        self._fact = None
        self.graphChanged.emit()
        self.entityChanged.emit(None)
        self.factChanged.emit(None)
        self.dataChanged.emit(Touched.all_rows())

    # as_of
    @property
    def as_of(self) -> str | None:
        return self._as_of

    @property
    def as_of_key(self) -> str | None:
        """``as_of`` as a comparison key (a day means its first second)."""
        return temporal.start_key(self._as_of)

    @property
    def as_of_posix(self) -> float | None:
        return temporal.to_posix(self.as_of_key)

    def set_as_of(self, value: str | None) -> None:
        """Set ``as_of`` from an accepted form (raises TimeValueError) or None for all time."""
        value = temporal.parse(value, "as_of")
        if value != self._as_of:
            self._as_of = value
            facts = self._facts
            self._flipped = facts.move_to(self.as_of_posix) if facts else np.zeros(0, np.int64)
            self.asOfChanged.emit(value)

    # Selection
    @property
    def entity(self) -> str | None:
        return self._entity

    def select_entity(self, entity_id: str | None) -> None:
        if entity_id != self._entity:
            self._entity = entity_id
            self._forget_facts()
            self._fact = None
            self._spreading = self._big(entity_id)
            try:
                if self._spreading:
                    self._read_facts_soon()
                self.entityChanged.emit(entity_id)
                self.factChanged.emit(None)
            finally:
                self._spreading = False

    def _big(self, entity_id: str | None) -> bool:
        """Whether the entity has so many facts that the views reload a turn apart."""
        kg = self._kg
        if entity_id is None or kg is None or kg.closed:
            return False
        return kg.fact_count(entity_id) >= SPREAD_FROM

    @property
    def fact(self) -> str | None:
        return self._fact

    def select_fact(self, triple_id: str | None) -> None:
        if triple_id != self._fact:
            self._fact = triple_id
            self.factChanged.emit(triple_id)

    # Writes
    def _store_wrote(self, touched: Touched) -> None:
        """The store's listener: called after each commit, maybe from another thread."""
        self._written.emit(touched)

    def notify_data_changed(self, touched: Touched | None = None) -> None:
        """Rows changed: ``touched`` says which (None: anything may have, e.g. another
        program wrote the file). Views hear ``dataChanged`` and, for the selected entity,
        ``factsChanged`` with what to patch."""
        touched = touched if touched is not None else Touched.all_rows()
        kg = self._kg
        if kg is None or kg.closed:
            return
        entity, fact = self._entity, self._fact
        entity_touched = touched.everything or entity in touched.entities
        if entity and entity_touched and not kg.get_entity(entity):
            self.select_entity(None)
        if fact and (touched.everything or fact in touched.facts) and not kg.has_fact(fact):
            self.select_fact(None)
        self._follow_colours(touched)
        self._bring_in(touched, tell_views=True)

    def _bring_in(self, touched: Touched, tell_views: bool) -> None:
        """The selected entity's facts brought up to date with a write (read again when it
        may have changed every row of a big entity's), ``factsChanged`` with what to patch;
        ``tell_views``: ``dataChanged`` first."""
        self._spreading = self._read_again(touched)
        try:
            patch = FactsPatch(reloaded=True) if self._spreading else self._patch_facts(touched)
            if tell_views:
                self.dataChanged.emit(touched)
            if patch:
                self.factsChanged.emit(patch)
        finally:
            self._spreading = False

    def _read_again(self, touched: Touched) -> bool:
        """Whether a write may have changed every row of a big entity's facts: read them
        again (elsewhere, or by the first view whose turn comes)."""
        facts = self._facts
        if not (touched.everything and facts is not None and facts.read):
            return False
        if len(facts.facts) < SPREAD_FROM:
            return False
        self._forget_facts()
        self._read_facts_soon()
        return True

    def _patch_facts(self, touched: Touched) -> FactsPatch:
        """The selected entity's facts brought up to date with a write; while they are read
        elsewhere, the write is noted and brought in once they are here."""
        if self._reading is not None:
            self._written_meanwhile.append(touched)
            return FactsPatch()
        return self._facts.apply(touched) if self._facts is not None else FactsPatch()

    def _follow_colours(self, touched: Touched) -> None:
        """The graph's own predicate colours (a renamed predicate keeps its colour), before the
        views hear of the change and paint."""
        kg = self._kg
        if touched.everything or touched.settings:
            open_ = kg is not None and not kg.closed
            style.set_predicate_colours(kg.predicate_colours() if open_ else {})

    def reload_soon(self) -> None:
        """Everything may have changed: reload once, when the event loop next runs (several
        calls before then reload once)."""
        if not self._reload_pending:
            self._reload_pending = True
            QTimer.singleShot(0, self._reload_now)

    def _reload_now(self) -> None:
        self._reload_pending = False
        self._spreading = False
        self._waiting = {}
        self.reloads.stop()  # the same Turns: whoever waits for ``reloads.done`` still hears it
        self.notify_data_changed(None)

    # The views' reloads, a turn apart for a big entity
    def reload_view(self, view: object, reload: Callable[[], None]) -> None:
        """``view`` must show the state afresh (another entity, or every row may have
        changed): ``reload()`` at once; or, for a big entity (:data:`SPREAD_FROM`), in a turn
        of the event loop of its own, the views one a turn in the order they asked, so that
        the window answers between them."""
        if not self._spreading and view not in self._waiting:
            reload()
            return
        self._waiting[view] = reload
        if not self.reloads.running:
            self.reloads.run(self._reload_waiting())

    def waiting(self, view: object) -> bool:
        """Whether ``view``'s reload waits for its turn: it will show the state as it is then,
        so the view leaves alone what else the state announces until then."""
        return view in self._waiting

    def _reload_waiting(self) -> Iterator[None]:
        # The UI thread's collector waits for the views, as for a whole-graph read: its young
        # objects are the rows being read and shown (a 1M graph's hub: 18-35 ms, landing in
        # one selection in ten).
        with collector_paused():
            while self._waiting:
                yield
                if self._reading is not None:  # the views wait for the facts being read
                    self.reloads.hold()
                    continue
                view = next(iter(self._waiting), None)
                if view is None:
                    continue
                reload = self._waiting.pop(view)
                if self._kg is None or self._kg.closed:  # the window closed meanwhile
                    self._waiting.clear()
                    return
                try:
                    reload()
                except BaseException:  # a bug, raised to the error handler: the others go on
                    QTimer.singleShot(0, self._resume_reloads)
                    raise

    def _resume_reloads(self) -> None:
        if self._waiting and not self.reloads.running:
            self.reloads.run(self._reload_waiting())

    # The selected entity's facts, read once per selection and patched after writes
    def _forget_facts(self) -> None:
        self._facts = None
        self._reading = None  # its answer, if one comes, is dropped
        self._written_meanwhile = []
        self.reloads.go_on()  # views held for it: they read the state as it is now

    def read_soon(self, read: Callable[[KnowledgeGraph], object], done: Callable) -> None:
        """``done(read(kg))`` of the graph open now: off the UI thread where the window can
        (read here again when it could not there: a refusal is said as it always was), else
        at once; nothing when another graph is open by then."""
        kg = self._kg
        if kg is None or kg.closed:
            return
        if self.read_elsewhere is None:
            done(read(kg))
            return

        def answered(answer: object) -> None:
            if self._kg is kg and not kg.closed:
                done(read(kg) if answer is None else answer)

        self.read_elsewhere(read, answered)

    def prepare_with(
        self, view: object, prepare: Callable[[KnowledgeGraph, EntityFacts], object]
    ) -> None:
        """Where a big entity's facts are read elsewhere, ``prepare(kg, facts)`` is run there
        with them: what ``view`` makes of the facts before it shows them (a layout, an
        order), found by :meth:`prepared` at its reload."""
        self._preparers[view] = prepare

    def prepared(self, view: object) -> object | None:
        """What ``view``'s :meth:`prepare_with` made of the selected entity's facts as they
        are now; None when nothing was (read here, or changed by a write since)."""
        facts = self._facts
        return facts.prepared.pop(view, None) if facts is not None else None

    def _read_facts_soon(self) -> None:
        """A big entity's facts: read elsewhere, with what the views make of them, when the
        window can; else here, in a turn of their own. The views reload once they are in."""
        if self.read_elsewhere is None:
            self.reload_view(self, self._entity_facts)
            return
        self._reading = facts = EntityFacts(self._kg, self._entity, self.as_of_posix)
        self._written_meanwhile = []
        preparers = list(self._preparers.items())

        def read(kg: KnowledgeGraph) -> EntityFacts:
            facts.read_facts(kg)
            facts.prepared = {view: prepare(kg, facts) for view, prepare in preparers}
            return facts

        self.read_elsewhere(read, lambda answer: self._facts_read(facts, answer))

    def _facts_read(self, facts: EntityFacts, answer: object) -> None:
        """The facts read elsewhere are in (``answer`` None: they could not be: the views read
        them here): the views waiting reload; the writes seen meanwhile are brought in."""
        if facts is not self._reading:  # another entity was selected, or they were read here
            return
        written = self._written_meanwhile
        self._reading, self._written_meanwhile = None, []
        if answer is not None:
            self._flipped = facts.move_to(self.as_of_posix)  # as_of may have moved meanwhile
            self._facts = facts
            if written:  # what the views made may show rows a write changed since
                facts.prepared = {}
        for touched in written:  # the views heard dataChanged as each came
            self._bring_in(touched, tell_views=False)
        self.reloads.go_on()

    def _entity_facts(self, with_facts: bool = True) -> EntityFacts | None:
        if self._kg is None or self._entity is None:
            return None
        if self._facts is None and self._reading is not None:
            if not with_facts:  # its record was read here already
                return self._reading
            self._forget_facts()  # wanted now: read here, the answer from elsewhere dropped
        if self._facts is None:
            self._facts = EntityFacts(self._kg, self._entity, self.as_of_posix)
        if with_facts:
            self._facts.read_facts()
        return self._facts

    def entity_record(self) -> dict | None:
        """The selected entity's row (``kg.get_entity``), None if it is not in the graph. Its
        facts are not read for it: a big entity's are read in a turn of their own."""
        facts = self._entity_facts(with_facts=False)
        return facts.record if facts is not None else None

    def entity_facts(self) -> list[dict]:
        """Every fact of the selected entity, both directions (``kg.intervals`` rows). The
        rows are shared by every view and patched in place after a write."""
        facts = self._entity_facts()
        return facts.facts if facts is not None else []

    def entity_conflicts(self) -> list[dict]:
        """The conflicts that involve one of the selected entity's facts."""
        facts = self._entity_facts()
        return facts.conflicts if facts is not None else []

    def conflicts_by_fact(self) -> dict[str, list[dict]]:
        """The same conflicts by triple id, each with ``other``: the fact it clashes with."""
        facts = self._entity_facts()
        return facts.conflicts_by_fact if facts is not None else {}

    def valid_mask(self) -> np.ndarray:
        """Which of :meth:`entity_facts` are valid at as_of: evaluated once per as_of step."""
        facts = self._entity_facts()
        return facts.valid if facts is not None else np.ones(0, dtype=bool)

    def time_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """POSIX start and end keys of :meth:`entity_facts` (-inf unknown start, +inf open)."""
        facts = self._entity_facts()
        if facts is None:
            return np.zeros(0), np.zeros(0)
        return facts.starts, facts.ends

    def fact_index(self, triple_id: str) -> int:
        """The position of a fact in :meth:`entity_facts`, -1 when it is not one of them."""
        facts = self._entity_facts()
        return facts.index_of.get(triple_id, -1) if facts is not None else -1

    @property
    def flipped(self) -> np.ndarray:
        """The positions in :meth:`entity_facts` whose validity the last as_of step flipped."""
        return self._flipped
