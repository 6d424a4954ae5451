"""The error contract of the store (docs/store-contract.md, "Errors"), in one place.

Two kinds of failure are expected and shown to a person in words; nothing was written in either:

- :class:`Refused`: the input or the rules say no (a bad date, an inverted interval, a duplicate
  open fact, an unknown entity, a read-only graph). A ``ValueError``, so callers written for
  MemPalace, which raises ``ValueError``, keep working.
- :class:`Unavailable`: the environment says no for now (locked by another writer, disk full,
  the file gone, no permission). It may work when tried again. Not a ``ValueError``.

Anything else is a bug: it is never caught as one of these two and reaches the app's error
handler with its traceback.
"""

from __future__ import annotations


class Refused(ValueError):
    """The input or the rules say no; the message says what was wrong. Nothing was written."""


# The name the public API has always exported for a refusal.
KnowledgeGraphError = Refused


class NotAKnowledgeGraph(Refused):
    """The file is not a knowledge graph (or not one this app can read); it was not touched."""


class EmptyFile(NotAKnowledgeGraph):
    """The file exists but holds nothing (0 bytes, or a SQLite database without tables). It
    may be anything a person picked by mistake: it was left untouched, and becomes a graph
    only when asked (``initialize_empty``)."""


class ReadOnlyGraph(Refused):
    """The graph is open read-only, so no edit is possible."""


class FactNotFound(Refused, KeyError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "fact not found"


class DuplicateFact(Refused):
    """An identical open fact exists; ``fact_id`` names it."""

    def __init__(self, message: str, fact_id: str):
        super().__init__(message)
        self.fact_id = fact_id


class ConflictError(Refused):
    """The rows changed since a recorded edit, so it cannot be undone or redone blindly."""


class WrittenSince(Refused):
    """Undoing or redoing a step would delete or end facts, and another writer may have come
    to rely on them since (it wrote the graph, or MemPalace's write log shows it asserting
    one): only a step replayed on purpose (``force``) goes ahead."""


class TimeValueError(Refused):
    """A time value that is not one of the accepted forms, or an inverted interval.

    Besides its message (read by scripts) it keeps what was wrong, for a caller that says it in
    its own words: ``field`` and ``value`` (the value refused), ``reason`` (why a value is not
    a time), and for an inverted interval ``start_field`` and ``start`` (what it ends before).
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        value: object = None,
        reason: str | None = None,
        start_field: str | None = None,
        start: str | None = None,
    ):
        super().__init__(message)
        self.field = field
        self.value = value
        self.reason = reason
        self.start_field = start_field
        self.start = start

    @property
    def inverted(self) -> bool:
        """Whether the interval ends before it starts (else the value is not a time)."""
        return self.start_field is not None


class Unavailable(Exception):
    """The store cannot be read or written right now; nothing was written, try again later."""


# What a person is shown in words; everything else is a bug.
EXPECTED = (Refused, Unavailable)

__all__ = [
    "EXPECTED",
    "ConflictError",
    "DuplicateFact",
    "EmptyFile",
    "FactNotFound",
    "KnowledgeGraphError",
    "NotAKnowledgeGraph",
    "ReadOnlyGraph",
    "Refused",
    "TimeValueError",
    "Unavailable",
    "WrittenSince",
]
