"""A record behaves as the dataclass it replaced, in everything the classes on check's path use.

`plait.records` stands in for `dataclasses` so `plait check` starts without
importing it; these tests declare the same classes both ways and hold the
two to one behaviour: construction (positional, keyword-only, defaults,
factories, inheritance), equality (with a field left out of it), hashing,
frozenness, repr, pattern matching and `replace`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from plait.records import FrozenRecordError, field, record, replace


def _declare(decorate: Any, fielded: Any) -> dict[str, type]:
    """The same four classes, made by *decorate* (`dataclass` or `record`) with its *fielded* (`field`)."""

    @decorate(frozen=True)
    class Digests:
        sha256: str | None = None
        base: str | None = None

    @decorate(frozen=True, kw_only=True)
    class Copy:
        name: str
        package: str
        exclude: tuple[str, ...] = ()

    @decorate(frozen=True, kw_only=True)
    class Lineage(Copy):
        files: dict[str, str] = fielded(default_factory=dict)
        package: str = "renamed"

    @decorate
    class Lock:
        consumer: str
        files: list[str] = fielded(default_factory=list)
        written_by: str = fielded(default="plait vendor", compare=False)

    return {"Digests": Digests, "Copy": Copy, "Lineage": Lineage, "Lock": Lock}


DATA = _declare(dataclasses.dataclass, dataclasses.field)
RECORD = _declare(record, field)

CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Digests", (), {}),
    ("Digests", ("a",), {}),
    ("Digests", ("a", "b"), {}),
    ("Digests", (), {"base": "b"}),
    ("Digests", ("a", "b", "c"), {}),
    ("Digests", (), {"nope": 1}),
    ("Digests", ("a",), {"sha256": "again"}),
    ("Copy", (), {"name": "c", "package": "p"}),
    ("Copy", (), {"name": "c", "package": "p", "exclude": ("*.md",)}),
    ("Copy", ("c", "p"), {}),
    ("Copy", (), {"name": "c"}),
    ("Lineage", (), {"name": "l"}),
    ("Lineage", (), {"name": "l", "package": "q", "files": {"a.py": "b.py"}}),
    ("Lineage", (), {}),
    ("Lock", ("svc",), {}),
    ("Lock", ("svc", ["a.py"]), {"written_by": "plait adopt"}),
    ("Lock", (), {"consumer": "svc", "files": []}),
    ("Lock", (), {}),
]


def _made(classes: dict[str, type], name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return classes[name](*args, **kwargs)
    except TypeError:
        return TypeError


def _fields(obj: Any) -> dict[str, Any]:
    names = [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else list(vars(obj))
    return {n: getattr(obj, n) for n in names}


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS)
def test_a_record_is_made_as_its_dataclass_is_or_refused_alike(name: str, args: tuple, kwargs: dict) -> None:
    data, rec = _made(DATA, name, args, kwargs), _made(RECORD, name, args, kwargs)
    if data is TypeError:
        assert rec is TypeError
        return
    assert _fields(rec) == _fields(data)
    assert repr(rec) == repr(data).replace(DATA[name].__qualname__, RECORD[name].__qualname__)
    assert type(rec).__match_args__ == type(data).__match_args__  # type: ignore[attr-defined]


def test_equality_hashing_and_frozenness_are_the_dataclass_ones() -> None:
    for classes in (DATA, RECORD):
        digests, lock = classes["Digests"], classes["Lock"]
        assert digests("a") == digests("a") and digests("a") != digests("b") and digests("a") != DATA["Lock"]("a")
        assert hash(digests("a", "b")) == hash(digests("a", "b")) and len({digests("a"), digests("a")}) == 1
        assert lock("svc", written_by="x") == lock("svc", written_by="y")  # (compare=False)
        assert lock("svc") != lock("svc", ["a.py"])
        with pytest.raises(TypeError):
            hash(lock("svc"))  # mutable: unhashable
        with pytest.raises(AttributeError):
            digests("a").sha256 = "b"  # type: ignore[misc]
        changing = lock("svc")
        changing.consumer = "tool"
        assert changing == lock("tool")
    with pytest.raises(FrozenRecordError):
        RECORD["Digests"]("a").base = "b"  # type: ignore[misc]


def test_a_factory_makes_a_new_default_for_each_record() -> None:
    first, second = RECORD["Lock"]("a"), RECORD["Lock"]("b")
    first.files.append("x.py")
    assert second.files == [] and RECORD["Lineage"](name="l").files == {}
    assert "files" not in vars(RECORD["Lock"])  # (the declaration's default is not left on the class)


def test_replace_makes_a_changed_copy_and_refuses_an_unknown_field() -> None:
    lineage = RECORD["Lineage"](name="l", files={"a.py": "b.py"})
    moved = replace(lineage, package="other")
    assert (moved.name, moved.package, moved.files) == ("l", "other", {"a.py": "b.py"}) and lineage.package == "renamed"
    with pytest.raises(TypeError, match="no field nope"):
        replace(lineage, nope=1)


@record(frozen=True)
class _Pair:
    left: str
    right: str = ""


def test_a_record_matches_a_class_pattern_by_its_positional_fields() -> None:
    match _Pair("a", "b"):
        case _Pair(left, right):
            assert (left, right) == ("a", "b")
        case _:
            pytest.fail("no match")
