"""The workspace: the manifest ``lineages.toml`` and the copies it declares.

The manifest says what exists: the canonical client, the lineages that sync
from it (or from each other), and the consumers that vendor a copy.  It is
read and written with tomlkit, so the comments and the order people gave it
survive every write.

Every path in it is resolved here, once, and confined: a directory, a file
or a symlink that leads outside the workspace (or outside its git
repository, for a git-backed copy) is refused with the cause named, before
anything is read or written.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from . import gitops
from .atomic import WriteBatch
from .errors import PlaitError
from .store import STORE_DIR, Store
from .transforms import ImportRewrite, rewrite_tree

__all__ = [
    "CANONICAL",
    "MANIFEST",
    "Consumer",
    "Copy",
    "GitSpec",
    "Lineage",
    "Workspace",
    "copy_workspace",
    "excluded",
    "locate",
    "read_tree",
]

MANIFEST = "lineages.toml"
CANONICAL = "canonical"
ENV_WORKSPACE = "PLAIT_WORKSPACE"

# Never part of a copy: interpreter caches, editor and plait temp files.
_ALWAYS_EXCLUDED = ("__pycache__", "*.pyc", "*.plait-tmp", "*.plait-del", ".DS_Store")


@dataclass(frozen=True)
class GitSpec:
    """A copy that lives in a git repository: a path or URL, a ref, a subdirectory."""

    url: str
    ref: str | None
    subdir: str

    @property
    def is_remote(self) -> bool:
        return "://" in self.url or (":" in self.url and "@" in self.url.partition(":")[0])


@dataclass(frozen=True, kw_only=True)
class Copy:
    """A copy of the client's package: the canonical one or a lineage.

    root: the directory holding the package's files.
    confine: the directory no file of the copy may leave (the workspace, or
      the git repository of a git-backed copy).
    """

    name: str
    package: str
    root: Path
    confine: Path
    git: GitSpec | None = None
    repo_root: Path | None = None
    description: str = ""
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Lineage(Copy):
    """A separately maintained copy that syncs from another copy.

    files: source file → lineage file, for the files whose names differ.
    absolute_imports: the lineage spells its self-imports absolutely.
    renames: module renames beyond the package rename the names imply.
    tests: the lineage's own tests, if it declares them.
    """

    syncs_from: str = CANONICAL
    files: Mapping[str, str] = field(default_factory=dict)
    absolute_imports: bool = False
    renames: Mapping[str, str] = field(default_factory=dict)
    tests: Path | None = None

    def rewrite_from(self, source: Copy) -> ImportRewrite:
        """The transforms that carry *source*'s files into this lineage's namespace."""
        return ImportRewrite.between(
            source.package, self.package, self.files, extra=self.renames, absolute=self.absolute_imports
        )

    def lineage_name(self, source_name: str) -> str:
        return self.files.get(source_name, source_name)

    def carry(self, files: Mapping[str, str], source: Copy) -> dict[str, str]:
        """*files* of *source* as this lineage spells them: transformed and renamed."""
        return rewrite_tree(
            files, package=source.package, rewrite=self.rewrite_from(source), file_map=self.files, label=source.name
        )


@dataclass(frozen=True, kw_only=True)
class Consumer:
    """A service that vendors a copy into its own package (issue 9 builds on this).

    root: the consumer's directory; vendor_dir: the vendored directory in it.
    table: the manifest entry as written, for fields this module does not model.
    """

    name: str
    root: Path
    confine: Path
    vendor_dir: Path
    package: str
    source: str = CANONICAL
    git: GitSpec | None = None
    renames: Mapping[str, str] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()
    description: str = ""
    table: Mapping[str, Any] = field(default_factory=dict)


def locate(explicit: str | os.PathLike[str] | None = None, *, cwd: Path | None = None) -> Path:
    """The manifest to use: ``--workspace``, else ``$PLAIT_WORKSPACE``, else the
    nearest ``lineages.toml`` (or ``lineages/lineages.toml``) from the current
    directory upwards, else the bundled workspace of the source checkout plait
    runs from (an editable install).  A wheel carries no workspace: it would be
    read-only in site-packages, and its canonical client lives beside it in the
    repository, so an installed plait needs one of the first three."""
    for given in (explicit, os.environ.get(ENV_WORKSPACE) or None):
        if given is not None:
            path = Path(given).expanduser()
            manifest = path / MANIFEST if path.is_dir() else path
            if not manifest.is_file():
                raise PlaitError("no lineages.toml here", path=str(path))
            return manifest.resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for candidate in (folder / MANIFEST, folder / "lineages" / MANIFEST):
            if candidate.is_file():
                return candidate
    checkout = Path(__file__).resolve().parents[2] / "lineages" / MANIFEST
    if checkout.is_file():
        return checkout
    raise PlaitError(f"no workspace found: pass --workspace DIR or set {ENV_WORKSPACE}")


def _str(table: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (not value and default is None):
        raise PlaitError(f"{where}: '{key}' must be a non-empty string")
    return value


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PlaitError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _str_map(table: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise PlaitError(f"{where}: '{key}' must map strings to strings")
    return {str(k): str(v) for k, v in value.items()}


def _relative(name: str, where: str) -> str:
    """*name* as a safe relative path inside a copy: no absolute path, no ``..``."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or name != path.as_posix():
        raise PlaitError(f"{where}: {name!r} must be a plain relative path inside the copy")
    return name


def excluded(rel: str, patterns: Iterable[str]) -> bool:
    parts = PurePosixPath(rel).parts
    for pattern in (*_ALWAYS_EXCLUDED, *patterns):
        if fnmatch.fnmatch(rel, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts):
            return True
    return False


def read_tree(path: Path, exclude: Iterable[str] = ()) -> dict[str, str]:
    """Every text file under *path* (relative path → text), for a directory
    given on the command line (a base to adopt, a copy to diff)."""
    out: dict[str, str] = {}
    for file in sorted(path.rglob("*")):
        rel = file.relative_to(path).as_posix()
        if file.is_file() and not excluded(rel, exclude):
            try:
                out[rel] = file.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                raise PlaitError("not UTF-8 text", path=str(file)) from None
    return out


class Workspace:
    """A loaded manifest and everything it declares, with paths resolved and confined."""

    def __init__(self, manifest: Path, document: tomlkit.TOMLDocument) -> None:
        self.manifest = manifest
        self.document = document
        self.dir = manifest.parent
        self.store = Store(self.dir / STORE_DIR)
        data = document.unwrap()
        where = str(manifest)
        root = data.get("root", ".")
        if not isinstance(root, str):
            raise PlaitError("'root' must be a path", path=where)
        # The confinement: by default the manifest's directory.  A manifest may
        # widen it to its repository (the bundled one does: its canonical client
        # lives beside the workspace), never further than it says.
        self.root = (self.dir / root).resolve()
        canonical = data.get(CANONICAL)
        if not isinstance(canonical, Mapping):
            raise PlaitError("the manifest needs a [canonical] table", path=where)
        self.canonical = self._copy(CANONICAL, canonical)
        lineages = data.get("lineages", {})
        consumers = data.get("consumers", {})
        if not isinstance(lineages, Mapping) or not isinstance(consumers, Mapping):
            raise PlaitError("[lineages] and [consumers] must be tables", path=where)
        self.lineages: dict[str, Lineage] = {name: self._lineage(name, t) for name, t in lineages.items()}
        self.consumers: dict[str, Consumer] = {name: self._consumer(name, t) for name, t in consumers.items()}
        if CANONICAL in self.lineages:
            raise PlaitError("a lineage cannot be called 'canonical'", path=where)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Workspace:
        """The workspace at *path* (a directory or its manifest), or found by `locate`."""
        manifest = locate(path)
        try:
            document = tomlkit.parse(manifest.read_text(encoding="utf-8"))
        except (TOMLKitError, UnicodeDecodeError) as exc:
            raise PlaitError(f"the manifest does not parse: {exc}", path=str(manifest)) from None
        return cls(manifest, document)

    # -- declarations --------------------------------------------------------

    def _where(self, section: str) -> str:
        return f"{self.manifest}: [{section}]"

    def _location(
        self, table: Mapping[str, Any], section: str, name: str
    ) -> tuple[Path, Path, GitSpec | None, Path | None]:
        """(root, confine, git, repo_root) of a declared location."""
        where = self._where(section)
        if "git" in table:
            spec = GitSpec(_str(table, "git", where), table.get("ref"), table.get("subdir", "."))
            if spec.ref is not None and not isinstance(spec.ref, str):
                raise PlaitError(f"{where}: 'ref' must be a string")
            if spec.subdir != ".":
                _relative(spec.subdir, where)
            if spec.is_remote:
                repo_root = (self.store.root / "clones" / name).resolve()
            else:
                repo_root = (self.dir / spec.url).resolve()
            root = (repo_root / spec.subdir).resolve()
            if not root.is_relative_to(repo_root):
                raise PlaitError(f"{where}: subdir {spec.subdir!r} escapes its repository (a symlink?)")
            return root, repo_root, spec, repo_root
        rel = _str(table, "path", where)
        root = self.confined(rel, what=f"{where} path")
        return root, self.root, None, None

    def confined(self, rel: str, *, what: str) -> Path:
        """*rel* (relative to the manifest) resolved, refused if it leaves the workspace."""
        path = (self.dir / rel).resolve()
        if not path.is_relative_to(self.root):
            raise PlaitError(f"{what} {rel!r} escapes the workspace ({self.root})")
        return path

    def _copy_fields(self, name: str, section: str, table: Mapping[str, Any]) -> dict[str, Any]:
        """What every copy declares: its package, where it lives, what to leave out."""
        where = self._where(section)
        root, confine, git, repo_root = self._location(table, section, name)
        return {
            "name": name,
            "package": _str(table, "package", where),
            "root": root,
            "confine": confine,
            "git": git,
            "repo_root": repo_root,
            "description": _str(table, "description", where, ""),
            "exclude": _strings(table, "exclude", where),
        }

    def _copy(self, name: str, table: Mapping[str, Any]) -> Copy:
        return Copy(**self._copy_fields(name, name, table))

    def _lineage(self, name: str, table: Any) -> Lineage:
        section = f"lineages.{name}"
        where = self._where(section)
        if not isinstance(table, Mapping):
            raise PlaitError(f"{where} must be a table")
        files = _str_map(table, "files", where)
        for source, target in files.items():
            _relative(source, f"{where} files")
            _relative(target, f"{where} files")
        transforms = table.get("transforms", {})
        if not isinstance(transforms, Mapping):
            raise PlaitError(f"{where}: 'transforms' must be a table")
        absolute = transforms.get("absolute_imports", False)
        if not isinstance(absolute, bool):
            raise PlaitError(f"{where}: transforms.absolute_imports must be true or false")
        tests = table.get("tests")
        return Lineage(
            **self._copy_fields(name, section, table),
            syncs_from=_str(table, "syncs_from", where, CANONICAL),
            files=files,
            absolute_imports=absolute,
            renames=_str_map(transforms, "rename", where),
            tests=self.confined(tests, what=f"{where} tests") if isinstance(tests, str) else None,
        )

    def _consumer(self, name: str, table: Any) -> Consumer:
        section = f"consumers.{name}"
        where = self._where(section)
        if not isinstance(table, Mapping):
            raise PlaitError(f"{where} must be a table")
        root, confine, git, _repo = self._location(table, section, name)
        vendor_rel = _relative(_str(table, "vendor_dir", where), where)
        vendor_dir = (root / vendor_rel).resolve()
        if not vendor_dir.is_relative_to(confine):
            raise PlaitError(f"{where}: vendor_dir {vendor_rel!r} escapes the workspace (a symlink?)")
        source = table.get("source", table.get("vendors_from", CANONICAL))
        return Consumer(
            name=name,
            root=root,
            confine=confine,
            vendor_dir=vendor_dir,
            package=_str(table, "package", where),
            source=source if isinstance(source, str) else CANONICAL,
            git=git,
            renames=_str_map(table, "rename", where),
            include=_strings(table, "include", where),
            exclude=_strings(table, "exclude", where),
            protected=_strings(table, "protected", where),
            description=_str(table, "description", where, ""),
            table=dict(table),
        )

    # -- queries -------------------------------------------------------------

    def copy(self, name: str) -> Copy:
        """The canonical client or a lineage, by name."""
        if name == CANONICAL:
            return self.canonical
        try:
            return self.lineages[name]
        except KeyError:
            known = ", ".join([CANONICAL, *self.lineages])
            raise PlaitError(f"no copy named {name!r} (known: {known})", path=str(self.manifest)) from None

    def lineage(self, name: str) -> Lineage:
        copy = self.copy(name)
        if not isinstance(copy, Lineage):
            raise PlaitError(f"{name!r} is the canonical client, not a lineage", path=str(self.manifest))
        return copy

    def sync_order(self, names: Iterable[str] | None = None) -> list[Lineage]:
        """Lineages in dependency order (a source before what syncs from it).

        Every lineage is checked, so a cycle anywhere is an error that names it.
        """
        order: list[str] = []
        state: dict[str, str] = {}

        def visit(name: str, trail: list[str]) -> None:
            if state.get(name) == "done" or name == CANONICAL:
                return
            if state.get(name) == "active":
                cycle = trail[trail.index(name) :] + [name]
                raise PlaitError(
                    f"lineages sync from each other in a cycle: {' -> '.join(cycle)}", path=str(self.manifest)
                )
            lineage = self.lineage(name)
            if lineage.syncs_from != CANONICAL and lineage.syncs_from not in self.lineages:
                raise PlaitError(
                    f"lineage {name!r} syncs from {lineage.syncs_from!r}, which the manifest does not declare",
                    path=str(self.manifest),
                )
            state[name] = "active"
            visit(lineage.syncs_from, [*trail, name])
            state[name] = "done"
            order.append(name)

        for name in self.lineages:
            visit(name, [])
        wanted = set(names) if names is not None else set(order)
        for name in wanted:
            self.lineage(name)
        return [self.lineages[n] for n in order if n in wanted]

    def dependents(self, name: str) -> list[str]:
        """The lineages that sync, directly or not, from *name*."""
        out: list[str] = []
        for lineage in self.sync_order():
            if lineage.syncs_from == name or lineage.syncs_from in out:
                out.append(lineage.name)
        return out

    def read_files(self, copy: Copy | Consumer, *, root: Path | None = None) -> dict[str, str]:
        """Every file of *copy* (relative path → text), refusing escapes.

        A symlink, a file or a directory that resolves outside the copy's
        confinement is refused with the path named; so is a file that is
        not UTF-8 text.
        """
        self.checkout(copy)
        top = root or copy.root
        if not top.is_dir():
            raise PlaitError(f"{copy.name}: no such directory", path=str(top))
        out: dict[str, str] = {}
        for folder, dirs, names in os.walk(top):
            base = Path(folder)
            for entry in [*dirs, *names]:
                path = base / entry
                rel = path.relative_to(top).as_posix()
                if excluded(rel, copy.exclude):
                    continue
                if path.is_symlink() and not path.resolve().is_relative_to(copy.confine):
                    raise PlaitError(
                        f"{copy.name}: symlink escapes the workspace (to {path.resolve()})", path=str(path)
                    )
            dirs[:] = sorted(d for d in dirs if not excluded((base / d).relative_to(top).as_posix(), copy.exclude))
            for entry in sorted(names):
                path = base / entry
                rel = path.relative_to(top).as_posix()
                if excluded(rel, copy.exclude) or not path.is_file():
                    continue
                try:
                    out[rel] = path.read_bytes().decode("utf-8")
                except UnicodeDecodeError:
                    raise PlaitError(f"{copy.name}: not UTF-8 text", path=str(path)) from None
        return out

    def checkout(self, copy: Copy | Consumer) -> None:
        """Clone a copy that lives in a remote repository, once, under ``.plait/clones/``.

        Later runs use the clone as it is (plait does not fetch behind your
        back); the clones directory ignores itself so it is never committed.
        """
        if copy.git is None or not copy.git.is_remote:
            return
        clones = self.store.root / "clones"
        gitops.clone(copy.git.url, clones / copy.name, copy.git.ref)
        ignore = clones / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# plait's clones of remote copies: never committed\n*\n", encoding="utf-8")

    def target(self, copy: Copy, rel: str) -> Path:
        """Where *rel* of *copy* is written; refused if that leaves the copy."""
        _relative(rel, f"{copy.name}")
        path = copy.root / rel
        resolved = path.resolve()
        if not resolved.is_relative_to(copy.confine):
            raise PlaitError(f"{copy.name}: writing {rel} would leave the workspace (a symlink?)", path=str(path))
        return path

    # -- writing the manifest ------------------------------------------------

    def stage_manifest(self, batch: WriteBatch) -> None:
        """Add the manifest, as edited in `document`, to *batch* (comments survive)."""
        batch.write(self.manifest, tomlkit.dumps(self.document))

    def remove_key(self, section: str, name: str, key: str) -> bool:
        """Drop ``[section.name] key`` from the document; whether it was there."""
        table = self.document.get(section, {}).get(name)
        if table is None or key not in table:
            return False
        del table[key]
        return True


def copy_workspace(ws: Workspace, dest: Path) -> Workspace:
    """A copy of *ws* under *dest*: the manifest's directory, and every directory
    copy the manifest names elsewhere in the workspace, at the same relative
    places, so the copy's manifest resolves exactly like the original.

    Only directory copies can be copied this way; a git-backed copy is refused.
    """
    ignore = shutil.ignore_patterns(*_ALWAYS_EXCLUDED, ".pytest_cache", "clones")
    roots: list[Path] = [ws.dir]
    items: list[Copy | Consumer] = [ws.canonical, *ws.lineages.values(), *ws.consumers.values()]
    for item in items:
        if item.git is not None:
            raise PlaitError(
                f"{item.name} is git-backed; only directory workspaces can be copied", path=str(ws.manifest)
            )
        if not item.root.is_relative_to(ws.dir):
            roots.append(item.root)
    for root in roots:
        shutil.copytree(root, dest / root.relative_to(ws.root), ignore=ignore, dirs_exist_ok=True, symlinks=True)
    return Workspace.load(dest / ws.manifest.relative_to(ws.root))
