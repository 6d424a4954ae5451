"""PostgreSQL's errors sorted once, as the SQLite engine sorts SQLite's: what the environment
causes (the server refused or lost the connection, a lock was not granted in time, the
transaction is read-only, the disk is full, the role may not) becomes
:class:`~factlines.core.errors.Unavailable`, in the person's words; anything else (a unique
violation included, as with SQLite) is a bug and propagates as it is."""

from __future__ import annotations

from factlines.core.errors import Unavailable

_LOCKED = "it is locked by another client, try again"
# SQLSTATEs (or their two-character class) that mean "the environment says no".
_UNAVAILABLE = {
    "55P03": _LOCKED,  # lock_not_available: lock_timeout ran out
    "57014": _LOCKED,  # query_canceled (a statement timeout)
    "40001": _LOCKED,  # serialization_failure
    "40P01": _LOCKED,  # deadlock_detected
    "25006": "the server accepts no writes (read-only)",
    "53100": "the server's disk is full",
    "53200": "the server ran out of memory",
    "53300": "the server has too many connections",
    "42501": "the database role may not do that (permission denied)",
    "57P01": "the server shut down",
    "57P02": "the server shut down",
    "57P03": "the server is not accepting connections yet",
    "3D000": "the database does not exist",
    "28": "the server refused the login",
    "08": "the connection to the server was lost",
    "58": "the server could not read or write its disk",
    "XX001": "the server's data is damaged",
}
# Without a SQLSTATE, an OperationalError is about the connection itself (refused, lost).
_NO_STATE = "the server could not be reached (refused, lost, or not running)"


def reason(exc: Exception) -> str | None:
    """The person's words for an environment error, None for a bug."""
    import psycopg

    if not isinstance(exc, psycopg.Error):
        return None
    state = exc.sqlstate
    if state is None:
        return _NO_STATE if isinstance(exc, psycopg.OperationalError) else None
    return _UNAVAILABLE.get(state) or _UNAVAILABLE.get(state[:2])


def unavailable(label: str, exc: Exception, doing: str) -> Unavailable | None:
    """The :class:`Unavailable` an environment error means, or None for a bug."""
    why = reason(exc)
    if why is None:
        return None
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return Unavailable(f"{label} could not be {doing}: {why}; nothing was written ({detail})")
