"""How a file may be opened: in place, read-only in place, or through a private snapshot.

Read-only means nothing is written: no migration, no index, no journal-mode switch, no journal,
and no file left beside the graph. SQLite keeps ``-wal`` / ``-shm`` files beside a WAL database it
reads (``mode=ro`` creates them in a writable folder, and cannot read at all where it may not
create them), and a read-only connection cannot remove them when it closes: left with the file's
mode (0444 for an unwritable file), they make MemPalace's next write fail ("attempt to write a
readonly database"). So a WAL file is read in place, ``mode=ro``, only while both side files are
already there (a writer has it open) and this user may use them. One's own writable file nobody
has open (neither side file there) is read in place on a read-write connection that may not
write (``query_only``): SQLite then removes the side files itself when the last connection
closes, and only then (nobody else holds them). Any other WAL file (someone else's, in a folder
we may not write, one we may not write, or a ``-wal`` left without its ``-shm``) is read through
a :class:`Snapshot`: a private copy of the file and its ``-wal``, taken again when they change.
(``immutable=1`` would avoid the side files but does not see a live ``-wal``; a rollback-journal
file leaves nothing when read.)
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass

from factlines.core.errors import Unavailable
from factlines.core.store.places import look_at
from factlines.core.store.sqlite import held

SIDE_SUFFIXES = ("-wal", "-shm")
# A copy whose original changed while it was copied is taken again, this many times at most.
_COPY_ATTEMPTS = 6


@dataclass(frozen=True)
class Access:
    """How to open one file: ``read_only`` and why, and whether through a private copy."""

    read_only: bool
    reason: str | None = None
    private_copy: bool = False
    # Read in place on a read-write connection that may not write, so that SQLite removes the
    # side files it makes once the last connection closes.
    tidy: bool = False


def _is_own(st: os.stat_result) -> bool:
    geteuid = getattr(os, "geteuid", None)
    return geteuid is None or st.st_uid == geteuid()


def decide(path: str, read_only: bool) -> Access:
    """How ``path`` (an existing file) must be opened, given whether read-only was asked for.

    Read-only, with the reason in words, when asked or when this user may not write the file,
    its folder, or the ``-wal`` / ``-shm`` beside it. Read-only in place when SQLite's side
    files are there and this user's to use, or (``tidy``) when neither is and the file is this
    user's and writable; else through a private copy (none may be left behind).
    """
    folder = os.path.dirname(os.path.abspath(path))
    st = os.stat(path)
    own = _is_own(st)
    folder_writable = os.access(folder, os.W_OK | os.X_OK)
    file_writable = os.access(path, os.W_OK)
    side_blocked = any(
        os.path.exists(path + suffix) and not os.access(path + suffix, os.R_OK | os.W_OK)
        for suffix in SIDE_SUFFIXES
    )
    if read_only:
        reason = "opened read-only, as asked"
    elif not file_writable:
        reason = "you may not write this file"
    elif not folder_writable:
        reason = "you may not write its folder, where SQLite keeps its -wal and -shm files"
    elif side_blocked:
        reason = "its -wal / -shm files belong to another user"
    else:
        return Access(read_only=False)
    private = not own or not folder_writable or side_blocked
    made = _side_files_made(path)
    tidy = not private and made == set(SIDE_SUFFIXES) and file_writable
    private = private or (bool(made) and not tidy)
    return Access(read_only=True, reason=reason, private_copy=private, tidy=tidy)


def _side_files_made(path: str) -> set[str]:
    """The side files reading ``path`` in place would create: for a WAL database (its
    header's read and write versions are 2), those of ``-wal`` / ``-shm`` not there yet."""
    missing = {suffix for suffix in SIDE_SUFFIXES if not os.path.exists(path + suffix)}
    if not missing:
        return set()
    header = held.head(path, 20)  # None: open here, and SQLite made what it needs already
    return missing if header is not None and header[18:20] == b"\x02\x02" else set()


def access_for(path: str, read_only: bool) -> Access:
    """:func:`decide` for ``path`` when it is a file; a path where nothing is yet is created
    (or refused in read-only mode) later. Unavailable when the path cannot even be looked at
    (a folder this user may not search must not pass for "no file yet")."""
    st = look_at(path)
    if st is None:
        return Access(read_only=read_only)
    if not stat.S_ISREG(st.st_mode):
        return Access(read_only=read_only)  # refused as not a file when opened
    try:
        return decide(path, read_only)
    except OSError as exc:
        raise Unavailable(f"{path} could not be opened: {exc.strerror or exc}") from None


# What a file's stamp holds: inode, size, mtime (ns) and its first bytes (see _stamp).
_Stamp = tuple[int, int, int, bytes | None]


def _stamp(path: str) -> _Stamp | None:
    """What changes when a file is written: inode, size, mtime, and its first 100 bytes."""
    try:
        st = os.stat(path)
        head = held.head(path, 100)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, head)


class Snapshot:
    """A private copy of a graph file and its ``-wal``, in a folder only this user can read.

    Nothing is ever created beside the original. :meth:`changed` compares the original's
    stamps with those the copy was taken from; :meth:`refresh` (with no connection open on the
    copy) takes it again: only the ``-wal`` when the main file is as it was, else everything.
    """

    def __init__(self, original: str):
        self.original = original
        self.folder = tempfile.mkdtemp(prefix="factlines-snapshot-")
        self.path = os.path.join(self.folder, os.path.basename(original) or "graph.sqlite3")
        self._main: _Stamp | None = None
        self._wal: _Stamp | None = None

        try:
            self._take(whole=True)
        except BaseException:
            self.close()
            raise

    def changed(self) -> bool:
        """Has the original (file or ``-wal``) changed since the copy was taken?"""
        return (_stamp(self.original), _stamp(self.original + "-wal")) != (self._main, self._wal)

    def refresh(self) -> None:
        """Take the copy again; call with no connection open on it."""
        self._take(whole=_stamp(self.original) != self._main)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _take(self, whole: bool) -> None:
        # A WAL that grows while it is copied is fine: SQLite reads its frames up to the last
        # whole commit. A main file that changes (a checkpoint) while it is copied is not.
        for _ in range(_COPY_ATTEMPTS):
            main, wal = _stamp(self.original), _stamp(self.original + "-wal")
            if main is None:
                raise Unavailable(f"{self.original} is gone (moved or deleted)")
            whole = whole or main != self._main
            for suffix in SIDE_SUFFIXES:
                if os.path.exists(self.path + suffix):
                    os.remove(self.path + suffix)
            try:
                if whole:
                    shutil.copyfile(self.original, self.path)
                if wal is not None:
                    shutil.copyfile(self.original + "-wal", self.path + "-wal")
            except FileNotFoundError:
                whole = True
                continue  # the -wal went away under a checkpoint: take everything again
            except OSError as exc:
                raise Unavailable(
                    f"{self.original} could not be read: {exc.strerror or exc}"
                ) from None
            if _stamp(self.original) == main:
                # The stamps the copy was taken from: a -wal that grew meanwhile shows as a change.
                self._main, self._wal = main, wal
                return
            whole = True
        raise Unavailable(f"{self.original} kept changing while it was read; try again")
