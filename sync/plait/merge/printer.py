"""libcst's code generator, driven directly: the only place plait uses libcst's private API.

A merge prints a great deal of code: every statement of the three inputs
once, to compare versions by their text, and then the merged module.  The
public routes are too slow for that:

- `Module.code_for_node` opens a context manager per node for position
  tracking that nobody reads; a printer that skips it is a quarter faster;
- the public position metadata (`WhitespaceInclusivePositionProvider`)
  yields every statement's span, but five to seven times slower than
  recording the spans from the printer's own hooks.

So this module subclasses libcst's `CodegenState`.  Everything private is
here, and `tests/merge/test_libcst_private_route.py` fails with a plain
message if an upgrade changes what it relies on; pyproject caps libcst
below 2.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

_NOTHING = contextlib.nullcontext()


class _Printer(CodegenState):
    """`CodegenState` without position tracking: nothing here reads positions."""

    # libcst annotates this hook with the generator-based context manager
    # its own no-op happens to be; the call sites only enter and leave it.
    def record_syntactic_position(  # type: ignore[override]
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> contextlib.nullcontext[None]:
        return _NOTHING


# Where a captured statement was printed: its indentation, and its module's
# newline and indentation unit.  Its text may stand wherever those agree.
Place = tuple[str, str, str]


class _Capturing(_Printer):
    """A printer that keeps the text of every node of the given types it prints."""

    def __init__(
        self,
        module: cst.Module,
        kinds: Collection[type[cst.CSTNode]],
        memo: dict[int, tuple[cst.CSTNode, str]],
        places: dict[int, Place],
    ) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.kinds = kinds
        self.memo = memo
        self.places = places
        self.starts: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in self.kinds:
            self.starts.append(len(self.tokens))
            if isinstance(node, cst.BaseStatement):
                self.places[id(node)] = ("".join(self.indent_tokens), self.default_newline, self.default_indent)

    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in self.kinds:
            self.memo[id(node)] = (node, "".join(self.tokens[self.starts.pop() :]))


def capture(
    module: cst.Module,
    kinds: Collection[type[cst.CSTNode]],
    memo: dict[int, tuple[cst.CSTNode, str]],
    places: dict[int, Place],
) -> None:
    """Print *module* once, keeping in *memo* (id -> (node, text)) the text of every node whose type is in *kinds*,
    and in *places* where each statement among them was printed.

    *kinds* is tested by exact type, for speed: the hooks run for every node.
    """
    module._codegen(_Capturing(module, kinds, memo, places))


@dataclass(frozen=True)
class _Verbatim(cst.BaseStatement):
    """A statement whose text is already known, standing in for it while a module prints."""

    text: str

    def _visit_and_replace_children(self, visitor: cst.CSTVisitorT) -> _Verbatim:
        return self

    def _codegen_impl(self, state: CodegenState) -> None:
        state.add_token(self.text)


# Nodes other than statements and blocks that hold statements.
_HOLDS_STATEMENTS = (cst.Module, cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)


class _Reuse(cst.CSTTransformer):
    """Stands known text in for every statement printed before at the same place."""

    def __init__(self, module: cst.Module, known: Callable[[cst.CSTNode, Place], str | None]) -> None:
        super().__init__()
        self.known = known
        self.style = (module.default_newline, module.default_indent)
        self.indents = [""]
        self.hits: dict[int, str] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.IndentedBlock):
            unit = self.style[1] if node.indent is None else node.indent
            self.indents.append(self.indents[-1] + unit)
            return True
        if isinstance(node, cst.BaseStatement):
            text = self.known(node, (self.indents[-1], *self.style))
            if text is not None:
                self.hits[id(node)] = text
                return False
            # Only a compound statement has statements inside to look for.
            return isinstance(node, cst.BaseCompoundStatement)
        return isinstance(node, _HOLDS_STATEMENTS)

    # libcst types `on_leave` as giving back a node of the type it left; a
    # `_Verbatim` stands in for any statement, which no TypeVar can say.
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        if isinstance(original_node, cst.IndentedBlock):
            self.indents.pop()
        text = self.hits.pop(id(original_node), None)
        return updated_node if text is None else _Verbatim(text)


def code_reusing(module: cst.Module, known: Callable[[cst.CSTNode, Place], str | None]) -> str:
    """*module*'s code, with the text `known(statement, place)` gives for a statement taking its place.

    A merged module is mostly its inputs' statements, unchanged: printing
    them again costs as much as the first time, and their text is known.
    """
    return code(module.visit(_Reuse(module, known)), module.default_indent, module.default_newline)


def code(node: cst.CSTNode, indent: str = "    ", newline: str = "\n") -> str:
    """*node* printed on its own, in a module whose indentation and newline are given.

    Raises `SyntaxError` (libcst's CSTCodegenError) for a node that only
    prints inside its parent.
    """
    state = _Printer(default_indent=indent, default_newline=newline)
    node._codegen(state)
    return "".join(state.tokens)


__all__ = ["Place", "capture", "code", "code_reusing"]
