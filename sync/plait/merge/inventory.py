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
from collections import Counter
from dataclasses import dataclass

from .merge import lis_members
from .result import Change, Conflict

MODULE = "<module>"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True, order=True)
class Item:
    kind: str  # def, class, param, decorator, base, import, except, branch, kwarg, entry, statements
    path: str  # qualname of the def itself (def/class) or of the enclosing def
    detail: str  # human name of the element, empty for def/class


class Inventory:
    """Items of one module, with fingerprints for definitions."""

    def __init__(self) -> None:
        self.items: set[Item] = set()
        self.fingerprints: dict[Item, str] = {}
        self.def_counts: Counter[str] = Counter()
        # Definitions in source order, for reporting reorders.
        self.def_order: list[str] = []
        self._by_detail: dict[tuple[str, str], set[str]] | None = None

    def paths_for(self, kind: str, detail: str) -> set[str]:
        """Where an element with this name stands, wherever it was moved to."""
        if self._by_detail is None:
            self._by_detail = {}
            for it in self.items:
                self._by_detail.setdefault((it.kind, it.detail), set()).add(it.path)
        return self._by_detail.get((kind, detail), set())


def take_inventory(tree: ast.Module, source: str) -> Inventory:
    inv = Inventory()
    _Collector(inv, source).collect(tree)
    return inv


class _Collector(ast.NodeVisitor):
    def __init__(self, inv: Inventory, source: str) -> None:
        self.inv = inv
        # ast offsets are UTF-8 byte columns; split once instead of once per
        # lookup, as ast.get_source_segment does (quadratic on big modules).
        self.lines = source.encode("utf-8").splitlines(keepends=True)
        self.scope: list[str] = []
        self.container: list[str] = []

    # -- helpers -------------------------------------------------------------------
    @property
    def path(self) -> str:
        return ".".join(self.scope) or MODULE

    def src(self, node: ast.AST) -> str:
        # The author's own spelling reads better in reports than ast.unparse's.
        first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        if first == last:
            raw = self.lines[first][start:end]
        else:
            raw = b"".join([self.lines[first][start:], *self.lines[first + 1 : last], self.lines[last][:end]])
        return raw.decode("utf-8")

    def own_text(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
        """A definition's source without its nested definitions.

        A changed method then reports as that method, not also as its class.
        Slicing lines is far cheaper than `ast.dump` on big modules; the price
        is that a comment-only edit counts as a change, which it is.
        """
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        skip: set[int] = set()
        for stmt in node.body:
            if isinstance(stmt, _DEFS):
                start = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)]) - 1
                skip.update(range(start, stmt.end_lineno or stmt.lineno))
        end = node.end_lineno or node.lineno
        return b"".join(self.lines[i] for i in range(first, end) if i not in skip).decode("utf-8")

    def add(self, kind: str, detail: str, path: str | None = None) -> None:
        self.inv.items.add(Item(kind, self.path if path is None else path, detail))

    def collect(self, tree: ast.Module) -> None:
        # Imports are reported name by name, so they stay out of this fingerprint.
        own = [s for s in tree.body if not isinstance(s, (*_DEFS, ast.Import, ast.ImportFrom))]
        if own:
            item = Item("statements", MODULE, "module-level statements")
            self.inv.items.add(item)
            self.inv.fingerprints[item] = "".join(self.src(s) for s in own)
        self.visit(tree)

    # -- definitions ---------------------------------------------------------------
    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        qual = ".".join([*self.scope, node.name])
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        item = Item(kind, qual, "")
        self.inv.items.add(item)
        self.inv.def_counts[qual] += 1
        self.inv.def_order.append(qual)
        # A definition's fingerprint leaves out nested definitions so that a
        # changed method reports as that method, not also as its class.
        self.inv.fingerprints[item] = self.own_text(node)
        for dec in node.decorator_list:
            callee = dec.func if isinstance(dec, ast.Call) else dec
            self.add("decorator", f"decorator @{self.src(callee)}", qual)
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                self.add("base", f"base {self.src(base)}", qual)
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
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    visit_FunctionDef = _visit_def
    visit_AsyncFunctionDef = _visit_def
    visit_ClassDef = _visit_def

    # -- elements ------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.add("import", f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = "." * node.level + (node.module or "")
        for a in node.names:
            self.add("import", f"from {mod} import {a.name}" + (f" as {a.asname}" if a.asname else ""))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            for t in types:
                self.add("except", f"except type {self.src(t)}")
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        self.add("branch", f"branch {self.src(node.test)}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        callee = self.src(node.func)
        for kw in node.keywords:
            self.add("kwarg", f"keyword argument {kw.arg or '**'} in {callee}(...)")
        self.generic_visit(node)

    def _visit_assign_value(self, targets: list[ast.expr], value: ast.expr | None) -> None:
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
        self._visit_assign_value([node.target], node.value)

    def _where(self) -> str:
        target = self.container[-1] if self.container else ""
        return f" in {target}" if target else ""

    def visit_Dict(self, node: ast.Dict) -> None:
        where = self._where()
        for key in node.keys:
            self.add("entry", f"dict key {self.src(key) if key is not None else '**'}{where}")
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
                self.add("entry", f"entry {self.src(elt)}{where}")
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

def _side_changes(base: Inventory, side: Inventory, label: str) -> list[Change]:
    """What one side did to base, as a maintainer would say it.

    Elements inside a definition the side added or removed are part of that
    one change; an element removed in one place and added in another is one
    move; elements that moved into a definition the side added are counted in
    that definition's note (upstream's `embed_with_outcome` "took over" the
    dispatch from `embed`).
    """
    added = side.items - base.items
    removed = base.items - side.items
    is_def = lambda it: it.kind in ("def", "class")  # noqa: E731
    added_defs = {it.path for it in added if is_def(it)}
    removed_defs = {it.path for it in removed if is_def(it)}
    under = lambda path, defs: any(_is_under(path, d) for d in defs)  # noqa: E731

    moved_def_from: dict[Item, Item] = {}
    for gone in sorted(it for it in removed if is_def(it)):
        name = gone.path.rsplit(".", 1)[-1]
        for new in sorted(added):
            if new.kind == gone.kind and is_def(new) and new.path.rsplit(".", 1)[-1] == name and new not in moved_def_from:
                moved_def_from[new] = gone
                break
    removed_by_detail: dict[tuple[str, str], list[Item]] = {}
    for it in sorted(removed):
        if not is_def(it):
            removed_by_detail.setdefault((it.kind, it.detail), []).append(it)
    moved_from: dict[Item, Item] = {}
    for it in sorted(added):
        if not is_def(it) and removed_by_detail.get((it.kind, it.detail)):
            moved_from[it] = removed_by_detail[(it.kind, it.detail)].pop(0)
    moved_sources = set(moved_from.values()) | set(moved_def_from.values())

    took_over: dict[str, dict[str, int]] = {}
    changes: list[Change] = []
    for it in sorted(added):
        if it in moved_def_from:
            changes.append(Change(label, "moved", it.path, it.detail, f"from {moved_def_from[it].path}"))  # type: ignore[arg-type]
        elif it in moved_from:
            src = moved_from[it].path
            home = next((d for d in sorted(added_defs) if _is_under(it.path, d)), None)
            if home is not None:
                took_over.setdefault(home, {}).setdefault(src, 0)
                took_over[home][src] += 1
            else:
                changes.append(Change(label, "moved", it.path, it.detail, f"from {src}"))  # type: ignore[arg-type]
        elif is_def(it) or not under(it.path, added_defs):
            changes.append(Change(label, "added", it.path, it.detail))  # type: ignore[arg-type]
    for it in sorted(removed - moved_sources):
        if is_def(it) or not under(it.path, removed_defs):
            changes.append(Change(label, "removed", it.path, it.detail))  # type: ignore[arg-type]
    for it in sorted(base.items & side.items):
        if it in base.fingerprints and base.fingerprints[it] != side.fingerprints.get(it):
            changes.append(Change(label, "changed", it.path, it.detail))  # type: ignore[arg-type]
    changes.extend(_reorders(base, side, label))
    if took_over:
        for i, c in enumerate(changes):
            if c.kind == "added" and not c.detail and c.path in took_over:
                notes = ", ".join(f"{n} element{'s' if n > 1 else ''} of {src}" for src, n in sorted(took_over[c.path].items()))
                changes[i] = Change(c.side, c.kind, c.path, c.detail, f"took over {notes}")
    return changes


def _reorders(base: Inventory, side: Inventory, label: str) -> list[Change]:
    """Definitions a side moved up or down among their siblings."""
    parent = lambda q: q.rpartition(".")[0]  # noqa: E731
    common = set(base.def_order) & set(side.def_order)
    out: list[Change] = []
    for scope in sorted({parent(q) for q in common}):
        before = [q for q in base.def_order if q in common and parent(q) == scope]
        rank = {q: i for i, q in enumerate(before)}
        after = [q for q in side.def_order if q in common and parent(q) == scope]
        stayed = lis_members([rank[q] for q in after])
        for q in after:
            if rank[q] not in stayed:
                out.append(Change(label, "moved", q, "", f"reordered within {scope or MODULE}"))  # type: ignore[arg-type]
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
    o = _side_changes(base, ours, "ours")
    t = _side_changes(base, theirs, "theirs")
    key = lambda c: (c.kind, c.path, c.detail)  # noqa: E731
    t_keys = {key(c) for c in t}
    o_keys = {key(c) for c in o}
    merged: list[Change] = []
    for c in o:
        merged.append(Change("both", c.kind, c.path, c.detail, c.note) if key(c) in t_keys else c)
    merged.extend(c for c in t if key(c) not in o_keys)

    lost: list[Conflict] = []
    if result is None:
        return merged, lost
    kinds = {(it.path, it.detail): it.kind for inv in (ours, theirs) for it in inv.items if it.detail}
    def_moves = {c.note.removeprefix("from "): c.path for c in merged if c.kind == "moved" and not c.detail and c.note.startswith("from ")}
    final: list[Change] = []
    for c in merged:
        if c.kind in ("added", "moved") and c.detail:
            item = Item(kinds.get((c.path, c.detail), ""), c.path, c.detail)
            if item not in result.items:
                elsewhere = sorted(result.paths_for(item.kind, item.detail) - base.paths_for(item.kind, item.detail))
                home = next((p for p in elsewhere if _plausible_home(c.path, p, def_moves)), None)
                if home is not None:
                    c = Change(c.side, c.kind, c.path, c.detail, f"moved with the enclosing block into {home}")
                elif elsewhere:
                    lost.append(Conflict(c.path, "misplaced", f"{c.side} added {c.detail} here but the merge put it in {elsewhere[0]}"))
                elif not _container_removed(c.path, result):
                    lost.append(Conflict(c.path, "lost", f"{c.side} added {c.detail} but the merge result lacks it"))
        elif c.kind in ("added", "moved") and Item("def", c.path, "") not in result.items and Item("class", c.path, "") not in result.items:
            lost.append(Conflict(c.path, "lost", f"{c.side} added {c.path} but the merge result lacks it"))
        final.append(c)
    # The same name defined twice where neither side had that is two bodies
    # silently stacked, which a line merge happily produces.
    for qual, n in result.def_counts.items():
        if n > max(ours.def_counts.get(qual, 0), theirs.def_counts.get(qual, 0)):
            lost.append(Conflict(qual, "add/add", f"{qual} is defined {n} times in the result"))
    return final, lost


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
    if path == MODULE:
        return False
    return Item("def", path, "") not in result.items and Item("class", path, "") not in result.items


def law5_violations(base: Inventory, ours: Inventory, theirs: Inventory) -> list[str]:
    """Definitions deleted by one side and changed by the other, or added twice differently.

    A clean line merge can hide either, so the fast path is refused for them.
    """
    bad: list[str] = []
    defs = lambda inv: {i: inv.fingerprints[i] for i in inv.items if i.kind in ("def", "class")}  # noqa: E731
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
