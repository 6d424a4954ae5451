"""The memory behind a fact: the drawer a fact names, read from its palace, touching nothing.

:class:`Memories` reads one palace (:mod:`.place`) through :mod:`.snapshot` and :mod:`.drawers`.
A memory is a dict: ``drawer_id`` (as the fact stores it), ``text`` (the drawer's document, a
split drawer's chunks joined in order; None when it cannot be read), ``status`` (``found`` or
why not: ``missing``, ``being written``, ``unreadable``, ``on a server``, ``unknown backend``,
``no palace``, ``no drawer``), ``message`` (that reason in words; None when found),
``metadata`` (wing, room, source_file, filed_at …; a split drawer's first chunk's),
``group_id`` (the id of the whole drawer: a chunk's group, else the drawer's own), ``chunk_ids``,
``closet`` (``{"id", "text"}`` of the closet the fact names, or None), ``backend`` and
``palace`` (the folder, or None).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeVar

from factlines.core.palace import snapshot
from factlines.core.palace.drawers import ChromaDrawers, Drawer, ExactDrawers
from factlines.core.palace.place import CHROMA, CLOSETS_COLLECTION, Palace

FOUND = "found"
MISSING = "missing"
BEING_WRITTEN = "being written"
UNREADABLE = "unreadable"
ON_SERVER = "on a server"
UNKNOWN_BACKEND = "unknown backend"
NO_PALACE = "no palace"
NO_DRAWER = "no drawer"
# A drawer still in chroma's queue, or a file a writer holds: tried again this often, this far
# apart, before it is said to be "being written" (MemPalace's writes take milliseconds).
ATTEMPTS = 3
PAUSE = 0.02

_T = TypeVar("_T")
# A collection's drawers by the collection's name, in one snapshot of the palace's file.
_Collection = Callable[[str], ChromaDrawers | ExactDrawers]


class Memories:
    """Drawers and closets of one palace (or of none: every answer then says why)."""

    def __init__(self, palace: Palace | None):
        self.palace = palace

    def memory(self, drawer_id: str | None, closet_id: str | None = None) -> dict[str, Any]:
        """The memory ``drawer_id`` names (and the closet ``closet_id`` names, when given)."""
        palace = self.palace
        found: dict[str, Any] = {
            "drawer_id": drawer_id,
            "text": None,
            "status": FOUND,
            "message": None,
            "metadata": {},
            "group_id": drawer_id,
            "chunk_ids": [],
            "closet": {"id": closet_id, "text": None} if closet_id else None,
            "backend": palace.backend if palace is not None else None,
            "palace": str(palace.path) if palace is not None else None,
        }
        status, detail = self._unreadable_because(), None
        if status is None and (drawer_id or closet_id):
            try:
                status = self._read(found, drawer_id, closet_id)
            except (sqlite3.Error, OSError) as exc:  # not a palace's file, gone, no permission
                status, detail = UNREADABLE, str(exc)
        elif status is None:
            status = NO_DRAWER
        if status is not None:
            words = self.words(status, drawer_id)
            found["status"] = status
            found["message"] = f"{words.rstrip('.')}: {detail}." if detail else words
        return found

    def drawer_ids_of_file(self, source_file: str) -> set[str]:
        """The ids of every drawer filed from ``source_file``, and of the groups they are
        chunks of; empty when the palace cannot be read."""
        if not source_file or self._unreadable_because() is not None:
            return set()
        try:
            drawers = self._attempt(lambda of: of(self._readable.collection).of_file(source_file))
        except (snapshot.Busy, sqlite3.Error, OSError):
            return set()
        return {d.id for d in drawers} | {d.parent for d in drawers if d.parent}

    def words(self, status: str, drawer_id: str | None) -> str:
        """Why a memory cannot be shown, in a person's words."""
        palace = self.palace
        if palace is None:
            return "No MemPalace palace was found for this graph."
        where = f"the palace {palace.path}"
        if status == MISSING:
            return f"No memory {drawer_id!r} in {where}: it was removed, or never filed."
        if status == BEING_WRITTEN:
            return f"MemPalace is writing this memory into {where}: look again soon."
        if status == ON_SERVER:
            return (
                f"The palace {palace.path} keeps its memories on a server ({palace.backend}): "
                "Factlines reads only palaces kept in files on this computer."
            )
        if status == UNKNOWN_BACKEND:
            return (
                f"The palace {palace.path} uses the backend {palace.backend!r}, which "
                "Factlines cannot read."
            )
        if status == NO_PALACE and palace.database is not None:
            return f"No memories in {where} ({palace.database.name} is missing)."
        if status == NO_DRAWER:
            return "The fact names no drawer, only where it was found."
        return f"The palace {palace.path} cannot be read."

    # ── Reading ───────────────────────────────────────────────────────────

    def _unreadable_because(self) -> str | None:
        palace = self.palace
        if palace is None:
            return NO_PALACE
        if palace.on_server:
            return ON_SERVER
        database = palace.database
        if database is None:  # a backend Factlines cannot read
            return UNKNOWN_BACKEND
        if not database.is_file():
            return NO_PALACE  # a folder MemPalace has not filed anything into (yet)
        return None

    @property
    def _readable(self) -> Palace:
        """The palace, once :meth:`_unreadable_because` said it can be read."""
        assert self.palace is not None
        return self.palace

    def _read(
        self, found: dict[str, Any], drawer_id: str | None, closet_id: str | None
    ) -> str | None:
        def work(collection: _Collection) -> tuple[list[Drawer], list[Drawer], bool]:
            drawers = collection(self._readable.collection)
            rows = drawers.find(drawer_id) if drawer_id else []
            closet = collection(CLOSETS_COLLECTION).find(closet_id) if closet_id else []
            return rows, closet, bool(drawer_id) and not rows and drawers.queued(drawer_id)

        try:
            rows, closet, queued = self._attempt(work, retry_when=lambda answer: answer[2])
        except snapshot.Busy:
            return BEING_WRITTEN
        if queued:
            return BEING_WRITTEN
        if closet_id:
            found["closet"]["text"] = _joined(closet)
        if not rows:
            return MISSING if drawer_id else NO_DRAWER
        found["text"] = _joined(rows)
        found["metadata"] = dict(rows[0].metadata)
        found["chunk_ids"] = [row.id for row in rows]
        # A fact may name one chunk of a split drawer: the memory is then its group.
        found["group_id"] = rows[0].parent or drawer_id
        return None

    def _attempt(
        self, work: Callable[[_Collection], _T], retry_when: Callable[[_T], object] | None = None
    ) -> _T:
        """``work(collection)`` in one snapshot of the palace's file (``collection(name)``
        gives that collection's drawers); tried again, a little later, while a writer holds
        the file (or while ``retry_when(answer)``)."""
        palace = self._readable
        path = str(palace.database)
        reader = ChromaDrawers if palace.backend == CHROMA else ExactDrawers
        attempt = 1
        while True:
            last = attempt == ATTEMPTS
            try:
                answer = snapshot.read(path, lambda conn: work(lambda name: reader(conn, name)))
            except snapshot.Busy:
                if last:
                    raise
            else:
                if last or retry_when is None or not retry_when(answer):
                    return answer
            time.sleep(PAUSE)
            attempt += 1


def _joined(rows: list[Drawer]) -> str | None:
    texts = [row.text for row in rows if row.text is not None]
    return "".join(texts) if texts else None
