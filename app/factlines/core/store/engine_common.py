"""What the engines share where their code is the same but for SQL's parameter marker: the
store's delegation to its connection (transactions, recordings, listeners, read-only), and
the plain row writes of facts and entities. Each uses its connection's ``MARK``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from factlines.core.errors import ConflictError
from factlines.core.store.changes import Change, Touched
from factlines.core.store.rows import TRIPLE_COLUMNS

# What a fact write may set: every column but the id and the time MemPalace stamps on insert.
WRITABLE_FACT_COLUMNS = set(TRIPLE_COLUMNS) - {"id", "extracted_at"}


class EngineStore:
    """A :class:`~factlines.core.store.protocol.GraphStore`'s part that is its connection's."""

    _db: object  # a RowWrites connection with lock, read_only, write_wait, close, closed
    entities: object

    def close(self) -> None:
        self._db.close()

    @property
    def closed(self) -> bool:
        return self._db.closed

    @property
    def lock(self):
        return self._db.lock

    @property
    def read_only(self) -> bool:
        return self._db.read_only

    def refuse_writes(self) -> None:
        self._db.refuse_writes()

    @property
    def write_wait(self) -> float:
        return self._db.write_wait

    @write_wait.setter
    def write_wait(self, seconds: float) -> None:
        self._db.write_wait = float(seconds)

    @contextmanager
    def transaction(self, wait: float | None = None) -> Iterator[None]:
        with self._db.transaction(wait):
            yield

    @contextmanager
    def recording(self) -> Iterator[Change]:
        with self._db.recording() as change:
            yield change

    def revert(self, change: Change) -> None:
        self._db.replay(change, to_before=True, conflict=ConflictError)

    def reapply(self, change: Change) -> None:
        self._db.replay(change, to_before=False, conflict=ConflictError)

    def add_listener(self, listener: Callable[[Touched], None]) -> None:
        """Call ``listener(touched)`` after every write this store commits."""
        self._db.listeners.append(listener)

    def remove_listener(self, listener: Callable[[Touched], None]) -> None:
        self._db.listeners.remove(listener)

    def _forget_search_index(self, touched: Touched) -> None:
        if touched.entities or touched.everything:
            self.entities.forget_index()


def _marks(db, n: int) -> str:
    return ", ".join([db.MARK] * n)


class FactWrites:
    """Rows of ``triples`` written in the caller's transaction."""

    _db: object

    def insert(self, tid: str, values: dict) -> None:
        """A new row ``tid`` with ``values`` (subject, predicate, object and any others)."""
        _check(values)
        with self._db.transaction() as conn:
            self._db.touch(conn, "triples", tid)
            columns = ["id", *values]
            marks = _marks(self._db, len(columns))
            conn.execute(
                f"INSERT INTO triples ({', '.join(columns)}) VALUES ({marks})",
                [tid, *values.values()],
            )

    def update(self, tid: str, values: dict) -> None:
        _check(values)
        if not values:
            return
        with self._db.transaction() as conn:
            self._db.touch(conn, "triples", tid)
            assignments = ", ".join(f"{column} = {self._db.MARK}" for column in values)
            conn.execute(
                f"UPDATE triples SET {assignments} WHERE id = {self._db.MARK}",
                [*values.values(), tid],
            )

    def delete(self, tid: str) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "triples", tid)
            conn.execute(f"DELETE FROM triples WHERE id = {self._db.MARK}", (tid,))


def _check(values: dict) -> None:
    unknown = set(values) - WRITABLE_FACT_COLUMNS
    if unknown:
        raise TypeError(f"not fact columns: {sorted(unknown)}")


class EntityWrites:
    """Rows of ``entities`` written in the caller's transaction."""

    _db: object

    def ensure(self, eid: str, name: str) -> None:
        """Create the entity ``eid`` named ``name`` unless it exists."""
        mark = self._db.MARK
        with self._db.transaction() as conn:
            if conn.execute(f"SELECT 1 FROM entities WHERE id = {mark}", (eid,)).fetchone() is None:
                self._db.touch(conn, "entities", eid)
                conn.execute(
                    f"INSERT INTO entities (id, name) VALUES ({mark}, {mark})", (eid, name)
                )

    def update(self, eid: str, **values) -> None:
        """Set some of ``name``, ``type``, ``properties`` (JSON text) on one row."""
        unknown = set(values) - {"name", "type", "properties"}
        if unknown:
            raise TypeError(f"not entity columns: {sorted(unknown)}")
        with self._db.transaction() as conn:
            self._db.touch(conn, "entities", eid)
            assignments = ", ".join(f"{column} = {self._db.MARK}" for column in values)
            conn.execute(
                f"UPDATE entities SET {assignments} WHERE id = {self._db.MARK}",
                [*values.values(), eid],
            )

    def delete(self, eid: str) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "entities", eid)
            conn.execute(f"DELETE FROM entities WHERE id = {self._db.MARK}", (eid,))
