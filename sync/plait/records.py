"""Plain records: what `dataclasses` gives the classes on `plait check`'s path, without its import.

A pre-commit hook's whole cost is `plait check`'s start-up, and importing
`dataclasses` (which imports `inspect`, and with it `ast`, `dis` and
`tokenize`) took a sixth of it, as much as hashing every vendored file;
`typing` took another tenth.  `record` is the part of `dataclass` those
classes use: an ``__init__`` from the annotated fields (defaults,
``field(default_factory=..., compare=False)``, ``kw_only``, inherited
fields first), ``__eq__`` and ``__repr__`` over them, ``frozen`` with a
``__hash__``, ``order`` (``<`` and the rest, as a tuple of the compared
fields), ``__match_args__``.  `replace` is `dataclasses.replace`, `as_dict`
a shallow `dataclasses.asdict`.  The merge driver's records are these too:
git starts it once per file.
mypy reads a record as a dataclass (`dataclass_transform`), so the
declarations are checked as strictly as before.

Nothing else: no ``__post_init__``, no ``InitVar`` or
``ClassVar`` fields, no slots.  A class that needs them is a dataclass and
stays off `check`'s path.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing's own constant is an import of typing away)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        return lambda decorated: decorated


__all__ = ["FrozenRecordError", "as_dict", "field", "record", "replace"]

_MISSING = object()


class FrozenRecordError(AttributeError):
    """An assignment to a field of a frozen record (`dataclasses.FrozenInstanceError`'s role)."""


class _Field:
    """A field's declaration, as `field` takes it."""

    __slots__ = ("compare", "default", "factory")

    def __init__(self, default: object, factory: Callable[[], object] | None, compare: bool) -> None:
        self.default, self.factory, self.compare = default, factory, compare


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None, compare: bool = True) -> Any:
    """A field with a default made per record (*default_factory*), or left out of ``==`` (*compare*)."""
    return _Field(default, default_factory, compare)


class _Spec:
    """One field of a record: its name, default, whether ``==`` reads it, whether only by keyword."""

    __slots__ = ("compare", "default", "factory", "kw_only", "name")

    def __init__(self, name: str, declared: object, kw_only: bool) -> None:
        self.name, self.kw_only = name, kw_only
        if isinstance(declared, _Field):
            self.default, self.factory, self.compare = declared.default, declared.factory, declared.compare
        else:
            self.default, self.factory, self.compare = declared, None, True


@dataclass_transform(field_specifiers=(field,))
def record(cls: Any = None, /, *, frozen: bool = False, kw_only: bool = False, order: bool = False) -> Any:
    """Make *cls* a record of its annotated fields (see the module's docstring)."""

    def make(cls: type[T]) -> type[T]:
        specs: dict[str, _Spec] = {s.name: s for s in getattr(cls, "__record_fields__", ())}
        for name in cls.__dict__.get("__annotations__", {}):
            specs[name] = _Spec(name, cls.__dict__.get(name, _MISSING), kw_only)
            if isinstance(cls.__dict__.get(name), _Field):
                delattr(cls, name)  # (a factory's default is made per record, never shared)
        fields = tuple(specs.values())
        compared = tuple(s.name for s in fields if s.compare)
        # (no __hash__: a mutable record is unhashable, as a dataclass is)
        made: list[tuple[str, object]] = [("__hash__", None)]
        if frozen:
            made = [("__setattr__", _refuse), ("__delattr__", _refuse), ("__hash__", _hashing(compared))]
        if order:
            made += _ordering(compared)
        for name, value in (
            *made,
            ("__record_fields__", fields),
            ("__init__", _first_init(cls, fields)),
            ("__repr__", _repr),
            ("__eq__", _equality(compared)),
            ("__match_args__", tuple(s.name for s in fields if not s.kw_only)),
        ):
            setattr(cls, name, value)
        return cls

    return make if cls is None else make(cls)


def _first_init(cls: type, fields: tuple[_Spec, ...]) -> Callable[..., None]:
    """An ``__init__`` that makes *cls*'s own on its first call, puts it in its place, and runs it.

    Made as dataclasses makes one, from source, but only for a class that
    is used: compiling each took a record's declaration most of its cost,
    and `plait check` imports many that it never makes.
    """

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        namespace: dict[str, Any] = {
            "_MISSING": _MISSING,
            "_defaults": {s.name: s.default for s in fields},
            "_factories": {s.name: s.factory for s in fields},
        }
        exec(_init_source(fields), namespace)
        made = namespace["__init__"]
        made.__qualname__ = f"{cls.__qualname__}.__init__"
        type.__setattr__(cls, "__init__", made)
        made(self, *args, **kwargs)

    return __init__


def _init_source(fields: tuple[_Spec, ...]) -> str:
    """The source of the ``__init__`` of a record of *fields*: positional ones first, then keyword-only ones.

    It fills the record's ``__dict__`` at once (a frozen record's
    ``__setattr__`` refuses): quicker to compile than one assignment a field.
    """
    params: list[str] = []
    values: list[str] = []
    for kw_only in (False, True):
        group = [s for s in fields if s.kw_only == kw_only]
        if kw_only and group:
            params.append("*")
        for s in group:
            value = s.name
            if s.factory is not None:
                params.append(f"{s.name}=_MISSING")
                value = f"_factories[{s.name!r}]() if {s.name} is _MISSING else {s.name}"
            elif s.default is not _MISSING:
                params.append(f"{s.name}=_defaults[{s.name!r}]")  # (read once, when the function is made)
            else:
                params.append(s.name)
            values.append(f"{s.name}={value}")
    return f"def __init__(self, {', '.join(params)}):\n    self.__dict__.update({', '.join(values)})\n"


def _repr(self: object) -> str:
    fields = type(self).__record_fields__  # type: ignore[attr-defined]
    return f"{type(self).__qualname__}({', '.join(f'{s.name}={getattr(self, s.name)!r}' for s in fields)})"


def _equality(compared: tuple[str, ...]) -> Callable[[object, object], bool]:
    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in compared)

    return __eq__


def _hashing(compared: tuple[str, ...]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(tuple(getattr(self, n) for n in compared))

    return __hash__


def _ordering(compared: tuple[str, ...]) -> list[tuple[str, object]]:
    """``__lt__``, ``__le__``, ``__gt__`` and ``__ge__``: the compared fields as a tuple, as a dataclass orders."""

    def key(obj: object) -> tuple[object, ...]:
        return tuple(getattr(obj, n) for n in compared)

    def comparing(test: Callable[[tuple[object, ...], tuple[object, ...]], bool]) -> Callable[[object, object], bool]:
        def compare(self: object, other: object) -> bool:
            if other.__class__ is not self.__class__:
                return NotImplemented  # type: ignore[no-any-return]
            return test(key(self), key(other))

        return compare

    return [
        ("__lt__", comparing(lambda a, b: a < b)),
        ("__le__", comparing(lambda a, b: a <= b)),
        ("__gt__", comparing(lambda a, b: a > b)),
        ("__ge__", comparing(lambda a, b: a >= b)),
    ]


def _refuse(self: object, name: str, *_: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def replace(obj: T, /, **changes: object) -> T:
    """A copy of the record *obj* with *changes*: `dataclasses.replace` for records."""
    values: dict[str, object] = {s.name: getattr(obj, s.name) for s in type(obj).__record_fields__}  # type: ignore[attr-defined]
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {', '.join(sorted(unknown))}")
    return type(obj)(**(values | changes))


def as_dict(obj: object) -> dict[str, object]:
    """The record *obj*'s fields by name: `dataclasses.asdict` for records whose fields are plain values."""
    return {s.name: getattr(obj, s.name) for s in type(obj).__record_fields__}  # type: ignore[attr-defined]
