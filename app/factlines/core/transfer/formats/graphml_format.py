"""GraphML: entities as nodes, facts as directed edges (parallel edges allowed), written as a
stream. Standard GraphML (graphml.graphdrawing.org), so yEd, Gephi, Cytoscape and networkx open
it; every value is a ``<data>`` of a declared key, and a value that is absent is left out.

- A node's id is the entity's id; ``label`` its display name (the key Gephi takes for a
  label), ``type``, ``properties`` (JSON text) and ``created_at``.
- An edge's id is the fact's id (Gephi and networkx keep it as the edge's id / key);
  ``label`` the predicate (key id ``edgelabel``, Gephi's edge-label key), ``predicate``,
  ``valid_from`` and ``valid_to`` exactly as stored, and the comparison keys of contract §2.3:
  ``start`` (the start's key) and ``end`` (the end's key, the instant the fact stops holding),
  both UTC instants ``YYYY-MM-DDTHH:MM:SSZ``, absent when unbounded. ``confidence`` is a
  double; one that is not a number is written to ``confidence_text`` instead. Provenance and
  ``extracted_at`` follow.
- A newer MemPalace's columns follow as stored, as text, under keys ``node_<column>`` and
  ``edge_<column>`` named ``<column>``.
- The interval as Gephi holds a dynamic graph: Gephi keeps an element's lifetime as an
  interval set, written ``<[start, end]>`` with ISO instants and ``-Infinity`` / ``Infinity``
  for an open side (the form of its "Interval"/timeset column and of its spreadsheet import).
  Gephi's GraphML importer has no time convention of its own (it reads keys as plain columns),
  so the edge carries that text as ``interval`` and the bounds as ``start`` / ``end``; in
  Gephi's Data Laboratory, "Merge columns → Create time interval" on ``start`` and ``end``
  (parse dates, ``yyyy-MM-dd'T'HH:mm:ss'Z'``) turns them into the edge's timeline. A fact valid
  nowhere (an inverted interval, MemPalace's ``""`` end) has no ``interval``. Gephi's intervals
  are closed, the graph's half-open: the end instant itself is the only difference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO
from xml.sax.saxutils import escape, quoteattr

from factlines.core import temporal
from factlines.core.columns import STORED, TRIPLE_COLUMNS
from factlines.core.progress import RowCounter
from factlines.core.store.rows import ENTITY_COLUMNS
from factlines.core.transfer.formats.record import BATCH, Format
from factlines.core.transfer.values import blob_tag

if TYPE_CHECKING:
    from factlines.core.store.protocol import Selection

NODE_KEYS = (
    ("label", "label", "string"),
    ("type", "type", "string"),
    ("properties", "properties", "string"),
    ("created_at", "created_at", "string"),
)
# The columns an edge writes in a way of its own: its id and ends are its attributes, the
# bounds come with their keys, a confidence is a number or text. The rest as stored, in order.
_OWN_WAY = ("id", "subject", "predicate", "object", "valid_from", "valid_to", "confidence")
_AS_STORED = tuple(
    (i, column.graphml_key)
    for i, column in enumerate(STORED)
    if column.name not in _OWN_WAY and column.graphml_key
)
EDGE_KEYS = (
    ("edgelabel", "label", "string"),
    ("predicate", "predicate", "string"),
    ("valid_from", "valid_from", "string"),
    ("valid_to", "valid_to", "string"),
    ("start", "start", "string"),
    ("end", "end", "string"),
    ("interval", "interval", "string"),
    ("confidence", "confidence", "double"),
    ("confidence_text", "confidence_text", "string"),
    *((key, key, "string") for _, key in _AS_STORED),
)
GRAPH_KEYS = (
    ("g_as_of", "as_of", "string"),
    ("g_entity", "entity", "string"),
    ("g_exported_at", "exported_at", "string"),
)
# Characters XML 1.0 cannot hold, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: object) -> str:
    if isinstance(value, bytes):
        value = json.dumps(blob_tag(value))
    return _NOT_XML.sub("\ufffd", str(value))


def _data(key: str, value: object) -> str:
    if value is None:
        return ""
    return f'<data key="{key}">{escape(_text(value))}</data>'


def _time(value: str | None) -> bool:
    """A time value the rules accept (Gephi parses it), or no bound."""
    if value is None:
        return True
    try:
        return temporal.parse(value, "value") == value
    except ValueError:
        return False


def interval(
    valid_from: str | None, valid_to: str | None
) -> tuple[str | None, str | None, str | None]:
    """(start key, end key, Gephi's interval text) of a fact. A key is None when unbounded or
    not shaped like a time; the text is None when the fact is valid nowhere or a bound is not
    a time value the rules accept."""
    start = temporal.start_key(valid_from) if temporal.is_dated(valid_from) else None
    end = temporal.end_key(valid_to) if temporal.is_dated(valid_to) else None
    if not (_time(valid_from) and _time(valid_to)):
        return start, end, None
    if start is not None and end is not None and end <= start:
        return start, end, None
    return start, end, f"<[{start or '-Infinity'}, {end or 'Infinity'}]>"


def write_graphml(
    out: TextIO, selection: Selection, meta: dict[str, Any], counter: RowCounter
) -> None:
    out.write(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
    )
    node_extras = _extra_keys("node", selection.columns["entities"][len(ENTITY_COLUMNS) :])
    edge_extras = _extra_keys("edge", selection.columns["triples"][len(TRIPLE_COLUMNS) :])
    for kind, keys in (
        ("graph", GRAPH_KEYS),
        ("node", (*NODE_KEYS, *node_extras)),
        ("edge", (*EDGE_KEYS, *edge_extras)),
    ):
        for key, name, kind_of in keys:
            out.write(
                f'  <key id={quoteattr(key)} for="{kind}" attr.name={quoteattr(name)} '
                f'attr.type="{kind_of}"/>\n'
            )
    out.write('  <graph id="G" edgedefault="directed">\n')
    out.write(
        "    "
        + _data("g_as_of", meta.get("as_of"))
        + _data("g_entity", meta.get("entity"))
        + _data("g_exported_at", temporal.now_instant())
        + "\n"
    )
    nodes: set[object] = set()
    for rows in selection.entity_rows(BATCH):
        out.write("".join(_node(row, node_extras) for row in rows))
        nodes.update(row[0] for row in rows)
        counter.add(len(rows))
    for rows in selection.fact_rows(BATCH):
        parts: list[str] = []
        for row in rows:
            for end in (row[1], row[3]):  # an entity row the file lacks: a bare node
                if end not in nodes:
                    nodes.add(end)
                    parts.append(f"    <node id={quoteattr(_text(end))}/>\n")
            parts.append(_edge(row, edge_extras))
        out.write("".join(parts))
        counter.add(len(rows))
    out.write("  </graph>\n</graphml>\n")


def _extra_keys(kind: str, names: Iterable[str]) -> list[tuple[str, str, str]]:
    """The keys of a newer MemPalace's columns, named apart from ours by their kind."""
    return [(f"{kind}_{name}", name, "string") for name in names]


def _extras(row: tuple[Any, ...], known: int, keys: list[tuple[str, str, str]]) -> str:
    return "".join(_data(key, value) for (key, _, _), value in zip(keys, row[known:]))


def _node(row: tuple[Any, ...], extras: list[tuple[str, str, str]]) -> str:
    eid, name, entity_type, properties, created_at = row[: len(ENTITY_COLUMNS)]
    return (
        f"    <node id={quoteattr(_text(eid))}>"
        + _data("label", name)
        + _data("type", entity_type)
        + _data("properties", properties)
        + _data("created_at", created_at)
        + _extras(row, len(ENTITY_COLUMNS), extras)
        + "</node>\n"
    )


def _edge(row: tuple[Any, ...], extras: list[tuple[str, str, str]]) -> str:
    # MemPalace's first columns: a newer MemPalace adds its own after them.
    tid, subject, predicate, obj, valid_from, valid_to, confidence = row[: len(_OWN_WAY)]
    start, end, text = interval(valid_from, valid_to)
    numeric = isinstance(confidence, (int, float)) and not isinstance(confidence, bool)
    return (
        f"    <edge id={quoteattr(_text(tid))} source={quoteattr(_text(subject))} "
        f"target={quoteattr(_text(obj))}>"
        + _data("edgelabel", predicate)
        + _data("predicate", predicate)
        + _data("valid_from", valid_from)
        + _data("valid_to", valid_to)
        + _data("start", start)
        + _data("end", end)
        + _data("interval", text)
        + _data("confidence", confidence if numeric else None)
        + _data("confidence_text", None if numeric else confidence)
        + "".join(_data(key, row[i]) for i, key in _AS_STORED)
        + _extras(row, len(TRIPLE_COLUMNS), extras)
        + "</edge>\n"
    )


GRAPHML = Format(
    key="graphml",
    name="GraphML",
    extensions=(".graphml",),
    writer=write_graphml,
    export_words="for yEd, Gephi, networkx",
)
