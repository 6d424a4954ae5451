"""PostgreSQL's errors sorted as the SQLite engine sorts SQLite's (contract §10.7): what the
environment causes is Unavailable in words, anything else is a bug and propagates."""

from __future__ import annotations

import pytest

from factlines.core.errors import Refused, Unavailable
from factlines.core.store.postgres.errors import unavailable

# Without the PostgreSQL driver (factlines[postgres]) there is nothing to test here.
psycopg = pytest.importorskip("psycopg")
errors = pytest.importorskip("psycopg.errors")

ENVIRONMENT = {
    errors.LockNotAvailable: "locked by another client",
    errors.QueryCanceled: "locked by another client",
    errors.DeadlockDetected: "locked by another client",
    errors.ReadOnlySqlTransaction: "read-only",
    errors.DiskFull: "disk is full",
    errors.InsufficientPrivilege: "permission denied",
    errors.AdminShutdown: "shut down",
    errors.InvalidCatalogName: "does not exist",
    errors.InvalidPassword: "refused the login",
}


@pytest.mark.parametrize("error", list(ENVIRONMENT), ids=lambda e: f"postgres-{e.__name__}")
def test_postgres_environment_errors_are_unavailable_in_words(error):
    said = unavailable("postgresql://db/graph", error("the server's words"), "written")
    assert isinstance(said, Unavailable) and not isinstance(said, Refused)
    assert ENVIRONMENT[error] in str(said) and "nothing was written" in str(said)


def test_postgres_a_connection_error_without_a_state_is_unavailable():
    said = unavailable("postgresql://db/graph", psycopg.OperationalError("refused"), "opened")
    assert "could not be reached" in str(said)


@pytest.mark.parametrize(
    "error",
    [errors.UniqueViolation, errors.UndefinedColumn, errors.SyntaxError, psycopg.InterfaceError],
    ids=lambda e: f"postgres-{e.__name__}",
)
def test_postgres_other_errors_are_bugs_not_dressed_up(error):
    assert unavailable("postgresql://db/graph", error("x"), "written") is None
