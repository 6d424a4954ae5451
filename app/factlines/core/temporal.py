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


def is_date(value: str | None) -> bool:
    """Whether a stored value is date-only (the same test the SQL expressions make)."""
    return value is not None and len(value) == 10 and value[4] == "-" and value[7] == "-"


def start_key(value: str | None) -> str | None:
    """The comparable instant of a value used as a start."""
    if value is None:
        return None
    return value + DAY_START_SUFFIX if is_date(value) else value


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
    valid_from: str | None, valid_to: str | None, to_field="valid_to", from_field="valid_from"
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


def to_posix(key: str | None) -> float | None:
    """POSIX seconds of a comparison key (or of a stored value read as a start).

    None for None and for a value that is not in a stored form: MemPalace passes ``""``
    through, and older files may hold partial dates; such a bound is drawn as unknown rather
    than failing the whole read.
    """
    if key is None:
        return None
    key = start_key(key)
    if not _KEY_RE.fullmatch(key):
        return None
    return _posix_of_key(key)


@lru_cache(maxsize=1 << 16)
def start_posix(value: str | None) -> float | None:
    """POSIX seconds of a stored value's start key (cached: rows repeat the same days)."""
    return to_posix(start_key(value))


@lru_cache(maxsize=1 << 16)
def end_posix(value: str | None) -> float | None:
    """POSIX seconds of a stored value's end key (a day ends at its last second).

    MemPalace stores an empty ``valid_to`` as given: the fact is not current and no as_of
    query returns it, so it ended at an unknown time: ``-inf``, valid nowhere.
    """
    if value == "":
        return -math.inf
    return to_posix(end_key(value))


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


def from_posix(seconds: float) -> str:
    """The UTC instant of POSIX ``seconds`` (truncated to the second)."""
    # From the epoch by arithmetic: fromtimestamp() fails before 1970 on some platforms.
    moment = _EPOCH + timedelta(seconds=int(seconds // 1))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def calendar_day(value: str | None) -> date | None:
    """The calendar day a stored value falls on (its first ten characters), None for None."""
    return date.fromisoformat(value[:10]) if value else None


def day_of_posix(seconds: float) -> str:
    """The UTC calendar day containing POSIX ``seconds``, in stored form."""
    return (date(1970, 1, 1) + timedelta(days=math.floor(seconds / 86_400))).isoformat()
