"""`@record` does what the dataclasses it replaced did, for the parts nginxgen uses."""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

import pytest

from nginxgen.base.records import COMPILE_AFTER, field, record, replace


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    tags: tuple[str, ...] = field(default_factory=tuple)
    KIND: ClassVar[str] = "point"


@record
class Bag:
    items: list[int] = field(default_factory=list)
    name: str = "bag"


@record(slots=True)
class Slim:
    a: int
    b: str = "b"


def test_init_takes_fields_in_order_with_defaults_and_fresh_factories() -> None:
    p = Point(1)
    assert (p.x, p.y, p.label, p.tags) == (1, 0, "", ())
    assert Point(1, 2, "l", ("t",)).tags == ("t",)
    first, second = Bag(), Bag()
    first.items.append(1)
    assert second.items == []  # a factory runs for each instance
    assert Bag.name == "bag" and Point.KIND == "point"  # plain defaults stay class attributes
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_equality_hash_and_repr() -> None:
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(1, 3)
    assert Point(1, 2, label="a") == Point(1, 2, label="b")  # compare=False
    assert hash(Point(1, 2, label="a")) == hash(Point(1, 2, label="b"))
    assert Point(1) != Bag() and Point(1).__eq__(Bag()) is NotImplemented
    assert repr(Point(1, label="l")) == "Point(x=1, y=0, label='l', tags=())"
    with pytest.raises(TypeError):
        hash(Bag())  # mutable records are not hashable, as dataclasses without frozen


def test_frozen_refuses_assignment() -> None:
    p = Point(1)
    with pytest.raises(AttributeError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.x  # type: ignore[misc]
    bag = Bag()
    bag.name = "other"
    assert bag.name == "other"


def test_slots() -> None:
    slim = Slim(1)
    assert not hasattr(slim, "__dict__") and Slim.__slots__ == ("a", "b")
    assert slim.b == "b"


def test_replace() -> None:
    p = Point(1, 2, "l", ("t",))
    moved = replace(p, y=5)
    assert moved == Point(1, 5, tags=("t",)) and moved.label == "l" and moved.tags is p.tags
    assert p.y == 2  # the original is unchanged
    assert replace(Bag([1]), name="n") == Bag([1], "n")
    with pytest.raises(TypeError, match="'z'"):
        replace(p, z=1)


def test_importing_records_brings_no_dataclasses() -> None:
    code = "import sys, nginxgen.base.records; print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_init_is_compiled_once_its_class_is_made_often() -> None:
    @record(slots=True)
    class Base:
        a: int
        b: int = 2

    @record
    class Derived(Base):
        c: int = 3

    class Plain(Base):  # not a record: it takes Base's __init__
        pass

    @record(frozen=True)
    class Frozen:
        a: int
        tags: list[int] = field(default_factory=list)

    def behaves() -> None:
        assert (Plain(1).a, Plain(1).b) == (1, 2)
        assert (Base(5).a, Base(b=3, a=4).b, Derived(1, 2, 4).c, Derived(1).b) == (5, 3, 4, 2)
        # every field given, by position or by name, of a record deriving from one with slots
        assert (Derived(1, 2, 4).a, Derived(c=4, b=3, a=1).b) == (1, 3)
        assert Frozen(1).tags == [] and Frozen(1).tags is not Frozen(1).tags
        assert Frozen(1, [2]) == Frozen(tags=[2], a=1) and Frozen(1, [2]).tags == [2]
        assert repr(Frozen(tags=[2], a=1)).endswith("Frozen(a=1, tags=[2])")
        for made in (Frozen(1), Frozen(1, []), Frozen(a=1, tags=[])):
            with pytest.raises(AttributeError):
                made.a = 2  # type: ignore[misc]
        for bad in (
            lambda: Base(),  # type: ignore[call-arg]
            lambda: Derived(1, 2, 3, 4),  # type: ignore[call-arg]
            lambda: Base(1, a=1),  # type: ignore[misc]
            lambda: Base(1, z=1),  # type: ignore[call-arg]
            lambda: Frozen(a=1, z=1),  # type: ignore[call-arg]
            lambda: Frozen(1, tags=[], a=1),  # type: ignore[misc]
        ):
            with pytest.raises(TypeError):
                bad()

    stub = Base.__init__
    behaves()  # interpreted: few instances
    assert Base.__init__ is stub
    for _ in range(COMPILE_AFTER):
        behaves()
    assert Base.__init__ is not stub and Base.__init__.__qualname__.endswith("Base.__init__")
    behaves()  # compiled: the same
