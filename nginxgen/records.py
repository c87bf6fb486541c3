"""`@record`: the part of dataclasses the lint path uses (an `__init__` from the annotated
fields, defaults and default factories, repr, value equality, hashing when frozen, `__slots__`),
without importing `dataclasses`, which brings `inspect`, `ast`, `dis` and `tokenize` along and
processes each class slowly. Importing those and building ~25 dataclasses was a quarter of a
pre-commit run's start-up (docs/benchmarks.md). Type checkers see it as a dataclass
(PEP 681 `dataclass_transform`).
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:  # what the decorators do at run time that matters here: nothing

    def dataclass_transform(**_: object) -> object:
        return lambda function: function


_MISSING: Any = object()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None) -> Any:
    """A field's default, or a factory called for each new instance."""
    return _Factory(default_factory) if default_factory is not None else default


def _fields(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        # not inspect.get_annotations: importing inspect is what this module avoids
        own = klass.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, kind in own.items():
            if "ClassVar" not in str(kind) and name not in names:
                names.append(name)
    return names


def _build(cls: type, frozen: bool, eq: bool, slots: bool) -> type:
    names = _fields(cls)
    defaults = {n: cls.__dict__[n] for n in names if n in cls.__dict__}
    scope: dict[str, Any] = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    params, body = [], []
    for name in names:
        if name in defaults:
            scope[f"_d_{name}"] = defaults[name]
            if isinstance(defaults[name], _Factory):
                scope[f"_f_{name}"] = defaults[name].make
                params.append(f"{name}=_MISSING")
                value = f"_f_{name}() if {name} is _MISSING else {name}"
            else:
                params.append(f"{name}=_d_{name}")
                value = name
        else:
            params.append(name)
            value = name
        body.append(f"_setattr(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)  # the same technique dataclasses uses, without its introspection
    namespace = dict(cls.__dict__)
    for name in defaults:
        if slots or isinstance(defaults[name], _Factory):
            namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__init__"] = scope["__init__"]
    if slots:
        namespace["__slots__"] = tuple(names)
    fields = tuple(names)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in fields)
        return f"{type(self).__qualname__}({inner})"

    namespace["__repr__"] = __repr__
    if eq:

        def __eq__(self: Any, other: object) -> bool:
            if other.__class__ is not self.__class__:
                return NotImplemented
            return all(getattr(self, n) == getattr(other, n) for n in fields)

        namespace["__eq__"] = __eq__
        if frozen:

            def __hash__(self: Any) -> int:
                return hash(tuple(getattr(self, n) for n in fields))

            namespace["__hash__"] = __hash__
        else:
            namespace["__hash__"] = None
    if frozen:

        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise AttributeError(f"cannot assign to field {name!r} of a frozen record")

        namespace["__setattr__"] = __setattr__
        namespace["__delattr__"] = __setattr__
    built = type(cls)(cls.__name__, cls.__bases__, namespace)
    built.__qualname__ = cls.__qualname__
    return built


@dataclass_transform(field_specifiers=(field,))
def record(
    cls: type | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> Any:
    """`@record` or `@record(frozen=True, eq=False, slots=True)`, as `@dataclass`. (Typed Any:
    typing.overload would need typing at run time; the dataclass_transform tells type checkers
    what the decorated classes look like.)"""

    def wrap(klass: type) -> type:
        return _build(klass, frozen, eq, slots)

    return wrap(cls) if cls is not None else wrap
