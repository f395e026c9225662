"""The workspace: the manifest ``lineages.toml`` and the copies it declares.

The manifest says what exists: the canonical client, the lineages that sync
from it (or from each other), and the consumers that vendor a copy.  It is
read by `plain_toml` (or tomllib, for what that does not know) and written
with tomlkit, so the comments and the order people gave it survive every
write.

Every path in it is resolved here, once, and confined: a directory, a file
or a symlink that leads outside the workspace (or outside its git
repository, for a git-backed copy) is refused with the cause named, before
anything is read or written.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from . import contents
from .errors import PlaitError
from .names import copy_name_problem
from .paths import LOCK_NAME, STORE_DIR, is_plain_relative
from .plain_toml import plain_toml
from .records import field, record, replace
from .toml_input import check_bounds

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import TypedDict

    import tomlkit

    from .commit import Transaction
    from .groups.model import Group
    from .store import Store
    from .transforms import ImportRewrite

__all__ = [
    "CANONICAL",
    "MANIFEST",
    "Consumer",
    "Copy",
    "Files",
    "GitSpec",
    "Lineage",
    "Workspace",
    "copy_workspace",
    "excluded",
    "is_executable",
    "locate",
    "matches",
    "bundled_workspace",
    "read_tree",
    "tree_files",
    "walk_tree",
]

MANIFEST = "lineages.toml"
CLONES = "clones"

# Every key the manifest may hold, per table.  A key outside these is a typo
# or a misunderstanding, and both change what a run does without saying so
# (`absolute_import = true` turned a clean sync into conflicts), so each is
# refused with the nearest known key suggested.
_TOP_KEYS = ("root", "canonical", "lineages", "consumers", "groups")
_LOCATION_KEYS = ("path", "git", "ref", "subdir")
_COPY_KEYS = (*_LOCATION_KEYS, "package", "description", "exclude", "client_module")
# "base" is the hand-kept base of manifests older than the store; `plait
# adopt` moves it into the store and removes the key.
_LINEAGE_KEYS = (*_COPY_KEYS, "syncs_from", "tests", "files", "transforms", "base")
_TRANSFORM_KEYS = ("absolute_imports", "rename")
_CONSUMER_KEYS = (
    *_LOCATION_KEYS,
    "vendor_dir",
    "package",
    "source",
    "rename",
    "include",
    "exclude",
    "protected",
    "description",
    "tests",
    "client_module",
)
CANONICAL = "canonical"
ENV_WORKSPACE = "PLAIT_WORKSPACE"

# Never part of a copy, nor copied with a workspace: interpreter caches,
# editor and plait temp files.
_NEVER_COPIED = ("__pycache__", "*.pyc", "*.plait-tmp", "*.plait-del", ".DS_Store")
# Nor is the lock `plait vendor` keeps in a vendored directory part of the
# copy: it describes the copy (a copied workspace keeps it, though).
_ALWAYS_EXCLUDED = (*_NEVER_COPIED, LOCK_NAME)


@record(frozen=True)
class GitSpec:
    """A copy that lives in a git repository: a path or URL, a ref, a subdirectory.

    in_place: the repository is on disk where the manifest says (a local
      path that exists), and plait reads and writes it there; otherwise it
      is cloned into the store's clone cache (a URL, or a relative path that
      a CI checkout does not have, found beside the workspace's own remote).
    """

    url: str
    ref: str | None
    subdir: str
    in_place: bool = False

    @property
    def is_remote(self) -> bool:
        return "://" in self.url or (":" in self.url and "@" in self.url.partition(":")[0])


@record(frozen=True, kw_only=True)
class Copy:
    """A copy of the client's package: the canonical one or a lineage.

    root: the directory holding the package's files.
    confine: the directory no file of the copy may leave (the workspace, or
      the git repository of a git-backed copy).
    client_module: the module of the package that holds the embedding
      client, when the package does not export it (``embedding_client`` for
      ``mcp_common.embedding_client``); None: the package itself.
    """

    name: str
    package: str
    root: Path
    confine: Path
    git: GitSpec | None = None
    repo_root: Path | None = None
    description: str = ""
    exclude: tuple[str, ...] = ()
    client_module: str | None = None


@record(frozen=True, kw_only=True)
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
        from .transforms import ImportRewrite

        return ImportRewrite.between(
            source.package, self.package, self.files, extra=self.renames, absolute=self.absolute_imports
        )

    def lineage_name(self, source_name: str) -> str:
        return self.files.get(source_name, source_name)

    def carry(self, files: Mapping[str, str], source: Copy) -> dict[str, str]:
        """*files* of *source* as this lineage spells them: transformed and renamed."""
        from .transforms import rewrite_tree

        return rewrite_tree(
            files, package=source.package, rewrite=self.rewrite_from(source), file_map=self.files, label=source.name
        )


@record(frozen=True, kw_only=True)
class Consumer:
    """A service that vendors a copy of the client into its own package.

    root: where the consumer lives (a directory, or a git repository's subdir).
    vendor_dir: the vendored directory inside it, holding the vendored
      package's files and its lock.
    package: the vendored package's import name in the consumer, e.g.
      ``cpersona._vendored_mcp_common.embedding_client``: the source's
      package is renamed to it.
    source: ``canonical`` or the lineage it vendors from.
    renames: module renames beyond the package rename.
    include / exclude: globs choosing the source files to vendor (exclude
      also hides files of the vendored directory from plait).
    protected: globs naming vendored files plait never writes.
    tests: the consumer's own tests, if it declares them.
    client_module: the module of the vendored package that holds the
      embedding client, when the package does not export it; None: the package.
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
    tests: Path | None = None
    client_module: str | None = None
    table: Mapping[str, object] = field(default_factory=dict)

    @property
    def vendor_rel(self) -> str:
        """The vendored directory relative to the consumer, as the manifest spells it."""
        return self.vendor_dir.relative_to(self.root).as_posix()

    def selects(self, rel: str) -> bool:
        """Whether the source file *rel* is vendored (include and exclude globs)."""
        if not self.include and not self.exclude:
            return True  # (most consumers: every source file, asked of each)
        return (not self.include or matches(rel, self.include)) and not matches(rel, self.exclude)

    def is_protected(self, rel: str) -> bool:
        return matches(rel, self.protected)


def locate(explicit: str | os.PathLike[str] | None = None, *, cwd: Path | None = None) -> Path:
    """The manifest to use: ``--workspace``, else ``$PLAIT_WORKSPACE``, else the
    nearest ``lineages.toml`` (or ``lineages/lineages.toml``) from the current
    directory upwards.

    Nothing else: a project without a manifest is an error, never the
    bundled demo workspace, which printed the demo's lineages as if they
    were the project's and let `plait check` inside a service say ``ok``.
    The bundled workspace is used by `plait demo`, or when named.
    """
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
    raise PlaitError(
        f"no lineages.toml here or above ({here}); run `plait init`, or pass --workspace DIR (or set {ENV_WORKSPACE})"
    )


# What a built plait ships of the bundled workspace: the history of lineages/ and of the
# canonical client, as a git fast-export stream written at build time (setup.py), so that
# `plait demo` from a wheel runs the whole job, the adopt step's walk of history included.
BUNDLED_HISTORY = Path(__file__).parent / "_bundled" / "workspace.fast-export"


def bundled_workspace() -> Path:
    """The bundled demo workspace: the source checkout's, when plait runs from one (an
    editable install), else a repository made in a temporary directory from the history a
    built plait ships, removed when the process ends (site-packages stays read-only)."""
    manifest = Path(__file__).resolve().parents[2] / "lineages" / MANIFEST
    if manifest.is_file():
        return manifest
    if not BUNDLED_HISTORY.is_file():
        raise PlaitError("this plait has no bundled workspace (it was built without one); pass --workspace DIR")
    import atexit
    import shutil
    import tempfile

    from . import gitops

    folder = Path(tempfile.mkdtemp(prefix="plait-bundled-"))
    atexit.register(shutil.rmtree, folder, True)
    gitops.import_history(folder / "plait", BUNDLED_HISTORY.read_bytes())
    return folder / "plait" / "lineages" / MANIFEST


def unreadable(exc: OSError, path: Path) -> PlaitError:
    """A file or directory the operating system would not let plait read, as one named error."""
    return PlaitError(f"cannot read: {exc.strerror or type(exc).__name__}", path=str(path))


def _read_text(path: Path, who: str) -> str:
    """A file of a copy as plait's text of its bytes (`plait.contents`): any file, byte-exact."""
    try:
        return contents.decode(path.read_bytes())
    except OSError as exc:
        raise unreadable(exc, path) from None


def is_executable(path: str | os.PathLike[str]) -> bool:
    """Whether the file at *path* is executable as git counts it: its owner's execute bit
    (git records a file as 100755 or 100644 by that bit alone)."""
    try:
        return bool(os.stat(path).st_mode & stat.S_IXUSR)
    except OSError:
        return False


@record(frozen=True)
class Files:
    """The files of a copy as one run reads them: each file's text, and which are executable.

    texts: relative path → the file's bytes as plait's text (`plait.contents`:
      a latin-1 or a binary file round-trips byte for byte).
    executable: the relative paths whose file is executable (git's 100755;
      every other file is 100644).  A reader that takes files from git
      rather than the disk gives the tree entries' modes here.
    """

    texts: dict[str, str]
    executable: frozenset[str] = frozenset()


def _parse_toml(text: str, where: str) -> dict[str, object]:
    """The manifest at *where* parsed by `tomllib`: what `plain_toml` leaves to it, bad TOML named."""
    import tomllib

    check_bounds(text, path=where, what="the manifest")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlaitError(f"the manifest does not parse: {exc}", path=where) from None


def resolved_below(top: Path, rel: str) -> Path:
    """``(top / rel).resolve()`` for a resolved *top*, testing only the parts of *rel* when it is plain.

    `Path.resolve` tests every part from the root of the filesystem, and a
    fleet's manifest has two paths to resolve per consumer: that was half
    of loading it.  A part of *rel* that is a symlink, or a *rel* that is
    not plain (``..``, ``.``, absolute), is resolved in full.
    """
    if not is_plain_relative(rel):
        return (top / rel).resolve()
    path = str(top)
    for part in rel.split("/"):
        path = os.path.join(path, part)
        if os.path.islink(path):
            return (top / rel).resolve()
    return Path(path)


def _known_keys(table: Mapping[str, object], known: tuple[str, ...], where: str) -> None:
    """Refuse a key the table may not hold, naming it and the nearest one it may."""
    for key in table:
        if key not in known:
            import difflib  # (here: only a typo pays for it)

            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
            raise PlaitError(f"{where}: unknown key {key!r}{hint}")


def repository_top(folder: Path) -> Path | None:
    """The working tree of the git repository holding *folder*, found without GitPython
    (`plait check` loads a workspace and must start fast)."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _str(table: Mapping[str, object], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (not value and default is None):
        raise PlaitError(f"{where}: '{key}' must be a non-empty string")
    return value


def _strings(table: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PlaitError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _str_map(table: Mapping[str, object], key: str, where: str) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise PlaitError(f"{where}: '{key}' must map strings to strings")
    return {str(k): str(v) for k, v in value.items()}


def _module_name(table: Mapping[str, object], key: str, where: str) -> str | None:
    """An optional dotted module name relative to the copy's package (``embedding_client``)."""
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not all(part.isidentifier() for part in value.split(".")):
        raise PlaitError(f"{where}: '{key}' must be a dotted module name, e.g. \"embedding_client\"")
    return value


# A ref as a manifest may name it: a branch, a tag or a commit, never a reflog
# entry (``main@{1}``), a range or an option.
# (A pattern, compiled by `re` where a git-backed copy needs it: `plait check` of directories never does.)
_REF = r"(?!-)(?!/)(?!.*\.\.)(?!.*@\{)[A-Za-z0-9._/+-]+(?<!/)(?<!\.lock)"


def _git_values(spec: GitSpec, where: str) -> None:
    """Refuse a git URL, ref or subdir that git would read as something else.

    A manifest is data from a repository: its URL must not name a transport
    that runs a command (``ext::``), and a ref or subdir must not be an
    option (``--upload-pack=…``) or a reflog expression.
    """
    from .gitops import PROTOCOLS, url_protocol

    protocol = url_protocol(spec.url)
    if protocol not in PROTOCOLS or spec.url.startswith("-"):
        raise PlaitError(
            f"{where}: git = {spec.url!r} uses the {protocol!r} transport; plait lets git use only"
            f" {', '.join(PROTOCOLS)}"
        )
    if spec.ref is not None and not re.fullmatch(_REF, spec.ref):
        raise PlaitError(
            f"{where}: ref = {spec.ref!r} is not a branch, tag or commit name (letters, digits and ._/+-,"
            " not starting with '-', no '..' or '@{')"
        )
    if any(part.startswith("-") for part in spec.subdir.split("/")):
        raise PlaitError(f"{where}: subdir {spec.subdir!r} has a part beginning with '-', which git reads as an option")


def _relative(name: str, where: str) -> str:
    """*name* as a safe relative path inside a copy: no absolute path, no ``..``."""
    if not is_plain_relative(name):
        raise PlaitError(f"{where}: {name!r} must be a plain relative path inside the copy")
    return name


@functools.lru_cache(maxsize=64)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    # One compiled regex per set of globs: a copy's walk tests every name
    # against them, and `plait check` walks hundreds of files.
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns) or r"(?!)")


def matches(rel: str, patterns: Iterable[str]) -> bool:
    """Whether *rel* (a relative path) or one of its parts matches a glob of *patterns*."""
    glob = _globs(tuple(patterns))
    return bool(glob.match(rel)) or any(glob.match(part) for part in rel.split("/"))


def excluded(rel: str, patterns: Iterable[str]) -> bool:
    """Whether *rel* is left out of a copy: by *patterns* or by what is never part of one."""
    return matches(rel, (*_ALWAYS_EXCLUDED, *patterns))


def read_tree(path: Path, exclude: Iterable[str] = ()) -> dict[str, str]:
    """Every file under *path* (relative path → text, `plait.contents`), for a directory
    given on the command line (a base to adopt, a copy to diff)."""
    out: dict[str, str] = {}
    for file in sorted(path.rglob("*")):
        rel = file.relative_to(path).as_posix()
        if file.is_file() and not excluded(rel, exclude):
            out[rel] = _read_text(file, "a given tree")
    return out


def walk_tree(top: Path, *, exclude: Iterable[str], confine: Path, who: str) -> Iterator[tuple[str, Path]]:
    """``(relative path, path)`` of every file under *top*, sorted, without the excluded ones.

    The one walk behind reading a copy and hashing it (`plait check`), so
    both see the same files: `tree_files`, with each path a `Path`.
    """
    for rel, path in tree_files(top, exclude=exclude, confine=confine, who=who):
        yield rel, Path(path)


def tree_files(top: Path, *, exclude: Iterable[str], confine: Path, who: str) -> Iterator[tuple[str, str]]:
    """``(relative path, path)`` of every file under *top*, sorted, without the excluded ones.

    Each path a string: `plait check` hashes every file of a fleet, and
    making a `Path` of each cost more than opening it.  A symlink that
    resolves outside *confine* is refused with the path named, before
    anything is read through it.  A directory is tested against the globs
    before it is entered, so the name and the path of each level are all a
    file needs tested against.
    """
    if not top.is_dir():
        raise PlaitError(f"{who}: no such directory", path=str(top))
    skip = _globs((*_ALWAYS_EXCLUDED, *exclude))
    yield from _walk(str(top), "", skip, confine, who)


def _walk(folder: str, prefix: str, skip: re.Pattern[str], confine: Path, who: str) -> Iterator[tuple[str, str]]:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        raise unreadable(exc, Path(folder)) from None
    below: list[tuple[str, str]] = []
    for entry in entries:
        rel = prefix + entry.name
        if skip.match(entry.name) or (prefix and skip.match(rel)):
            continue
        if entry.is_symlink():
            target = Path(entry.path).resolve()
            if not target.is_relative_to(confine):
                raise PlaitError(f"{who}: symlink escapes the workspace (to {target})", path=entry.path)
        if entry.is_dir(follow_symlinks=False):
            below.append((entry.path, rel + "/"))
        elif entry.is_file():
            yield rel, entry.path
    for path, deeper in below:
        yield from _walk(path, deeper, skip, confine, who)


if TYPE_CHECKING:

    class _CopyFields(TypedDict):
        """What every copy declares, as `Copy` and `Lineage` take it."""

        name: str
        package: str
        root: Path
        confine: Path
        git: GitSpec | None
        repo_root: Path | None
        description: str
        exclude: tuple[str, ...]
        client_module: str | None


class Workspace:
    """A loaded manifest and everything it declares, with paths resolved and confined.

    The manifest is read by `plain_toml` when it is spelled plainly, else by
    the standard library's tomllib (`plait check` must start fast); the tomlkit `document`, which
    keeps comments and order for a write, is parsed only when asked for.
    """

    def __init__(self, manifest: Path, text: str) -> None:
        self.manifest = manifest
        self.text = text
        self.dir = manifest.parent
        # What this run found while checking copies out (a clone it could not
        # move), said in the run's report; and whether clones are fetched
        # (a worker process plans from what its parent already fetched).
        self.notes: list[str] = []
        self.fetch = True
        self._checked_out: set[str] = set()
        where = str(manifest)
        data = plain_toml(text) or _parse_toml(text, where)
        _known_keys(data, _TOP_KEYS, where)
        root = data.get("root", ".")
        if not isinstance(root, str):
            raise PlaitError("'root' must be a path", path=where)
        # The confinement: by default the manifest's directory.  A manifest may
        # widen it to its repository (the bundled one does: its canonical client
        # lives beside the workspace), never further: a manifest that could say
        # `root = "/"` would let every path it names lead anywhere.
        self._real_dir = self.dir.resolve()
        self.root = (self.dir / root).resolve()
        limit = repository_top(self._real_dir) or self._real_dir
        if not self.root.is_relative_to(limit):
            what = "its git repository" if limit != self._real_dir else "its own directory"
            raise PlaitError(f"'root' = {root!r} widens the workspace past {what} ({limit})", path=where)
        groups = data.get("groups", {})
        if not isinstance(groups, Mapping):
            raise PlaitError("[groups] must be a table", path=where)
        canonical = data.get(CANONICAL)
        # A project that vendors distributions from an index (pip) has no canonical client of its own.
        self.has_canonical = canonical is not None or not groups
        if canonical is None and groups:
            canonical = {"path": ".", "package": CANONICAL, "exclude": ["*"]}
        if not isinstance(canonical, Mapping):
            raise PlaitError("the manifest needs a [canonical] table", path=where)
        _known_keys(canonical, _COPY_KEYS, self._where(CANONICAL))
        self.canonical = self._copy(CANONICAL, canonical)
        lineages = data.get("lineages", {})
        consumers = data.get("consumers", {})
        if not isinstance(lineages, Mapping) or not isinstance(consumers, Mapping):
            raise PlaitError("[lineages] and [consumers] must be tables", path=where)
        for section, names in (("lineages", lineages), ("consumers", consumers), ("groups", groups)):
            for name in names:
                problem = copy_name_problem(name)
                if problem is not None:
                    raise PlaitError(f"[{section}] names a copy {name!r}: {problem}", path=where)
        self.lineages: dict[str, Lineage] = {name: self._lineage(name, t) for name, t in lineages.items()}
        self.consumers: dict[str, Consumer] = {name: self._consumer(name, t) for name, t in consumers.items()}
        self.groups: dict[str, Group] = {name: self._group(name, t) for name, t in groups.items()}
        if CANONICAL in self.lineages:
            raise PlaitError("a lineage cannot be called 'canonical'", path=where)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Workspace:
        """The workspace at *path* (a directory or its manifest), or found by `locate`."""
        manifest = locate(path)
        try:
            text = manifest.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PlaitError(f"the manifest does not parse: {exc}", path=str(manifest)) from None
        except OSError as exc:
            raise unreadable(exc, manifest) from None
        return cls(manifest, text)

    @functools.cached_property
    def store(self) -> Store:
        """The base store and sync state, under ``.plait`` beside the manifest."""
        from .store import Store

        return Store(self.dir / STORE_DIR, self.dir)

    @functools.cached_property
    def document(self) -> tomlkit.TOMLDocument:
        """The manifest as a tomlkit document: edit it, then `stage_manifest` (comments survive)."""
        import tomlkit

        return tomlkit.parse(self.text)

    # -- declarations --------------------------------------------------------

    def _where(self, section: str) -> str:
        return f"{self.manifest}: [{section}]"

    def _location(
        self, table: Mapping[str, object], section: str, name: str
    ) -> tuple[Path, Path, GitSpec | None, Path | None]:
        """(root, confine, git, repo_root) of a declared location."""
        where = self._where(section)
        if "git" in table and "path" in table:
            raise PlaitError(f"{where}: give either 'path' or 'git', not both")
        if "git" not in table:
            for key in ("ref", "subdir"):
                if key in table:
                    raise PlaitError(f"{where}: '{key}' belongs to a git-backed copy (give 'git' too)")
        if "git" in table:
            ref = _str(table, "ref", where) if "ref" in table else None
            spec = GitSpec(_str(table, "git", where), ref, _str(table, "subdir", where, "."))
            _git_values(spec, where)
            if spec.subdir != ".":
                _relative(spec.subdir, where)
            local = None if spec.is_remote else self.dir / spec.url
            if local is not None and local.exists():
                repo_root = local.resolve()
                spec = replace(spec, in_place=True)
            else:
                repo_root = (self.dir / STORE_DIR / CLONES / name).resolve()
            root = (repo_root / spec.subdir).resolve()
            if not root.is_relative_to(repo_root):
                raise PlaitError(f"{where}: subdir {spec.subdir!r} escapes its repository (a symlink?)")
            return root, repo_root, spec, repo_root
        rel = _str(table, "path", where)
        root = self.confined(rel, what=f"{where} path")
        return root, self.root, None, None

    def confined(self, rel: str, *, what: str) -> Path:
        """*rel* (relative to the manifest) resolved, refused if it leaves the workspace."""
        path = resolved_below(self._real_dir, rel)
        if not path.is_relative_to(self.root):
            raise PlaitError(f"{what} {rel!r} escapes the workspace ({self.root})")
        return path

    def _copy_fields(self, name: str, section: str, table: Mapping[str, object]) -> _CopyFields:
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
            "client_module": _module_name(table, "client_module", where),
        }

    def _copy(self, name: str, table: Mapping[str, object]) -> Copy:
        return Copy(**self._copy_fields(name, name, table))

    def _table(
        self, kind: str, name: str, table: object, known: tuple[str, ...]
    ) -> tuple[str, str, Mapping[str, object]]:
        """``[kind.name]`` as a table of known keys: its section, where it is, and the table itself."""
        section = f"{kind}.{name}"
        where = self._where(section)
        if not isinstance(table, Mapping):
            raise PlaitError(f"{where} must be a table")
        _known_keys(table, known, where)
        return section, where, table

    def _lineage(self, name: str, table: object) -> Lineage:
        section, where, table = self._table("lineages", name, table, _LINEAGE_KEYS)
        files = _str_map(table, "files", where)
        for source, target in files.items():
            _relative(source, f"{where} files")
            _relative(target, f"{where} files")
        transforms = table.get("transforms", {})
        if not isinstance(transforms, Mapping):
            raise PlaitError(f"{where}: 'transforms' must be a table")
        _known_keys(transforms, _TRANSFORM_KEYS, self._where(f"{section}.transforms"))
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
            tests=self.confined(_str(table, "tests", where), what=f"{where} tests") if tests is not None else None,
        )

    def _consumer(self, name: str, table: object) -> Consumer:
        section, where, table = self._table("consumers", name, table, _CONSUMER_KEYS)
        root, confine, git, _repo = self._location(table, section, name)
        vendor_rel = _relative(_str(table, "vendor_dir", where), where)
        vendor_dir = resolved_below(root, vendor_rel)
        if not vendor_dir.is_relative_to(root):
            raise PlaitError(f"{where}: vendor_dir {vendor_rel!r} escapes the consumer (a symlink?)")
        package = _str(table, "package", where)
        if package.rsplit(".", 1)[-1] != vendor_dir.name:
            raise PlaitError(
                f"{where}: package {package!r} cannot be imported from vendor_dir {vendor_rel!r}:"
                " the package's last name must be the directory's name"
            )
        tests = table.get("tests")
        return Consumer(
            name=name,
            root=root,
            confine=confine,
            vendor_dir=vendor_dir,
            package=package,
            source=_str(table, "source", where, CANONICAL),
            git=git,
            renames=_str_map(table, "rename", where),
            include=_strings(table, "include", where),
            exclude=_strings(table, "exclude", where),
            protected=_strings(table, "protected", where),
            description=_str(table, "description", where, ""),
            tests=self.confined(_str(table, "tests", where), what=f"{where} tests") if tests is not None else None,
            client_module=_module_name(table, "client_module", where),
            table=dict(table),
        )

    def _group(self, name: str, table: object) -> Group:
        """A ``[groups.NAME]`` table: many distributions vendored into one directory (`plait.groups`)."""
        from .groups.model import GROUP_KEYS, Group

        section, where, table = self._table("groups", name, table, GROUP_KEYS)
        directory = self.confined(_relative(_str(table, "path", where), where), what=f"{where} path")
        namespace = _str(table, "namespace", where)
        if not all(part.isidentifier() for part in namespace.split(".")):
            raise PlaitError(f'{where}: namespace {namespace!r} must be a dotted module name, e.g. "pip._vendor"')
        if namespace.rsplit(".", 1)[-1] != directory.name:
            raise PlaitError(
                f"{where}: namespace {namespace!r} cannot be imported from path {directory.name!r}:"
                " the namespace's last name must be the directory's name"
            )
        requirements = self.confined(_str(table, "requirements", where), what=f"{where} requirements")
        index_url = table.get("index_url")
        if index_url is not None and (not isinstance(index_url, str) or not index_url):
            raise PlaitError(f"{where}: 'index_url' must be a non-empty string")
        links = tuple(
            link if "://" in link else str(self.confined(link, what=f"{where} find_links"))
            for link in _strings(table, "find_links", where)
        )
        compat = table.get("vendoring", {})
        if not isinstance(compat, Mapping):
            raise PlaitError(f"{where}: 'vendoring' must be a table")
        return Group(
            name=name,
            directory=directory,
            namespace=namespace,
            requirements=requirements,
            confine=self.root,
            protected=_strings(table, "protected", where),
            index_url=index_url,
            find_links=links,
            description=_str(table, "description", where, ""),
            compat=dict(compat),
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

    def select_consumers(self, names: Iterable[str] | None = None) -> list[Consumer]:
        """The consumers named (default: all, in manifest order); an unknown name is an error."""
        if names is None:
            return list(self.consumers.values())
        chosen: list[Consumer] = []
        for name in names:
            if name not in self.consumers:
                known = ", ".join(self.consumers) or "none"
                raise PlaitError(f"no consumer named {name!r} (known: {known})", path=str(self.manifest))
            chosen.append(self.consumers[name])
        return chosen

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

    def read_files(
        self, copy: Copy | Consumer, *, root: Path | None = None, select: Callable[[str], bool] | None = None
    ) -> dict[str, str]:
        """Every file of *copy* (relative path → text), refusing escapes: `read_copy`'s texts."""
        return self.read_copy(copy, root=root, select=select).texts

    def read_copy(
        self, copy: Copy | Consumer, *, root: Path | None = None, select: Callable[[str], bool] | None = None
    ) -> Files:
        """Every file of *copy* (under *root*) that *select* takes, with the executable ones named.

        A symlink, a file or a directory that resolves outside the copy's
        confinement is refused with the path named.  A file is chosen by
        *select* (a consumer's include and exclude) before it is read, so a
        file nobody vendors costs nothing; every file read is carried byte
        for byte, whatever its encoding (`plait.contents`).
        """
        self.checkout(copy)
        self.refuse_sparse(copy, root=root)
        texts: dict[str, str] = {}
        executable: set[str] = set()
        for rel, path in self.walk_files(copy, root=root):
            if select is not None and not select(rel):
                continue
            texts[rel] = _read_text(path, copy.name)
            if is_executable(path):
                executable.add(rel)
        return Files(texts, frozenset(executable))

    def executables(self, copy: Copy | Consumer, *, root: Path | None = None) -> frozenset[str]:
        """The files of *copy* (under *root*) that are executable, without reading any (`read_copy`)."""
        self.checkout(copy)
        return frozenset(rel for rel, path in self.walk_files(copy, root=root) if is_executable(path))

    def walk_files(self, copy: Copy | Consumer, *, root: Path | None = None) -> Iterator[tuple[str, Path]]:
        """``(relative path, path)`` of every file of *copy* (under *root*), sorted, refusing escapes."""
        return walk_tree(root or copy.root, exclude=copy.exclude, confine=copy.confine, who=copy.name)

    def refuse_sparse(self, copy: Copy | Consumer, *, root: Path | None = None) -> None:
        """Refuse, by name, a directory of *copy* (under *root*) that a sparse checkout keeps
        files of out of the working tree: read from the disk it would look never vendored
        (or its files deleted), and a vendor would write pristine files over a committed patch.
        """
        import shlex

        from . import gitops

        top = root or copy.root
        hidden = gitops.sparse_paths(top)
        if hidden:
            repo = gitops.top_of(top)
            where = (top.parent.resolve() / top.name).relative_to(repo).as_posix() if repo else top.as_posix()
            shown = ", ".join(hidden[:3]) + (f" and {len(hidden) - 3} more" if len(hidden) > 3 else "")
            raise PlaitError(
                f"{copy.name}: {len(hidden)} file(s) of it are committed but outside the sparse checkout ({shown});"
                f" plait reads the working tree, so bring them in first (`git sparse-checkout add"
                f" {shlex.quote(where)}`, or `git sparse-checkout disable`), then run it again",
                path=str(top),
            )

    def checkout(self, copy: Copy | Consumer) -> None:
        """Make a git-backed copy's repository ready, once per run.

        - In place (a local path that exists): checked, never switched: its
          checkout must be the manifest's ``ref`` when one is given.
        - Otherwise it lives in the clone cache, ``.plait/clones/<name>``:
          cloned when missing (all at once, so a kill leaves no half-made
          clone), fetched and brought to ``ref`` when present.  A URL is
          cloned from itself; a relative path that this checkout does not
          have (a CI job that cloned only the workspace) from beside the
          workspace's own ``origin``, as git finds a submodule's relative URL.

        Nothing is ever created outside the workspace and its clone cache.
        """
        spec = copy.git
        if spec is None or copy.name in self._checked_out:
            return
        from . import gitops

        if spec.in_place:
            if spec.ref is not None:
                gitops.verify_ref(copy.confine, spec.ref)
            elif gitops.repo_of(copy.confine) is None:
                raise PlaitError(f"{copy.name}: git = {spec.url!r} is not a git repository", path=str(copy.confine))
        else:
            clones = self.store.root / CLONES
            self.store.confined(clones / copy.name)
            dest = clones / copy.name
            if gitops.is_complete_clone(dest):
                gitops.check_clone_config(dest)
                if self.fetch:
                    note = gitops.refresh(dest, spec.ref)
                    if note:
                        self.notes.append(note)
            else:
                gitops.clone(self.clone_url(copy), dest, spec.ref)
            ignore = clones / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# plait's clones of copies in other repositories: never committed\n*\n", "utf-8")
            # The subdir was resolved before the clone existed: a symlink in the
            # fresh clone must not lead the copy anywhere else.
            real = (dest / spec.subdir).resolve()
            if real != copy.root or not real.is_relative_to(dest.resolve()):
                raise PlaitError(
                    f"{copy.name}: subdir {spec.subdir!r} is a symlink in the clone (to {real}); plait reads"
                    " only a real directory there",
                    path=str(dest / spec.subdir),
                )
        self._checked_out.add(copy.name)

    def clone_url(self, copy: Copy | Consumer) -> str:
        """Where a copy that is not on disk is cloned from."""
        from . import gitops

        assert copy.git is not None
        spec = copy.git
        if spec.is_remote or "://" in spec.url:
            return spec.url
        top = repository_top(self.dir.resolve())
        origin = gitops.origin_url(self.dir) if top is not None else None
        if top is None or origin is None:
            raise PlaitError(
                f"{copy.name}: git = {spec.url!r} is not on this machine, and the workspace's repository has no"
                " remote 'origin' to find it beside; clone it there, or give its URL",
                path=str(self.manifest),
            )
        import posixpath

        relative = posixpath.normpath(posixpath.join(self.dir.resolve().relative_to(top).as_posix(), spec.url))
        if not relative.startswith("../"):
            raise PlaitError(
                f"{copy.name}: git = {spec.url!r} would be inside the workspace's own repository, and it is missing",
                path=str(self.manifest),
            )
        return gitops.join_url(origin, relative)

    def target(self, copy: Copy | Consumer, rel: str, *, root: Path | None = None) -> Path:
        """Where *rel* of *copy* (under *root*, default its root) is written; refused if that leaves it."""
        _relative(rel, f"{copy.name}")
        top = root or copy.root
        path = top / rel
        resolved = path.resolve()
        if not resolved.is_relative_to(copy.confine) or not resolved.is_relative_to(top.resolve()):
            raise PlaitError(f"{copy.name}: writing {rel} would leave the workspace (a symlink?)", path=str(path))
        return path

    # -- what a run may write -------------------------------------------------

    def writable(self, path: Path) -> bool:
        """Whether a run may write or remove *path*: inside the workspace, or inside
        the repository of a copy the manifest names, or inside the store."""
        resolved = path.parent.resolve() / path.name
        tops = [self.root, self.store.root.resolve(), *(c.confine for c in self._everything())]
        return any(resolved.is_relative_to(top) for top in tops)

    def run_folders(self) -> list[Path]:
        """The directories a run writes into, where a killed run's temporary files may be."""
        folders = [self.dir]
        folders += [lineage.root for lineage in self.lineages.values()]
        folders += [consumer.vendor_dir for consumer in self.consumers.values()]
        folders += [group.directory for group in self.groups.values()]
        return [f for f in folders if f.is_dir()]

    def _everything(self) -> list[Copy | Consumer]:
        return [self.canonical, *self.lineages.values(), *self.consumers.values()]

    # -- writing the manifest ------------------------------------------------

    def stage_manifest(self, txn: Transaction) -> None:
        """Add the manifest, as edited in `document`, to *txn* (comments survive)."""
        import tomlkit

        txn.write(self.manifest, tomlkit.dumps(self.document))

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

    When the workspace's boundary is its git repository, the copy is a
    repository with the same history (a shared clone, its files then taken
    from the disk as they are): `plait adopt` in the copy walks the same
    commits as in the original, and a commit recorded in a lock is a real one.
    """
    import shutil  # (here: shutil's import is a tenth of `plait check`'s start-up, which never copies)

    ignore = shutil.ignore_patterns(*_NEVER_COPIED, ".pytest_cache", "clones")
    roots: list[Path] = [ws.dir]
    items: list[Copy | Consumer] = [ws.canonical, *ws.lineages.values(), *ws.consumers.values()]
    for item in items:
        if item.git is not None:
            raise PlaitError(
                f"{item.name} is git-backed; only directory workspaces can be copied", path=str(ws.manifest)
            )
        if not item.root.is_relative_to(ws.dir):
            roots.append(item.root)
    if ws.root != ws.dir.resolve():
        # A manifest may widen its boundary only as far as its repository, so a
        # copy of one that does is made a repository too.
        from . import gitops

        if repository_top(ws.root) == ws.root:
            gitops.shared_clone(ws.root, dest)
        else:
            gitops.init(dest)
    for root in roots:
        shutil.copytree(root, dest / root.relative_to(ws.root), ignore=ignore, dirs_exist_ok=True, symlinks=True)
    return Workspace.load(dest / ws.manifest.relative_to(ws.root))
