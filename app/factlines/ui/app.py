"""Starting the app: the window over a file, the demo or the default graph; or a screenshot."""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import sys
from pathlib import Path

from factlines import is_database_url
from factlines.core import collector, memory

SCREENSHOT_SIZE = (1500, 950)


def _prepare_environment(screenshot: bool) -> None:
    if screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")


def _quiet_platform_notes() -> None:
    """The offscreen platform says it cannot propagate size hints; that is no news to a user."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode, context, message):
        if "propagateSizeHints" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


def _application(quiet: bool | None = None):
    """The QApplication, and the one handler for exceptions nothing caught (a bug): shown
    with its traceback (only recorded and printed when ``quiet``), the app going on."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from factlines import APP_ID
    from factlines.core.resources import resource_path
    from factlines.ui import errors

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Factlines")
        app.setOrganizationName("Factlines")
        app.setApplicationDisplayName("Factlines")
        app.setDesktopFileName(APP_ID)  # the desktop shell finds the .desktop file and icon
        app.setWindowIcon(QIcon(str(resource_path("factlines.svg"))))
    if not isinstance(sys.excepthook, errors.ErrorHandler):
        errors.install(quiet)
    collect_on_the_ui_thread()
    return app


# Young objects collected once this many have piled up, not Python's 700: a selection makes
# some 10,000 (2,000 facts' rows and dicts) and was interrupted by ~11 collections (~5 ms).
YOUNG_COLLECTION_THRESHOLD = 10_000
# How long a worker may run Python before the UI thread gets the interpreter's lock it asked
# for (Python's default: 5 ms). Qt's event loop asks for it many times between two beats of a
# 5 ms timer, each time waiting up to this long behind a worker answering a question about
# the whole graph: at 1,000,000 facts the window missed 100-400 ms of beats after an edit,
# Undo or Redo with 5 ms, 60-100 ms with 1 ms (bench_heartbeat --big).
UI_TURN_S = 0.001


def settle_after_startup() -> None:
    """Keep what start-up made (modules, Qt wrappers, the window) out of the collector's scans,
    let the UI thread take the interpreter from a worker sooner (:data:`UI_TURN_S`), and have
    big blocks handed back when freed (:func:`~factlines.core.memory.hand_back_big_blocks`).

    A full garbage collection walks every live object: ~70k after start-up, 70-90 ms, and
    it lands in the middle of a selection once in a while. Objects made later are still
    collected, in fewer, larger rounds.
    """
    gc.freeze()
    memory.hand_back_big_blocks()
    _young, *older = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *older)
    sys.setswitchinterval(UI_TURN_S)
    collect_on_the_ui_thread()  # as the app began (benchmarks build their own application)


COLLECT_EVERY_MS = 1_000
_COLLECTOR: list = []  # the one collector's timer, kept alive


def collect_on_the_ui_thread() -> None:
    """Python's cycle collector run by a timer on the UI thread, never on a worker.

    A collection runs on whichever thread allocates when it is due. On a worker it may free a
    closed window's Qt objects there: Qt then holds its lock on their connections while it
    waits for the interpreter's lock, which the UI thread holds while waiting for Qt's; both
    stop for good (seen in the suite: a review read's regular expression set off a collection
    that freed a previous window's widgets). So the automatic collector is off and a timer
    collects what is due, by the thresholds as set (pyqtgraph's GarbageCollector does the
    same), but not while a whole-graph read has paused it (its young objects would be walked
    here, on the UI thread)."""
    collector.turned_off()
    if not _COLLECTOR:
        from PySide6.QtCore import QTimer

        timer = QTimer()
        timer.timeout.connect(_collect_what_is_due)
        _COLLECTOR.append(timer)
    # Started again when the application it ran under has gone (another one in the same
    # process, as in the tests): a timer stopped there would leave nothing collecting.
    if not _COLLECTOR[0].isActive():
        _COLLECTOR[0].start(COLLECT_EVERY_MS)


def _collect_what_is_due() -> None:
    if collector.paused():
        return
    counts, thresholds = gc.get_count(), gc.get_threshold()
    generation = -1
    while generation < 2 and counts[generation + 1] > thresholds[generation + 1]:
        generation += 1
    if generation >= 0:
        gc.collect(generation)


def startup_path(settings) -> tuple[Path | str, bool]:
    """What ``factlines`` alone opens: (path, exists) — last file (or database URL),
    MemPalace's (its default file, else the palace's, as MemPalace resolves them), or a new
    one."""
    from factlines.core.mempalace_paths import mempalace_graphs
    from factlines.ui.session import settings as app_settings
    from factlines.ui.session.document import default_new_path

    last = app_settings.last_file(settings)
    if last and is_database_url(last):
        return last, True
    if last and _opens_last(last):
        return Path(last), True
    graphs = mempalace_graphs()
    if graphs:
        return graphs[0], True
    path = default_new_path()
    return path, path.exists()


def _opens_last(last: str) -> bool:
    """Whether start-up opens the last file: it is a file, or it cannot even be looked at
    (opening it then says why, in an empty window, rather than start-up failing)."""
    from factlines.core.errors import Unavailable
    from factlines.core.store.places import look_at

    try:
        found = look_at(last)
    except Unavailable:
        return True
    return found is not None and stat.S_ISREG(found.st_mode)


def _open_requested(window, args) -> bool:
    """Open what the arguments ask for; False when it could not be opened (already reported)."""
    if getattr(args, "demo", False):
        return window.open_demo()
    read_only = getattr(args, "read_only", False)
    if args.path:
        return window.open_path(args.path, read_only=read_only)
    path, exists = startup_path(window.settings)
    read_only = read_only or (exists and window.file_actions.left_read_only(path))
    if read_only or exists:
        return window.open_path(path, read_only=read_only)
    return window.new_graph(path)


def select_richest(window) -> None:
    """Start on the entity with the most open facts, so the first look shows something."""
    kg = window.kg
    top = kg.list_entities(order="current", descending=True, limit=1) if kg is not None else []
    if top:
        window.state.select_entity(top[0]["id"])


def _use_theme(window, args) -> None:
    """``--theme``: these colours for this run, the kept choice left as it is."""
    if getattr(args, "theme", None):
        window.theme_actions.choose(args.theme, remember=False)


def _fail(message: str) -> int:
    print(f"factlines: {message}", file=sys.stderr)
    return 2


def screenshot(args) -> int:
    """Render the window offscreen into a PNG; 0 on success, 2 with a message otherwise."""
    from factlines.core.errors import Refused
    from factlines.ui.window.main_window import MainWindow

    _quiet_platform_notes()
    app = _application(quiet=True)
    window = MainWindow(settings=getattr(args, "settings", None), quiet=True)
    _use_theme(window, args)
    try:
        if not _open_requested(window, args):
            return _fail(window.errors[-1] if window.errors else "cannot open the graph")
        if args.entity:
            if not window.select_entity(args.entity):
                return _fail(f"no entity named {args.entity!r} in {window.path()}")
        else:
            select_richest(window)
        if args.as_of is not None:
            try:
                window.set_as_of(args.as_of or None)
            except Refused as exc:
                return _fail(str(exc))
        width, height = args.size or SCREENSHOT_SIZE
        window.resize(width, height)
        window.show()
        for _ in range(5):
            app.processEvents()
        window.size_docks()
        for _ in range(5):
            app.processEvents()
        image = window.grab()
        target = Path(args.screenshot)
        if not target.parent.exists():
            return _fail(f"the folder {target.parent} does not exist")
        if not image.save(str(target), "PNG"):
            return _fail(f"cannot write {target}")
        print(f"factlines: wrote {target} ({image.width()}x{image.height()})")
        return 0
    finally:
        window.close()  # a demo's copy goes with it


def run(args) -> int:
    _prepare_environment(bool(getattr(args, "screenshot", None)))
    if getattr(args, "screenshot", None):
        return screenshot(args)
    from factlines.core.errors import Refused
    from factlines.ui.system_libraries import missing_packages, missing_words
    from factlines.ui.window.main_window import MainWindow

    if missing := missing_packages():  # else Qt aborts, naming one of them
        return _fail(missing_words(missing))
    app = _application()
    if args.path:  # a window already on it comes forward instead
        from factlines.ui.window.single_instance import forward

        answer = forward(args.path, args.entity, args.as_of)
        if answer is not None:
            return 0 if answer == "ok" else _fail(answer)
    from factlines.ui.window.single_instance import WindowListener

    window = MainWindow(settings=getattr(args, "settings", None))
    _use_theme(window, args)
    window.show()
    WindowListener(window, window)
    opened = _open_requested(window, args)
    if args.entity:
        window.select_entity(args.entity)
    elif opened and getattr(args, "demo", False):
        select_richest(window)
    if args.as_of is not None:
        with contextlib.suppress(Refused):  # already said in the status bar
            window.set_as_of(args.as_of or None)
    settle_after_startup()
    return app.exec()  # a demo's copy went with the window
