"""Likely duplicate entities: the ones extraction makes ("Kai Moreno", "kai moreno", "Kai",
"Kái-Moreno"), found three ways and ranked by how sure:

1. names equal but for case, accents, punctuation or spacing (surest);
2. one name the first words of another of the same type, and of no other ("Kai", "Kai Moreno");
3. two entities of one type sharing most of their neighbours (at least :data:`MIN_SHARED`,
   more than half of each one's).

Pure functions over ``(id, name, type)`` rows and ``(subject, object)`` links; no store.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

import numpy as np

SAME_NAME, FIRST_WORDS, NEIGHBOURS = 1.0, 0.6, 0.3
MIN_SHARED = 3
# A neighbour of more entities than this says little about any two of them (a hub: a city,
# a company), and pairing all of its neighbours would cost its degree squared.
HUB = 25
MOST_BEGUN = 50
UNTYPED = (None, "", "unknown")
_NOT_WORD = re.compile(r"\W+")
_PUNCTUATION = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
# Each difference a name may have from another, and what takes it away.
_DIFFERENCES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("case", str.casefold),
    (
        "accents",
        lambda text: "".join(
            c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
        ),
    ),
    ("punctuation", lambda text: _PUNCTUATION.sub("", text)),
    ("spacing", lambda text: _SPACE.sub("", text)),
)


# Names keyed in one call in C at a time (~10 ms): the UI thread's turn comes between.
_AT_ONCE = 5_000


def _folded(name: str, keep: str | None = None) -> str:
    """``name`` with every difference taken away (but ``keep``)."""
    for words, fold in _DIFFERENCES:
        if words != keep:
            name = fold(name)
    return name


def _without_accents(name: str) -> str:
    text = name.casefold()
    return text if text.isascii() else _DIFFERENCES[1][1](text)


def _quoted(names: list[str]) -> str:
    shown = [f"“{name}”" for name in names[:4]]
    if len(names) > 4:
        return ", ".join(shown) + f" and {len(names) - 4} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _differences(names: list[str]) -> str:
    """Which of case, accents, punctuation and spacing the names differ in: those without
    which they would still differ."""
    found = [words for words, _fold in _DIFFERENCES if len({_folded(n, words) for n in names}) > 1]
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]


def find_duplicates(
    entities: list[tuple[Any, ...]],
    links: Iterable[tuple[Any, ...]],
    not_same: set[frozenset[Any]],
    limit: int,
    step: Callable[[], None] = lambda: None,
) -> list[dict[str, Any]]:
    """Likely duplicates among ``entities`` ``(id, name, type)`` linked by ``links``
    ``(subject, object)``: each ``{ids, names, reason, score, rule}``, the surest first, at
    most ``limit``; a group whose ids are in ``not_same`` is left out. ``step()`` is called
    between the rules (progress, cancel)."""
    found: list[dict[str, Any]] = []
    by_id: dict[Any, tuple[str, Any]] = {
        eid: (name if isinstance(name, str) else str(name), kind) for eid, name, kind in entities
    }
    # Whole lists at a time (map, not a loop of statements): this is most of the names' cost.
    folded = dict(zip(by_id, map(_without_accents, (name for name, _kind in by_id.values()))))
    # ... a slice at a time: one call in C over 100,000 names held the lock 200 ms.
    key_of: dict[Any, str] = {}
    ids, keys = list(folded), list(folded.values())
    for start in range(0, len(ids), _AT_ONCE):
        chunk = keys[start : start + _AT_ONCE]
        key_of.update(zip(ids[start : start + _AT_ONCE], map(partial(_NOT_WORD.sub, ""), chunk)))
    groups: dict[str, list[Any]] = defaultdict(list)
    for eid, key in key_of.items():
        groups[key].append(eid)
    reported: set[frozenset[Any]] = set()
    for key, ids in groups.items():
        if len(ids) > 1 and key:
            ids.sort(key=lambda eid: (by_id[eid][0], str(eid)))
            names = [by_id[eid][0] for eid in ids]
            reason = f"{_quoted(names)}: the same name but for {_differences(names)}"
            found.append(_found(ids, names, reason, SAME_NAME, "same name"))
            reported.add(frozenset(ids))
    step()
    alone = {eid: folded[eid] for ids in groups.values() if len(ids) == 1 for eid in ids}
    found += _first_words(by_id, alone)
    reported |= {frozenset(item["ids"]) for item in found}
    step()
    found += _shared_neighbours(by_id, links, reported)
    step()
    found = [item for item in found if frozenset(item["ids"]) not in not_same]
    found.sort(key=lambda item: (-item["score"], item["names"][0].casefold(), str(item["ids"])))
    return found[:limit]


def _found(
    ids: list[Any], names: list[str], reason: str, score: float, rule: str
) -> dict[str, Any]:
    return {"ids": list(ids), "names": names, "reason": reason, "score": score, "rule": rule}


def same_kind(one: object, other: object) -> bool:
    """Two entity types that may be one entity's: equal, or one not known (MemPalace's
    ``add_triple`` makes its entities ``unknown``; extraction's duplicates are mostly such)."""
    return one == other or one in UNTYPED or other in UNTYPED


def _of_type(one: object, other: object) -> str:
    if one == other:
        return f" (both {one})" if one not in UNTYPED else ""
    return f" ({one} and {other})"


def _first_words(by_id: dict[Any, tuple[str, Any]], alone: dict[Any, str]) -> list[dict[str, Any]]:
    """Pairs where one name is the first whole words of another of a type it may be, and of no
    other (``alone``: the entities no other has the same name as, each name folded). In order
    of the words, the names a name begins come right after it; a name beginning more than
    :data:`MOST_BEGUN` names is too common a start to say."""
    punctuation = _PUNCTUATION.sub
    ids = list(alone)
    keyed = sorted((" ".join(punctuation("", alone[eid]).split()), n) for n, eid in enumerate(ids))
    found: list[dict[str, Any]] = []
    for i, (words, n) in enumerate(keyed):
        if len(words) < 3:
            continue
        start, kind = words + " ", by_id[ids[n]][1]
        begun: list[int] = []
        for j in range(i + 1, min(i + 2 + MOST_BEGUN, len(keyed))):
            if not keyed[j][0].startswith(start):
                break
            begun.append(keyed[j][1])
        longer = [other for other in begun if same_kind(kind, by_id[ids[other]][1])]
        if len(longer) != 1 or len(begun) > MOST_BEGUN:
            continue
        pair = [ids[n], ids[longer[0]]]
        names = [by_id[pair[0]][0], by_id[pair[1]][0]]
        of_type = _of_type(kind, by_id[pair[1]][1])
        reason = f"“{names[0]}” is the start of “{names[1]}”, and of no other name{of_type}"
        found.append(_found(pair, names, reason, FIRST_WORDS, "first words"))
    return found


def _shared_neighbours(
    by_id: dict[Any, tuple[str, Any]],
    links: Iterable[tuple[Any, ...]],
    reported: set[frozenset[Any]],
) -> list[dict[str, Any]]:
    """Pairs of one type sharing at least :data:`MIN_SHARED` neighbours that are no hub,
    more than half of each one's neighbours: every pair of each such neighbour's neighbours
    counted at once (numpy), then the few that qualify looked at one by one."""
    number: dict[Any, int] = {eid: i for i, eid in enumerate(by_id)}
    links = list(links)
    if not links:
        return []
    get = number.get
    subjects = np.fromiter((get(s, -1) for s, _o in links), np.int64, len(links))
    objects = np.fromiter((get(o, -1) for _s, o in links), np.int64, len(links))
    for numbers, end in ((subjects, 0), (objects, 1)):
        for at in np.flatnonzero(numbers < 0).tolist():  # no entity's: a neighbour all the same
            numbers[at] = number.setdefault(links[at][end], len(number))
    mine = subjects != objects
    subjects, objects = subjects[mine], objects[mine]
    count = len(number)
    both = _distinct(np.concatenate([subjects * count + objects, objects * count + subjects]))[0]
    around, neighbour = both // count, both % count  # by node, its neighbours ascending
    degree = np.bincount(around, minlength=count)
    first = np.concatenate([[0], np.cumsum(degree)[:-1]])
    keys: list[np.ndarray] = []
    for size in range(2, HUB + 1):
        nodes = np.flatnonzero(degree == size)
        if not len(nodes):
            continue
        lists = neighbour[first[nodes][:, None] + np.arange(size)]
        left, right = np.triu_indices(size, 1)
        keys.append((lists[:, left] * count + lists[:, right]).ravel())
    if not keys:
        return []
    pair_keys, shared = _distinct(np.concatenate(keys))
    a, b = pair_keys // count, pair_keys % count
    keep = (shared >= MIN_SHARED) & (2 * shared > degree[a]) & (2 * shared > degree[b])
    ids = list(number)
    found: list[dict[str, Any]] = []
    for i, j, n in zip(a[keep].tolist(), b[keep].tolist(), shared[keep].tolist()):
        x, y = sorted((ids[i], ids[j]), key=str)
        if x not in by_id or y not in by_id or not same_kind(by_id[x][1], by_id[y][1]):
            continue
        if frozenset((x, y)) in reported:
            continue
        union = int(degree[i] + degree[j]) - n
        names = [by_id[x][0], by_id[y][0]]
        reason = f"“{names[0]}” and “{names[1]}” share {n} of their {union} neighbours"
        reason += _of_type(by_id[x][1], by_id[y][1])
        found.append(_found([x, y], names, reason, NEIGHBOURS + 0.3 * n / union, "neighbours"))
    return found


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, ascending, and how many times each came (by sorting: many times
    quicker than ``np.unique``'s hashing on these)."""
    keys = np.sort(keys)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return keys[starts], np.diff(np.concatenate([starts, [len(keys)]]))
