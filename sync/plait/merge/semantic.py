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
from collections.abc import Iterator
from dataclasses import dataclass

from .conflicts import Conflict

MODULE = "<module>"


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


@dataclass(frozen=True)
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
        for alias in node.names:
            yield (alias.asname or alias.name.partition(".")[0]), f"the import of {alias.name}"
    elif isinstance(node, ast.ImportFrom):
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            yield (alias.asname or alias.name), f"the {module} import"
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id, "the assignment"
    elif isinstance(node, ast.arg):
        yield node.arg, "the parameter"


@dataclass(frozen=True)
class Use:
    """A statement of the result that uses a name no input left undefined."""

    name: str
    path: str
    first: int  # 1-based first and last line of the statement to mark
    last: int
    side: str  # whose new code it is: "ours" or "theirs"


class SemanticCheck:
    """Finds the new undefined names of a merged module and explains them.

    The inputs' own undefined names (a dynamic global, a star import) are
    not the merge's doing, so only names undefined in the result and in
    none of base, ours and theirs count.
    """

    def __init__(self, base: ast.Module, ours: ast.Module, theirs: ast.Module) -> None:
        self.trees = {"base": base, "ours": ours, "theirs": theirs}
        self._undefined: dict[str, dict[str, list[int]]] = {}

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

    def conflicts(self, result: ast.Module) -> tuple[list[Conflict], list[Use]]:
        """One `semantic` conflict per statement of the result that uses a new undefined name."""
        new = self.new_undefined(result)
        if not new:
            return [], []
        base_binds = bindings(self.trees["base"])
        side_binds = {label: bindings(self.trees[label]) for label in ("ours", "theirs")}
        spans = StatementSpans(result)
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
                user = "ours" if remover != "ours" else "theirs"
                if remover is not None:
                    reason = f"{remover} removed `{name}` ({base_binds[name].what}); {user}' code {where} uses it"
                else:
                    reason = f"the merged code {where} uses `{name}`, which neither side leaves defined there"
                conflicts.append(Conflict(path, "semantic", reason, first))
                uses.append(Use(name, path, first, last, "ours" if remover != "ours" else "theirs"))
        return conflicts, uses


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
            stmt = next((s for s in body if _first_line(s) <= line <= (s.end_lineno or s.lineno)), None)
            if stmt is None:
                break
            if len(body) > 1 or span is None:
                span = (_first_line(stmt), stmt.end_lineno or stmt.lineno)
            inner = _inner_body(stmt, line)
            if inner is None:
                break
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                path.append(stmt.name)
            body = inner
        first, last = span if span is not None else (line, line)
        return ".".join(path) or MODULE, first, last


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _inner_body(stmt: ast.stmt, line: int) -> list[ast.stmt] | None:
    """The nested body of *stmt* that holds *line*, if the line is in one."""
    blocks: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            blocks.append(block)
    for handler in getattr(stmt, "handlers", None) or []:
        blocks.append(handler.body)
    for case in getattr(stmt, "cases", None) or []:
        blocks.append(case.body)
    for block in blocks:
        if _first_line(block[0]) <= line <= (block[-1].end_lineno or block[-1].lineno):
            return block
    return None
