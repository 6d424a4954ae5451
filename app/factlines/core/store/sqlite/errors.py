"""SQLite's errors sorted once: what the environment causes (locked, read-only, disk full, gone,
damaged) becomes :class:`~factlines.core.errors.Unavailable`, in the person's words; anything
else is a bug and propagates as it is."""

from __future__ import annotations

import sqlite3

from factlines.core.errors import Unavailable

# SQLite's primary result codes that mean "the environment says no", with the person's words.
_UNAVAILABLE = {
    sqlite3.SQLITE_BUSY: "it is locked by another program, try again",
    sqlite3.SQLITE_LOCKED: "it is locked by another program, try again",
    sqlite3.SQLITE_NOMEM: "the computer ran out of memory",
    sqlite3.SQLITE_READONLY: "it cannot be written (read-only)",
    sqlite3.SQLITE_IOERR: "reading or writing the disk failed",
    sqlite3.SQLITE_CORRUPT: "the file is damaged",
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_CANTOPEN: "the file cannot be opened (moved, deleted, or no permission)",
    sqlite3.SQLITE_PROTOCOL: "it is locked by another program, try again",
    sqlite3.SQLITE_PERM: "permission was denied",
    sqlite3.SQLITE_AUTH: "permission was denied",
    sqlite3.SQLITE_NOTADB: "the file is not a database any more",
}


def unavailable(path: str, exc: sqlite3.Error, doing: str) -> Unavailable | None:
    """The :class:`Unavailable` an environment error means, or None for a bug."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    reason = _UNAVAILABLE.get(code & 0xFF)
    if reason is None:
        return None
    return Unavailable(f"{path} could not be {doing}: {reason}; nothing was written ({exc})")


def environmental(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error comes from the environment (not from the statement)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _UNAVAILABLE
