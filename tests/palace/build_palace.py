"""Build a small palace through MemPalace's own code, offline: run as a script, in a process
of its own (chromadb's client holds locks on the palace for the life of its process, and
MemPalace's MCP module takes over stdout), with HOME and MEMPALACE_CONFIG_DIR set by the caller.

``python build_palace.py BACKEND PALACE SOURCE_DIR OUT.json [--drawers N]``
``python build_palace.py BACKEND PALACE --keep-filing SECONDS OUT.json``: file a drawer at a
time through MemPalace's MCP tool for that long (into a palace built before), then write how
many it filed and the failures.

Every write passes explicit ``embeddings=`` (a fixed vector per text), so no embedding model
is loaded or downloaded. Writes what it filed to OUT.json: the mined file's drawer ids, the
MCP drawer's id, the split drawer's group id and chunk ids, a closet id, and each drawer's
text and metadata as MemPalace's own ``get`` returns them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

DIMENSIONS = 8


def vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [byte / 255 for byte in digest[:DIMENSIONS]]


class WithEmbeddings:
    """A MemPalace collection whose writes carry explicit embeddings."""

    def __init__(self, collection):
        self._collection = collection

    def __getattr__(self, name):
        return getattr(self._collection, name)

    def upsert(self, *, documents, ids, metadatas=None, **kwargs):
        kwargs.setdefault("embeddings", [vector(d) for d in documents])
        return self._collection.upsert(documents=documents, ids=ids, metadatas=metadatas, **kwargs)

    add = upsert


def keep_filing(backend: str, palace: str, seconds: float, out: str) -> None:
    import time

    from mempalace import mcp_server
    from mempalace.palace import get_collection

    drawers = WithEmbeddings(get_collection(palace, create=False, backend=backend))
    mcp_server._get_collection = lambda create=False: drawers
    filed, failed, stop = [], [], time.monotonic() + seconds
    while time.monotonic() < stop:
        done = mcp_server.tool_add_drawer("work", "live", f"Live note {len(filed)}: Kai and Ada.")
        (filed if done.get("success") else failed).append(done.get("drawer_id") or done)
    Path(out).write_text(json.dumps({"filed": filed, "failed": failed}))


def main(argv: list[str]) -> None:
    if argv[2] == "--keep-filing":
        return keep_filing(argv[0], argv[1], float(argv[3]), argv[4])
    backend, palace, source_dir, out = argv[:4]
    extra = int(argv[argv.index("--drawers") + 1]) if "--drawers" in argv else 0
    from mempalace import miner
    from mempalace.palace import get_closets_collection, get_collection

    drawers = WithEmbeddings(get_collection(palace, create=True, backend=backend))
    closets = WithEmbeddings(get_closets_collection(palace, create=True))
    source = Path(source_dir) / "team.md"
    filed: dict = {"source_file": str(source)}
    count, _room, skipped = miner.process_file(
        source, Path(source_dir), drawers, "work", [{"name": "team"}], "miner", False, closets
    )
    assert count >= 1 and skipped is None, (count, skipped)
    mined = drawers.get(where={"source_file": str(source)}, include=["metadatas"])
    mined = zip(*(getattr(mined, k, None) or mined[k] for k in ("ids", "metadatas")))
    filed["mined"] = [i for i, m in sorted(mined, key=lambda row: row[1]["chunk_index"])]
    found = closets.get(where={"source_file": str(source)}, include=[])
    filed["closets"] = sorted(found.ids if hasattr(found, "ids") else found["ids"])

    from mempalace import mcp_server

    mcp_server._get_collection = lambda create=False: drawers
    short = mcp_server.tool_add_drawer("work", "decisions", "Ada chose Postgres for Nova.")
    assert short["success"], short
    filed["mcp"] = short["drawer_id"]
    long_text = "".join(f"Kai reviewed Orion part {i}. " for i in range(120))
    split = mcp_server.tool_add_drawer("work", "reviews", long_text, source_file="reviews.md")
    assert split["success"] and split["chunks"] > 1, split
    filed["split"] = {"group": split["drawer_id"], "chunks": split["chunk_ids"], "text": long_text}
    for start in range(0, extra, 500):
        n = min(500, extra - start)
        texts = [f"Memory {start + i}: filler about project {i % 97}." for i in range(n)]
        drawers.upsert(
            ids=[f"bench_{start + i:06d}" for i in range(n)],
            documents=texts,
            metadatas=[
                {"wing": "bench", "room": f"r{i % 10}", "source_file": f"f{i % 50}.md"}
                for i in range(n)
            ],
        )
    # What MemPalace itself reads back for each drawer: the tests compare against it.
    ids = [*filed["mined"], filed["mcp"], *filed["split"]["chunks"]]
    got = drawers.get(ids=ids, include=["documents", "metadatas"])
    got = {k: getattr(got, k, None) or got[k] for k in ("ids", "documents", "metadatas")}
    filed["stored"] = {
        i: {"text": d, "metadata": m}
        for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])
    }
    Path(out).write_text(json.dumps(filed))


if __name__ == "__main__":
    main(sys.argv[1:])
