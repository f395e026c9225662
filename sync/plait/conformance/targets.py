"""The copies to hold to the contract, and how each is imported under its own name.

Every copy in the workspace is a target: the canonical client, each lineage,
each consumer's vendored copy, taken from the manifest (a consumer added
there is picked up with no change here).  So is a copy given by hand, in
any of the layouts copies have in the wild:

- a package directory (``--path``): the package itself when it exports
  ``EmbeddingClient``, else the one module of it that defines the client,
  found by reading the source (`discover`);
- a module file (``--path …/embedding_client.py``);
- a dotted import name and the directory it is imported from
  (``--import mcp_common.embedding_client --from src``);
- a manifest entry with ``client_module``, the module of its package that
  holds the client.

A copy is imported as the module it is: its dotted name, walking up through
parent directories that are packages too
(``cpersona/_vendored_mcp_common/embedding_client`` is
``cpersona._vendored_mcp_common.embedding_client``), with the first directory
above that on ``sys.path``.  Its own absolute self-imports
(``from mcp_common.outcome import ...``) then resolve to itself.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlaitError
from ..workspace import CANONICAL, Consumer, Copy, Workspace
from .discover import CLIENT, NotAnEmbeddingClient, client_module_of, health_module_of, module_facts
from .wire import TargetWire

__all__ = [
    "NotAnEmbeddingClient",
    "Target",
    "import_target",
    "installed_canonical",
    "path_target",
    "workspace_targets",
]


@dataclass(frozen=True)
class Target:
    """One copy: what the reports call it, and how its subprocess imports it.

    kind: ``canonical``, ``lineage``, ``consumer``, ``path`` or ``import``.
    package_dir: the directory holding the copy (its package, or the
        directory of a module that is not in one): the client must be
        imported from inside it.
    import_name: the dotted name of the module that holds ``EmbeddingClient``.
    sys_path: the directory put first on ``sys.path`` for that import.
    health_module: the module defining ``EmbeddingHealth``, if the copy has one.
    problem: why the copy cannot run at all (a consumer not vendored yet);
        the run reports it as that copy's error and runs the others.
    """

    name: str
    kind: str
    package_dir: Path
    import_name: str
    sys_path: Path
    health_module: str | None = None
    problem: str | None = None

    def to_wire(self) -> TargetWire:
        return {
            "name": self.name,
            "import_name": self.import_name,
            "health_module": self.health_module,
            "sys_path": str(self.sys_path),
            "package_dir": str(self.package_dir),
        }

    def to_json(self) -> dict[str, str | None]:
        return {
            "name": self.name,
            "kind": self.kind,
            "path": str(self.package_dir),
            "import_name": self.import_name,
            "health_module": self.health_module,
        }


def _is_package(path: Path) -> bool:
    return (path / "__init__.py").is_file()


def _dotted(folder: Path, name: str) -> tuple[list[str], Path]:
    """The package names from the top package down to *folder*, and the directory above the top one."""
    parts: list[str] = []
    top = folder
    while _is_package(top) and top != top.parent:
        parts.insert(0, top.name)
        top = top.parent
    if not all(part.isidentifier() for part in parts):
        raise PlaitError(f"{name}: {'.'.join(parts)!r} cannot be imported (not a dotted name)", path=str(folder))
    return parts, top


def _package_target(package_dir: Path, dotted: str, sys_path: Path, name: str, kind: str, force: bool) -> Target:
    """The copy in the package *dotted* at *package_dir*, its client module found by looking.

    *force*: a package in which looking finds no client is run as the
    package itself (the worker then says what it lacks).
    """
    try:
        module = client_module_of(package_dir, dotted)
    except NotAnEmbeddingClient:
        if not force:
            raise
        module = dotted
    relative = module[len(dotted) :].lstrip(".")
    file = _module_file(package_dir, relative) or package_dir / "__init__.py"
    return _client_in(name, kind, package_dir, dotted, module, sys_path, file)


def _client_in(name: str, kind: str, folder: Path, package: str, module: str, sys_path: Path, file: Path) -> Target:
    """The target whose client is *module* (its source *file*), in the package *package* at *folder*.

    *package* is ``""`` for a module that is not in a package; its health
    module is then only itself, if it defines ``EmbeddingHealth``.
    """
    health = health_module_of(folder if package else None, package, module, file)
    return Target(name, kind, folder, module, sys_path, health)


def _module_file(package_dir: Path, relative: str) -> Path | None:
    """The file of the module *relative* (``a.b``, ``""`` for the package itself) of a package, if it exists."""
    base = package_dir.joinpath(*relative.split(".")) if relative else package_dir
    for candidate in (base / "__init__.py", base.with_suffix(".py") if relative else None):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def _importable(package_dir: Path, name: str, kind: str, *, force: bool = False) -> Target:
    """*package_dir* as a target: its dotted name from the package directories above it."""
    package_dir = package_dir.resolve()
    if not _is_package(package_dir):
        raise PlaitError(f"{name}: no Python package here (no __init__.py)", path=str(package_dir))
    parts, top = _dotted(package_dir, name)
    return _package_target(package_dir, ".".join(parts), top, name, kind, force)


def _module_target(file: Path, name: str, kind: str) -> Target:
    """A module file as a target: the client is the module itself, in whatever package holds it."""
    file = file.resolve()
    if not file.stem.isidentifier():
        raise PlaitError(f"{name}: {file.name!r} cannot be imported (not a module name)", path=str(file))
    if not module_facts(file).binds_client:
        raise PlaitError(f"{name}: this module defines no {CLIENT}", path=str(file))
    folder = file.parent
    parts, top = _dotted(folder, name)
    package = ".".join(parts)
    module = f"{package}.{file.stem}" if package else file.stem
    return _client_in(name, kind, folder, package, module, top, file)


def _vendored_package(consumer: Consumer) -> Path:
    """Where a consumer's vendored copy is: its vendored directory, which is the package
    (the manifest checks that ``package`` ends with the directory's name)."""
    if _is_package(consumer.vendor_dir):
        return consumer.vendor_dir
    raise PlaitError(f"no vendored package at {consumer.vendor_dir} (has it been vendored?)")


def _declared_target(item: Copy | Consumer, root: Path, name: str, kind: str, force: bool) -> Target:
    """The target of a manifest entry: its ``client_module`` when it declares one, else found by looking."""
    if item.client_module is None:
        return _importable(root, name, kind, force=force)
    package_dir = root.resolve()
    if not _is_package(package_dir):
        raise PlaitError(f"{name}: no Python package here (no __init__.py)", path=str(package_dir))
    parts, top = _dotted(package_dir, name)
    file = _module_file(package_dir, item.client_module)
    if file is None:
        raise PlaitError(
            f"{name}: client_module {item.client_module!r} is no module of its package", path=str(package_dir)
        )
    package = ".".join(parts)
    return _client_in(name, kind, package_dir, package, f"{package}.{item.client_module}", top, file)


def _declared(ws: Workspace, name: str, kind: str, item: Copy | Consumer, force: bool) -> Target:
    """The target of a copy the manifest declares; a lineage or consumer that is not there is its problem."""
    try:
        ws.checkout(item)
        root = _vendored_package(item) if isinstance(item, Consumer) else item.root
        return _declared_target(item, root, name, kind, force)
    except PlaitError as exc:
        if kind == "canonical":
            raise  # without the reference there is nothing to compare with
        where = item.vendor_dir if isinstance(item, Consumer) else item.root
        # Reports put the copy's name first: the problem says the rest once, its directory last.
        said = exc.message.removeprefix(f"{name}: ") + (f" ({exc.path})" if exc.path else "")
        return Target(name, kind, where, "", where.parent, problem=said)


def workspace_targets(ws: Workspace, names: list[str] | tuple[str, ...] = (), *, force: bool = False) -> list[Target]:
    """Every copy the manifest declares (or those *names*), canonical first.

    A consumer added to the manifest is a target with no change here.  One
    that cannot be imported as declared (not vendored yet, no package there)
    is still a target, carrying its problem, so the run names it.  A
    canonical package that is no embedding client raises
    `NotAnEmbeddingClient`, unless *force*.
    """
    declared: dict[str, tuple[str, Copy | Consumer]] = {CANONICAL: ("canonical", ws.canonical)}
    declared |= {name: ("lineage", lineage) for name, lineage in ws.lineages.items()}
    declared |= {name: ("consumer", consumer) for name, consumer in ws.consumers.items()}
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise PlaitError(f"no copy named {', '.join(unknown)} (known: {', '.join(declared)})", path=str(ws.manifest))
    return [_declared(ws, name, *declared[name], force) for name in (names or declared)]


def path_target(path: str | Path, name: str | None = None, *, force: bool = False) -> Target:
    """A copy at *path*: a module file, a package, or a directory holding exactly one package."""
    given = Path(path).expanduser()
    label = name or str(path)
    if given.is_file() and given.suffix == ".py":
        return _module_target(given, label, "path")
    if not given.is_dir():
        raise PlaitError("no such directory or module file", path=str(given))
    folder = given
    if not _is_package(folder):
        inside = sorted(child for child in folder.iterdir() if child.is_dir() and _is_package(child))
        if len(inside) != 1:
            found = ", ".join(child.name for child in inside) or "none"
            raise PlaitError(
                f"not a package, and not a directory holding one package (found: {found})", path=str(folder)
            )
        folder = inside[0]
    return _importable(folder, label, "path", force=force)


def import_target(dotted: str, from_dir: str | Path, *, force: bool = False) -> Target:
    """The copy importable as *dotted* from the directory *from_dir* (as if it were on ``sys.path``).

    The module or package is found on disk, never imported here; a package
    is looked into as `path_target` does.
    """
    parts = dotted.split(".")
    if not all(part.isidentifier() for part in parts):
        raise PlaitError(f"{dotted!r} is not a dotted module name")
    base = Path(from_dir).expanduser().resolve()
    if not base.is_dir():
        raise PlaitError("no such directory", path=str(base))
    where = base.joinpath(*parts)
    if _is_package(where):
        return _package_target(where, dotted, base, dotted, "import", force)
    file = where.with_suffix(".py")
    if not file.is_file():
        raise PlaitError(
            f"no module {dotted} here (neither {where.name}.py nor a package {where.name})", path=str(base)
        )
    if not module_facts(file).binds_client:
        raise PlaitError(f"{dotted}: this module defines no {CLIENT}", path=str(file))
    return _client_in(dotted, "import", where.parent, ".".join(parts[:-1]), dotted, base, file)


def installed_canonical() -> Target:
    """The canonical client installed with plait, for runs without a workspace (a consumer's CI)."""
    spec = importlib.util.find_spec("embedding_client")
    if spec is None or not spec.submodule_search_locations:
        raise PlaitError("no workspace, and no embedding_client installed beside plait to compare with")
    return _importable(Path(next(iter(spec.submodule_search_locations))), CANONICAL, "canonical")
