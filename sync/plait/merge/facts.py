"""Facts about a module's syntax that both audits read, with one home each.

The ledger (`inventory`) and the semantic check (`semantic`) look at the
same `ast` trees and must agree on what they see: which names an import
binds, where a definition starts, which bodies a statement holds, what a
call supplies.  Each is decided here once; neither audit imports the
other.  Only the stdlib's `ast` is needed, so the fast path stays cheap.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..records import record

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object

# The node path of everything at module level.
MODULE = "<module>"

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def qualname(scope: str, name: str) -> str:
    """The path of *name* defined in *scope*: `Client.fetch`, or `fetch` at module level."""
    return name if scope == MODULE else f"{scope}.{name}"


def import_bindings(node: ast.Import | ast.ImportFrom) -> list[tuple[str, ast.alias]]:
    """The names an import binds where it stands, each with the alias that binds it.

    `import a.b` binds `a`; `import a.b as c` binds `c`; `from m import x as
    y` binds `y`; a star import binds nothing anyone can name.
    """
    if isinstance(node, ast.Import):
        return [(alias.asname or alias.name.partition(".")[0], alias) for alias in node.names]
    return [(alias.asname or alias.name, alias) for alias in node.names if alias.name != "*"]


def from_module(node: ast.ImportFrom) -> str:
    """The module a `from` import names, relative dots included: `..pkg.mod`."""
    return "." * node.level + (node.module or "")


def first_line(stmt: ast.stmt) -> int:
    """The first line of a statement, a definition's decorators counted."""
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def last_line(stmt: ast.stmt) -> int:
    return stmt.end_lineno or stmt.lineno


def nested_bodies(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement bodies directly inside *stmt*: its body, `else`, `finally`, each `except` and `case`."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        if part.body:
            yield part.body


@record(frozen=True)
class Call:
    """A call the module may resolve itself (a name, or a method on `self`), with what it supplies.

    The ledger records them as it walks; the semantic check fits them to
    the merged signatures.
    """

    qualname: str  # `name` for a module function, `Class.name` for a method
    scope: str  # the definition it stands in
    node: ast.Call
    positional: int
    keywords: tuple[str, ...]
    spread: bool  # *args or **kwargs: any signature might fit

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def ident(self) -> tuple[str, str, str]:
        """The call as another side would spell it: the same callee, scope and syntax."""
        return (self.qualname, self.scope, ast.dump(self.node))

    @classmethod
    def of(cls, node: ast.Call, scope: str, enclosing_class: str | None) -> Call | None:
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            if enclosing_class is None:
                return None
            name = f"{enclosing_class}.{func.attr}"
        else:
            return None
        spread = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
        return cls(name, scope, node, len(node.args), keywords, spread)


class NamesAndCalls(Protocol):
    """What the semantic check reads of a module's ledger (`inventory.Inventory` has it).

    A protocol, so that the check depends on these facts and not on the
    ledger that gathers them.
    """

    # Every (scope, name) the module binds, locals included.
    bound: set[tuple[str, str]]
    # For each name, the scopes that read it.
    uses: dict[str, set[str]]
    calls: list[Call]


__all__ = [
    "DEFINITIONS",
    "MODULE",
    "Call",
    "NamesAndCalls",
    "first_line",
    "from_module",
    "import_bindings",
    "last_line",
    "nested_bodies",
    "qualname",
]
