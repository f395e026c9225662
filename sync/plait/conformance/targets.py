"""The copies to hold to the contract, and how each is imported under its own name.

Every copy in the workspace is a target: the canonical client, each lineage,
each consumer's vendored copy, taken from the manifest (a consumer added
there is picked up with no change here).  So is any directory given with
``--path``.  A copy is imported as the package it is: the directory's dotted
name, walking up through parent directories that are packages too
(``cpersona/_vendored_mcp_common/embedding_client`` is
``cpersona._vendored_mcp_common.embedding_client``), with the first directory
above that on ``sys.path``.  Its own absolute self-imports
(``from mcp_common.outcome import ...``) then resolve to itself.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlaitError
from ..workspace import CANONICAL, Consumer, Copy, Workspace

__all__ = ["Target", "installed_canonical", "path_target", "workspace_targets"]


@dataclass(frozen=True)
class Target:
    """One copy: what the reports call it, and how its subprocess imports it.

    kind: ``canonical``, ``lineage``, ``consumer`` or ``path``.
    package_dir: the directory holding the copy's ``__init__.py``.
    import_name: the dotted name it is imported under.
    sys_path: the directory put first on ``sys.path`` for that import.
    problem: why the copy cannot run at all (a consumer not vendored yet);
        the run reports it as that copy's error and runs the others.
    """

    name: str
    kind: str
    package_dir: Path
    import_name: str
    sys_path: Path
    problem: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "import_name": self.import_name,
            "sys_path": str(self.sys_path),
            "package_dir": str(self.package_dir),
        }

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "path": str(self.package_dir), "import_name": self.import_name}


def _is_package(path: Path) -> bool:
    return (path / "__init__.py").is_file()


def _importable(package_dir: Path, name: str, kind: str) -> Target:
    """*package_dir* as a target: its dotted name from the package directories above it."""
    package_dir = package_dir.resolve()
    if not _is_package(package_dir):
        raise PlaitError(f"{name}: no Python package here (no __init__.py)", path=str(package_dir))
    parts = [package_dir.name]
    top = package_dir.parent
    while _is_package(top) and top != top.parent:
        parts.insert(0, top.name)
        top = top.parent
    dotted = ".".join(parts)
    if not all(part.isidentifier() for part in parts):
        raise PlaitError(f"{name}: {dotted!r} cannot be imported (not a dotted name)", path=str(package_dir))
    return Target(name, kind, package_dir, dotted, top)


def _vendored_package(consumer: Consumer) -> Path:
    """Where a consumer's vendored copy is: its vendored directory, which is the package
    (the manifest checks that ``package`` ends with the directory's name)."""
    if _is_package(consumer.vendor_dir):
        return consumer.vendor_dir
    raise PlaitError(f"no vendored package at {consumer.vendor_dir} (has it been vendored?)")


def _declared(ws: Workspace, name: str, kind: str, item: Copy | Consumer) -> Target:
    """The target of a copy the manifest declares; a lineage or consumer that is not there is its problem."""
    try:
        ws.checkout(item)
        root = _vendored_package(item) if isinstance(item, Consumer) else item.root
        return _importable(root, name, kind)
    except PlaitError as exc:
        if kind == "canonical":
            raise  # without the reference there is nothing to compare with
        where = item.vendor_dir if isinstance(item, Consumer) else item.root
        return Target(name, kind, where, "", where.parent, problem=str(exc))


def workspace_targets(ws: Workspace, names: list[str] | tuple[str, ...] = ()) -> list[Target]:
    """Every copy the manifest declares (or those *names*), canonical first.

    A consumer added to the manifest is a target with no change here.  One
    that cannot be imported as declared (not vendored yet, no package there)
    is still a target, carrying its problem, so the run names it.
    """
    declared: dict[str, tuple[str, Copy | Consumer]] = {CANONICAL: ("canonical", ws.canonical)}
    declared |= {name: ("lineage", lineage) for name, lineage in ws.lineages.items()}
    declared |= {name: ("consumer", consumer) for name, consumer in ws.consumers.items()}
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise PlaitError(f"no copy named {', '.join(unknown)} (known: {', '.join(declared)})", path=str(ws.manifest))
    return [_declared(ws, name, *declared[name]) for name in (names or declared)]


def path_target(path: str | Path, name: str | None = None) -> Target:
    """A copy in any directory: the package itself, or a directory holding exactly one package."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise PlaitError("no such directory", path=str(folder))
    if not _is_package(folder):
        inside = sorted(child for child in folder.iterdir() if child.is_dir() and _is_package(child))
        if len(inside) != 1:
            found = ", ".join(child.name for child in inside) or "none"
            raise PlaitError(
                f"not a package, and not a directory holding one package (found: {found})", path=str(folder)
            )
        folder = inside[0]
    return _importable(folder, name or str(path), "path")


def installed_canonical() -> Target:
    """The canonical client installed with plait, for runs without a workspace (a consumer's CI)."""
    spec = importlib.util.find_spec("embedding_client")
    if spec is None or not spec.submodule_search_locations:
        raise PlaitError("no workspace, and no embedding_client installed beside plait to compare with")
    return _importable(Path(next(iter(spec.submodule_search_locations))), CANONICAL, "canonical")
