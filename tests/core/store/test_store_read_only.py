"""Read-only, for real: nothing is written, and no side file owned by anyone
but the file's owner is ever left beside it.

Cases with another user: when the suite runs as root (as CI does), the reader runs as an
unprivileged user (``nobody``, or a throwaway user created for the session) in a forked child
that gave up root for good; the files and MemPalace's writer stay root's. Run as an ordinary
user, those cases cannot make files of another owner and are skipped with that reason.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

# The engine and what it imports, loaded before any fork: the child, no longer root, may
# not read the Python install under root's home.
import factlines.cli_predicates
import factlines.cli_transfer
import factlines.core.store.sqlite
import factlines.core.transfer  # noqa: F401
from factlines import KnowledgeGraph, cli, open_graph
from factlines.core.errors import NotAKnowledgeGraph, ReadOnlyGraph, Unavailable
from factlines.core.store import graph_exists
from factlines.core.store.facade import write_methods
from store_helpers import dump, make_old_mempalace_file, mempalace_class

THROWAWAY_USER = "factlines-reader"

# ── Running a test body as another user ───────────────────────────────────


def _reader_account() -> pwd.struct_passwd | None:
    for name in ("nobody", THROWAWAY_USER):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
    if shutil.which("useradd") is None:
        return None
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", THROWAWAY_USER],
        check=False,
        capture_output=True,
    )
    try:
        return pwd.getpwnam(THROWAWAY_USER)
    except KeyError:
        return None


@pytest.fixture(scope="session")
def reader():
    """``reader(fn, *args, **kwargs)``: run ``fn`` in a forked child as an unprivileged other
    user and return its result; an exception there fails the test with the child's traceback."""
    if not hasattr(os, "fork") or os.geteuid() != 0:
        pytest.skip("needs root to read as another user (CI runs as root); ran as an ordinary user")
    account = _reader_account()
    if account is None:
        pytest.skip("no unprivileged user exists and none could be created")

    def run(fn, *args, **kwargs):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(read_end)
            try:
                os.setgroups([])
                os.setgid(account.pw_gid)
                os.setuid(account.pw_uid)  # for good: real, effective and saved
                os.environ.pop("TMPDIR", None)  # root's may be private: find the reader's own
                tempfile.tempdir = None
                outcome = ("ok", fn(*args, **kwargs))
            except BaseException:
                outcome = ("error", traceback.format_exc())
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(outcome, pipe)
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        kind, value = pickle.loads(data)
        if kind == "error":
            pytest.fail(f"in the reader's process:\n{value}", pytrace=False)
        return value

    run.uid = account.pw_uid
    run.gid = account.pw_gid
    return run


@pytest.fixture
def shared():
    """A folder another user can reach (pytest's own temporary folders are private)."""
    if not os.path.isdir("/tmp"):
        pytest.skip("no /tmp for a folder another user can reach")
    folder = Path(tempfile.mkdtemp(prefix="fl-read-only-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _listing(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every file beside the graph: owner, size, mtime."""
    return {
        p.name: (p.stat().st_uid, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
    }


def _mempalace_graph(path: Path) -> None:
    folder_mode = path.parent.stat().st_mode & 0o7777
    mp = mempalace_class()(str(path))
    mp.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
    mp.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
    mp.add_triple("Ann", "knows", "Kai")
    mp.close()
    path.parent.chmod(folder_mode)  # MemPalace makes the folder its owner's alone (0700)


def _browse(path: str, **options) -> dict:
    """What a person does with a read-only graph: everything but edits."""
    with KnowledgeGraph(path, **options) as kg:
        seen = {
            "read_only": kg.read_only,
            "reason": kg.read_only_reason,
            "stats": kg.stats(),
            "kai": sorted(f["object"] for f in kg.query_entity("Kai")),
            "entities": [e["id"] for e in kg.list_entities()],
            "search": [e["id"] for e in kg.list_entities("ka")],
            "span": kg.time_span(),
            "intervals": len(kg.intervals("Kai")),
            "settings": kg.single_valued_predicates(),
            "missing_indexes": kg.missing_indexes(),
            "conflicts": kg.conflicts(),
        }
        for attempt in (
            lambda: kg.add_triple("Kai", "likes", "tea"),
            lambda: kg.set_single_valued("works_on"),
            lambda: kg.build_indexes(),
        ):
            try:
                attempt()
            except ReadOnlyGraph as exc:
                seen.setdefault("refusals", []).append(str(exc))
    return seen


def _assert_browsed(seen: dict) -> None:
    assert seen["read_only"] is True and seen["reason"]
    assert seen["stats"]["triples"] == 3
    assert seen["kai"] == ["Nova", "Orion"]
    assert seen["entities"] == ["ann", "kai", "nova", "orion"]
    assert seen["search"] == ["kai"]
    assert seen["span"] == ("2025-01-01T00:00:00Z", "2025-07-01T00:00:00Z")
    assert seen["intervals"] == 3
    assert seen["settings"] == []
    assert seen["missing_indexes"] == []
    assert seen["conflicts"] == [], seen["conflicts"]
    assert len(seen["refusals"]) == 3
    assert all("read-only" in message for message in seen["refusals"])


# ── Another user's file ───────────────────────────────────────────────────


def test_a_file_in_a_folder_the_reader_may_not_write_is_browsed(reader, shared):
    folder = shared / "locked"
    folder.mkdir(mode=0o755)
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    before, content = _listing(folder), path.read_bytes()
    seen = reader(_browse, str(path))
    _assert_browsed(seen)
    assert "may not write" in seen["reason"]
    assert _listing(folder) == before
    assert path.read_bytes() == content


def test_a_live_graph_in_a_shared_folder_is_read_from_a_private_copy(reader, shared):
    """MemPalace (root) keeps the graph open with facts only in its -wal; the reader sees them,
    sees a new one after MemPalace writes it, and leaves no file of its own anywhere."""
    folder = shared / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    writer = subprocess.Popen(
        [sys.executable, "-c", _LIVE_WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "ready"
        folder.chmod(0o1777)  # MemPalace made it 0700 on opening; a team folder stays shared
        before = _listing(folder)
        assert before[path.name + "-wal"][1] > 0  # facts waiting in the -wal
        seen = reader(_follow_live_writer, str(path), writer.stdin.fileno(), writer.stdout.fileno())
        after = _listing(folder)
    finally:
        writer.stdin.close()
        writer.wait(timeout=30)
    assert seen["first"] == 4  # three facts in the file, one only in the -wal
    assert seen["changed"] is True and seen["then"] == 5
    assert seen["unchanged"] is False
    assert seen["reason"] == "you may not write this file"
    assert seen["private_copy_removed"] is True
    assert set(after) == set(before)  # nothing new beside the graph
    assert {uid for uid, _, _ in after.values()} == {0}  # every file there is still root's
    assert after[path.name][2] == before[path.name][2]  # the main file was not written


_LIVE_WRITER = """
import sys
from mempalace.knowledge_graph import KnowledgeGraph
kg = KnowledgeGraph(sys.argv[1])
kg._conn().execute("PRAGMA wal_autocheckpoint = 0")
kg.add_triple("Zoe", "works_on", "Nova", valid_from="2025-08-01")
print("ready", flush=True)
for line in sys.stdin:
    kg.add_triple("Zoe", "mentors", "Ann", valid_from="2025-09-01")
    print("added", flush=True)
"""


def _follow_live_writer(path: str, to_writer: int, from_writer: int) -> dict:
    with open_graph(path) as kg:
        first = kg.stats()["triples"]
        unchanged = kg.changed_externally()
        snapshot_folder = kg._store._db._snapshot.folder
        os.write(to_writer, b"add\n")
        assert os.read(from_writer, 100).strip() == b"added"
        changed = kg.changed_externally()
        then = kg.stats()["triples"]
        reason = kg.read_only_reason
    return {
        "first": first,
        "unchanged": unchanged,
        "changed": changed,
        "then": then,
        "reason": reason,
        "private_copy_removed": not os.path.exists(snapshot_folder),
    }


def test_a_live_graph_read_from_a_private_copy_answers_from_the_latest_commit(reader, shared):
    """A MemPalace-style script reading another user's graph, never polling: each answer is
    from MemPalace's latest commit, not from the copy taken when the graph was opened."""
    folder = shared / "shared"
    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    writer = subprocess.Popen(
        [sys.executable, "-c", _LIVE_WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "ready"
        folder.chmod(0o755)
        seen = reader(
            _read_beside_live_writer, str(path), writer.stdin.fileno(), writer.stdout.fileno()
        )
    finally:
        writer.stdin.close()
        writer.wait(timeout=30)
    assert seen == {"private_copy": True, "first": 4, "then": 5, "zoe": ["Ann", "Nova"]}


def _read_beside_live_writer(path: str, to_writer: int, from_writer: int) -> dict:
    with KnowledgeGraph(path) as kg:
        first = kg.stats()["triples"]
        os.write(to_writer, b"add\n")
        assert os.read(from_writer, 100).strip() == b"added"
        return {
            "private_copy": kg._store.private_copy,
            "first": first,
            "then": kg.stats()["triples"],
            "zoe": sorted(f["object"] for f in kg.query_entity("Zoe")),
        }


def test_another_users_writable_file_asked_read_only_leaves_no_file_of_the_reader(reader, shared):
    folder = shared / "team"
    folder.mkdir()
    folder.chmod(0o1777)
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    path.chmod(0o666)
    before = _listing(folder)
    seen = reader(_browse, str(path), read_only=True)
    _assert_browsed(seen)
    assert seen["reason"] == "opened read-only, as asked"
    assert _listing(folder) == before


def test_the_readers_own_unwritable_file_never_opened_by_factlines(reader, shared):
    """A file of the reader's that the reader may not write: nothing written (no fl_meta, no
    index, no version) and nothing left beside it, so once the reader makes it writable again
    MemPalace writes it as before."""
    folder = shared / "own"
    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    for item in (folder, path):
        os.chown(item, reader.uid, reader.gid)
    path.chmod(0o444)
    schema, rows, stamp = _schema(path), dump(path), path.stat().st_mtime_ns
    seen = reader(_browse_then_let_mempalace_write, str(path))
    _assert_browsed(seen)
    assert seen["reason"] == "you may not write this file"
    assert seen["left_beside"] == [path.name]
    assert seen["mempalace_wrote"] is True
    assert _schema(path) == schema and {**rows, "triples": rows["triples"]} == rows
    assert path.stat().st_mtime_ns >= stamp


def _browse_then_let_mempalace_write(path: str) -> dict:
    seen = _browse(path)
    seen["left_beside"] = sorted(os.listdir(os.path.dirname(path)))
    os.chmod(path, 0o644)
    mp = mempalace_class()(path)
    try:
        mp.add_triple("Zoe", "knows", "Kai")
        seen["mempalace_wrote"] = len(mp.query_entity("Zoe")) == 1
    finally:
        mp.close()
    return seen


def _schema(path) -> list:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [
            *conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name"),
            conn.execute("PRAGMA user_version").fetchone(),
            conn.execute("PRAGMA journal_mode").fetchone(),
        ]
    finally:
        conn.close()


# ── A folder the reader may not open (MemPalace makes its folder 0700) ──


def test_a_graph_in_a_folder_the_reader_may_not_open_is_unavailable_in_words(reader, shared):
    folder = shared / "palace"
    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    folder.chmod(0o700)
    seen = reader(_open_every_way, str(path), str(shared / "out.csv"))
    said = f"unavailable: you may not open the folder {folder}, where {path.name} is"
    assert seen["KnowledgeGraph"] == ("Unavailable", said)
    assert seen["open_graph"] == ("Unavailable", said)
    assert seen["open_graph read-only"] == ("Unavailable", said)
    assert seen["graph_exists"] == ("Unavailable", said)
    assert seen["export"] == (2, f"factlines export: {said}\n")
    assert not (shared / "out.csv").exists()


def _open_every_way(path: str, out: str) -> dict:
    seen = {}
    for name, attempt in {
        "KnowledgeGraph": lambda: KnowledgeGraph(path),
        "open_graph": lambda: open_graph(path),
        "open_graph read-only": lambda: open_graph(path, read_only=True),
        "graph_exists": lambda: graph_exists(path),
    }.items():
        try:
            attempt()
            seen[name] = "opened"
        except Unavailable as exc:
            seen[name] = ("Unavailable", str(exc))
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        code = cli.main(["export", path, out])
    seen["export"] = (code, said.getvalue())
    return seen


# ── Asked for, on one's own file ──────────────────────────────────────────


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_read_only_as_asked_writes_nothing(tmp_path, journal):
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    conn = sqlite3.connect(str(path))
    conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.close()
    schema, rows, stamp = _schema(path), dump(path), path.stat().st_mtime_ns
    seen = _browse(str(path), read_only=True)
    # Looked at first: reading the file below could tidy up what the browse left.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["knowledge_graph.sqlite3"]
    _assert_browsed(seen)
    assert seen["reason"] == "opened read-only, as asked"
    assert _schema(path) == schema and dump(path) == rows
    assert path.stat().st_mtime_ns == stamp


def test_read_only_as_asked_beside_a_live_writer_uses_its_side_files_in_place(tmp_path):
    """While MemPalace has the file open its -wal and -shm are there: read in place (no copy),
    and they are still MemPalace's afterwards."""
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    mp = mempalace_class()(str(path))
    try:
        mp.add_triple("Zoe", "knows", "Kai")
        with KnowledgeGraph(path, read_only=True) as kg:
            assert kg._store.private_copy is False
            assert kg.stats()["triples"] == 4
        mp.add_triple("Zoe", "knows", "Ann")  # its side files still work for it
    finally:
        mp.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["knowledge_graph.sqlite3"]


def test_read_only_as_asked_leaves_side_files_alone_while_mempalace_holds_them(tmp_path):
    """Opened read-only while nobody had it open, then MemPalace opens it and writes: closing
    removes nothing MemPalace uses; once MemPalace closes too, nothing is left."""
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    with KnowledgeGraph(path, read_only=True) as kg:
        assert kg._store.private_copy is False
        mp = mempalace_class()(str(path))
        mp.add_triple("Zoe", "knows", "Kai")
        assert kg.stats()["triples"] == 4
    try:
        beside = sorted(p.name for p in tmp_path.iterdir())
        mp.add_triple("Zoe", "knows", "Ann")  # its side files still work for it
        assert len(mp.query_entity("Zoe")) == 2
    finally:
        mp.close()
    assert beside == [path.name, path.name + "-shm", path.name + "-wal"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def _arguments(name: str) -> tuple:
    """Plausible arguments for each write method (the refusal must come first anyway)."""
    return {
        "add_entity": ("Zoe",),
        "add_triple": ("Zoe", "knows", "Kai"),
        "invalidate": ("Kai", "works_on", "Nova"),
        "supersede": ("Kai", "works_on", "Nova", "Atlas"),
        "seed_from_entity_facts": ({"zoe": {"full_name": "Zoe"}},),
        "rewrite": ("t_x", "knows", "Ann"),
        "apply_row": ("entities", {"id": "zoe", "name": "Zoe"}),
        "insert_rows": ("entities", [{"id": "zoe", "name": "Zoe"}]),
        "logged": ("Add Zoe",),
        "add_edit_log_entries": ([{"at": "2026-01-01T00:00:00Z", "what": "Add Zoe"}],),
        "set_graph_settings": ({"single_valued_predicates": "[]"},),
        "batched": ("Add Zoe",),
        "update_fact": ("t_x",),
        "add_fact": ("Zoe", "knows", "Kai"),
        "supersede_fact": ("t_x", "Atlas"),
        "end_fact": ("t_x",),
        "delete_fact": ("t_x",),
        "rename_entity": ("Kai", "Kai M"),
        "set_entity_type": ("Kai", "person"),
        "set_entity_properties": ("Kai", {"a": 1}),
        "merge_entities": ("Ann", "Kai"),
        "set_single_valued": ("works_on",),
        "mark_reviewed": ("2026-03-01",),
        "keep_reviewed": ([],),
        "mark_not_duplicates": (["ann", "kai"],),
        "merge_duplicates": ("Kai", ["Ann"]),
        "resolve_conflict": ("t_x", "t_y", "newer"),
        "rename_predicate": ("works_on", "works_for"),
        "revert": (None,),
        "reapply": (None,),
        "build_indexes": (),
        "add_speed_indexes": (),
        "add_columns": ("triples", [("created_by", "TEXT")]),
        "remove_speed_indexes": (),
    }[name]


def test_every_write_is_refused_up_front_in_words(tmp_path):
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    rows = dump(path)
    # Every method that writes, marked where it is defined: none may go unmarked.
    assert set(write_methods()) == {
        *("add_entity", "add_triple", "invalidate", "supersede", "seed_from_entity_facts"),
        *("rewrite", "apply_row", "insert_rows", "batched", "logged", "add_edit_log_entries"),
        *("set_graph_settings", "update_fact", "add_fact", "supersede_fact", "end_fact"),
        *("delete_fact", "rename_entity", "set_entity_type", "set_entity_properties"),
        *("merge_entities", "set_single_valued", "rename_predicate", "revert", "reapply"),
        *("build_indexes", "add_speed_indexes", "remove_speed_indexes", "add_columns"),
        *("mark_reviewed", "keep_reviewed", "mark_not_duplicates", "merge_duplicates"),
        "resolve_conflict",
    }
    with open_graph(path, read_only=True) as kg:
        for name in write_methods():
            with pytest.raises(ReadOnlyGraph, match=r"open read-only .*nothing can be changed"):
                getattr(kg, name)(*_arguments(name))
        with pytest.raises(ReadOnlyGraph), kg.transaction():
            pass
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            kg._conn().execute("DELETE FROM triples")
    assert dump(path) == rows
    assert issubclass(ReadOnlyGraph, ValueError)


def test_read_only_answers_from_mempalaces_latest_commit_without_polling(tmp_path):
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    with KnowledgeGraph(path, read_only=True) as kg:
        assert kg.stats()["triples"] == 3
        mp = mempalace_class()(str(path))
        try:
            mp.add_triple("Zoe", "knows", "Kai")
            assert kg.stats()["triples"] == 4
            assert [f["object"] for f in kg.query_entity("Zoe")] == ["Kai"]
        finally:
            mp.close()
        assert kg.changed_externally() is True  # and a poll still hears of it


def test_read_only_sees_mempalace_write_in_place(tmp_path):
    path = tmp_path / "knowledge_graph.sqlite3"
    _mempalace_graph(path)
    with KnowledgeGraph(path, read_only=True) as kg:
        assert kg.changed_externally() is False
        mp = mempalace_class()(str(path))
        mp.add_triple("Zoe", "knows", "Kai")
        mp.close()
        assert kg.changed_externally() is True
        assert kg.stats()["triples"] == 4
        assert [e["id"] for e in kg.list_entities("zo")] == ["zoe"]


def test_an_older_mempalace_file_is_read_without_being_upgraded(tmp_path):
    path = tmp_path / "old.sqlite3"
    make_old_mempalace_file(path)
    with sqlite3.connect(path) as conn:  # an open copy of t_0, as two writers may leave
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "SELECT 't_0_copy', subject, predicate, object, valid_from FROM triples "
            "WHERE id = 't_0'"
        )
    schema, rows = _schema(path), dump(path)
    with KnowledgeGraph(path, read_only=True) as kg:
        fact = kg.get_fact("t_0")
        assert (fact["source_closet"], fact["source_drawer_id"], fact["adapter_name"]) == (
            "closet0",
            None,
            None,
        )
        assert len(kg.query_entity("P0")) == 2  # t_0 and its copy
        assert len(kg.timeline("P0")) == 3
        assert [(c["kind"], c["a"], c["b"]) for c in kg.conflicts()] == [
            ("duplicate_open", "t_0", "t_0_copy")
        ]
    assert _schema(path) == schema and dump(path) == rows


def test_read_only_refuses_what_it_cannot_read_untouched(tmp_path):
    empty = tmp_path / "notes.txt"
    empty.write_bytes(b"")
    with pytest.raises(NotAKnowledgeGraph, match="empty file"):
        KnowledgeGraph(empty, read_only=True)
    assert empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
