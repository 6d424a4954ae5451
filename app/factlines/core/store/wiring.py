"""How the façade is put together: parts that each keep a share of its methods, a mark on
every method that writes, and the parts' methods offered on the façade by name.

A part is a plain class built with the store and the other parts it calls (its dependencies
are its constructor's arguments). A method that writes carries :func:`writes` where it is
defined: on a read-only graph it is refused before it reads anything (the engine refuses any
write too, but only once the arguments have been checked and the rows read). The façade
offers a part's method with :class:`forwarded`, which names the method itself, so a name
that does not exist fails at import instead of being skipped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


class Part:
    """A share of the façade's methods over one store (``_store``)."""

    def __init__(self, store: Any):
        self._store = store


def writes(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """Mark a part's method as one that writes: refused up front on a read-only graph."""

    @functools.wraps(method)
    def write(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        self._store.refuse_writes()
        return method(self, *args, **kwargs)

    write.writes = True  # type: ignore[attr-defined]
    return write


def is_write(method: Callable[..., Any]) -> bool:
    """Whether ``method`` carries the :func:`writes` mark."""
    return getattr(method, "writes", False)


class forwarded(Generic[P, R]):
    """A part's method, offered on the façade: ``name = forwarded("_part", Part.name)``.
    Called on the façade, it runs on the façade's part of that attribute."""

    def __init__(self, part: str, method: Callable[Concatenate[Any, P], R]):
        self.part = part
        self.method = method
        # Not a callable but a descriptor: it takes the method's names and doc all the same.
        functools.update_wrapper(self, method)  # pyright: ignore[reportArgumentType]

    def __set_name__(self, owner: type, name: str) -> None:
        if name != self.method.__name__:
            raise TypeError(f"{owner.__name__}.{name} forwards {self.method.__qualname__}")

    @overload
    def __get__(self, graph: None, owner: type) -> Callable[Concatenate[Any, P], R]: ...
    @overload
    def __get__(self, graph: object, owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, graph: object, owner: type | None = None) -> Callable[..., R]:
        if graph is None:
            return self.method
        return self.method.__get__(getattr(graph, self.part))
