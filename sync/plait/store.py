"""What plait remembers between runs: base contents, and what each copy last synced from.

A 3-way merge needs the base, and CI clones shallowly, so the base content
cannot come from git history.  It lives in a content-addressed store in the
workspace, ``.plait/objects/ab/cdef…``: each file is stored once, as is,
named by its sha256, so a reviewer reads a new base as plain text, and a
file that no longer hashes to its name is caught and named instead of being
merged from.

``.plait/state.toml`` says which objects make up each lineage's base (one
sha256 per file, plus the source commit when git knew it) and whether a sync
is waiting for a conflict to be resolved.  It is kept apart from the
manifest on purpose: the manifest is what people declare, the state is what
plait observed, so a sync never rewrites a hand-edited file, and a sync's
pull request shows the base moving as one line per file in one small file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from . import contents
from .errors import PlaitError
from .paths import CACHE_DIR, JOURNAL_NAME, STORE_DIR, is_plain_relative, read_bytes
from .records import field, record
from .toml_input import check_bounds

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import Any

    # tomlkit is imported where the state is read or written: `plait check`
    # loads a workspace (and so this module) but never the state.
    import tomlkit
    from tomlkit.items import Table

    from .commit import Transaction

__all__ = [
    "STORE_DIR",
    "CorruptState",
    "CorruptStore",
    "Snapshot",
    "State",
    "Store",
    "SyncRecord",
    "digest_of",
]


_STATE_HEADER = """\
Written by plait; do not edit by hand.  What each copy last synced from:
one sha256 per file (the content is in objects/<first 2 hex>/<other 62>)
and the source commit when git knew it.  `plait adopt` records a first base,
`plait sync` moves it, `plait sync --continue` / `--abort` end a conflict."""

# What plait's own bookkeeping in the store is called; never committed.
STORE_GITIGNORE = """\
# plait's run-time files: an interrupted run's journal, staged files, the
# clones of remote copies and the cache of derived files.  The objects and
# state.toml are committed: they are the bases every 3-way merge needs.
journal.json
.*.plait-tmp
clones/
cache/
"""

# The objects are bytes named by their digest: a checkout that converts line
# endings (core.autocrlf, an eol rule) must not change them, or every base
# reads as corrupt there.
STORE_GITATTRIBUTES = """\
# plait's objects are named by the sha256 of their bytes: git never converts them.
objects/** -text
"""

# The cache keeps itself out of git, so a store whose .gitignore predates it
# (written once; the user may have edited it) never shows it either.
CACHE_GITIGNORE = "# plait's cache of derived files (rebuilt when missing); never committed.\n*\n"

try:  # hashlib's own OpenSSL sha256, without hashlib's start-up (which makes one of every hash it offers)
    from _hashlib import openssl_sha256 as _sha256
except ImportError:  # an interpreter built without OpenSSL
    from hashlib import sha256 as _sha256

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX40 = r"[0-9a-f]{40}([0-9a-f]{24})?"  # (compiled by `re` when a state is read, which `plait check` never does)

# Every key a record of the state may hold: a typo or a hand edit is named,
# never half-understood.
_RECORD_KEYS = (
    "source",
    "state",
    "conflicted_files",
    "commit",
    "tree",
    "files",
    "executable",
    "pending",
    "before",
    "before_executable",
)
_SNAPSHOT_KEYS = ("commit", "tree", "files", "executable")


class CorruptStore(PlaitError):
    """A store entry that is missing or does not hash to its name."""


class CorruptState(PlaitError):
    """A sync state (``.plait/state.toml``) that is not what plait writes."""


def digest_of(data: str | bytes) -> str:
    """The sha256 hex digest of *data*: of its bytes, text as the bytes it was read from (`plait.contents`)."""
    raw = contents.encode(data) if isinstance(data, str) else data
    return _sha256(raw).hexdigest()


def _nearest(key: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


@record(frozen=True)
class Snapshot:
    """The state of a copy's files, by content: relative path → sha256.

    ``commit`` is the git commit the files came from, when they came from a
    clean git checkout; ``tree`` identifies the whole set when there is none.
    ``executable`` names the files that were executable (git's 100755): a
    mode is merged like content, so a sync needs the base's.  (Not part of
    ``tree``, which names the content; a state written before modes were
    recorded reads as none executable.)
    """

    files: Mapping[str, str]
    commit: str | None = None
    executable: frozenset[str] = frozenset()

    @property
    def tree(self) -> str:
        listing = "".join(f"{digest}  {name}\n" for name, digest in sorted(self.files.items()))
        return digest_of(listing)

    @property
    def short(self) -> str:
        """A short id for people: the commit's first 7 hex, else ``tree:`` and 10 hex."""
        return self.commit[:7] if self.commit else f"tree:{self.tree[:10]}"

    def to_toml(self) -> Table:
        import tomlkit

        table = tomlkit.table()
        if self.commit:
            table["commit"] = self.commit
        table["tree"] = self.tree
        files = tomlkit.table()
        for name in sorted(self.files):
            files[name] = self.files[name]
        if self.executable:
            table["executable"] = sorted(self.executable)
        table["files"] = files
        return table

    @classmethod
    def from_toml(cls, data: Mapping[str, Any], *, where: str, allowed: Iterable[str] = _SNAPSHOT_KEYS) -> Snapshot:
        """A snapshot as the state records it, every key and type checked.

        *where* names the file and the table (``state.toml: [lineages.sibling]``).
        The recorded ``tree`` must be the tree of the recorded files: a hand
        edit of one without the other is caught here, before a merge trusts it.
        """
        unknown = [k for k in data if k not in allowed]
        if unknown:
            raise CorruptState(f"{where}: unknown key {unknown[0]!r}{_nearest(unknown[0], allowed)}")
        files = data.get("files")
        if not isinstance(files, Mapping):
            raise CorruptState(f"{where}: 'files' must be a table of file name = sha256")
        if not files:
            raise CorruptState(f"{where}: 'files' is empty; a base without files would merge from nothing")
        for name, digest in files.items():
            if not isinstance(name, str) or not is_plain_relative(name):
                raise CorruptState(f"{where}.files: {name!r} is not a plain relative path inside the copy")
            if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
                raise CorruptState(f"{where}.files: {name!r} = {digest!r} is not a sha256 hex digest")
        commit = data.get("commit")
        if commit is not None and (not isinstance(commit, str) or not re.fullmatch(_HEX40, commit)):
            raise CorruptState(f"{where}: 'commit' = {commit!r} is not a git commit id")
        executable = data.get("executable", [])
        if not isinstance(executable, list) or not all(isinstance(n, str) and n in files for n in executable):
            raise CorruptState(f"{where}: 'executable' must list files of 'files'")
        snapshot = cls({str(k): str(v) for k, v in files.items()}, commit, frozenset(executable))
        tree = data.get("tree")
        if not isinstance(tree, str) or not _HEX64.fullmatch(tree):
            raise CorruptState(f"{where}: 'tree' must be the sha256 of the listing of 'files'")
        if tree != snapshot.tree:
            raise CorruptState(f"{where}: 'tree' does not match 'files' (edited by hand?)")
        return snapshot


@record
class SyncRecord:
    """What one lineage last synced from, and a sync in progress if any.

    source: the name of the copy it syncs from.
    base: the source's files as last synced (the next merge's base).
    pending: while conflicted, the source state the conflicted sync merged;
      it becomes the base on ``--continue``.
    before: while conflicted, each lineage file the sync touched → its digest
      before the sync (``None``: it did not exist); ``--abort`` restores them.
    conflicted_files: while conflicted, the lineage files written with markers.
    before_executable: while conflicted, the files of *before* that were
      executable; ``--abort`` gives them their mode back too (None: a record
      from before modes were recorded, whose files keep the mode they have).
    """

    source: str
    base: Snapshot
    pending: Snapshot | None = None
    before: dict[str, str | None] = field(default_factory=dict)
    conflicted_files: list[str] = field(default_factory=list)
    before_executable: list[str] | None = None

    @property
    def conflicted(self) -> bool:
        return self.pending is not None

    def digests(self) -> Iterator[str]:
        """Every object this record keeps alive."""
        yield from self.base.files.values()
        if self.pending is not None:
            yield from self.pending.files.values()
        yield from (d for d in self.before.values() if d)


def _record_from(name: str, data: Any, where: str) -> SyncRecord:
    if not isinstance(data, Mapping):
        raise CorruptState(f"{where} must be a table")
    unknown = [k for k in data if k not in _RECORD_KEYS]
    if unknown:
        raise CorruptState(f"{where}: unknown key {unknown[0]!r}{_nearest(unknown[0], _RECORD_KEYS)}")
    source = data.get("source")
    if not isinstance(source, str) or not source:
        raise CorruptState(f"{where}: 'source' must name the copy it syncs from")
    base = Snapshot.from_toml({k: data[k] for k in _SNAPSHOT_KEYS if k in data}, where=where)
    marker = data.get("state")
    pending_data = data.get("pending")
    if marker is not None and marker != "conflicted":
        raise CorruptState(f"{where}: 'state' = {marker!r}; the only state plait records is \"conflicted\"")
    if (marker == "conflicted") != (pending_data is not None):
        raise CorruptState(f'{where}: a conflicted record needs both state = "conflicted" and [pending]')
    if pending_data is None:
        for key in ("before", "conflicted_files", "before_executable"):
            if key in data:
                raise CorruptState(f"{where}: {key!r} belongs to a conflicted sync, and this one is not")
        return SyncRecord(source, base)
    if not isinstance(pending_data, Mapping):
        raise CorruptState(f"{where}: 'pending' must be a table")
    pending = Snapshot.from_toml(pending_data, where=f"{where[:-1]}.pending]")
    before_data = data.get("before", {})
    if not isinstance(before_data, Mapping):
        raise CorruptState(f"{where}: 'before' must be a table of file name = sha256 (or \"\" for no file)")
    before: dict[str, str | None] = {}
    for rel, digest in before_data.items():
        if not isinstance(rel, str) or not is_plain_relative(rel):
            raise CorruptState(f"{where}.before: {rel!r} is not a plain relative path inside the copy")
        if not isinstance(digest, str) or (digest and not _HEX64.fullmatch(digest)):
            raise CorruptState(f'{where}.before: {rel!r} = {digest!r} is not a sha256 hex digest or ""')
        before[rel] = digest or None
    conflicted = data.get("conflicted_files", [])
    if not isinstance(conflicted, list) or not all(isinstance(f, str) and is_plain_relative(f) for f in conflicted):
        raise CorruptState(f"{where}: 'conflicted_files' must be a list of relative file names")
    executable = data.get("before_executable")
    if executable is not None and (
        not isinstance(executable, list) or not all(isinstance(f, str) and f in before for f in executable)
    ):
        raise CorruptState(f"{where}: 'before_executable' must list files of 'before'")
    return SyncRecord(source, base, pending, before, list(conflicted), executable)


class State:
    """``.plait/state.toml``, read and written with tomlkit, validated when read."""

    def __init__(self, path: Path, document: tomlkit.TOMLDocument) -> None:
        self.path = path
        self.document = document
        self._records = self._validate()

    @classmethod
    def load(cls, path: Path) -> State:
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        if not os.path.lexists(path):
            doc = tomlkit.document()
            for line in _STATE_HEADER.splitlines():
                doc.add(tomlkit.comment(line))
            doc.add(tomlkit.nl())
            return cls(path, doc)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise CorruptState(f"the sync state cannot be read: {exc.strerror or exc}", path=str(path)) from None
        try:
            text = raw.decode("utf-8")
            check_bounds(text, path=str(path), what="the sync state")
            return cls(path, tomlkit.parse(text))
        except PlaitError as exc:
            raise CorruptState(exc.message, path=str(path)) from None
        except (TOMLKitError, UnicodeDecodeError) as exc:
            raise CorruptState(f"the sync state does not parse: {exc}", path=str(path)) from None

    def _validate(self) -> dict[str, SyncRecord]:
        data = self.document.unwrap()
        unknown = [k for k in data if k != "lineages"]
        if unknown:
            raise CorruptState(f"{self.path}: unknown key {unknown[0]!r}{_nearest(unknown[0], ['lineages'])}")
        table = data.get("lineages", {})
        if not isinstance(table, Mapping):
            raise CorruptState(f"{self.path}: [lineages] must be a table")
        return {name: _record_from(name, value, f"{self.path}: [lineages.{name}]") for name, value in table.items()}

    def names(self) -> list[str]:
        return list(self._records)

    def record(self, name: str) -> SyncRecord | None:
        return self._records.get(name)

    def set_record(self, name: str, record: SyncRecord) -> None:
        import tomlkit
        from tomlkit.items import Table

        # "source" first: a reviewer reads what it synced from, then the hashes.
        ordered = tomlkit.table()
        ordered["source"] = record.source
        if record.conflicted:
            ordered["state"] = "conflicted"
            ordered["conflicted_files"] = sorted(record.conflicted_files)
        for key, value in record.base.to_toml().items():
            ordered[key] = value
        if record.pending is not None:
            ordered["pending"] = record.pending.to_toml()
            before = tomlkit.table()
            for rel in sorted(record.before):
                before[rel] = record.before[rel] or ""
            ordered["before"] = before
            if record.before_executable is not None:
                ordered["before_executable"] = sorted(record.before_executable)
        if "lineages" not in self.document:
            self.document["lineages"] = tomlkit.table(is_super_table=True)
        lineages = self.document["lineages"]
        assert isinstance(lineages, Table)
        lineages[name] = ordered
        self._records[name] = record

    def referenced(self) -> set[str]:
        """Every object digest the state's records keep alive (bases, pending bases, files before a sync)."""
        return {digest for record in self._records.values() for digest in record.digests()}

    def dumps(self) -> str:
        import tomlkit

        return tomlkit.dumps(self.document)


class Store:
    """The content-addressed objects and the state, under ``<workspace>/.plait``.

    boundary: the directory the store must stay inside (the manifest's).  A
    ``.plait``, ``objects``, fan-out directory, object or ``state.toml`` that
    is a symlink leading out is refused before anything is read or written
    through it: a store is written and pruned, so a link out would let a
    sync write or delete files anywhere.
    """

    def __init__(self, root: Path, boundary: Path | None = None) -> None:
        self.root = root
        self.boundary = boundary if boundary is not None else root.parent
        self.objects = root / "objects"
        self.cache = root / CACHE_DIR
        self.state_path = root / "state.toml"
        self._root_resolved: Path | None = None
        self._safe: set[Path] = set()

    def confined(self, path: Path) -> Path:
        """*path* (inside the store), refused when a symlink on the way leads out of the store.

        The store's own place and every directory already found safe are
        remembered for the run: `plait check` reads hundreds of objects, and
        resolving the same directories for each was most of its time.
        """
        store = self._resolved_root()
        probe = self.root
        for part in path.relative_to(self.root).parts:
            probe = probe / part
            if probe in self._safe:
                continue
            if probe.is_symlink() and not probe.resolve().is_relative_to(store):
                raise CorruptStore(
                    f"a symlink in the store leads out of it (to {probe.resolve()}); plait writes only inside it",
                    path=str(probe),
                )
            if probe.is_dir():
                self._safe.add(probe)
        return path

    def _resolved_root(self) -> Path:
        if self._root_resolved is None:
            top = self.boundary.resolve()
            store = top / self.root.name
            if os.path.lexists(self.root):
                store = self.root.resolve()
                if not store.is_relative_to(top):
                    raise CorruptStore(f"the store leads out of the workspace (to {store})", path=str(self.root))
                self._root_resolved = store
            return store
        return self._root_resolved

    def refuse_if_interrupted(self) -> None:
        """A command that only reads (status, check, diff, a dry run) would report half of a
        killed run as if it were the workspace; it says what to run instead."""
        journal = self.root / JOURNAL_NAME
        if os.path.lexists(journal):
            raise PlaitError(
                "a plait run was interrupted after it started writing; run any command that writes"
                " (`plait sync`, `plait vendor`, `plait adopt`), without --dry-run, to finish it",
                path=str(journal),
            )

    def path_of(self, digest: str) -> Path:
        return self.objects / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.confined(self.path_of(digest)).is_file()

    def read(self, digest: str, *, what: str) -> bytes:
        """The content stored under *digest*, verified; *what* names it in errors."""
        path = self.confined(self.path_of(digest))
        try:
            data = read_bytes(path)
        except FileNotFoundError:
            raise CorruptStore(f"store entry for {what} is missing ({digest[:12]}…)", path=str(path)) from None
        except OSError as exc:
            raise CorruptStore(f"store entry for {what} cannot be read: {exc.strerror}", path=str(path)) from None
        actual = digest_of(data)
        if actual != digest:
            raise CorruptStore(
                f"store entry for {what} is corrupt: it hashes to {actual[:12]}…, not {digest[:12]}…", path=str(path)
            )
        return data

    def read_text(self, digest: str, *, what: str) -> str:
        """The content stored under *digest*, verified, as plait's text of its bytes (`plait.contents`)."""
        return contents.decode(self.read(digest, what=what))

    def load(self, snapshot: Snapshot, *, what: str) -> dict[str, str]:
        """Every file of *snapshot* as text, each verified against its digest."""
        return {name: self.read_text(d, what=f"{what} {name}") for name, d in sorted(snapshot.files.items())}

    def stage(self, txn: Transaction, data: str | bytes) -> str:
        """Add *data* to *txn* unless already stored; its digest either way."""
        raw = contents.encode(data) if isinstance(data, str) else data
        digest = digest_of(raw)
        txn.named.add(digest)
        if not self.has(digest):
            txn.add_object(digest, raw)
        return digest

    def snapshot(
        self,
        txn: Transaction,
        files: Mapping[str, str],
        commit: str | None = None,
        executable: Iterable[str] = (),
    ) -> Snapshot:
        """Store every file of *files* (via *txn*) and describe them as a snapshot."""
        return Snapshot({name: self.stage(txn, text) for name, text in files.items()}, commit, frozenset(executable))

    def state(self) -> State:
        return State.load(self.confined(self.state_path))

    def stage_state(self, txn: Transaction, state: State) -> None:
        """The state is switched last: it says which bases are current."""
        txn.write(self.confined(self.state_path), state.dumps(), last=True)

    def stage_gitignore(self, txn: Transaction) -> None:
        """Keep the store's run-time files out of git, and its objects from git's line-ending
        conversion, once each: the user may edit them after."""
        ignore = self.root / ".gitignore"
        if not os.path.lexists(ignore):
            txn.write(self.confined(ignore), STORE_GITIGNORE)
        attributes = self.root / ".gitattributes"
        if not os.path.lexists(attributes):
            txn.write(self.confined(attributes), STORE_GITATTRIBUTES)

    # -- the cache of derived files -------------------------------------------
    #
    # What plait derives from a store object over and over (a source file
    # through a consumer's import rewrite) is remembered between runs.  An
    # entry is named by what it was derived from (the key: the input's
    # digest and how it was derived) and holds the digest of the result, an
    # object of the store, plus a check of both; the result is read, and
    # verified, like any object.  An entry that is missing, does not check,
    # or names an object that is gone is a miss: the caller derives again,
    # so a cache entry can cost time, never change a result.

    def cached(self, key: str) -> str | None:
        """The text derived under *key*, verified; None when the cache does not have it."""
        path = self._cache_path(key)
        try:
            self.confined(path)
            digest = _cache_target(key, path.read_bytes())
            return None if digest is None else self.read_text(digest, what="a cached file")
        except (OSError, CorruptStore):
            return None

    def stage_cached(self, txn: Transaction, key: str, digest: str) -> None:
        """Remember (via *txn*) that *key* derives the object *digest*, unless the cache says so already.

        Through the commit protocol like every other write, so the entry
        appears with the objects and the locks that name them, or not at all.
        """
        path = self._cache_path(key)
        self.confined(path.parent)  # (an entry that is a symlink is replaced, never followed)
        entry = _cache_entry(key, digest)
        try:
            if not path.is_symlink() and path.read_bytes() == entry:
                return
        except OSError:
            pass
        ignore = self.cache / ".gitignore"
        if not os.path.lexists(ignore) and ignore not in txn.writes:
            txn.write(self.confined(ignore), CACHE_GITIGNORE)
        txn.write(path, entry)

    def stale_cache(self, keep: Iterable[str]) -> list[Path]:
        """Every cache entry whose result is no object in *keep*, for the prune that ends a commit."""
        alive = set(keep)
        stale: list[Path] = []
        for key, entry in self._fanned_out(self.cache):
            try:
                digest = _cache_target(key, entry.read_bytes())
            except OSError:
                digest = None
            if digest not in alive:
                stale.append(entry)
        return stale

    def committed_paths(self, paths: Iterable[Path]) -> list[Path]:
        """Those of *paths* inside the store that belong in git: all but the cache."""
        return [p for p in paths if p.is_relative_to(self.root) and not p.is_relative_to(self.cache)]

    def _cache_path(self, key: str) -> Path:
        return self.cache / key[:2] / key[2:]

    def unreferenced(self, keep: Iterable[str]) -> list[Path]:
        """Every object file not in *keep*, for the prune that ends a commit."""
        alive = set(keep)
        return [entry for digest, entry in self._fanned_out(self.objects) if digest not in alive]

    def _fanned_out(self, top: Path) -> Iterator[tuple[str, Path]]:
        """``(name, path)`` of every entry of *top* stored as ``ab/cdef…`` (64 hex in all), never a symlink."""
        if not self.confined(top).is_dir():
            return
        for folder in sorted(top.iterdir()):
            self.confined(folder)
            if not folder.is_dir() or len(folder.name) != 2:
                continue
            for entry in sorted(folder.iterdir()):
                name = folder.name + entry.name
                if _HEX64.fullmatch(name) and not entry.is_symlink():
                    yield name, entry


def _cache_entry(key: str, digest: str) -> bytes:
    return f"{digest} {digest_of(f'{key} {digest}')}\n".encode("ascii")


def _cache_target(key: str, entry: bytes) -> str | None:
    """The object digest a cache entry names, or None when the entry does not check."""
    fields = entry.decode("ascii", "replace").split()
    if len(fields) != 2 or not _HEX64.fullmatch(fields[0]) or entry != _cache_entry(key, fields[0]):
        return None
    return fields[0]
