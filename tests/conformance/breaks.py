"""Deliberately broken copies of the canonical client, for proving the conformance suite catches them.

Each break is one small, realistic edit a maintainer could make to a copy,
applied with libcst to a fresh copy of ``client/embedding_client``: a
default flipped, a handler narrowed, a deadline dropped, a method missing, a
word changed.  `rewrite` refuses an edit that changes nothing, so a break
that silently stopped applying (the canonical client moved on) fails loudly
instead of proving nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import libcst.matchers as m

REPO = Path(__file__).resolve().parents[2]
CANONICAL = REPO / "client" / "embedding_client"

Edit = Callable[[Path], None]


def rewrite(path: Path, transformer: cst.CSTTransformer) -> None:
    """Apply *transformer* to the module at *path*; the edit must change something."""
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    edited = module.visit(transformer)
    assert edited.code != module.code, f"{type(transformer).__name__} changed nothing in {path}"
    path.write_text(edited.code, encoding="utf-8")


def broken_copy(folder: Path, edit: Edit) -> Path:
    """A copy of the canonical client in *folder*/embedding_client, with *edit* applied."""
    package = folder / "embedding_client"
    shutil.copytree(CANONICAL, package, ignore=shutil.ignore_patterns("__pycache__"))
    edit(package)
    return package


class _Scoped(cst.CSTTransformer):
    """Knows the class and function it is in, so an edit touches one place only."""

    def __init__(self) -> None:
        super().__init__()
        self.scope: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(node.name.value)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef | cst.RemovalSentinel:
        hit = self.function is not None and self.scope == list(self.function)
        self.scope.pop()
        return self.edit_function(updated) if hit else updated

    #: The function `edit_function` rewrites, as its scope (``("Redactor", "scrub")``).
    function: tuple[str, ...] | None = None

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef | cst.RemovalSentinel:
        return node

    def inside(self, *names: str) -> bool:
        return self.scope[: len(names)] == list(names)


class _DefaultToFalse(_Scoped):
    """``_failed(..., attempted=True)`` becomes ``attempted=False``: every failure reads as not attempted."""

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        if self.inside("EmbeddingClient", "_failed") and original.name.value == "attempted":
            return updated.with_changes(default=cst.Name("False"))
        return updated


class _ScrubNothing(_Scoped):
    """``Redactor.scrub`` returns its text unchanged: secrets reach the error and the log."""

    function = ("Redactor", "scrub")

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef:
        return node.with_changes(body=cst.IndentedBlock([cst.parse_statement("return text")]))


class _NarrowCatch(_Scoped):
    """The last-resort ``except Exception`` of ``embed_with_outcome`` catches only httpx errors.

    A rejected body (NaN, a wrong shape) is not an httpx error, so it escapes
    the call: the copy raises on NaN.
    """

    def leave_ExceptHandler(self, original: cst.ExceptHandler, updated: cst.ExceptHandler) -> cst.ExceptHandler:
        if self.inside("EmbeddingClient", "embed_with_outcome") and m.matches(original.type, m.Name("Exception")):
            return updated.with_changes(type=cst.parse_expression("httpx.HTTPError"))
        return updated


class _NoDeadline(_Scoped):
    """``asyncio.timeout(self.timeout)`` becomes ``asyncio.timeout(None)``: only httpx's per-read timeouts remain."""

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self.inside("EmbeddingClient", "embed_with_outcome") and m.matches(
            original.func, m.Attribute(value=m.Name("asyncio"), attr=m.Name("timeout"))
        ):
            return updated.with_changes(args=[cst.Arg(cst.Name("None"))])
        return updated


class _DropMethod(_Scoped):
    """``EmbeddingClient.embed_with_outcome`` is gone: a copy from before it existed."""

    function = ("EmbeddingClient", "embed_with_outcome")

    def edit_function(self, node: cst.FunctionDef) -> cst.RemovalSentinel:
        return cst.RemoveFromParent()


class _SeverityWord(cst.CSTTransformer):
    """The ``_SEVERITY`` table says ``"error"`` where the contract says ``"fault"``."""

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        if not m.matches(original, m.Assign(targets=[m.AssignTarget(target=m.Name("_SEVERITY"))])):
            return updated
        return updated.with_changes(
            value=m.replace(updated.value, m.SimpleString('"fault"'), cst.SimpleString('"error"'))
        )


def reports_failures_as_not_attempted(package: Path) -> None:
    rewrite(package / "client.py", _DefaultToFalse())


def leaks_credentials(package: Path) -> None:
    rewrite(package / "outcome.py", _ScrubNothing())


def raises_on_nan(package: Path) -> None:
    rewrite(package / "client.py", _NarrowCatch())


def ignores_the_deadline(package: Path) -> None:
    rewrite(package / "client.py", _NoDeadline())


def has_no_embed_with_outcome(package: Path) -> None:
    rewrite(package / "client.py", _DropMethod())


def says_error_not_fault(package: Path) -> None:
    rewrite(package / "health.py", _SeverityWord())
