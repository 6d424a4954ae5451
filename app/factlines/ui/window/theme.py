"""The app's light or dark look: the system's, or one chosen under View → Theme.

"System" keeps the style and palette the platform gave the app, so it follows the desktop's
light or dark setting. "Light" and "Dark" use Qt's Fusion style with a palette of their own.
Views follow through :mod:`factlines.ui.look.style`, which picks its colour variants by the palette.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QColor, QPalette, QPen
from PySide6.QtWidgets import QApplication, QMenu, QProxyStyle, QStyle, QWidget

from factlines.ui.look import style
from factlines.ui.session import settings as app_settings

THEMES = app_settings.THEMES
LABELS = {"system": "&System", "light": "&Light", "dark": "&Dark"}
FUSION = "Fusion"

_R = QPalette.ColorRole
# (role, active and inactive, disabled) per palette; every role set, so nothing is left to the
# platform's palette underneath.
DARK_ROLES = (
    (_R.Window, "#2b2d31", "#2b2d31"),
    (_R.WindowText, "#e3e6eb", "#7c818b"),
    (_R.Base, "#1e1f22", "#26282c"),
    (_R.AlternateBase, "#25272b", "#25272b"),
    (_R.ToolTipBase, "#34373c", "#34373c"),
    (_R.ToolTipText, "#e3e6eb", "#e3e6eb"),
    (_R.PlaceholderText, "#80868f", "#5c626d"),
    (_R.Text, "#e3e6eb", "#7c818b"),
    (_R.Button, "#34373c", "#2e3035"),
    (_R.ButtonText, "#e3e6eb", "#7c818b"),
    (_R.BrightText, "#ffffff", "#ffffff"),
    (_R.Light, "#4a4e55", "#4a4e55"),
    (_R.Midlight, "#3d4047", "#3d4047"),
    (_R.Mid, "#26282c", "#26282c"),
    (_R.Dark, "#17181b", "#17181b"),
    (_R.Shadow, "#0b0c0d", "#0b0c0d"),
    (_R.Highlight, "#2f65ad", "#3d4047"),
    (_R.HighlightedText, "#ffffff", "#9aa0a6"),
    (_R.Link, "#8cb8ff", "#6b7f99"),
    (_R.LinkVisited, "#c3a2f2", "#7d6f99"),
    (_R.Accent, "#2f65ad", "#3d4047"),
)
# Fusion's own light palette, written out: on a dark desktop Fusion's standard palette is dark.
LIGHT_ROLES = (
    (_R.Window, "#efefef", "#efefef"),
    (_R.WindowText, "#000000", "#bebebe"),
    (_R.Base, "#ffffff", "#efefef"),
    (_R.AlternateBase, "#f7f7f7", "#f7f7f7"),
    (_R.ToolTipBase, "#ffffdc", "#ffffdc"),
    (_R.ToolTipText, "#000000", "#000000"),
    (_R.PlaceholderText, "#80000000", "#80000000"),
    (_R.Text, "#000000", "#bebebe"),
    (_R.Button, "#efefef", "#efefef"),
    (_R.ButtonText, "#000000", "#bebebe"),
    (_R.BrightText, "#ffffff", "#ffffff"),
    (_R.Light, "#ffffff", "#ffffff"),
    (_R.Midlight, "#cacaca", "#cacaca"),
    (_R.Mid, "#b8b8b8", "#b8b8b8"),
    (_R.Dark, "#9f9f9f", "#bebebe"),
    (_R.Shadow, "#767676", "#b1b1b1"),
    (_R.Highlight, "#308cc6", "#919191"),
    (_R.HighlightedText, "#ffffff", "#ffffff"),
    (_R.Link, "#0000ff", "#0000ff"),
    (_R.LinkVisited, "#ff00ff", "#ff00ff"),
    (_R.Accent, "#308cc6", "#919191"),
)
ROLES = {"light": LIGHT_ROLES, "dark": DARK_ROLES}


def make_palette(theme: str) -> QPalette:
    """The palette of ``"light"`` or ``"dark"``."""
    palette = QPalette()
    groups = QPalette.ColorGroup
    for role, normal, disabled in ROLES[theme]:
        for group in (groups.Active, groups.Inactive):
            palette.setColor(group, role, QColor(normal))
        palette.setColor(groups.Disabled, role, QColor(disabled))
    return palette


_CHECKS = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
)


class CheckBoxOutlines(QProxyStyle):
    """Fusion whose check boxes have an outline that shows on a dark palette: Fusion draws
    theirs a little darker than the window, which on a dark window is almost black, so an
    unticked box in a list (on the base colour) did not show at all, and one in a form was a
    dark square without an edge; now both are one look."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element in _CHECKS:
            painter.save()
            painter.setPen(QPen(option.palette.color(QPalette.ColorRole.PlaceholderText), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
            painter.restore()


class _Applied:
    """What the app looked like before any theme was applied, and which theme is applied."""

    system_style: str | None = None
    theme = "system"


def applied() -> str:
    """The theme in use: one of :data:`THEMES`."""
    return _Applied.theme


def apply(theme: str) -> None:
    """Use ``theme`` for the whole application; views follow on the palette change."""
    if theme not in THEMES:
        raise ValueError(f"theme {theme!r} is not one of {', '.join(THEMES)}")
    app = QApplication.instance()
    if app is None or theme == _Applied.theme:
        style.refresh()
        return
    if _Applied.system_style is None:
        _Applied.system_style = app.style().name()
    hints = app.styleHints()
    if hasattr(hints, "setColorScheme"):  # Qt 6.8: the window frames follow where they can
        scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}
        hints.setColorScheme(scheme.get(theme, Qt.ColorScheme.Unknown))
    if theme == "system":
        app.setStyle(_Applied.system_style)
        app.setPalette(QPalette())  # nothing set: the platform's palette
    else:
        app.setStyle(CheckBoxOutlines(FUSION) if theme == "dark" else FUSION)
        app.setPalette(make_palette(theme))
    _Applied.theme = theme
    style.refresh()


class ThemeActions(QObject):
    """View → Theme: System, Light or Dark, one checked, the choice kept in the settings."""

    def __init__(self, settings: QSettings, window: QWidget):
        super().__init__(window)
        self._settings = settings
        self.menu = QMenu("&Theme", window)
        self.menu.setObjectName("themeMenu")
        self._group = QActionGroup(self)
        self._group.setExclusive(True)
        self.actions: dict[str, QAction] = {}
        for theme in THEMES:
            action = QAction(LABELS[theme], self.menu)
            action.setObjectName(f"actionTheme{theme.capitalize()}")
            action.setCheckable(True)
            action.setStatusTip(
                "Follow the desktop's light or dark palette"
                if theme == "system"
                else f"Use Factlines' {theme} palette"
            )
            action.triggered.connect(lambda _=False, t=theme: self.choose(t))
            self._group.addAction(action)
            self.menu.addAction(action)
            self.actions[theme] = action
        self.choose(app_settings.THEME.get(settings), remember=False)

    def choose(self, theme: str, remember: bool = True) -> None:
        """Use ``theme`` (and keep it for the next start unless ``remember`` is False)."""
        apply(theme)
        self.actions[theme].setChecked(True)
        if remember:
            app_settings.THEME.set(self._settings, theme)
