"""Hypothesis strategies that build Python modules from a small model.

The model (``Module``) holds imports, ``__all__``, module constants (dict,
set and list literals), functions, and classes with methods.  Function
bodies hold assignments, calls with keyword arguments, an ``if/elif``
dispatch on ``mode``, ``try/except`` with tuples of types, and a return.
``Module.render()`` prints it deterministically, so two models that differ
by one edit print as two texts that differ only where the edit is.

Sides are derived from a base by model-level edits (``apply_edit``), and each
edit records what it *added* as an ``Added`` item: the property tests check
those items against the merged text with the stdlib ``ast`` alone, so they do
not depend on the engine's own inventory.

Every fresh name carries the side that made it (``fn_o3`` from ours,
``fn_t1`` from theirs, ``fn_b2`` in base), so two sides never add the same
name by accident; the tests that want a same-name clash build it on purpose.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

from hypothesis import strategies as st

MODULE = "<module>"

# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


@dataclass
class Assign:
    target: str
    value: str  # source of the right-hand side

    def render(self, ind: str) -> list[str]:
        return [f"{ind}{self.target} = {self.value}"]


@dataclass
class CallStmt:
    """``target = callee(value, k=v, ...)``; ``callee`` is unique in the module."""

    target: str
    callee: str
    kwargs: list[tuple[str, str]]

    def render(self, ind: str) -> list[str]:
        args = ", ".join(["value", *(f"{k}={v}" for k, v in self.kwargs)])
        return [f"{ind}{self.target} = {self.callee}({args})"]


@dataclass
class Return:
    value: str

    def render(self, ind: str) -> list[str]:
        return [f"{ind}return {self.value}"]


Simple = Assign | CallStmt | Return


@dataclass
class Dispatch:
    """``if mode == "a": ... elif mode == "b": ... [else: ...]``."""

    branches: list[tuple[str, list[Simple]]]
    orelse: list[Simple] | None = None

    def render(self, ind: str) -> list[str]:
        out: list[str] = []
        for i, (value, body) in enumerate(self.branches):
            out.append(f'{ind}{"if" if i == 0 else "elif"} mode == "{value}":')
            out += _render_body(body, ind + "    ")
        if self.orelse is not None:
            out.append(f"{ind}else:")
            out += _render_body(self.orelse, ind + "    ")
        return out


@dataclass
class Handler:
    types: list[str]
    name: str  # the ``as`` name: unique in the module, it identifies the handler
    body: list[Simple]


@dataclass
class Try:
    body: list[Simple]
    handlers: list[Handler]

    def render(self, ind: str) -> list[str]:
        out = [f"{ind}try:"]
        out += _render_body(self.body, ind + "    ")
        for h in self.handlers:
            types = h.types[0] if len(h.types) == 1 else "(" + ", ".join(h.types) + ")"
            out.append(f"{ind}except {types} as {h.name}:")
            out += _render_body(h.body, ind + "    ")
        return out


Stmt = Assign | CallStmt | Return | Dispatch | Try


def _render_body(body: list, ind: str) -> list[str]:
    if not body:
        return [f"{ind}pass"]
    out: list[str] = []
    for s in body:
        out += s.render(ind)
    return out


@dataclass
class Func:
    name: str
    body: list[Stmt]

    def render(self, ind: str, method: bool) -> list[str]:
        params = "self, mode, value" if method else "mode, value"
        return [f"{ind}def {self.name}({params}):", *_render_body(self.body, ind + "    ")]


@dataclass
class Class:
    name: str
    methods: list[Func]

    def render(self) -> list[str]:
        out = [f"class {self.name}:"]
        if not self.methods:
            return out + ["    pass"]
        for i, m in enumerate(self.methods):
            if i:
                out.append("")
            out += m.render("    ", method=True)
        return out


@dataclass
class Const:
    name: str
    kind: str  # "dict" | "set" | "list"
    entries: list[str]  # keys (dict) or elements (set, list); all strings
    multiline: bool

    def _items(self) -> list[str]:
        if self.kind == "dict":
            return [f'"{k}": {i}' for i, k in enumerate(self.entries)]
        return [f'"{k}"' for k in self.entries]

    def render(self) -> list[str]:
        open_, close = {"dict": "{}", "set": "{}", "list": "[]"}[self.kind]
        items = self._items()
        if self.multiline:
            return [f"{self.name} = {open_}", *(f"    {it}," for it in items), close]
        return [f"{self.name} = {open_}{', '.join(items)}{close}"]


@dataclass
class ImportFrom:
    module: str
    names: list[str]
    bracketed: bool = False  # one name per line in parentheses

    def render(self) -> list[str]:
        if self.bracketed:
            return [f"from {self.module} import (", *(f"    {n}," for n in self.names), ")"]
        return [f"from {self.module} import {', '.join(self.names)}"]


Member = Func | Class


@dataclass
class Module:
    imports: list[ImportFrom]
    all_: list[str]
    consts: list[Const]
    members: list[Member]

    def render(self) -> str:
        out: list[str] = ['"""Generated module."""', ""]
        for imp in self.imports:
            out += imp.render()
        out.append("")
        out.append("__all__ = [" + ", ".join(f'"{n}"' for n in self.all_) + "]")
        for c in self.consts:
            out.append("")
            out += c.render()
        for m in self.members:
            out += ["", ""]
            out += m.render("", method=False) if isinstance(m, Func) else m.render()
        return "\n".join(out) + "\n"

    # -- navigation ------------------------------------------------------------
    def funcs(self) -> Iterator[tuple[str, Func]]:
        """Every function and method with its qualified name."""
        for m in self.members:
            if isinstance(m, Func):
                yield m.name, m
            else:
                for f in m.methods:
                    yield f"{m.name}.{f.name}", f

    def classes(self) -> list[Class]:
        return [m for m in self.members if isinstance(m, Class)]


def walk_stmts(body: list) -> Iterator[Stmt]:
    """Every statement in a body, compound ones' inner statements included."""
    for s in body:
        yield s
        if isinstance(s, Dispatch):
            for _, b in s.branches:
                yield from walk_stmts(b)
            if s.orelse is not None:
                yield from walk_stmts(s.orelse)
        elif isinstance(s, Try):
            yield from walk_stmts(s.body)
            for h in s.handlers:
                yield from walk_stmts(h.body)


# ---------------------------------------------------------------------------
# Generating a base module
# ---------------------------------------------------------------------------

EXC_TYPES = [
    "KeyError",
    "ValueError",
    "OSError",
    "TypeError",
    "LookupError",
    "RuntimeError",
    "IndexError",
    "ZeroDivisionError",
]


class Names:
    """Fresh identifiers for one side: ``<stem>_<side><n>``."""

    def __init__(self, side: str, start: int = 0) -> None:
        self.side = side
        self.n = start

    def __call__(self, stem: str) -> str:
        self.n += 1
        return f"{stem}_{self.side}{self.n}"


@st.composite
def simple_stmt(draw, names: Names, allow_return: bool = False) -> Simple:
    kinds = ["assign", "call"] + (["return"] if allow_return else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "assign":
        return Assign(names("x"), str(draw(st.integers(0, 99))))
    if kind == "call":
        nk = draw(st.integers(0, 3))
        return CallStmt(names("r"), names("helper"), [(names("k"), str(draw(st.integers(0, 9)))) for _ in range(nk)])
    return Return(names("x"))


@st.composite
def simple_body(draw, names: Names, min_size: int = 1, max_size: int = 2) -> list[Simple]:
    n = draw(st.integers(min_size, max_size))
    return [draw(simple_stmt(names)) for _ in range(n)]


@st.composite
def dispatch(draw, names: Names) -> Dispatch:
    n = draw(st.integers(1, 3))
    branches = [(names("m"), draw(simple_body(names))) for _ in range(n)]
    orelse = draw(simple_body(names)) if draw(st.booleans()) else None
    return Dispatch(branches, orelse)


@st.composite
def try_stmt(draw, names: Names) -> Try:
    nh = draw(st.integers(1, 2))
    handlers = []
    for _ in range(nh):
        types = draw(st.lists(st.sampled_from(EXC_TYPES), min_size=1, max_size=3, unique=True))
        handlers.append(Handler(types, names("exc"), draw(simple_body(names))))
    return Try(draw(simple_body(names)), handlers)


@st.composite
def func(draw, names: Names) -> Func:
    body: list[Stmt] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["assign", "call", "dispatch", "try"]))
        if kind == "dispatch":
            body.append(draw(dispatch(names)))
        elif kind == "try":
            body.append(draw(try_stmt(names)))
        else:
            body.append(draw(simple_stmt(names)))
    if draw(st.booleans()):
        body.append(Return("value"))
    return Func(names("fn"), body)


@st.composite
def klass(draw, names: Names) -> Class:
    methods = [draw(func(names)) for _ in range(draw(st.integers(1, 2)))]
    return Class(names("Cls"), methods)


@st.composite
def modules(draw) -> Module:
    """A base module; every name in it is ``*_b<n>``."""
    names = Names("b")
    imports = [
        ImportFrom(mod, [names("name") for _ in range(draw(st.integers(1, 3)))], draw(st.booleans()))
        for mod in draw(
            st.lists(st.sampled_from(["os", "sys", "json", "collections"]), min_size=0, max_size=2, unique=True)
        )
    ]
    all_ = [names("pub") for _ in range(draw(st.integers(0, 2)))]
    consts = [
        Const(names("CONST").upper(), kind, [names("key") for _ in range(draw(st.integers(1, 3)))], draw(st.booleans()))
        for kind in draw(st.lists(st.sampled_from(["dict", "set", "list"]), min_size=0, max_size=3))
    ]
    members: list[Member] = []
    for _ in range(draw(st.integers(1, 3))):
        members.append(draw(klass(names)) if draw(st.integers(0, 2)) == 0 else draw(func(names)))
    return Module(imports, all_, consts, members)


# ---------------------------------------------------------------------------
# Edits, and what they add
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Added:
    """One element a side added, and how to find it in a merged module.

    kind: def | import | kwarg | except | branch | entry | all
    path: qualname of the enclosing definition (``<module>`` at top level);
      for ``def`` it is the new definition's own qualname.
    key: what to look for (see `present`); unique in the module.
    """

    kind: str
    path: str
    key: tuple

    def describe(self) -> str:
        return f"{self.kind} {self.key} in {self.path}"


@dataclass
class Record:
    added: list[Added] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)  # qualnames whose bodies changed
    deleted: set[str] = field(default_factory=set)  # qualnames deleted
    log: list[str] = field(default_factory=list)


EDIT_KINDS = (
    "add_function",
    "add_method",
    "add_import_name",
    "add_kwarg",
    "add_except_type",
    "add_branch",
    "add_entry",
    "add_all",
    "change_statement",
    "delete_member",
)


def _body_lists(body: list) -> Iterator[list]:
    """``body`` and every nested statement list inside it."""
    yield body
    for s in body:
        if isinstance(s, Dispatch):
            for _, b in s.branches:
                yield b
            if s.orelse is not None:
                yield s.orelse
        elif isinstance(s, Try):
            yield s.body
            for h in s.handlers:
                yield h.body


def apply_edit(
    draw, model: Module, names: Names, record: Record, kind: str, exclude: frozenset[str] = frozenset()
) -> bool:
    """Apply one edit of `kind` in place; False if the model offers no place for it.

    `exclude`: qualnames this edit must not touch (delete or edit inside).
    """
    funcs = [(q, f) for q, f in model.funcs() if q not in exclude and q.split(".")[0] not in exclude]
    if kind == "add_function":
        f = draw(func(names))
        at = draw(st.integers(0, len(model.members)))
        model.members.insert(at, f)
        record.added.append(Added("def", f.name, ()))
        record.log.append(f"add function {f.name} at {at}")
        return True
    if kind == "add_method":
        classes = [c for c in model.classes() if c.name not in exclude]
        if not classes:
            return False
        c = draw(st.sampled_from(classes))
        f = draw(func(names))
        at = draw(st.integers(0, len(c.methods)))
        c.methods.insert(at, f)
        record.added.append(Added("def", f"{c.name}.{f.name}", ()))
        record.log.append(f"add method {c.name}.{f.name} at {at}")
        return True
    if kind == "add_import_name":
        if model.imports and draw(st.booleans()):
            imp = draw(st.sampled_from(model.imports))
        else:
            mods = [m for m in ("re", "typing", "functools") if m not in {i.module for i in model.imports}]
            if not mods:
                return False
            imp = ImportFrom(draw(st.sampled_from(mods)), [], draw(st.booleans()))
            model.imports.append(imp)
        name = names("name")
        imp.names.insert(draw(st.integers(0, len(imp.names))), name)
        record.added.append(Added("import", MODULE, (imp.module, name)))
        record.log.append(f"import {name} from {imp.module}")
        return True
    if kind == "add_kwarg":
        calls = [(q, s) for q, f in funcs for s in walk_stmts(f.body) if isinstance(s, CallStmt)]
        if not calls:
            return False
        q, s = draw(st.sampled_from(calls))
        k = names("k")
        s.kwargs.insert(draw(st.integers(0, len(s.kwargs))), (k, str(draw(st.integers(0, 9)))))
        record.added.append(Added("kwarg", q, (s.callee, k)))
        record.changed.add(q)
        record.log.append(f"add kwarg {k} to {s.callee} in {q}")
        return True
    if kind == "add_except_type":
        handlers = [(q, h) for q, f in funcs for s in walk_stmts(f.body) if isinstance(s, Try) for h in s.handlers]
        if not handlers:
            return False
        q, h = draw(st.sampled_from(handlers))
        t = names("Err")
        h.types.insert(draw(st.integers(0, len(h.types))), t)
        record.added.append(Added("except", q, (h.name, t)))
        record.changed.add(q)
        record.log.append(f"add except type {t} to {h.name} in {q}")
        return True
    if kind == "add_branch":
        chains = [(q, s) for q, f in funcs for s in walk_stmts(f.body) if isinstance(s, Dispatch)]
        if not chains:
            return False
        q, d = draw(st.sampled_from(chains))
        v = names("m")
        # A new branch goes anywhere but first: replacing the `if` would change the chain's head.
        d.branches.insert(draw(st.integers(1, len(d.branches))), (v, draw(simple_body(names))))
        record.added.append(Added("branch", q, (v,)))
        record.changed.add(q)
        record.log.append(f"add branch {v} in {q}")
        return True
    if kind == "add_entry":
        if not model.consts:
            return False
        c = draw(st.sampled_from(model.consts))
        k = names("key")
        c.entries.insert(draw(st.integers(0, len(c.entries))), k)
        record.added.append(Added("entry", MODULE, (c.name, k)))
        record.log.append(f"add entry {k} to {c.name}")
        return True
    if kind == "add_all":
        n = names("pub")
        model.all_.insert(draw(st.integers(0, len(model.all_))), n)
        record.added.append(Added("all", MODULE, (n,)))
        record.log.append(f"add {n} to __all__")
        return True
    if kind == "change_statement":
        assigns = [(q, s) for q, f in funcs for s in walk_stmts(f.body) if isinstance(s, Assign)]
        if not assigns:
            return False
        q, s = draw(st.sampled_from(assigns))
        s.value = f'"{names("v")}"'
        record.changed.add(q)
        record.log.append(f"change {s.target} in {q} to {s.value}")
        return True
    if kind == "delete_member":
        candidates: list[str] = [q for q, _ in funcs]
        if not candidates:
            return False
        q = draw(st.sampled_from(candidates))
        if not delete(model, q):
            return False
        record.deleted.add(q)
        record.log.append(f"delete {q}")
        return True
    raise ValueError(kind)


def delete(model: Module, qualname: str) -> bool:
    """Delete a function or method; a class left without methods goes too."""
    head, _, rest = qualname.partition(".")
    for i, m in enumerate(model.members):
        if m.name != head:
            continue
        if not rest:
            del model.members[i]
            return True
        assert isinstance(m, Class)
        if len(m.methods) == 1:
            return False  # keep classes non-empty; deleting the class is a different edit
        m.methods = [f for f in m.methods if f.name != rest]
        return True
    return False


def find_func(model: Module, qualname: str) -> Func:
    return dict(model.funcs())[qualname]


@dataclass
class Side:
    model: Module
    text: str
    record: Record


@st.composite
def edited(
    draw,
    base: Module,
    side: str,
    min_edits: int = 1,
    max_edits: int = 3,
    exclude: frozenset[str] = frozenset(),
    kinds: tuple[str, ...] = EDIT_KINDS,
) -> Side:
    """`base` with 1..3 random model-level edits by `side` ("o" or "t")."""
    model = copy.deepcopy(base)
    names = Names(side)
    record = Record()
    want = draw(st.integers(min_edits, max_edits))
    tries = 0
    while len(record.log) < want and tries < 20:
        tries += 1
        apply_edit(draw, model, names, record, draw(st.sampled_from(kinds)), exclude)
    # An addition later deleted by the same side is not an addition.
    record.added = [a for a in record.added if not _gone(a, record.deleted)]
    return Side(model, model.render(), record)


def _gone(item: Added, deleted: set[str]) -> bool:
    return any(item.path == q or item.path.startswith(q + ".") for q in deleted)


# ---------------------------------------------------------------------------
# Looking for added elements in a merged text, with the stdlib `ast` only
# ---------------------------------------------------------------------------


def defs_by_qualname(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every function/class definition by qualified name (a list: duplicates count)."""
    found: dict[str, list[ast.AST]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{prefix}{node.name}"
                found.setdefault(q, []).append(node)
                visit(node.body, q + ".")

    visit(tree.body, "")
    return found


def _module_assign(tree: ast.Module, name: str) -> ast.expr | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    return None


def present(tree: ast.Module, item: Added) -> bool:
    defs = defs_by_qualname(tree)
    if item.kind == "def":
        return item.path in defs
    if item.kind == "import":
        module, name = item.key
        return any(
            isinstance(n, ast.ImportFrom) and n.module == module and any(a.name == name for a in n.names)
            for n in tree.body
        )
    if item.kind == "all":
        value = _module_assign(tree, "__all__")
        return isinstance(value, (ast.List, ast.Tuple)) and any(
            isinstance(e, ast.Constant) and e.value == item.key[0] for e in value.elts
        )
    if item.kind == "entry":
        const, key = item.key
        value = _module_assign(tree, const)
        if isinstance(value, ast.Dict):
            elts = value.keys
        elif isinstance(value, (ast.Set, ast.List)):
            elts = value.elts
        else:
            return False
        return any(isinstance(e, ast.Constant) and e.value == key for e in elts)
    # The rest live inside a function.  Their keys (callee, handler name,
    # branch value) are unique in the module, so look everywhere: the engine
    # may rightly carry an edit along with a block the other side moved.
    inside = list(ast.walk(tree))
    if item.kind == "kwarg":
        callee, kw = item.key
        return any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == callee
            and any(k.arg == kw for k in n.keywords)
            for n in inside
        )
    if item.kind == "except":
        handler, t = item.key
        for n in inside:
            if isinstance(n, ast.ExceptHandler) and n.name == handler and n.type is not None:
                types = n.type.elts if isinstance(n.type, ast.Tuple) else [n.type]
                if any(isinstance(x, ast.Name) and x.id == t for x in types):
                    return True
        return False
    if item.kind == "branch":
        (v,) = item.key
        return any(
            isinstance(n, ast.If)
            and isinstance(n.test, ast.Compare)
            and isinstance(n.test.left, ast.Name)
            and n.test.left.id == "mode"
            and isinstance(n.test.ops[0], ast.Eq)
            and isinstance(n.test.comparators[0], ast.Constant)
            and n.test.comparators[0].value == v
            for n in inside
        )
    raise ValueError(item.kind)


def related(conflict_path: str, item_path: str) -> bool:
    """A conflict at `conflict_path` names `item_path` if it is it, an ancestor or a descendant."""
    if conflict_path == item_path:
        return True
    if item_path == MODULE:
        return False
    if conflict_path == MODULE:
        return "." not in item_path  # a top-level definition's enclosing path is the module
    return item_path.startswith(conflict_path + ".") or conflict_path.startswith(item_path + ".")
