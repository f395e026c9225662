"""Copies of the canonical client that are not broken, but are not what the contract run expects either.

- `predating_copy`: the canonical client as it was before ``embed_with_outcome``
  (the method made private with libcst, so ``embed()`` still works and the
  class no longer offers the outcome): a canonical like that has no
  contract to hold copies to.
- `needing_copy`: a copy that imports a module nobody installed, lazily in
  api mode or when it is imported, as a copy that needs numpy does where
  plait runs without it.
- `self_importing_copy`: a copy whose own module is missing (``from .gone
  import ...``): an import error that is the copy's, not the environment's.
- `unrewritten_copy`: the upstream lineage vendored as
  ``svc._vendored_mcp_common`` with its absolute self-imports left as they
  were (``from mcp_common.outcome import ...``): the copy's fault too.

Every edit goes through `breaks.rewrite`, which refuses an edit that
changes nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
from breaks import CANONICAL, REPO, _Scoped, rewrite

#: A module no environment has: what a copy that needs numpy is, where numpy is not installed.
ABSENT = "plait_conform_absent_dependency"


class RenameMember(cst.CSTTransformer):
    """Every function and attribute named *old* is named *new*: a method gone from the class, its callers following."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        return updated.with_changes(name=cst.Name(self.new)) if original.name.value == self.old else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=cst.Name(self.new)) if original.attr.value == self.old else updated


class Prepend(_Scoped):
    """The function at *where* starts with *statement*."""

    def __init__(self, where: Sequence[str], statement: str) -> None:
        super().__init__(where)
        self.statement = cst.parse_statement(statement)

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef:
        body = node.body
        assert isinstance(body, cst.IndentedBlock)
        return node.with_changes(body=body.with_changes(body=[self.statement, *body.body]))


class Append(cst.CSTTransformer):
    """The module ends with *statement*."""

    def __init__(self, statement: str) -> None:
        super().__init__()
        self.statement = cst.parse_statement(statement)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=[*updated.body, self.statement])


def _canonical(folder: Path) -> Path:
    package = folder / "embedding_client"
    shutil.copytree(CANONICAL, package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def predating_copy(folder: Path) -> Path:
    """The canonical client in *folder*/embedding_client, without ``embed_with_outcome`` (``embed()`` still works)."""
    package = _canonical(folder)
    rewrite(package / "client.py", RenameMember("embed_with_outcome", "_embed_and_tell"))
    return package


def needing_copy(folder: Path, *, at_import: bool = False) -> Path:
    """The canonical client, needing `ABSENT`: in api mode only (caught into an outcome), or to be imported at all."""
    package = _canonical(folder)
    if at_import:
        rewrite(package / "__init__.py", Append(f"import {ABSENT}"))
    else:
        rewrite(
            package / "client.py", Prepend(("EmbeddingClient", "_request"), f"if self.mode == 'api': import {ABSENT}")
        )
    return package


def self_importing_copy(folder: Path) -> Path:
    """The canonical client, importing a module of its own package that is not there."""
    package = _canonical(folder)
    rewrite(package / "__init__.py", Append("from .gone import nothing"))
    return package


def unrewritten_copy(folder: Path) -> Path:
    """The upstream lineage vendored as ``svc._vendored_mcp_common``, its ``mcp_common`` self-imports left as is."""
    (folder / "svc").mkdir(parents=True)
    (folder / "svc" / "__init__.py").write_text("")
    package = folder / "svc" / "_vendored_mcp_common"
    shutil.copytree(
        REPO / "lineages" / "upstream" / "mcp_common", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    return package
