"""Semantic conflicts: merged code that uses a name neither side left it.

One side removes an import or renames a definition; the other side adds code
that uses the old name.  The two edits touch different lines, so both a line
merge and a tree merge combine them cleanly, and the result raises
`NameError` at run time.  The only way to see it is to ask which names the
result leaves undefined that no input did.  pyflakes answers that with real
scope analysis (class scopes, comprehensions, `global`, `__all__`), which is
why it is used here instead of a hand-written walk.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from ..records import record
from .conflicts import Conflict
from .facts import (
    DEFINITIONS,
    MODULE,
    Call,
    NamesAndCalls,
    first_line,
    from_module,
    import_bindings,
    last_line,
    nested_bodies,
)
from .result import Hand


def undefined_names(tree: ast.Module) -> dict[str, list[int]]:
    """Every name *tree* uses without binding it, with the lines it is used on."""
    # Imported here: a merge that one side did not change never needs it.
    from pyflakes import checker, messages

    undefined = (messages.UndefinedName, messages.UndefinedExport, messages.UndefinedLocal)
    found: dict[str, list[int]] = {}
    for message in checker.Checker(tree, filename="<merge>").messages:
        if isinstance(message, undefined):
            found.setdefault(str(message.message_args[0]), []).append(message.lineno)
    return found


@record(frozen=True)
class Binding:
    """Where and how a module binds a name, in words a maintainer recognises."""

    name: str
    what: str  # "the typing import", "the definition", "the assignment"


def bindings(tree: ast.Module) -> dict[str, Binding]:
    """Names bound anywhere in the module, each with how it is first bound."""
    out: dict[str, Binding] = {}
    for node in _walk(tree):
        for name, what in _binds(node):
            out.setdefault(name, Binding(name, what))
    return out


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    # Iterative: generated modules nest expressions thousands deep.
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _binds(node: ast.AST) -> Iterator[tuple[str, str]]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node.name, "the definition"
    elif isinstance(node, ast.ClassDef):
        yield node.name, "the class"
    elif isinstance(node, ast.Import):
        for name, alias in import_bindings(node):
            yield name, f"the import of {alias.name}"
    elif isinstance(node, ast.ImportFrom):
        for name, _alias in import_bindings(node):
            yield name, f"the {from_module(node)} import"
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id, "the assignment"
    elif isinstance(node, ast.arg):
        yield node.arg, "the parameter"


@record(frozen=True)
class Use:
    """A statement of the result that uses a name no input left undefined."""

    name: str
    path: str
    first: int  # 1-based first and last line of the statement to mark
    last: int


class SemanticCheck:
    """Finds the new undefined names of a merged module and explains them.

    The inputs' own undefined names (a dynamic global, a star import) are
    not the merge's doing, so only names undefined in the result and in
    none of base, ours and theirs count.
    """

    def __init__(self, base: ast.Module, ours: ast.Module, theirs: ast.Module, invs: Sequence[NamesAndCalls]) -> None:
        self.trees = {"base": base, "ours": ours, "theirs": theirs}
        self.invs = dict(zip(("base", "ours", "theirs"), invs, strict=True))
        self._undefined: dict[str, dict[str, list[int]]] = {}
        # (scope, name) bound by any input.
        self.bound = set().union(*(inv.bound for inv in invs))

    def _inputs_undefined(self, label: str) -> dict[str, list[int]]:
        if label not in self._undefined:
            self._undefined[label] = undefined_names(self.trees[label])
        return self._undefined[label]

    def new_undefined(self, result: ast.Module) -> dict[str, list[int]]:
        found = undefined_names(result)
        if not found:
            return {}
        for label in ("base", "ours", "theirs"):
            for name in self._inputs_undefined(label):
                found.pop(name, None)
            if not found:
                break
        return found

    def conflicts(self, result: ast.Module, inv: NamesAndCalls) -> tuple[list[Conflict], list[Use]]:
        """One `semantic` conflict per statement of the result that uses a new undefined name,
        or calls a function of this module with arguments its merged signature refuses."""
        spans = StatementSpans(result)
        if self._may_leave_undefined(inv):
            names, name_uses = self._undefined_conflicts(result, spans)
        else:
            names, name_uses = [], []
        calls, call_uses = self._call_conflicts(result, inv, spans, {(u.first, u.last) for u in name_uses})
        return names + calls, name_uses + call_uses

    def _may_leave_undefined(self, inv: NamesAndCalls) -> bool:
        """Whether the result might use a name where no input left it unbound.

        Only a binding some input has and the result lost can make a use
        newly undefined, and only a use in that binding's scope (or one
        nested in it).  A block moved into another function takes its uses
        along, so the common case skips pyflakes altogether.
        """
        for scope, name in self.bound - inv.bound:
            inside = scope + "."
            if any(s == scope or scope == MODULE or s.startswith(inside) for s in inv.uses.get(name, ())):
                return True
        return False

    def _call_conflicts(
        self, result: ast.Module, inv: NamesAndCalls, spans: StatementSpans, seen: set[tuple[int, int]]
    ) -> tuple[list[Conflict], list[Use]]:
        """Calls the merged signatures refuse that no input's signatures refused.

        One side gives `_request` a new required parameter; the other side's
        new code calls it the old way.  Both merge cleanly and the result
        raises TypeError.  Only calls the module can resolve are checked: a
        module function by name, a method of the enclosing class on `self`.
        """
        sigs = {label: signatures(tree) for label, tree in self.trees.items()}
        merged = signatures(result)
        # Only a definition base had can be called by code the other side
        # wrote against its old signature.
        changed = {q for q, sig in merged.items() if q in sigs["base"] and sig != sigs["base"][q]}
        if not changed:
            return [], []
        misfits = [c for c in inv.calls if c.qualname in changed and not fits(c, merged.get(c.qualname))]
        if not misfits:
            return [], []
        # A call that already did not fit on some input is that input's problem, not the merge's.
        broken_before = {
            c.ident for label, side in self.invs.items() for c in side.calls if not fits(c, sigs[label].get(c.qualname))
        }
        conflicts: list[Conflict] = []
        uses: list[Use] = []
        for call in misfits:
            if call.ident in broken_before:
                continue
            path, first, last = spans.around(call.line)
            if (first, last) in seen:
                continue
            seen.add((first, last))
            changer = next(
                (
                    s
                    for s in ("theirs", "ours")
                    if sigs[s].get(call.qualname) == merged.get(call.qualname) != sigs["base"].get(call.qualname)
                ),
                None,
            )
            caller: Hand = "ours" if changer != "ours" else "theirs"
            what = merged[call.qualname].describe() if call.qualname in merged else "its signature"
            where = "at module level" if path == MODULE else f"in `{path}`"
            if changer is not None:
                reason = (
                    f"{changer} changed the signature of `{call.qualname}` ({what}); "
                    f"{caller}' call {where} does not fit it"
                )
            else:
                reason = f"the merged call to `{call.qualname}` {where} does not fit its merged signature ({what})"
            conflicts.append(Conflict(path, "semantic", reason, first))
            uses.append(Use(call.qualname, path, first, last))
        return conflicts, uses

    def _undefined_conflicts(self, result: ast.Module, spans: StatementSpans) -> tuple[list[Conflict], list[Use]]:
        new = self.new_undefined(result)
        if not new:
            return [], []
        base_binds = bindings(self.trees["base"])
        side_binds = {label: bindings(self.trees[label]) for label in ("ours", "theirs")}
        conflicts: list[Conflict] = []
        uses: list[Use] = []
        seen: set[tuple[int, int]] = set()
        for name, lines in sorted(new.items()):
            remover = next((s for s in ("theirs", "ours") if name in base_binds and name not in side_binds[s]), None)
            for line in lines:
                path, first, last = spans.around(line)
                if (first, last) in seen:
                    continue
                seen.add((first, last))
                where = "at module level" if path == MODULE else f"in `{path}`"
                user: Hand = "ours" if remover != "ours" else "theirs"
                if remover is not None:
                    reason = f"{remover} removed `{name}` ({base_binds[name].what}); {user}' code {where} uses it"
                else:
                    reason = f"the merged code {where} uses `{name}`, which neither side leaves defined there"
                conflicts.append(Conflict(path, "semantic", reason, first))
                uses.append(Use(name, path, first, last))
        return conflicts, uses


@record(frozen=True)
class Signature:
    """What a call must supply: the parameters that matter for fitting a call."""

    positional: tuple[str, ...]  # names, in order, that a positional argument may fill
    required: int  # how many of them have no default
    varargs: bool
    kwonly: tuple[str, ...]
    kwonly_required: tuple[str, ...]
    varkw: bool

    def describe(self) -> str:
        needed = [*self.positional[: self.required], *self.kwonly_required]
        return "requires " + ", ".join(f"`{n}`" for n in needed) if needed else "takes no required argument"


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool) -> Signature:
    a = node.args
    positional = [p.arg for p in [*a.posonlyargs, *a.args]]
    required = len(positional) - len(a.defaults)
    if bound and positional:
        positional, required = positional[1:], max(required - 1, 0)
    kwonly = tuple(p.arg for p in a.kwonlyargs)
    kw_required = tuple(p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None)
    return Signature(tuple(positional), required, a.vararg is not None, kwonly, kw_required, a.kwarg is not None)


def signatures(tree: ast.Module) -> dict[str, Signature]:
    """Module functions by name and plain methods by `Class.name`, as a call sees them.

    Methods are seen through `self`, so their first parameter is bound.
    Decorated definitions (properties, static and class methods, wrappers)
    may take any call, so they are left out.
    """
    out: dict[str, Signature] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list:
            out[stmt.name] = _signature(stmt, bound=False)
        elif isinstance(stmt, ast.ClassDef):
            for member in stmt.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.decorator_list:
                    out[f"{stmt.name}.{member.name}"] = _signature(member, bound=True)
    return out


def fits(call: Call, sig: Signature | None) -> bool:
    """Whether *call* supplies what *sig* requires (unknown signatures and spread arguments fit)."""
    if sig is None or call.spread:
        return True
    if call.positional > len(sig.positional) and not sig.varargs:
        return False
    filled = set(sig.positional[: call.positional])
    for name in call.keywords:
        if name in filled:
            return False
        if name not in sig.positional and name not in sig.kwonly and not sig.varkw:
            return False
        filled.add(name)
    missing = [n for n in sig.positional[: sig.required] if n not in filled]
    return not missing and all(n in filled for n in sig.kwonly_required)


class StatementSpans:
    """Statements of a module by line, to mark the one that holds a use.

    The marked region is the innermost statement holding the use whose
    removal still leaves its block non-empty: resolving by taking the side
    without it must not leave an empty body behind.
    """

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree

    def around(self, line: int) -> tuple[str, int, int]:
        """(path of the innermost definition holding *line*, first and last line of the region to mark)."""
        path: list[str] = []
        body: list[ast.stmt] = self.tree.body
        span: tuple[int, int] | None = None
        while True:
            stmt = next((s for s in body if first_line(s) <= line <= last_line(s)), None)
            if stmt is None:
                break
            if len(body) > 1 or span is None:
                span = (first_line(stmt), last_line(stmt))
            inner = next((b for b in nested_bodies(stmt) if first_line(b[0]) <= line <= last_line(b[-1])), None)
            if inner is None:
                break
            if isinstance(stmt, DEFINITIONS):
                path.append(stmt.name)
            body = inner
        first, last = span if span is not None else (line, line)
        return ".".join(path) or MODULE, first, last
