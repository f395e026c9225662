"""Same-point insertions: when ours-then-theirs is a safe order, for the merge stage.

Both sides insert statements at one point of a body; the merge puts ours
first, then theirs (`decide`), which is right only when neither run reads
a name the other assigns.  Otherwise theirs' code would run on a value its
author never had, and the merge calls it an `order` conflict.  The rule
reads the runs' own syntax with the stdlib `ast`.
"""

from __future__ import annotations

import ast

from .facts import import_bindings


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


__all__ = ["insertion_dependency"]
