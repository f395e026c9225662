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

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import WriteBatch
from .errors import PlaitError
from .paths import STORE_DIR

if TYPE_CHECKING:
    # tomlkit is imported where the state is read or written: `plait check`
    # loads a workspace (and so this module) but never the state.
    import tomlkit
    from tomlkit.items import Table

__all__ = [
    "STORE_DIR",
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

_HEX64 = re.compile(r"[0-9a-f]{64}")


class CorruptStore(PlaitError):
    """A store entry that is missing or does not hash to its name."""


def digest_of(data: str | bytes) -> str:
    """The sha256 hex digest of *data* (text is hashed as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """The state of a copy's files, by content: relative path → sha256.

    ``commit`` is the git commit the files came from, when they came from a
    clean git checkout; ``tree`` identifies the whole set when there is none.
    """

    files: Mapping[str, str]
    commit: str | None = None

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
        table["files"] = files
        return table

    @classmethod
    def from_toml(cls, data: Mapping[str, Any], *, where: str) -> Snapshot:
        files = data.get("files", {})
        if not isinstance(files, Mapping) or not all(
            isinstance(v, str) and _HEX64.fullmatch(v) for v in files.values()
        ):
            raise PlaitError(f"{where}: files must map names to sha256 hex digests")
        commit = data.get("commit")
        if commit is not None and not isinstance(commit, str):
            raise PlaitError(f"{where}: commit must be a string")
        return cls({str(k): str(v) for k, v in files.items()}, commit)


@dataclass
class SyncRecord:
    """What one lineage last synced from, and a sync in progress if any.

    source: the name of the copy it syncs from.
    base: the source's files as last synced (the next merge's base).
    pending: while conflicted, the source state the conflicted sync merged;
      it becomes the base on ``--continue``.
    before: while conflicted, each lineage file the sync touched → its digest
      before the sync (``None``: it did not exist); ``--abort`` restores them.
    conflicted_files: while conflicted, the lineage files written with markers.
    """

    source: str
    base: Snapshot
    pending: Snapshot | None = None
    before: dict[str, str | None] = field(default_factory=dict)
    conflicted_files: list[str] = field(default_factory=list)

    @property
    def conflicted(self) -> bool:
        return self.pending is not None

    def digests(self) -> Iterator[str]:
        """Every object this record keeps alive."""
        yield from self.base.files.values()
        if self.pending is not None:
            yield from self.pending.files.values()
        yield from (d for d in self.before.values() if d)


class State:
    """``.plait/state.toml``, read and written with tomlkit."""

    def __init__(self, path: Path, document: tomlkit.TOMLDocument) -> None:
        self.path = path
        self.document = document

    @classmethod
    def load(cls, path: Path) -> State:
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        if not path.exists():
            doc = tomlkit.document()
            for line in _STATE_HEADER.splitlines():
                doc.add(tomlkit.comment(line))
            doc.add(tomlkit.nl())
            return cls(path, doc)
        try:
            return cls(path, tomlkit.parse(path.read_text(encoding="utf-8")))
        except (TOMLKitError, UnicodeDecodeError) as exc:
            raise PlaitError(f"the sync state does not parse: {exc}", path=str(path)) from None

    def _lineages(self) -> Mapping[str, Any]:
        table = self.document.get("lineages", {})
        if not isinstance(table, Mapping):
            raise PlaitError("[lineages] must be a table", path=str(self.path))
        return table

    def names(self) -> list[str]:
        return list(self._lineages())

    def record(self, name: str) -> SyncRecord | None:
        data = self._lineages().get(name)
        if data is None:
            return None
        where = f"{self.path}: [lineages.{name}]"
        if not isinstance(data, Mapping) or not isinstance(data.get("source"), str):
            raise PlaitError(f"{where} needs a source name")
        pending = data.get("pending")
        before = data.get("before", {})
        return SyncRecord(
            source=data["source"],
            base=Snapshot.from_toml(data, where=where),
            pending=Snapshot.from_toml(pending, where=f"{where}.pending") if pending is not None else None,
            before={str(k): (str(v) or None) for k, v in before.items()},
            conflicted_files=[str(f) for f in data.get("conflicted_files", [])],
        )

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
        if "lineages" not in self.document:
            self.document["lineages"] = tomlkit.table(is_super_table=True)
        lineages = self.document["lineages"]
        assert isinstance(lineages, Table)
        lineages[name] = ordered

    def referenced(self) -> set[str]:
        """Every object digest the state mentions, wherever it sits.

        Any sha256 value anywhere in the file keeps its object alive.  The
        bases of vendored copies are named by their locks instead
        (`Workspace.prune_store` keeps those too).
        """
        found: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, str) and _HEX64.fullmatch(value):
                found.add(value)
            elif isinstance(value, Mapping):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(self.document.unwrap())
        return found

    def dumps(self) -> str:
        import tomlkit

        return tomlkit.dumps(self.document)


class Store:
    """The content-addressed objects and the state, under ``<workspace>/.plait``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.objects = root / "objects"
        self.state_path = root / "state.toml"

    def path_of(self, digest: str) -> Path:
        return self.objects / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.path_of(digest).is_file()

    def read(self, digest: str, *, what: str) -> bytes:
        """The content stored under *digest*, verified; *what* names it in errors."""
        path = self.path_of(digest)
        try:
            data = path.read_bytes()
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
        data = self.read(digest, what=what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptStore(f"store entry for {what} is not UTF-8 text", path=str(self.path_of(digest))) from None

    def load(self, snapshot: Snapshot, *, what: str) -> dict[str, str]:
        """Every file of *snapshot* as text, each verified against its digest."""
        return {name: self.read_text(d, what=f"{what} {name}") for name, d in sorted(snapshot.files.items())}

    def stage(self, batch: WriteBatch, data: str | bytes) -> str:
        """Add *data* to *batch* unless already stored; its digest either way."""
        digest = digest_of(data)
        if not self.has(digest):
            batch.write(self.path_of(digest), data)
        return digest

    def snapshot(self, batch: WriteBatch, files: Mapping[str, str], commit: str | None = None) -> Snapshot:
        """Store every file of *files* (via *batch*) and describe them as a snapshot."""
        return Snapshot({name: self.stage(batch, text) for name, text in files.items()}, commit)

    def state(self) -> State:
        return State.load(self.state_path)

    def stage_state(self, batch: WriteBatch, state: State) -> None:
        batch.write(self.state_path, state.dumps())

    def prune(self, batch: WriteBatch, keep: Iterable[str]) -> list[str]:
        """Remove (via *batch*) every object not in *keep*; the digests removed.

        Objects staged in the same batch are kept whatever *keep* says.
        """
        alive = set(keep) | {p.parent.name + p.name for p in batch.writes if p.parent.parent == self.objects}
        gone: list[str] = []
        if not self.objects.is_dir():
            return gone
        for folder in sorted(self.objects.iterdir()):
            if not folder.is_dir():
                continue
            for entry in sorted(folder.iterdir()):
                digest = folder.name + entry.name
                if digest not in alive and _HEX64.fullmatch(digest):
                    batch.remove(entry)
                    gone.append(digest)
        return gone
