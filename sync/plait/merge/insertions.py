"""Same-point insertions: when ours-then-theirs is a safe order, and when another order is the right one.

Both sides insert statements at one point of a body; the merge puts ours
first, then theirs (`decide`), which is right only when neither run reads
a name the other assigns.  Otherwise theirs' code would run on a value its
author never had, and the merge calls it an `order` conflict.  The rule
reads the runs' own syntax with the stdlib `ast`.

Imports are the exception the other way: they commute, and where base and
both sides keep their import statements sorted (isort's and ruff's order,
or plain), two imports inserted at one point go in that order, not ours
first (`sorted_imports`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from .facts import import_bindings
from .order import Slot


def insertion_dependency(ours: str, theirs: str) -> str:
    """Why ours-then-theirs is unsafe for two runs of statements inserted at one point ("" when it is safe).

    It is unsafe when one run reads a name the other assigns (theirs' code
    would run on a value its author never had), or both assign one name.
    *ours* and *theirs* are the runs' source, at indentation zero.
    """
    o_names, t_names = _names_used(ours), _names_used(theirs)
    if o_names is None or t_names is None:
        return ""
    (o_read, o_set), (t_read, t_set) = o_names, t_names
    for reader, read, writer, written in (("theirs", t_read, "ours", o_set), ("ours", o_read, "theirs", t_set)):
        shared = sorted(read & written)
        if shared:
            return f"both sides insert statements here and {reader}' reads `{shared[0]}`, which {writer}' assigns"
    both = sorted(o_set & t_set)
    if both:
        return f"both sides insert statements here that assign `{both[0]}`"
    return ""


def _names_used(source: str) -> tuple[set[str], set[str]] | None:
    """(names read, names assigned) by statements in their own scope, or None if they do not parse alone.

    A function's body runs later, in its own scope: only what a definition
    evaluates on the spot (its name, decorators, defaults, a class's bases)
    belongs to the place it is inserted at.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    read: set[str] = set()
    assigned: set[str] = set()
    todo: list[tuple[ast.AST, bool]] = [(tree, True)]  # (node, whether a store binds in the inserted scope)
    while todo:
        node, here = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not isinstance(node, ast.Lambda):
                assigned.add(node.name)
                todo += [(d, here) for d in node.decorator_list]
            todo += [(d, here) for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None]
            continue
        if isinstance(node, ast.ClassDef):
            assigned.add(node.name)
            todo += [(n, here) for n in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]]
            todo += [(stmt, False) for stmt in node.body]
            continue
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                if here:
                    assigned.add(node.id)
            else:
                read.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and here:
            assigned.update(name for name, _alias in import_bindings(node))
        inner = here and not isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        todo += [(child, inner) for child in ast.iter_child_nodes(node)]
    return read, assigned


def _imported_module(stmt: cst.CSTNode) -> tuple[bool, str] | None:
    """(whether it is a `from` import, the module it names) for a lone import statement, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        return False, get_full_name_for_node(small.names[0].name) or ""
    if isinstance(small, cst.ImportFrom):
        module = get_full_name_for_node(small.module) if small.module is not None else ""
        return True, "." * len(small.relative) + (module or "")
    return None


# isort's and ruff's default (plain `import` lines first, then `from`), isort's
# force_sort_within_sections, and a plain sort: the first all three versions keep.
_ORDERS: tuple[Callable[[tuple[bool, str]], tuple[object, ...]], ...] = (
    lambda m: (m[0], m[1].lower()),
    lambda m: (m[1].lower(),),
    lambda m: (m[1],),
)


def _blocks(body: Sequence[cst.BaseStatement]) -> list[list[tuple[bool, str]]]:
    """The body's runs of adjacent import statements; a blank line or a comment starts a new run (an isort section)."""
    out: list[list[tuple[bool, str]]] = [[]]
    for stmt in body:
        module = _imported_module(stmt)
        if module is None or (out[-1] and bool(getattr(stmt, "leading_lines", None))):
            out.append([])
        if module is not None:
            out[-1].append(module)
    return [block for block in out if block]


def _convention(
    bodies: Sequence[Sequence[cst.BaseStatement]],
) -> Callable[[tuple[bool, str]], tuple[object, ...]] | None:
    """The order every import block of every version keeps, when there is one and some block shows it."""
    blocks = [block for body in bodies for block in _blocks(body)]
    if not any(len(block) > 1 for block in blocks):
        return None
    for order in _ORDERS:
        if all(all(order(a) <= order(b) for a, b in zip(block, block[1:], strict=False)) for block in blocks):
            return order
    return None


def _inside_block(slots: list[Slot], i: int, j: int, stmt: Callable[[Slot], cst.BaseStatement]) -> bool:
    """Whether slots ``i:j`` stand between two of base's imports of one block (no blank line before the second).

    At a block's end, new imports may open a section of their own (isort
    would move a stdlib import appended after the local ones elsewhere
    anyway); between two imports of a block, they are that block's.
    """
    if i == 0 or j >= len(slots) or slots[i - 1][0] != "base" or slots[j][0] != "base":
        return False
    after = stmt(slots[j])
    return (
        _imported_module(stmt(slots[i - 1])) is not None
        and _imported_module(after) is not None
        and not getattr(after, "leading_lines", ())
    )


def sorted_imports(slots: list[Slot], bodies: tuple[Sequence[cst.BaseStatement], ...]) -> list[Slot]:
    """*slots* with the import statements both sides inserted at one point put in the order the module keeps.

    Only a run of lone imports (no blank line or comment above any), where
    both sides inserted between two of base's imports of one block, and
    only when base and both sides keep every import block sorted in one way.
    """
    bl, ol, tl = bodies

    def stmt(slot: Slot) -> cst.BaseStatement:
        kind, idx = slot
        return (bl if kind == "base" else ol if kind == "ours" else tl)[idx]

    def movable(slot: Slot) -> bool:
        node = stmt(slot)
        return slot[0] != "base" and _imported_module(node) is not None and not getattr(node, "leading_lines", ())

    out = list(slots)
    order: Callable[[tuple[bool, str]], tuple[object, ...]] | None = None
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and movable(out[j]):
            j += 1
        if j - i > 1 and len({kind for kind, _ in out[i:j]}) == 2 and _inside_block(out, i, j, stmt):
            order = order or _convention(bodies)
            if order is None:
                return slots
            key = order
            out[i:j] = sorted(out[i:j], key=lambda slot: key(_imported_module(stmt(slot)) or (False, "")))
        i = max(j, i + 1)
    return out


__all__ = ["insertion_dependency", "sorted_imports"]
