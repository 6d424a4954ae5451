"""The time rules, in one place (the SQL form of them is the SQLite engine's ``timesql``).

A stored value is a calendar day (``2026-03-01``) or a UTC instant to the second
(``2026-03-01T14:30:00Z``). As a start (``valid_from``, ``as_of``, a supersede instant) a day
means its first second; as an end (``valid_to``) it means its last second, so a date-only end
covers its whole last day. Intervals are half-open: valid at ``t`` when ``start <= t < end``.
"""

from __future__ import annotations

import calendar
import math
import re
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from typing import overload

from factlines.core.errors import TimeValueError

EXPECTED_FORMS = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC; +00:00 is accepted as Z)"

DAY_START_SUFFIX = "T00:00:00Z"
DAY_END_SUFFIX = "T23:59:59Z"

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INSTANT_RE = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(Z|\+00:00)"
)


_KEY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def parse(value: object, field: str) -> str | None:
    """Validate ``value`` for ``field`` and return its stored form (``+00:00`` becomes ``Z``).

    ``None`` and ``""`` mean "unknown" / "still open" and come back as ``None``.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise TimeValueError(
            f"{field} must be a string in the form {EXPECTED_FORMS}, not {type(value).__name__}",
            field=field,
            value=value,
            reason=f"a {type(value).__name__}, not text",
        )
    text = value.strip()
    if text == "":
        return None
    if _DATE_RE.fullmatch(text):
        try:
            date.fromisoformat(text)
        except ValueError:
            raise _bad(field, value, "no such calendar day") from None
        return text
    match = _INSTANT_RE.fullmatch(text)
    if match:
        day, hour, minute, second, _zone = match.groups()
        try:
            date.fromisoformat(day)
        except ValueError:
            raise _bad(field, value, "no such calendar day") from None
        if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
            raise _bad(field, value, "no such time of day")
        return f"{day}T{hour}:{minute}:{second}Z"
    raise _bad(field, value, _reason(text))


def _reason(text: str) -> str:
    if re.fullmatch(r"[0-9]{4}(-[0-9]{2})?", text):
        return "a partial date is not a time"
    if re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2} ", text):
        return "use T between the date and the time"
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+", text):
        return "a datetime needs a Z (UTC) zone"
    if re.search(r"T[0-9:]+\.[0-9]+", text):
        return "fractional seconds are not stored"
    if re.search(r"[+-][0-9]{2}:?[0-9]{2}$", text):
        return "only UTC (Z or +00:00) is accepted"
    return "not a date or UTC instant"


def _bad(field: str, value: object, reason: str) -> TimeValueError:
    return TimeValueError(
        f"{field}={value!r} is not valid ({reason}); expected {EXPECTED_FORMS}",
        field=field,
        value=value,
        reason=reason,
    )


# A stored value is *dated* when shaped like a day or a UTC instant: one of these lengths with
# "-" at these places (MemPalace's own day test, with an instant's length). Only a dated value
# has a place in time of its own: MemPalace's "", a bare year or stray text has none. The
# engines' SQL of the rule is built from these (``timesql.dated`` and its day test).
DAY_LENGTH, INSTANT_LENGTH = 10, 20
DATE_DASHES = (4, 7)


def is_dated(value: str | None) -> bool:
    """Whether a stored value is dated: a day or an instant by its shape (contract §6.1)."""
    return (
        value is not None
        and len(value) in (DAY_LENGTH, INSTANT_LENGTH)
        and value[4] == "-"
        and value[7] == "-"
    )


def is_date(value: str | None) -> bool:
    """Whether a stored value is dated and a day: its key is one of the day's ends."""
    return value is not None and len(value) == DAY_LENGTH and value[4] == "-" and value[7] == "-"


@overload
def start_key(value: str) -> str: ...
@overload
def start_key(value: None) -> None: ...
@overload
def start_key(value: str | None) -> str | None: ...
def start_key(value: str | None) -> str | None:
    """The comparable instant of a value used as a start."""
    if value is None:
        return None
    return value + DAY_START_SUFFIX if is_date(value) else value


@overload
def end_key(value: str) -> str: ...
@overload
def end_key(value: None) -> None: ...
@overload
def end_key(value: str | None) -> str | None: ...
def end_key(value: str | None) -> str | None:
    """The comparable instant of a value used as an end."""
    if value is None:
        return None
    return value + DAY_END_SUFFIX if is_date(value) else value


def is_valid_at(valid_from: str | None, valid_to: str | None, instant_key: str) -> bool:
    """The validity rule; ``instant_key`` is already a start key (see :func:`start_key`)."""
    return (valid_from is None or start_key(valid_from) <= instant_key) and (
        valid_to is None or end_key(valid_to) > instant_key
    )


def check_interval(
    valid_from: str | None,
    valid_to: str | None,
    to_field: str = "valid_to",
    from_field: str = "valid_from",
) -> None:
    """Refuse an interval whose end key is before its start key (equal is fine)."""
    if (
        valid_from is not None
        and valid_to is not None
        and end_key(valid_to) < start_key(valid_from)
    ):
        raise TimeValueError(
            f"{to_field}={valid_to!r} is before {from_field}={valid_from!r}; "
            "an inverted interval would be invisible to every query",
            field=to_field,
            value=valid_to,
            start_field=from_field,
            start=valid_from,
        )


def boundary(at: str | None, field: str = "at") -> str:
    """A handover instant: a day becomes its first second, so both sides share one instant."""
    if at is None:
        return now_instant()
    value = parse(at, field)
    if value is None:
        return now_instant()
    return start_key(value)


def now_instant() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def today() -> str:
    return date.today().isoformat()


def latest_today() -> str:
    """Today as a stored day: the later of this computer's calendar day and UTC's. A stored
    day is a calendar day with no zone, and MemPalace ends a fact on its own computer's day:
    a day-only end on this day has not yet passed anywhere it could have been written."""
    return max(today(), now_instant()[:10])


def to_posix(key: str | None) -> float | None:
    """POSIX seconds of a comparison key (or of a stored value read as a start).

    None for None and for a value that is not a real instant in a stored form (``""``, a
    partial date, ``2025-02-30``): use :func:`start_posix` / :func:`end_posix` for what such a
    stored value means to a query.
    """
    if key is None:
        return None
    key = start_key(key)
    if not _is_real_key(key):
        return None
    return _posix_of_key(key)


def _is_real_key(key: str) -> bool:
    """Whether ``key`` is ``YYYY-MM-DDTHH:MM:SSZ`` naming an instant that exists."""
    if not _KEY_RE.fullmatch(key):
        return False
    try:
        date.fromisoformat(key[:10])
    except ValueError:
        return False
    return key[11:13] <= "23" and key[14:16] <= "59" and key[17:19] <= "59"


@lru_cache(maxsize=1 << 16)
def is_accepted(value: object) -> bool:
    """Whether a stored value is one the time rules accept, exactly as stored (no surrounding
    whitespace): a calendar day or a UTC instant that exists. None and ``""`` are not values."""
    if not isinstance(value, str) or not value or value != value.strip():
        return False
    try:
        return parse(value, "value") is not None
    except TimeValueError:
        return False


@lru_cache(maxsize=1 << 16)
def start_posix(value: object) -> float | None:
    """What a stored ``valid_from`` means to a query, in POSIX seconds: valid at ``t`` when
    ``start_posix(value) <= t``. None for None (an unknown start).

    For a value the rules accept, its start key. For anything else MemPalace and the store
    compare the stored text with the instant's key as text (contract §2.3); the answer is
    the same for every instant from the first whose key sorts at or after the text: that
    instant, ``-inf`` when it is the first there is (valid from any time: an unknown start),
    ``+inf`` when there is none (valid at no instant).
    """
    if value is None:
        return None
    key = start_key(value) if isinstance(value, str) else value
    if isinstance(key, str) and _is_real_key(key):
        return _posix_of_key(key)
    return _text_threshold(key)


@lru_cache(maxsize=1 << 16)
def end_posix(value: object) -> float | None:
    """What a stored ``valid_to`` means to a query, in POSIX seconds: valid at ``t`` when
    ``t < end_posix(value)`` (a day ends at its last second). None for None (still open).

    A value the rules do not accept is compared as text, as MemPalace and the store do: the
    fact is valid before the first instant whose key sorts at or after the text, so that
    instant is its end; ``-inf`` when it is the first instant there is (an end nobody knows:
    MemPalace's empty ``valid_to``, ``0000-00-00``; valid nowhere); ``+inf`` when no key sorts
    after the text (a word such as ``never``: every query returns the fact, though it is not
    current). Never None: a stored end is never read as open.
    """
    if value is None:
        return None
    key = end_key(value) if isinstance(value, str) else value
    if isinstance(key, str) and _is_real_key(key):
        return _posix_of_key(key)
    return _text_threshold(key)


@lru_cache(maxsize=1 << 16)
def _posix_of_key(key: str) -> float:
    # Cached: a chart reads the same few thousand days again on every reload.
    return float(
        calendar.timegm(
            (
                int(key[:4]),
                int(key[5:7]),
                int(key[8:10]),
                int(key[11:13]),
                int(key[14:16]),
                int(key[17:19]),
                0,
                0,
                0,
            )
        )
    )


# The instants a query can name: the first and last second of years 0001 to 9999.
_FIRST_SECOND = -62_135_596_800  # 0001-01-01T00:00:00Z
_LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z
_EPOCH = datetime(1970, 1, 1)


def _key_of_posix(seconds: int) -> str:
    moment = _EPOCH + timedelta(seconds=seconds)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}Z"
    )


def _text_threshold(text: object) -> float:
    """POSIX seconds of the first instant whose key is not below ``text`` in SQLite's order;
    -inf when that is the first instant, +inf when there is none.

    SQLite sorts text by its bytes (UTF-8, which orders like code points), numbers before
    every text and a BLOB after it."""
    if isinstance(text, (int, float)):
        return -math.inf  # a number sorts before every text
    if not isinstance(text, str):
        return math.inf  # a BLOB sorts after every text
    if text <= _key_of_posix(_FIRST_SECOND):
        return -math.inf
    if text > _key_of_posix(_LAST_SECOND):
        return math.inf
    low, high = _FIRST_SECOND, _LAST_SECOND  # key(low) < text <= key(high)
    while high - low > 1:
        middle = (low + high) // 2
        if _key_of_posix(middle) < text:
            low = middle
        else:
            high = middle
    return float(high)


def from_posix(seconds: float) -> str:
    """The UTC instant of POSIX ``seconds`` (truncated to the second), years 0001–9999, the year
    padded to four digits (strftime writes year 800 as ``800``)."""
    # From the epoch by arithmetic: fromtimestamp() fails before 1970 on some platforms.
    return _key_of_posix(int(seconds // 1))


def before_posix(seconds: int) -> str:
    """A key just below every key at or after POSIX ``seconds``: the instant a second earlier, or
    below every instant when ``seconds`` is the first one a query can name."""
    return from_posix(seconds - 1) if seconds > _FIRST_SECOND else ""


def calendar_day(value: str | None) -> date | None:
    """The calendar day a stored value falls on (its first ten characters); None for None and
    for a value whose first ten characters are not a day that exists (``2025-02-30``)."""
    if not value or not _DATE_RE.fullmatch(value[:10]):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def day_of_posix(seconds: float) -> str:
    """The UTC calendar day containing POSIX ``seconds``, in stored form."""
    return (date(1970, 1, 1) + timedelta(days=math.floor(seconds / 86_400))).isoformat()
