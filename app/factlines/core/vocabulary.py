"""A graph's predicates as a vocabulary: which spellings look like one relation written twice.

MemPalace 3.11's audit (``mempalace audit``, ``palace_audit.drift_key``) groups wing and room
names that drifted apart by one key: lower-cased, every character that is not a letter or a
digit dropped, a trailing ``s`` stripped (``acme-app`` / ``acme_app``). Its knowledge-graph
layer only counts one-off predicates; it has no near-duplicate test for them. Factlines groups
predicates by that same key *and* by a key that also forgives common inflections, word by
word: ``works_on``, ``working_on``, ``worked_on``, ``works on`` and ``WorksOn`` are one
relation, and so are ``lives_in`` / ``lived_in`` / ``living_in``. Two predicates are near
duplicates when either key says so.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

# Words split at separators and at a lower-to-upper change (``WorksOn``, ``worksOn``).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# The few irregular verbs predicates are written with.
_IRREGULAR = {
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "being": "be",
    "has": "have",
    "had": "have",
    "having": "have",
}


def drift_key(predicate: object) -> str:
    """MemPalace's audit key (``palace_audit.drift_key``), to the letter."""
    key = re.sub(r"[^a-z0-9]", "", str(predicate).lower())
    if len(key) > 3 and key.endswith("s"):
        key = key[:-1]
    return key


def _stem(word: str) -> str:
    """A word without its inflection: ``works``, ``working``, ``worked`` → ``work``;
    ``lives``, ``lived``, ``living`` → ``liv``; ``studies``, ``studied`` → ``study``."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith(("ies", "ied")):
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
            if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # running → run (but not calling → cal)
            break
    else:
        if len(word) > 4 and word.endswith(("sses", "ses", "xes", "ches", "shes", "zes")):
            word = word[:-2]  # statuses → status, reaches → reach
        elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    if len(word) > 2 and word.endswith("e"):
        word = word[:-1]  # lives → live → liv, as lived and living
    return word


def inflection_key(predicate: object) -> str:
    """The words of a predicate, each without its inflection, run together."""
    return "".join(_stem(word.lower()) for word in _WORDS.findall(str(predicate)))


def near_duplicates(predicates: Iterable[object]) -> dict[object, list[object]]:
    """For each predicate that has near duplicates, the others of its group (in the order
    given). Groups join through either key, so a chain of look-alikes is one group."""
    predicates = list(dict.fromkeys(predicates))
    parent = {p: p for p in predicates}

    def root(p: object) -> object:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for key in (drift_key, inflection_key):
        first: dict[str, object] = {}
        for predicate in predicates:
            k = key(predicate)
            if not k:
                continue
            if k in first:
                parent[root(predicate)] = root(first[k])
            else:
                first[k] = predicate
    groups: dict[object, list[object]] = defaultdict(list)
    for predicate in predicates:
        groups[root(predicate)].append(predicate)
    return {
        p: [other for other in group if other != p]
        for group in groups.values()
        if len(group) > 1
        for p in group
    }
