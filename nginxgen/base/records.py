"""`@record`: the house's record system, the part of dataclasses nginxgen uses (an `__init__` from
the annotated fields, defaults and default factories, fields left out of equality, repr, value
equality, hashing when frozen, `__slots__`, and `replace`), without importing `dataclasses`,
which brings `inspect`, `ast`, `dis` and `tokenize` along and processes each class slowly.
Importing those and building ~25 dataclasses was a quarter of a pre-commit run's start-up
(docs/benchmarks.md). Type checkers see it as a dataclass (PEP 681 `dataclass_transform`).

Every record of nginxgen is one of these; `dataclasses` stays for the tests. The one other kind
of typed class is the generator's input (generate/models.py, pydantic): it checks what a user
or a preset file gives (ranges, safe characters, unknown keys) with messages naming the field,
which a record, holding values already checked, does not do.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:  # what the decorators do at run time that matters here: nothing

    def dataclass_transform(**_: object) -> object:
        return lambda function: function


_MISSING: Any = object()


class _Field:
    """A field declared with `field()`: its default or default factory, and whether it counts
    for equality and hashing."""

    __slots__ = ("compare", "default", "make")

    def __init__(self, default: Any, make: Callable[[], Any] | None, compare: bool) -> None:
        self.default = default
        self.make = make
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    compare: bool = True,
) -> Any:
    """A field's default, or a factory called for each new instance; `compare=False` leaves the
    field out of equality and hashing (as dataclasses' field does)."""
    return _Field(default, default_factory, compare)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record `obj` with the fields named in `changes` set to new values."""
    names: tuple[str, ...] = type(obj).__record_fields__  # type: ignore[attr-defined]
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__qualname__} has no field {sorted(unknown)[0]!r}")
    return type(obj)(**{n: changes[n] if n in changes else getattr(obj, n) for n in names})


def _fields(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        # not inspect.get_annotations: importing inspect is what this module avoids
        own = klass.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, kind in own.items():
            if "ClassVar" not in str(kind) and name not in names:
                names.append(name)
    return names


def _init(names: list[str], declared: dict[str, _Field], frozen: bool) -> Callable[..., None]:
    """The `__init__` that takes the fields in order, each with its default or factory."""
    scope: dict[str, Any] = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    params, body = [], []
    for name in names:
        value = name
        spec = declared.get(name)
        if spec is not None and spec.make is not None:
            scope[f"_f_{name}"] = spec.make
            params.append(f"{name}=_MISSING")
            value = f"_f_{name}() if {name} is _MISSING else {name}"
        elif spec is not None and spec.default is not _MISSING:
            scope[f"_d_{name}"] = spec.default
            params.append(f"{name}=_d_{name}")
        else:
            params.append(name)
        body.append(f"_setattr(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)  # the same technique dataclasses uses, without its introspection
    init: Callable[..., None] = scope["__init__"]
    return init


COMPILE_AFTER = 200  # instances of a class made before its __init__ is compiled


def _binder(
    names: list[str], declared: dict[str, _Field], frozen: bool
) -> Callable[[Any, tuple[Any, ...], dict[str, Any]], None]:
    """What the compiled `__init__` does, interpreted: each field from the arguments, by
    position or name, else its default or factory; a TypeError as Python gives for a missing,
    unknown or repeated argument."""
    setter = object.__setattr__ if frozen else setattr
    known = set(names)

    def bind(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(args) > len(names):
            raise TypeError(f"__init__() takes {len(names) + 1} positional arguments")
        values = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in known or name in values:
                why = "an unexpected keyword" if name not in known else "multiple values for"
                raise TypeError(f"__init__() got {why} argument {name!r}")
            values[name] = value
        for name in names:
            if name in values:
                value = values[name]
            else:
                spec = declared.get(name)
                if spec is None or (spec.make is None and spec.default is _MISSING):
                    raise TypeError(f"__init__() missing a required argument: {name!r}")
                value = spec.make() if spec.make is not None else spec.default
            setter(obj, name, value)

    return bind


def _methods(
    names: tuple[str, ...], compared: tuple[str, ...], eq: bool, frozen: bool
) -> dict[str, Any]:
    """repr always; value equality (and a hash when frozen) with `eq`; no assignment when
    frozen."""

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{type(self).__qualname__}({inner})"

    # the compared fields' values in one C call (a record is a dict key and a set member in
    # hot loops: the lint's findings, the grammar's memo)
    values: Callable[[Any], Any] = attrgetter(*compared) if compared else (lambda _: ())

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(values(self) == values(other))

    def __hash__(self: Any) -> int:
        return hash(values(self))

    def __setattr__(self: Any, name: str, value: Any = None) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen record")

    methods: dict[str, Any] = {"__repr__": __repr__}
    if eq:
        methods.update(__eq__=__eq__, __hash__=__hash__ if frozen else None)
    if frozen:
        methods.update(__setattr__=__setattr__, __delattr__=__setattr__)
    return methods


def _declared(cls: type, names: list[str]) -> dict[str, _Field]:
    """The fields the class body, or a record it derives from, gives a default, `field()` or
    not, each as a `_Field`."""
    out: dict[str, _Field] = {}
    for klass in reversed(cls.__mro__[1:]):
        out.update(klass.__dict__.get("__record_declared__", {}))
    for name in names:
        if name in cls.__dict__:
            value = cls.__dict__[name]
            out[name] = value if isinstance(value, _Field) else _Field(value, None, True)
    return out


def _build(cls: type, frozen: bool, eq: bool, slots: bool) -> type:
    names = _fields(cls)
    declared = _declared(cls, names)
    compared = tuple(n for n in names if n not in declared or declared[n].compare)
    made: list[type] = []  # the class, once built: where a compiled __init__ goes
    bind = _binder(names, declared, frozen)
    left = [COMPILE_AFTER]
    count, known = len(names), frozenset(names)
    setter = object.__setattr__  # a frozen record's own __setattr__ refuses; slots take it too

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # Compiled only once the class is made often, never at import: most records of a module
        # are never made in a given run and many a few times, and compiling an __init__ (about
        # 0.5 ms for a dozen fields) was a tenth of a one-file lint; a class made thousands of
        # times wants it.
        left[0] -= 1
        if left[0] <= 0:
            init = _init(names, declared, frozen)
            init.__qualname__ = f"{made[0].__qualname__}.__init__"
            made[0].__init__ = init  # type: ignore[misc]
            init(self, *args, **kwargs)
            return
        # Until then the common calls, every field by position or every field by name, set
        # them in order, one call each; the others go through bind. (Not __dict__.update: an
        # instance whose __dict__ is asked for keeps a dict of its own, and a fleet's records
        # were then slower to read and bigger.)
        if kwargs:
            if not args and len(kwargs) == count and known.issuperset(kwargs):
                for name in names:
                    setter(self, name, kwargs[name])
                return
        elif len(args) == count:
            for name, value in zip(names, args, strict=True):
                setter(self, name, value)
            return
        bind(self, args, kwargs)

    added = _methods(tuple(names), compared, eq, frozen)
    added.update(__init__=__init__, __record_fields__=tuple(names), __record_declared__=declared)
    if slots:  # __slots__ only takes effect in a new class
        made.append(_with_slots(cls, names, declared, added))
        return made[0]
    # otherwise the class itself: building it again was most of declaring a record
    for name, spec in declared.items():
        # a plain default stays a class attribute, as in dataclasses
        if spec.make is None and spec.default is not _MISSING:
            setattr(cls, name, spec.default)
        elif name in cls.__dict__:
            delattr(cls, name)
    for name, value in added.items():
        setattr(cls, name, value)
    made.append(cls)
    return cls


def _with_slots(
    cls: type, names: list[str], declared: dict[str, _Field], added: dict[str, Any]
) -> type:
    namespace = dict(cls.__dict__)
    for name in declared:
        namespace.pop(name, None)  # the slots take their place
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = tuple(names)
    namespace.update(added)
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
