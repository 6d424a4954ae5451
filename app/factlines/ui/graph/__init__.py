"""The neighbourhood graph: :class:`GraphView` (the widget), :mod:`.layout` (which neighbours
and where, plain Python), :mod:`.look` (a type's shape and colour), :mod:`.scene` (the items and
their styles) and :mod:`.legend`."""

from factlines.ui.graph.view import GraphView

__all__ = ["GraphView"]
