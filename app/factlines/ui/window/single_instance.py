"""One window per graph: ``factlines --entity NAME --as-of DAY PATH`` while a window of this
user already shows PATH brings that window forward on that entity and instant, instead of
starting a second one; so a script or an assistant can show the person a fact.

Each window listens on a local socket (Qt's QLocalServer, this user's only) named after the
graph it shows, and listens again under the new name when another graph is opened. A start
with a PATH first asks that socket: a window there answers ``ok`` once it has done what was
asked (or the words of why not: an unknown entity, a bad instant), and the start ends there.
When no window answers within a moment, the start opens its own window as always.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from factlines import is_database_url
from factlines.core.errors import Refused

CONNECT_MS = 500
ANSWER_MS = 5000
READ_MS = 2000


def server_name(location: str | os.PathLike) -> str:
    """The socket of the window showing ``location``: this user's, one per graph."""
    if is_database_url(str(location)):
        key = str(location)
    else:
        key = os.path.realpath(os.path.expanduser(str(location)))
    digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"factlines-{os.getuid() if hasattr(os, 'getuid') else 0}-{digest}"


def forward(location: str | os.PathLike, entity: str | None, as_of: str | None) -> str | None:
    """Ask the window showing ``location`` (if any) to come forward on ``entity`` and
    ``as_of``; its answer (``ok``, or why it could not), None when no window answered."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(location))
    if not socket.waitForConnected(CONNECT_MS):
        return None
    try:
        request = json.dumps({"entity": entity, "as_of": as_of}) + "\n"
        socket.write(request.encode("utf-8"))
        socket.waitForBytesWritten(CONNECT_MS)
        answer = b""
        while not answer.endswith(b"\n") and socket.waitForReadyRead(ANSWER_MS):
            answer += bytes(socket.readAll().data())
        return answer.decode("utf-8", "replace").strip() or None
    finally:
        socket.disconnectFromServer()


class WindowListener(QObject):
    """The window's socket: listens under the name of the graph it shows."""

    def __init__(self, window, parent: QObject | None = None):
        super().__init__(parent)
        self._window = window
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._connected)
        window.state.graphChanged.connect(self.listen)
        self.listen()

    @property
    def name(self) -> str | None:
        return self._server.serverName() or None

    def listen(self) -> None:
        """Listen under the name of the graph shown now (none: not at all)."""
        self._server.close()
        path = self._window.path()
        if not path:
            return
        name = server_name(path)
        if not self._server.listen(name):
            # A socket left by a window that ended without closing it: nobody answers there.
            QLocalServer.removeServer(name)
            self._server.listen(name)

    def _connected(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)
            if socket.canReadLine():
                self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        if not socket.canReadLine():
            return
        try:
            request = json.loads(bytes(socket.readLine().data()))
        except ValueError:
            request = None
        answer = self.show(request) if isinstance(request, dict) else "not a request"
        socket.write((answer + "\n").encode("utf-8"))
        socket.flush()

    def show(self, request: dict) -> str:
        """Come forward on the request's entity and as_of; ``ok`` or why not, in words."""
        window = self._window
        window.showNormal() if window.isMinimized() else window.show()
        window.raise_()
        window.activateWindow()
        entity, as_of = request.get("entity"), request.get("as_of")
        if isinstance(entity, str) and entity and not window.select_entity(entity):
            return f"no entity named {entity!r} in {Path(str(window.path())).name}"
        if isinstance(as_of, str):
            try:
                window.set_as_of(as_of or None)
            except Refused as exc:
                return str(exc)
        return "ok"

    def close(self) -> None:
        self._server.close()
