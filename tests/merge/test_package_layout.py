"""The merge package's own layout: stages import one way, and the audits share facts, not each other.

Read from the source with `ast`, so an import added anywhere in a module,
inside a function or for the type checker only, counts: a cycle that only
bites when the modules load in another order is caught here, not in a
user's merge driver.
"""

from __future__ import annotations

import ast
from pathlib import Path

import plait.merge

PACKAGE = Path(plait.merge.__file__).parent


def _imports(module: Path) -> set[str]:
    """Sibling modules *module* imports, anywhere in it."""
    found: set[str] = set()
    todo: list[ast.AST] = [ast.parse(module.read_text(encoding="utf-8"))]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return found & {p.stem for p in PACKAGE.glob("*.py")}


GRAPH = {p.stem: _imports(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}


def _reaches(start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        here = todo.pop()
        for nxt in GRAPH.get(here, ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def test_no_module_of_the_merge_package_imports_itself_round_about() -> None:
    cyclic = sorted(m for m in GRAPH if _reaches(m, m))
    assert cyclic == [], f"import cycle through {cyclic}"


def test_the_audits_share_facts_and_not_each_other() -> None:
    assert "semantic" not in GRAPH["inventory"] and "inventory" not in GRAPH["semantic"]
    assert "facts" in GRAPH["inventory"] and "facts" in GRAPH["semantic"]
    # The facts are the stdlib's `ast` alone: nothing of the merge stages.
    assert GRAPH["facts"] == set()
