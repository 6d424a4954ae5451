"""A PostgreSQL server for the tests: ``FACTLINES_TEST_POSTGRES`` (a URL of an empty database
whose role may CREATE DATABASE), else a throwaway server from the machine's PostgreSQL
binaries (Debian's ``postgresql`` package) started with pytest-postgresql's executor.

PostgreSQL refuses to run as root: run as root (CI), the server runs as an unprivileged
account (``postgres``, which Debian's package creates, else ``nobody``) through ``runuser``.
Each test gets a fresh empty database of its own (:func:`fresh_database`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

ENV = "FACTLINES_TEST_POSTGRES"
_counter = itertools.count()


def _pg_ctl() -> str | None:
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        bindir = subprocess.check_output(["pg_config", "--bindir"], text=True).strip()
        if os.path.exists(os.path.join(bindir, "pg_ctl")):
            return os.path.join(bindir, "pg_ctl")
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version)
    return found[-1] if found else shutil.which("pg_ctl")


def _version(path: str) -> int:
    part = path.split("/")[-3]
    return int(part) if part.isdigit() else 0


def _account() -> pwd.struct_passwd | None:
    """The unprivileged account the server runs as when we are root (None: not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root without a 'postgres' or 'nobody' account")


def _memory_folder(folder: str = "/dev/shm", room: float = 2e9) -> str | None:
    """A RAM-backed folder with room for the server's data, else None (the usual temporary
    folder): on a virtual machine's disk, the kernel writing back each test's new database
    cost more CPU than the server itself (the PostgreSQL tests took 75 s, 39 s in memory)."""
    if os.environ.get("TMPDIR") or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        return None
    try:
        return folder if shutil.disk_usage(folder).free > room else None
    except OSError:
        return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def why_not() -> str | None:
    """Why no PostgreSQL server can be had (None: one can)."""
    if os.environ.get(ENV):
        return None
    try:
        import psycopg  # noqa: F401
        import pytest_postgresql  # noqa: F401
    except ImportError as exc:
        return f"PostgreSQL tests need psycopg and pytest-postgresql ({exc.name} is missing)"
    if _pg_ctl() is None:
        return (
            f"no PostgreSQL server: install Debian's postgresql package or set {ENV} to the "
            "URL of an empty database whose role may CREATE DATABASE"
        )
    return None


@contextlib.contextmanager
def server() -> Iterator[str]:
    """The URL of a database on a server the tests may create databases on."""
    if os.environ.get(ENV):
        yield os.environ[ENV]
        return
    from pytest_postgresql.executors import PostgreSQLExecutor

    base = tempfile.mkdtemp(prefix="factlines-pg-", dir=_memory_folder())
    executable = _pg_ctl()
    account = _account()
    if account is not None:
        wrapper = os.path.join(base, "pg_ctl")
        with open(wrapper, "w") as handle:
            handle.write(f'#!/bin/sh\nexec runuser -u {account.pw_name} -- {executable} "$@"\n')
        os.chmod(wrapper, 0o755)
        os.chmod(base, 0o755)
        os.chown(base, account.pw_uid, account.pw_gid)
        executable = wrapper
    port = _free_port()
    executor = PostgreSQLExecutor(
        executable=executable,
        host="127.0.0.1",
        port=port,
        datadir=os.path.join(base, "data"),
        unixsocketdir=base,
        logfile=os.path.join(base, "server.log"),
        startparams="-w",
        dbname="postgres",
        # Throwaway data: nothing needs to survive a crash.
        postgres_options="-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
    )
    executor.start()
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        _wait_until_ready(url)
        yield url
    finally:
        executor.stop()
        shutil.rmtree(base, ignore_errors=True)


def _wait_until_ready(url: str, seconds: float = 30) -> None:
    """The port opens before the server accepts connections ("starting up"): wait for that."""
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new empty database on the server of ``admin_url``, dropped afterwards."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = f"fl_test_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    info = conninfo_to_dict(admin_url)
    info["dbname"] = name
    try:
        yield _as_url(info)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _as_url(info: dict) -> str:
    """Connection parameters as a ``postgresql://`` URL (what Factlines opens)."""
    from urllib.parse import quote, urlencode

    user = quote(info.get("user", ""), safe="")
    password = f":{quote(info['password'], safe='')}" if info.get("password") else ""
    host = info.get("host", "")
    socket_dir = host if host.startswith("/") else ""
    netloc = f"{user}{password}@" if user else ""
    netloc += "" if socket_dir else host + (f":{info['port']}" if info.get("port") else "")
    query = {
        k: v for k, v in info.items() if k not in ("user", "password", "host", "port", "dbname")
    }
    if socket_dir:
        query["host"] = socket_dir
        if info.get("port"):
            query["port"] = info["port"]
    return f"postgresql://{netloc}/{info['dbname']}" + (f"?{urlencode(query)}" if query else "")
