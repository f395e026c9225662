"""Deliberately broken copies of the canonical client, for proving the conformance suite catches them.

Each break is one small, realistic edit a maintainer could make to a copy
(or that an old copy still has), applied with libcst to a fresh copy of
``client/embedding_client``: a default flipped, a handler narrowed, a
deadline dropped, a method missing, a word changed, a check left out.
`rewrite` refuses an edit that changes nothing, so a break that silently
stopped applying (the canonical client moved on) fails loudly instead of
proving nothing.

`BREAKS` pairs each break with the scenario that must expose it, the start
of what the problem must say, and the tier it must carry.  The first six are the issue's list;
the others show that each remaining hostile-backend scenario can fail too.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import libcst.matchers as m

REPO = Path(__file__).resolve().parents[2]
CANONICAL = REPO / "client" / "embedding_client"


def rewrite(path: Path, transformer: cst.CSTTransformer) -> None:
    """Apply *transformer* to the module at *path*; the edit must change something."""
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    edited = module.visit(transformer)
    assert edited.code != module.code, f"{type(transformer).__name__} changed nothing in {path}"
    path.write_text(edited.code, encoding="utf-8")


class _Scoped(cst.CSTTransformer):
    """Knows the class and function it is in, so an edit touches one place only.

    *where* is the scope of the edit, e.g. ``("Redactor", "scrub")``;
    `edit_function` rewrites the function of exactly that scope.
    """

    def __init__(self, where: Sequence[str]) -> None:
        super().__init__()
        self.where = list(where)
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
        hit = self.scope == self.where
        self.scope.pop()
        return self.edit_function(updated) if hit else updated

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef | cst.RemovalSentinel:
        return node

    @property
    def inside(self) -> bool:
        return self.scope[: len(self.where)] == self.where


class ReplaceBody(_Scoped):
    """The function at *where* does only *statement*."""

    def __init__(self, where: Sequence[str], statement: str) -> None:
        super().__init__(where)
        self.statement = statement

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef:
        return node.with_changes(body=cst.IndentedBlock([cst.parse_statement(self.statement)]))


class DropFunction(_Scoped):
    """The function at *where* is gone."""

    def edit_function(self, node: cst.FunctionDef) -> cst.RemovalSentinel:
        return cst.RemoveFromParent()


class DefaultTo(_Scoped):
    """Parameter *name* of the function at *where* defaults to *value*."""

    def __init__(self, where: Sequence[str], name: str, value: str) -> None:
        super().__init__(where)
        self.name, self.value = name, value

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        if self.scope == self.where and original.name.value == self.name:
            return updated.with_changes(default=cst.parse_expression(self.value))
        return updated


class ReplaceExpression(_Scoped):
    """Inside the function at *where*, every expression matching *matcher* becomes *replacement*."""

    def __init__(self, where: Sequence[str], matcher: m.BaseMatcherNode, replacement: str) -> None:
        super().__init__(where)
        self.matcher, self.replacement = matcher, cst.parse_expression(replacement)

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef:
        return node.with_changes(body=m.replace(node.body, self.matcher, self.replacement))


class ReplaceInAssignment(cst.CSTTransformer):
    """In the module-level assignment to *target*, every expression matching *matcher* becomes *replacement*."""

    def __init__(self, target: str, matcher: m.BaseMatcherNode, replacement: str) -> None:
        super().__init__()
        self.target, self.matcher, self.replacement = target, matcher, cst.parse_expression(replacement)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        if not m.matches(original, m.Assign(targets=[m.AssignTarget(target=m.Name(self.target))])):
            return updated
        return updated.with_changes(value=m.replace(updated.value, self.matcher, self.replacement))

    def leave_AnnAssign(self, original: cst.AnnAssign, updated: cst.AnnAssign) -> cst.AnnAssign:
        # The same assignment with a type (``_SEVERITY: dict[HealthState, Severity] = ...``).
        if not m.matches(original, m.AnnAssign(target=m.Name(self.target))) or updated.value is None:
            return updated
        return updated.with_changes(value=m.replace(updated.value, self.matcher, self.replacement))


class DropIf(_Scoped):
    """Inside *where*, the ``if`` whose test reads *test* is gone (a check left out)."""

    def __init__(self, where: Sequence[str], test: str) -> None:
        super().__init__(where)
        self.test = test

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If | cst.RemovalSentinel:
        if self.inside and cst.Module([]).code_for_node(original.test) == self.test:
            return cst.RemoveFromParent()
        return updated


@dataclass(frozen=True)
class Break:
    """Edits (file, transformer) that break a copy, the scenario that exposes it, what it says, and its tier."""

    edits: tuple[tuple[str, cst.CSTTransformer], ...]
    scenario: str
    says: str
    tier: str = "contract"


def _one(file: str, edit: cst.CSTTransformer, scenario: str, says: str, tier: str = "contract") -> Break:
    return Break(((file, edit),), scenario, says, tier)


BREAKS: dict[str, Break] = {
    # -- the list ---------------------------------------------------------------
    "not-attempted": _one(
        "client.py",
        DefaultTo(("EmbeddingClient", "_failed"), "attempted", "False"),
        "refused",
        "attempted=False, canonical says True",
    ),
    "leaky": _one(
        "outcome.py",
        ReplaceBody(("Redactor", "scrub"), "return text"),
        "echo-credentials-http",
        "a secret leaked into the error",
    ),
    "raises-on-nan": _one(
        "client.py",
        ReplaceExpression(("EmbeddingClient", "embed_with_outcome"), m.Name("Exception"), "httpx.HTTPError"),
        "nan",
        "embed_with_outcome raised ResponseRejected: body holds NaN",
    ),
    "no-deadline": _one(
        "client.py",
        ReplaceExpression(
            ("EmbeddingClient", "embed_with_outcome"),
            m.Call(func=m.Attribute(value=m.Name("asyncio"), attr=m.Name("timeout"))),
            "asyncio.timeout(None)",
        ),
        "drip-body",
        "still running after 2.5 s: the call ignores its 1 s deadline",
        "safety",
    ),
    "stale": _one(
        "client.py",
        DropFunction(("EmbeddingClient", "embed_with_outcome")),
        "ok",
        "no embed_with_outcome: a stale copy",
    ),
    "error-not-fault": _one(
        "health.py",
        ReplaceInAssignment("_SEVERITY", m.SimpleString('"fault"'), '"error"'),
        "advisory-fault",
        "advisory 1: severity=error, canonical says fault",
    ),
    # -- the other hostile backends ---------------------------------------------------------
    "unformattable": _one(
        "outcome.py",
        ReplaceBody(("describe",), "return type(exc).__name__, str(exc)"),
        "unprintable-exception",
        "embed_with_outcome raised RuntimeError",
    ),
    # Decodes without a cap and never counts what it decoded: the bomb inflates whole.
    "counts-wire-bytes": Break(
        (
            ("boundary.py", ReplaceExpression(("Inflater", "feed"), m.Name("room"), "-1")),
            ("boundary.py", DropIf(("read_body",), "decoded > budget")),
        ),
        "gzip-bomb",
        "ok=True, canonical says False",
        "safety",
    ),
    "passes-control-chars": _one(
        "outcome.py",
        ReplaceBody(("printable",), 'return " ".join(text.split())'),
        "control-chars",
        "the error holds control characters",
    ),
    "sends-any-key": _one(
        "client.py",
        ReplaceBody(("_header_problem",), "return None"),
        "bad-key-newline",
        "attempted=True, canonical says False",
    ),
}


def broken_copy(folder: Path, name: str) -> Path:
    """A copy of the canonical client in *folder*/embedding_client, broken as `BREAKS` [*name*] says."""
    package = folder / "embedding_client"
    shutil.copytree(CANONICAL, package, ignore=shutil.ignore_patterns("__pycache__"))
    for file, edit in BREAKS[name].edits:
        rewrite(package / file, edit)
    return package
