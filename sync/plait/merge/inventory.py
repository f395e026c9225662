"""The ledger of what a module contains, for "nothing is lost silently".

A merge must keep everything either side added: definitions, imported
names, `except` types, `if/elif` branches, decorators, keyword arguments,
parameters, class bases, and dict/set/list/`__all__` entries.  Rather than
trusting the merge walk to have done so, we take an inventory of base, ours,
theirs and the result with the stdlib `ast` (fast, C-speed, formatting
insensitive) and compare them.  The same ledger yields the change summary
that sync and vendor report (`applied` from theirs, `kept` from ours), so the
fast line path and the structured path report identically.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter
from collections.abc import Callable, Iterator

from ..records import field, record, replace
from .conflicts import Conflict
from .facts import (
    DEFINITIONS,
    MODULE,
    Call,
    first_line,
    from_module,
    import_bindings,
    last_line,
    nested_bodies,
    qualname,
)
from .order import lis_members
from .result import Change, Side
from .spelling import has_one_spelling

_IMPORTS_AND_DEFS = (*DEFINITIONS, ast.Import, ast.ImportFrom)


# What an element of a module is: a definition, a part of one's header, an
# import, a clause or branch, an argument, an entry of a collection, a class
# or module attribute, or the module's own statements as one fingerprint.
TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from typing import Literal

    ItemKind = Literal[
        "def",
        "class",
        "param",
        "decorator",
        "base",
        "import",
        "except",
        "branch",
        "kwarg",
        "entry",
        "attribute",
        "statements",
    ]
else:
    ItemKind = str


@record(frozen=True, order=True)
class Item:
    """One element of a module: what it is, where, and which one.

    `key` is the element's identity, spelled from its syntax so that
    re-quoting or re-wrapping it is no change; `detail` is the author's own
    spelling, which reads better in reports.
    """

    kind: ItemKind
    path: str  # qualname of the def itself (def/class) or of the enclosing def
    key: str
    detail: str = field(default="", compare=False)  # human name of the element, empty for def/class
    # The line the element stands on (0 for a definition's header parts): which statement it is in.
    line: int = field(default=0, compare=False)

    @property
    def is_def(self) -> bool:
        return self.kind in ("def", "class")


class Inventory:
    """Items of one module, with fingerprints for definitions."""

    def __init__(self) -> None:
        self.items: set[Item] = set()
        self.fingerprints: dict[Item, str] = {}
        # Definitions in source order, for reporting reorders.
        self.def_order: list[str] = []
        # (text, node, path) of each top-level statement and top-level
        # class member: what statements are counted by (StatementCounts).
        self.units: list[tuple[str, ast.stmt, str]] = []
        # Names bound per scope (module and class bodies, definitions
        # anywhere): a merge must not bind a name twice where no side did.
        self.bindings: Counter[tuple[str, str]] = Counter()
        self.binding_lines: dict[tuple[str, str], list[int]] = {}
        self._by_key: dict[tuple[ItemKind, str], set[str]] | None = None
        self.source_lines: list[str] = []
        # How deep the module's syntax tree nests.
        self.depth = 0
        # Every (scope, name) the module binds, locals included: a merge can
        # only leave a name undefined where an input bound it and it did not.
        self.bound: set[tuple[str, str]] = set()
        # For each name, the scopes that read it.
        self.uses: dict[str, set[str]] = {}
        # Calls of names and of methods on `self`, for the signature check.
        self.calls: list[Call] = []
        # For each `from` import item: the module it names, and what it imports (`Z`, `Z as W`).
        self.from_imports: dict[Item, tuple[str, str]] = {}
        # The module and each definition by qualname, to name the statements a change touched.
        self.tree: ast.Module | None = None
        self.nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = {}
        # Worked out once per module: a merge reports base against both sides.
        self.own: dict[str, list[_Own]] = {}
        self.syntax_by_id: dict[int, str] = {}

    def paths_for(self, kind: ItemKind, key: str) -> set[str]:
        """Where an element with this identity stands, wherever it was moved to."""
        if self._by_key is None:
            self._by_key = {}
            for it in self.items:
                self._by_key.setdefault((it.kind, it.key), set()).add(it.path)
        return self._by_key.get((kind, key), set())


def take_inventory(tree: ast.Module, source: str) -> Inventory:
    inv = Inventory()
    inv.source_lines = source.splitlines()
    inv.tree = tree
    _Collector(inv, source).collect(tree)
    _collect_statements(tree, inv)
    return inv


_COMPOUND_HEADERS: dict[type[ast.stmt], tuple[str, ...]] = {
    ast.If: ("test",),
    ast.While: ("test",),
    ast.For: ("target", "iter"),
    ast.AsyncFor: ("target", "iter"),
    ast.With: ("items",),
    ast.AsyncWith: ("items",),
    ast.Try: (),
    ast.TryStar: (),
    ast.Match: ("subject",),
}


def _dump(node: ast.AST) -> str:
    # Field names add nothing to a key but length: the field order is fixed.
    return ast.dump(node, annotate_fields=False)


def _header_key(stmt: ast.stmt, fields: tuple[str, ...]) -> str:
    parts = []
    for name in fields:
        value = getattr(stmt, name)
        parts.append(",".join(_dump(v) for v in value) if isinstance(value, list) else _dump(value))
    return f"{type(stmt).__name__}({';'.join(parts)})"


def _collect_statements(tree: ast.Module, inv: Inventory) -> None:
    """Bindings, and the units statements are counted by, walked iteratively (bodies only).

    A unit is a top-level statement, or a member of a top-level class.
    Counting statements means an `ast.dump` of each, the ledger's priciest
    step, and units with the same text in all four versions of a merge count
    the same everywhere, so the ledger counts only the others (see
    `StatementCounts.of`).
    """
    # (body, path, binds_everything): module and class bodies bind every
    # name they assign; a function body's locals may be rebound freely, so
    # only the definitions in it count.
    stack: list[tuple[list[ast.stmt], str, bool]] = [(tree.body, MODULE, True)]
    while stack:
        body, path, binds_all = stack.pop()
        for stmt in body:
            _bind(stmt, path, binds_all, inv)
            if isinstance(stmt, DEFINITIONS):
                stack.append((stmt.body, qualname(path, stmt.name), isinstance(stmt, ast.ClassDef)))
            else:
                stack.extend((block, path, binds_all) for block in nested_bodies(stmt))
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            inv.units += [(_unit_text(member, inv), member, stmt.name) for member in stmt.body]
        else:
            inv.units.append((_unit_text(stmt, inv), stmt, MODULE))


def _unit_text(stmt: ast.stmt, inv: Inventory) -> str:
    return "\n".join(inv.source_lines[first_line(stmt) - 1 : last_line(stmt)])


@record
class StatementCounts:
    """Statements of some units by their syntax alone (`ast.dump`: blind to quotes, comments and wrapping)."""

    counts: Counter[str] = field(default_factory=Counter)
    sites: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    # The first and last source line of each statement's first site, and the source they index.
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    # What a statement is about regardless of its details (the target of an
    # assignment, the callee of a call), to recognise edited versions.
    anchors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        inv: Inventory,
        skip: Counter[str] | None = None,
        cache: dict[tuple[str, str], list[_Counted]] | None = None,
    ) -> StatementCounts:
        """Count the statements of *inv*'s units, leaving out as many units of each text as *skip* says.

        *cache*, shared between the versions of one merge, holds each unit's
        statements by its text: a method only one side changed has the same
        text in two or three versions and is dumped once.
        """
        out = cls(lines=inv.source_lines)
        left = Counter(skip) if skip else Counter[str]()
        for text, node, path in inv.units:
            if left[text] > 0:
                left[text] -= 1
                continue
            counted = cache.get((path, text)) if cache is not None else None
            if counted is None:
                counted = list(_statements_of(node, path))
                if cache is not None:
                    cache[(path, text)] = counted
            for key, where, offset, end, anchor in counted:
                out._count(key, where, node.lineno + offset, node.lineno + end, anchor, inv)
        return out

    def _count(self, key: str, path: str, line: int, last: int, anchor: str, inv: Inventory) -> None:
        self.counts[key] += 1
        if key not in self.sites:
            text = inv.source_lines[line - 1].strip() if line <= len(inv.source_lines) else ""
            self.sites[key] = (path, line, text if len(text) <= 60 else text[:57] + "...")
            self.spans[key] = (line, last)
            self.anchors[key] = anchor

    def source(self, key: str) -> str:
        """The source lines of the statement's first site."""
        first, last = self.spans[key]
        return "\n".join(self.lines[first - 1 : last])


# (statement key, path of the definition it stands in, line offsets of its first and last line from its unit, anchor)
_Counted = tuple[str, str, int, int, str]


def _statements_of(unit: ast.stmt, path: str) -> Iterator[_Counted]:
    origin = unit.lineno
    stack: list[tuple[list[ast.stmt], str]] = [([unit], path)]
    while stack:
        body, where = stack.pop()
        for stmt in body:
            if isinstance(stmt, DEFINITIONS):
                stack.append((stmt.body, qualname(where, stmt.name)))
                continue
            fields = _COMPOUND_HEADERS.get(type(stmt))
            if fields is None:
                key = _dump(stmt)
            else:
                key = _header_key(stmt, fields)
                for handler in getattr(stmt, "handlers", ()):
                    caught = _dump(handler.type) if handler.type else ""
                    at = handler.lineno - origin
                    yield f"except({caught};{handler.name})", where, at, at, "except"
                for case in getattr(stmt, "cases", ()):
                    guard = _dump(case.guard) if case.guard else ""
                    at = case.pattern.lineno - origin
                    yield f"case({_dump(case.pattern)};{guard})", where, at, at, "case"
                stack.extend((block, where) for block in nested_bodies(stmt))
            last = stmt.lineno if fields is not None else last_line(stmt)
            yield key, where, stmt.lineno - origin, last - origin, _anchor(stmt)


def _anchor(stmt: ast.stmt) -> str:
    """What a statement is about, for pairing two edited versions of it."""
    kind = type(stmt).__name__
    if isinstance(stmt, ast.Assign):
        return kind + ":" + ",".join(_dump(t) for t in stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return kind + ":" + _dump(stmt.target)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return kind + ":" + _dump(stmt.value.func)
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return "import"
    return kind


# Assignments whose list is a set of names: its order means nothing (see `carries`).
_COMMUTATIVE_ANCHORS = frozenset(
    _anchor(ast.parse(f"{name}{how}").body[0])
    for name in ("__all__", "__slots__")
    for how in (" = []", ": list[str] = []", " += []")
)


def _bind(stmt: ast.stmt, path: str, binds_all: bool, inv: Inventory) -> None:
    names: list[str] = []
    if isinstance(stmt, DEFINITIONS):
        names.append(stmt.name)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        names += [name for name, _alias in import_bindings(stmt)]
    elif binds_all and isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            names += _target_names(target)
    elif binds_all and isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        names += _target_names(stmt.target)
    for name in names:
        inv.bindings[(path, name)] += 1
        inv.binding_lines.setdefault((path, name), []).append(stmt.lineno)


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


class _Collector(ast.NodeVisitor):
    def __init__(self, inv: Inventory, source: str) -> None:
        self.inv = inv
        # ast offsets are UTF-8 byte columns; split once instead of once per
        # lookup, as ast.get_source_segment does (quadratic on big modules).
        self.lines = source.encode("utf-8").splitlines(keepends=True)
        self.depth = 0
        self.scope: list[str] = []
        # Enclosing classes: `self.name(...)` inside one calls its method.
        self.classes: list[str] = []
        # Except types seen so far, per enclosing definition.
        self.excepts: dict[str, Counter[str]] = {}
        # Whether each enclosing scope is a function: locals are not members.
        self.in_function: list[bool] = [False]
        self.container: list[str] = []

    # -- helpers -------------------------------------------------------------------
    @property
    def path(self) -> str:
        return ".".join(self.scope) or MODULE

    def src(self, node: ast.expr | ast.stmt) -> str:
        # The author's own spelling reads better in reports than ast.unparse's.
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        start, end = node.col_offset, node.end_col_offset
        if first == last:
            raw = self.lines[first][start:end]
        else:
            raw = b"".join([self.lines[first][start:], *self.lines[first + 1 : last], self.lines[last][:end]])
        return raw.decode("utf-8")

    def norm(self, node: ast.expr) -> str:
        """An element's identity: its source, or its syntax where the source could be re-spelled."""
        text = self.src(node)
        return text if has_one_spelling(text) else ast.dump(node)

    def own_text(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
        """A definition's source without its nested definitions.

        A changed method then reports as that method, not also as its class.
        Slicing lines is far cheaper than `ast.dump` on big modules; the price
        is that a comment-only edit counts as a change, which it is.
        """
        skip: set[int] = set()
        for stmt in node.body:
            if isinstance(stmt, DEFINITIONS):
                skip.update(range(first_line(stmt) - 1, last_line(stmt)))
        lines = range(first_line(node) - 1, last_line(node))
        return b"".join(self.lines[i] for i in lines if i not in skip).decode("utf-8")

    def add(self, kind: ItemKind, detail: str, path: str | None = None, key: str | None = None, line: int = 0) -> None:
        self.inv.items.add(
            Item(kind, self.path if path is None else path, detail if key is None else key, detail, line)
        )

    def visit(self, node: ast.AST) -> None:
        # NodeVisitor.visit, plus the nesting depth: the engine keeps input
        # nested past what libcst's native parser survives off the structured
        # path, and this walk already visits every node.
        self.depth += 1
        if self.depth > self.inv.depth:
            self.inv.depth = self.depth
        getattr(self, "visit_" + node.__class__.__name__, self.generic_visit)(node)
        self.depth -= 1

    def collect(self, tree: ast.Module) -> None:
        # Imports are reported name by name, so they stay out of this fingerprint.
        own = [s for s in tree.body if not isinstance(s, _IMPORTS_AND_DEFS)]
        if own:
            item = Item("statements", MODULE, "module-level statements", "module-level statements")
            self.inv.items.add(item)
            self.inv.fingerprints[item] = "".join(self.src(s) for s in own)
        self.visit(tree)

    # -- definitions ---------------------------------------------------------------
    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        qual = ".".join([*self.scope, node.name])
        kind: ItemKind = "class" if isinstance(node, ast.ClassDef) else "def"
        item = Item(kind, qual, "")
        self.inv.items.add(item)
        self.inv.def_order.append(qual)
        # A definition's fingerprint leaves out nested definitions so that a
        # changed method reports as that method, not also as its class.
        self.inv.fingerprints[item] = self.own_text(node)
        self.inv.nodes[qual] = node
        self.inv.bound.add((self.path, node.name))
        if not isinstance(node, ast.ClassDef):
            a = node.args
            for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if p is not None:
                    self.inv.bound.add((qual, p.arg))
        for dec in node.decorator_list:
            callee = dec.func if isinstance(dec, ast.Call) else dec
            self.add("decorator", f"decorator @{self.src(callee)}", qual, f"decorator @{self.norm(callee)}")
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                self.add("base", f"base {self.src(base)}", qual, f"base {self.norm(base)}")
            for kw in node.keywords:
                self.add("base", f"base {kw.arg or '**'}=", qual)
        else:
            a = node.args
            for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                self.add("param", f"parameter {p.arg}", qual)
            if a.vararg:
                self.add("param", f"parameter *{a.vararg.arg}", qual)
            if a.kwarg:
                self.add("param", f"parameter **{a.kwarg.arg}", qual)
        for dec in node.decorator_list:
            self.visit(dec)
        self.scope.append(node.name)
        self.in_function.append(not isinstance(node, ast.ClassDef))
        is_class = isinstance(node, ast.ClassDef)
        if is_class:
            self.classes.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        if is_class:
            self.classes.pop()
        self.in_function.pop()
        self.scope.pop()

    visit_FunctionDef = _visit_def
    visit_AsyncFunctionDef = _visit_def
    visit_ClassDef = _visit_def

    # -- elements ------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.inv.uses.setdefault(node.id, set()).add(self.path)
        else:
            self.inv.bound.add((self.path, node.id))

    def visit_Import(self, node: ast.Import) -> None:
        for name, a in import_bindings(node):
            self.inv.bound.add((self.path, name))
            self.add("import", f"import {a.name}" + (f" as {a.asname}" if a.asname else ""), line=node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = from_module(node)
        for name, a in import_bindings(node):
            self.inv.bound.add((self.path, name))
            imported = a.name + (f" as {a.asname}" if a.asname else "")
            detail = f"from {mod} import {imported}"
            self.add("import", detail, line=node.lineno)
            self.inv.from_imports[Item("import", self.path, detail)] = (mod, imported)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.inv.bound.add((self.path, node.name))
        if node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            for t in types:
                # Counted per function: a type added to one clause is an
                # addition even when another clause already catches it.
                key = f"except type {self.norm(t)}"
                seen = self.excepts.setdefault(self.path, Counter())
                seen[key] += 1
                nth = f" #{seen[key]}" if seen[key] > 1 else ""
                self.add("except", f"except type {self.src(t)}", key=key + nth, line=node.lineno)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        self.add("branch", f"branch {self.src(node.test)}", key=f"branch {self.norm(node.test)}", line=node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        call = Call.of(node, self.path, self.classes[-1] if self.classes else None)
        if call is not None:
            self.inv.calls.append(call)
        if node.keywords:
            callee = self.src(node.func)
            callee_key = callee if has_one_spelling(callee) else ast.dump(node.func)
            for kw in node.keywords:
                name = kw.arg or "**"
                detail = f"keyword argument {name} in {callee}(...)"
                self.add("kwarg", detail, key=f"kwarg {name} in {callee_key}", line=kw.lineno)
        self.generic_visit(node)

    def _visit_assign_value(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        for target in targets:
            self.visit(target)
        if not self.in_function[-1]:
            for target in targets:
                if isinstance(target, ast.Name):
                    self.add("attribute", f"attribute {target.id}", line=target.lineno)
        names = [self.src(t) for t in targets]
        self.container.append(names[0] if names else "")
        if value is not None:
            self.visit(value)
        self.container.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        self._visit_assign_value(node.targets, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._visit_assign_value([node.target], node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.target)
        self.container.append(self.src(node.target))
        self.visit(node.value)
        self.container.pop()

    def _where(self) -> str:
        target = self.container[-1] if self.container else ""
        return f" in {target}" if target else ""

    def visit_Dict(self, node: ast.Dict) -> None:
        where = self._where()
        for key in node.keys:
            if key is None:
                self.add("entry", f"dict key **{where}", line=node.lineno)
            else:
                detail = f"dict key {self.src(key)}{where}"
                self.add("entry", detail, key=f"dict key {self.norm(key)}{where}", line=key.lineno)
        self.container.append("")
        for v in node.values:
            self.visit(v)
        for k in node.keys:
            if k is not None:
                self.visit(k)
        self.container.pop()

    def _visit_collection(self, node: ast.List | ast.Set | ast.Tuple, always: bool) -> None:
        # Literal collections count as entries where they are data (assigned
        # constants like __all__, and sets); a tuple in `return a, b` is a value.
        if always or (self.container and self.container[-1]):
            where = self._where()
            for elt in node.elts:
                detail = f"entry {self.src(elt)}{where}"
                self.add("entry", detail, key=f"entry {self.norm(elt)}{where}", line=elt.lineno)
        self.container.append("")
        for elt in node.elts:
            self.visit(elt)
        self.container.pop()

    def visit_List(self, node: ast.List) -> None:
        self._visit_collection(node, always=False)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        self._visit_collection(node, always=False)

    def visit_Set(self, node: ast.Set) -> None:
        self._visit_collection(node, always=True)


# -- comparing inventories ------------------------------------------------------------


@record(frozen=True)
class _Reported:
    """A change one side made, with the element it is about (None for reorders)."""

    change: Change
    item: Item | None

    @property
    def ident(self) -> tuple[str, ...]:
        if self.item is None:
            return (self.change.kind, self.change.path, self.change.detail)
        return (self.change.kind, self.item.kind, self.item.path, self.item.key)


def _side_changes(base: Inventory, side: Inventory, label: Side) -> tuple[list[_Reported], list[Item]]:
    """What one side did to base, as a maintainer would say it.

    Elements inside a definition the side added or removed are part of that
    one change; an element removed in one place and added in another is one
    move; elements that moved into a definition the side added are counted in
    that definition's note (upstream's `embed_with_outcome` "took over" the
    dispatch from `embed`).  Those folded elements are returned too: the
    note is no proof that they arrived, so the ledger checks each one.
    """
    added = side.items - base.items
    removed = base.items - side.items
    added_defs = {it.path for it in added if it.is_def}
    removed_defs = {it.path for it in removed if it.is_def}

    moved_def_from: dict[Item, Item] = {}
    for gone in sorted(it for it in removed if it.is_def):
        name = gone.path.rsplit(".", 1)[-1]
        for new in sorted(added):
            if (
                new.kind == gone.kind
                and new.is_def
                and new.path.rsplit(".", 1)[-1] == name
                and new not in moved_def_from
            ):
                moved_def_from[new] = gone
                break
    removed_by_key: dict[tuple[str, str], list[Item]] = {}
    for it in sorted(removed):
        if not it.is_def:
            removed_by_key.setdefault((it.kind, it.key), []).append(it)
    moved_from: dict[Item, Item] = {}
    for it in sorted(added):
        if not it.is_def and removed_by_key.get((it.kind, it.key)):
            moved_from[it] = removed_by_key[(it.kind, it.key)].pop(0)
    moved_sources = set(moved_from.values()) | set(moved_def_from.values())

    took_over: dict[str, dict[str, int]] = {}
    folded: list[Item] = []
    out: list[_Reported] = []
    for it in sorted(added):
        if it in moved_def_from:
            out.append(_Reported(Change(label, "moved", it.path, it.detail, f"from {moved_def_from[it].path}"), it))
        elif it in moved_from:
            src = moved_from[it].path
            home = next((d for d in sorted(added_defs) if _is_under(it.path, d)), None)
            if home is not None:
                took_over.setdefault(home, {}).setdefault(src, 0)
                took_over[home][src] += 1
                folded.append(it)
            else:
                out.append(_Reported(Change(label, "moved", it.path, it.detail, f"from {src}"), it))
        elif it.is_def or not _under_any(it.path, added_defs):
            out.append(_Reported(Change(label, "added", it.path, it.detail), it))
    for it in sorted(removed - moved_sources):
        if it.is_def or not _under_any(it.path, removed_defs):
            out.append(_Reported(Change(label, "removed", it.path, it.detail), it))
    # The lines elements stand on: a statement holding one is reported as that element.
    reported = (sorted({i.line for i in added}), sorted({i.line for i in removed}))
    for it in sorted(base.items & side.items):
        if it in base.fingerprints and base.fingerprints[it] != side.fingerprints.get(it):
            statement = _changed_statement(base, side, it.path, reported)
            out.append(_Reported(Change(label, "changed", it.path, it.detail, statement=statement), it))
    out.extend(_Reported(c, None) for c in _reorders(base, side, label))
    for i, r in enumerate(out):
        c = r.change
        if c.kind == "added" and not c.detail and c.path in took_over:
            notes = ", ".join(
                f"{n} element{'s' if n > 1 else ''} of {src}" for src, n in sorted(took_over[c.path].items())
            )
            out[i] = _Reported(replace(c, note=f"took over {notes}"), r.item)
    return out, folded


# A statement of a definition's own: its text, first and last line, and node.
_Own = tuple[str, int, int, ast.stmt]


def _own_statements(inv: Inventory, path: str) -> list[_Own]:
    """The statements a definition holds itself, or the module its own, in source order.

    Statements in nested definitions belong to those; a compound
    statement counts by its header line, so an edit inside an `if` names
    the edited line, not the `if`.
    """
    known = inv.own.get(path)
    if known is not None:
        return known
    if path == MODULE:
        tree = inv.tree
        todo: list[ast.stmt] = [] if tree is None else [s for s in tree.body if not isinstance(s, _IMPORTS_AND_DEFS)]
    else:
        node = inv.nodes.get(path)
        todo = [] if node is None else list(node.body)
    lines = inv.source_lines
    out: list[_Own] = []
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, DEFINITIONS):
            continue
        bodies = list(nested_bodies(stmt))
        first = stmt.lineno
        last = first if bodies else last_line(stmt)
        out.append(("\n".join(line.strip() for line in lines[first - 1 : last]), first, last, stmt))
        for body in bodies:
            todo.extend(body)
    out.sort(key=lambda s: s[1])
    inv.own[path] = out
    return out


def _changed_statement(base: Inventory, side: Inventory, path: str, reported: tuple[list[int], list[int]]) -> str:
    """The first statement *side* changed in the definition at *path* that no other change names.

    "ours changed Config.__init__: timeout = max(timeout, 1.0)"; a change
    that only removed statements names the first one removed.  A statement
    that holds an element the side added or removed (*reported*: their
    lines in the side and in base, sorted) is already reported as that element, and
    a change of the header, comments or formatting alone names none.
    """
    # By text first, which is cheap (a report runs on every merge); what is
    # left is compared by syntax, so a re-commented statement is no change.
    now, then = _syntax_apart(_unmatched(_own_statements(side, path), _own_statements(base, path)), side, base)
    new, source, prefix = now, side, ""
    if not new:
        new, source, prefix = then, base, "removed "
    lines = reported[0] if source is side else reported[1]
    branches = _branch_bodies(source, path, lines)
    named = [
        (first, last)
        for _text, first, last, _node in new
        if not _holds_any(lines, first, last) and not any(lo <= first and last <= hi for lo, hi in branches)
    ]
    if not named:
        return ""
    first, last = named[0]
    text = source.source_lines[first - 1].strip() if first <= len(source.source_lines) else ""
    if last > first and not text.endswith(":"):
        text += " ..."
    if len(text) > 80:
        text = text[:77] + "..."
    more = f" (and {len(named) - 1} more)" if len(named) > 1 else ""
    return f"{prefix}{text}{more}"


def _branch_bodies(inv: Inventory, path: str, lines: list[int]) -> list[tuple[int, int]]:
    """The line spans of the bodies of branches the side added or removed (their `if`/`elif` on one
    of the sorted *lines*): a statement in one is that branch's, and the branch is reported itself
    (moved with it, when upstream took the dispatch into another method)."""
    node: ast.AST | None = inv.tree if path == MODULE else inv.nodes.get(path)
    if node is None or not lines:
        return []
    spans: list[tuple[int, int]] = []
    todo: list[ast.stmt] = list(getattr(node, "body", []))
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, DEFINITIONS):
            continue
        if isinstance(stmt, ast.If) and stmt.body and _holds_any(lines, stmt.lineno, stmt.lineno):
            spans.append((stmt.body[0].lineno, last_line(stmt.body[-1])))
        for body in nested_bodies(stmt):
            todo.extend(body)
    return spans


def _holds_any(lines: list[int], first: int, last: int) -> bool:
    """Whether any of the sorted *lines* is between *first* and *last*."""
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= last


def _unmatched(now: list[_Own], then: list[_Own]) -> tuple[list[_Own], list[_Own]]:
    """The statements of *now* whose text *then* lacks, and those of *then* that *now* lacks."""
    return _lacking(now, then, _text_of, _text_of), _lacking(then, now, _text_of, _text_of)


def _syntax_apart(
    pair: tuple[list[_Own], list[_Own]], side: Inventory, base: Inventory
) -> tuple[list[_Own], list[_Own]]:
    """The same, for statements whose text differs: those whose syntax differs too."""
    now, then = pair
    if not now or not then:
        return now, then  # nothing on one side to be a cosmetic variant of
    now_key, then_key = _syntax_in(side), _syntax_in(base)
    return _lacking(now, then, now_key, then_key), _lacking(then, now, then_key, now_key)


def _syntax_in(inv: Inventory) -> Callable[[_Own], str]:
    def key(statement: _Own) -> str:
        stmt = statement[3]
        known = inv.syntax_by_id.get(id(stmt))
        if known is None:
            fields = _COMPOUND_HEADERS.get(type(stmt))
            known = inv.syntax_by_id[id(stmt)] = _dump(stmt) if fields is None else _header_key(stmt, fields)
        return known

    return key


def _lacking(
    statements: list[_Own],
    others: list[_Own],
    key: Callable[[_Own], str],
    other_key: Callable[[_Own], str],
) -> list[_Own]:
    """The statements whose key (by *key*) the others' keys (by *other_key*) lack, as often as they lack it."""
    left = Counter(other_key(s) for s in others)
    out = []
    for s in statements:
        k = key(s)
        if left[k] > 0:
            left[k] -= 1
        else:
            out.append(s)
    return out


def _text_of(statement: _Own) -> str:
    return statement[0]


def _under_any(path: str, defs: set[str]) -> bool:
    return any(_is_under(path, d) for d in defs)


def _parent(qualname: str) -> str:
    return qualname.rpartition(".")[0]


def _reorders(base: Inventory, side: Inventory, label: Side) -> list[Change]:
    """Definitions a side moved up or down among their siblings."""
    parent = _parent
    common = set(base.def_order) & set(side.def_order)
    out: list[Change] = []
    for scope in sorted({parent(q) for q in common}):
        before = [q for q in base.def_order if q in common and parent(q) == scope]
        rank = {q: i for i, q in enumerate(before)}
        after = [q for q in side.def_order if q in common and parent(q) == scope]
        stayed = lis_members([rank[q] for q in after])
        for q in after:
            if rank[q] not in stayed:
                out.append(Change(label, "moved", q, "", f"reordered within {scope or MODULE}"))
    return out


def _is_under(path: str, container: str) -> bool:
    return path == container or path.startswith(container + ".")


def summarize(
    base: Inventory, ours: Inventory, theirs: Inventory, result: Inventory | None
) -> tuple[list[Change], list[Conflict]]:
    """What each side contributed, and any addition the result lost.

    Returns (changes, lost).  An addition found in the result under another
    path is reported as having moved with its enclosing block, which is how a
    lineage's branch follows upstream's dispatch into a new method.
    """
    o, o_folded = _side_changes(base, ours, "ours")
    t, t_folded = _side_changes(base, theirs, "theirs")
    t_idents = {r.ident for r in t}
    # A change is both sides' only where they made it alike: ours setting `timeout` and theirs
    # `retries` in one class are two changes, and a report that folded them would call ours
    # "now in canonical" when canonical has only its own.
    both = {r.ident for r in o if r.ident in t_idents and _alike(r, ours, theirs)}
    merged: list[_Reported] = []
    t_statements = {r.ident: r.change.statement for r in t}
    for r in o:
        if r.ident in both:
            c = r.change
            # One statement to name only where both sides changed the same one first.
            statement = c.statement if c.statement == t_statements[r.ident] else ""
            r = _Reported(Change("both", c.kind, c.path, c.detail, c.note, statement), r.item)
        merged.append(r)
    merged.extend(r for r in t if r.ident not in both)

    lost: list[Conflict] = []
    if result is None:
        return [r.change for r in merged], lost
    def_moves = {
        r.change.note.removeprefix("from "): r.change.path
        for r in merged
        if r.change.kind == "moved" and not r.change.detail and r.change.note.startswith("from ")
    }
    renamed = _renamed_modules(base, ours, theirs)
    final: list[Change] = []
    for r in merged:
        c = r.change
        if c.kind in ("added", "moved") and r.item is not None and not r.item.is_def:
            if _imported_under_rename(r.item, (ours, theirs), result, renamed):
                final.append(c)
                continue
            problem, note = _check_arrived(r.item, c.side, base, result, def_moves)
            if problem is not None:
                lost.append(problem)
            elif note:
                c = replace(c, note=note)
        elif c.kind in ("added", "moved") and r.item is not None and not _defined(c.path, result):
            lost.append(Conflict(c.path, "lost", f"{c.side} added {c.path} but the merge result lacks it"))
        final.append(c)
    for side, folded in (("ours", o_folded), ("theirs", t_folded)):
        for item in folded:
            problem, _ = _check_arrived(item, side, base, result, def_moves)
            if problem is not None:
                lost.append(problem)
    lost.extend(_lost_statements(base, ours, theirs, result))
    lost.extend(_duplicate_bindings(ours, theirs, result))
    return final, lost


def _alike(reported: _Reported, ours: Inventory, theirs: Inventory) -> bool:
    """Whether both sides' change of *reported*'s element left it the same: an element both
    added or removed is the same element (its key says so); a changed one must read alike."""
    item = reported.item
    if reported.change.kind != "changed" or item is None:
        return True
    return ours.fingerprints.get(item) == theirs.fingerprints.get(item)


def _renamed_modules(base: Inventory, *sides: Inventory) -> dict[tuple[str, str], set[str]]:
    """For each (scope, module) of base: the modules a side now imports the same names from.

    `from .a import (X, Y)` edited to `from .b import (X, Y)` is one
    statement naming another module, not two removals and two additions.
    """
    out: dict[tuple[str, str], set[str]] = {}
    for side in sides:
        added = {
            (it.path, imported): module for it, (module, imported) in side.from_imports.items() if it not in base.items
        }
        for it, (module, imported) in base.from_imports.items():
            now = added.get((it.path, imported))
            if it not in side.items and now is not None and now != module:
                out.setdefault((it.path, module), set()).add(now)
    return out


def _imported_under_rename(
    item: Item, sides: tuple[Inventory, ...], result: Inventory, renamed: dict[tuple[str, str], set[str]]
) -> bool:
    """Whether an added `from M import N` is in the result as `from M2 import N`, M2 being what a side renamed M to.

    The name is bound, from the module the merged statement names: theirs
    adding `Z` to `from .a import (X, Y)` while ours moved it to `.b` gives
    `from .b import (X, Y, Z)`, which lacks nothing.
    """
    found = next((side.from_imports[item] for side in sides if item in side.from_imports), None)
    if found is None:
        return False
    module, imported = found
    return any(
        Item("import", item.path, f"from {now} import {imported}") in result.items
        for now in renamed.get((item.path, module), ())
    )


def _check_arrived(
    item: Item, side: str, base: Inventory, result: Inventory, def_moves: dict[str, str]
) -> tuple[Conflict | None, str]:
    """Whether an element a side added is in the result: (a conflict if not, a note if it moved)."""
    if item in result.items:
        return None, ""
    elsewhere = sorted(result.paths_for(item.kind, item.key) - base.paths_for(item.kind, item.key))
    home = next((p for p in elsewhere if _plausible_home(item.path, p, def_moves)), None)
    if home is not None:
        return None, f"moved with the enclosing block into {home}"
    if elsewhere:
        return Conflict(
            item.path, "misplaced", f"{side} added {item.detail} here but the merge put it in {elsewhere[0]}"
        ), ""
    if _container_removed(item.path, result):
        return None, ""
    return Conflict(item.path, "lost", f"{side} added {item.detail} but the merge result lacks it"), ""


def _lost_statements(base: Inventory, ours: Inventory, theirs: Inventory, result: Inventory) -> list[Conflict]:
    """Statements the result has fewer of than a 3-way merge of the counts says.

    Counted by syntax alone and wherever they stand: a statement both sides
    kept is kept, even when one side moved it into a new helper; one side's
    deletion wins over the other side leaving it be, or only re-formatting it.
    Where both sides changed a count there is no answer, and no check.  A
    statement both sides edited comes out as a third version that no input
    has; a missing version is excused by such a newcomer of the same kind
    (an assignment to the same target, a call of the same callee).
    """
    invs = (base, ours, theirs, result)
    texts = [Counter(text for text, _node, _path in inv.units) for inv in invs]
    # Statements in a unit every version has word for word count the same
    # in all four and cannot decide the law: leave them out.
    common = Counter({text: min(t[text] for t in texts) for text in texts[0]})
    cache: dict[tuple[str, str], list[_Counted]] = {}
    b_counts, o_counts, t_counts, r_counts = (StatementCounts.of(inv, common, cache) for inv in invs)
    short: dict[str, StatementCounts] = {}
    newcomers: set[str] = set()
    for stmt in set(b_counts.counts) | set(o_counts.counts) | set(t_counts.counts) | set(r_counts.counts):
        b, o, t = b_counts.counts[stmt], o_counts.counts[stmt], t_counts.counts[stmt]
        r = r_counts.counts[stmt]
        if r > max(b, o, t):
            newcomers.add(r_counts.anchors[stmt])
        # The side whose count the merge must follow; its copy is the one to name.
        if o == b:
            want, decider = t, t_counts
        elif t == b:
            want, decider = o, o_counts
        else:
            # Both changed the count: the same change, or each its own copy
            # of a statement that stands in several places (both deleting a
            # different method that holds it).  No answer, no check.
            continue
        if r < want:
            short[stmt] = decider
    out: list[Conflict] = []
    for stmt, decider in sorted(short.items(), key=lambda kv: kv[0]):
        if decider.anchors[stmt] in newcomers or _carried(stmt, decider, b_counts, r_counts):
            continue
        label = "ours" if decider is o_counts else "theirs"
        path, line, text = decider.sites[stmt]
        out.append(Conflict(path, "lost", f"{label} has `{text}` (its line {line}) but the merge result lacks it"))
    return out


def _carried(stmt: str, decider: StatementCounts, b_counts: StatementCounts, r_counts: StatementCounts) -> bool:
    """Whether the result holds another version of *stmt* that already carries its edits.

    Both sides edited one statement and the result is one side's version:
    ours' `__all__` holds theirs' new name and one more, ours' string holds
    the lines theirs inserted.  Theirs' version is missing, and nothing of
    it is lost.
    """
    # Imported here: tokenize is only needed when a statement is missing,
    # and a merge driver starts once per conflicted file.
    from .carries import carries

    anchor = decider.anchors[stmt]
    versions = [r for r in r_counts.counts if r_counts.anchors[r] == anchor and r_counts.counts[r] > b_counts.counts[r]]
    if not versions:
        return False
    originals = [
        b for b in b_counts.counts if b_counts.anchors[b] == anchor and b_counts.counts[b] > r_counts.counts[b]
    ]
    commutative = anchor in _COMMUTATIVE_ANCHORS
    other = decider.source(stmt)
    return any(
        carries(b_counts.source(b), r_counts.source(r), other, commutative=commutative)
        for b in originals
        for r in versions
    )


def _duplicate_bindings(ours: Inventory, theirs: Inventory, result: Inventory) -> list[Conflict]:
    """Names the result binds more often in one scope than either side does.

    Two sides adding `LIMIT` in different places, or one def stacked on
    another, merge cleanly line by line and silently keep only the last.
    """
    out: list[Conflict] = []
    for (scope, name), n in sorted(result.bindings.items()):
        if n > max(ours.bindings[(scope, name)], theirs.bindings[(scope, name)]):
            lines_bound = sorted(result.binding_lines[(scope, name)])
            lines = ", ".join(str(x) for x in lines_bound)
            where = "at module level" if scope == MODULE else f"in {scope}"
            reason = f"{name} is bound {n} times {where} (lines {lines}), more than on either side"
            # The line is the last binding's: the one that silently wins.
            out.append(Conflict(qualname(scope, name), "add/add", reason, lines_bound[-1]))
    return out


def _defined(path: str, inv: Inventory) -> bool:
    return Item("def", path, "") in inv.items or Item("class", path, "") in inv.items


def _plausible_home(src: str, dest: str, def_moves: dict[str, str]) -> bool:
    """Whether an element added at `src` may rightly stand at `dest` after the merge.

    It may follow its block into a sibling definition (`embed` into
    `embed_with_outcome`, same class) or follow a definition the other side
    moved; landing in an unrelated class is a mistake, not a move.
    """
    if src.rpartition(".")[0] == dest.rpartition(".")[0]:
        return True
    return any(_is_under(src, a) and _is_under(dest, b) for a, b in def_moves.items())


def _container_removed(path: str, result: Inventory) -> bool:
    """An element is not lost when the definition holding it is gone on purpose."""
    return path != MODULE and not _defined(path, result)


def hidden_delete_modify(base: Inventory, ours: Inventory, theirs: Inventory) -> list[str]:
    """Definitions deleted by one side and changed by the other, or added twice differently.

    The law of that name: a clean line merge can hide either, so the fast
    path is refused for them.
    """
    bad: list[str] = []

    def defs(inv: Inventory) -> dict[Item, str]:
        return {i: inv.fingerprints[i] for i in inv.items if i.is_def}

    b, o, t = defs(base), defs(ours), defs(theirs)
    for item, fp in b.items():
        if item not in o and item in t and t[item] != fp:
            bad.append(item.path)
        if item not in t and item in o and o[item] != fp:
            bad.append(item.path)
    for item in set(o) & set(t):
        if item not in b and o[item] != t[item]:
            bad.append(item.path)
    return bad
