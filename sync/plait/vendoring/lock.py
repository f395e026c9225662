"""The provenance lock a vendored directory carries: what it was vendored from, file by file.

``plait vendor`` writes ``plait.lock`` into each vendored directory; ``plait
check`` reads it.  It records:

- the source (``canonical`` or a lineage), its package and its git commit;
  commits, never ``__version__`` strings, say which copy is newer;
- the plait version that wrote it;
- per file, three sha256 digests: ``sha256`` of the file as vendored (what
  ``check`` compares with the disk), ``base`` of the pristine transformed
  source (the next merge's base; its content is in the workspace store), and
  ``source`` of the source file as it was (what ``check`` compares with the
  source now); and an executable file's mode as git writes it,
  ``mode = "100755"`` as vendored and ``base_mode`` for its base (a lock
  with any is format 2; `check` then holds every file to its mode);
- the local edits the vendored copy carries, by node path;
- while a conflict waits for its markers to be resolved, the files that hold them.

So the lock plus the store are enough, with no git history at all, to check
a copy and to re-vendor it.  It is read by `plain_toml`, which takes what
`dumps` writes without importing ``tomllib`` (``plait check`` must start
fast), or by ``tomllib`` when it was edited into another spelling; it is
written with tomlkit.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import PlaitError
from ..names import one_line, shell_word
from ..paths import LOCK_NAME, is_plain_relative, read_bytes
from ..plain_toml import plain_toml
from ..records import field, record
from ..toml_input import check_bounds

__all__ = [
    "LOCK_FORMAT",
    "LOCK_NAME",
    "CorruptLock",
    "LocalEdit",
    "Lock",
    "LockedFile",
    "LockedPackage",
    "find_locks",
    "read_lock",
]

# The newest format this plait reads.  It writes format 1 (what every plait
# reads) unless a file is executable: format 2 records modes, and an older
# plait then says to upgrade rather than misread the lock.
LOCK_FORMAT = 3
_MODES_FORMAT = 2
# A group's lock (many distributions in one directory) names each one's pin: an older plait must not misread it.
_PACKAGES_FORMAT = 3
EXECUTABLE_MODE = "100755"

_HEX64 = re.compile(r"[0-9a-f]{64}")

# Never searched for locks: they hold no vendored directory of the project.
_NOT_SEARCHED = frozenset({".git", ".plait", ".venv", "node_modules", "__pycache__", ".tox", ".nox"})

_HEADER = """\
Written by `{writer}`; do not edit by hand.  For each file of this
vendored directory: sha256 = the file as vendored, base = the pristine
source after the import rewrites (the next merge's base; its content is in
the workspace's .plait/objects/), source = the source file it came from.
`plait check {name}` compares them with the disk; `plait vendor {name}` rewrites this."""


class CorruptLock(PlaitError):
    """A lock that does not parse, has the wrong shape, or names a path outside its directory."""


@record(frozen=True)
class LockedFile:
    """One file of a vendored directory, by digest.

    sha256: the file as vendored; None when the consumer deleted a vendored file.
    base: the pristine transformed source; None for a file only the consumer has.
    source: the source file as it was; None for a file only the consumer has.
    executable / base_executable: whether the file as vendored, and its base,
      are executable (git's 100755, written ``mode = "100755"`` and
      ``base_mode``; absent: 100644).  A lock that records a mode is format 2,
      and `plait check` holds the disk to every file's mode in it.
    """

    sha256: str | None = None
    base: str | None = None
    source: str | None = None
    executable: bool = False
    base_executable: bool = False


@record(frozen=True)
class LockedPackage:
    """One distribution of a group's directory, as pip fetched it (a group's lock, format 3).

    version: its pin; file / sha256: the distribution file and its digest;
    top_level: the packages and modules it provides (its files in the directory).
    """

    version: str
    file: str
    sha256: str
    top_level: tuple[str, ...]


@record(frozen=True)
class LocalEdit:
    """One edit the vendored copy carries that its source does not, by node path.

    path is ``<file>`` for a whole file: a file only the consumer has, a
    vendored file it deleted, a protected or non-Python file it changed.
    """

    file: str
    path: str
    kind: str
    detail: str = ""

    @property
    def text(self) -> str:
        """One line for people: ``removed file health.py``, ``except type OSError in Client.fetch``."""
        if self.path == "<file>":
            return f"{self.kind} file {self.file}" + (f" ({self.detail})" if self.detail else "")
        verb = "" if self.kind == "added" else f"{self.kind} "
        return verb + (f"{self.detail} in {self.path}" if self.detail else self.path)

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "path": self.path, "kind": self.kind, "detail": self.detail, "text": self.text}


@record
class Lock:
    """A vendored directory's lock, as read or about to be written."""

    consumer: str
    package: str
    source: str
    source_package: str
    source_commit: str | None
    plait_version: str
    files: dict[str, LockedFile] = field(default_factory=dict)
    local_edits: list[LocalEdit] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)
    # A group's members by canonical name (empty for a consumer's lock).
    packages: dict[str, LockedPackage] = field(default_factory=dict)
    # The command that wrote it, for its header: a comment, so not read back
    # nor compared (a vendor that changes nothing else keeps adopt's lock).
    written_by: str = field(default="plait vendor", compare=False)
    # The format it was read in: from 2 on, every file's mode is recorded.
    format: int = field(default=1, compare=False)

    @property
    def records_modes(self) -> bool:
        """Whether the lock says every file's mode (format 2): an older lock said none."""
        return self.format >= _MODES_FORMAT or any(f.executable or f.base_executable for f in self.files.values())

    def executable(self) -> frozenset[str]:
        """The vendored files that are executable as vendored."""
        return frozenset(name for name, f in self.files.items() if f.executable and f.sha256 is not None)

    def base_executable(self) -> frozenset[str]:
        """The files whose base (the source as last vendored) was executable."""
        return frozenset(name for name, f in self.files.items() if f.base_executable)

    def vendored(self) -> dict[str, str]:
        """The files that must be on disk: name → sha256."""
        return {name: f.sha256 for name, f in self.files.items() if f.sha256 is not None}

    def bases(self) -> dict[str, str]:
        """The pristine transformed source the copy was vendored from: name → sha256."""
        return {name: f.base for name, f in self.files.items() if f.base is not None}

    def sources(self) -> dict[str, str]:
        """The source files as they were when vendored: name → sha256."""
        return {name: f.source for name, f in self.files.items() if f.source is not None}

    @property
    def source_short(self) -> str:
        return f"{self.source}@{self.source_commit[:7]}" if self.source_commit else self.source

    # -- reading -------------------------------------------------------------

    @classmethod
    def loads(cls, text: str, *, path: str) -> Lock:
        """Parse and validate a lock; `CorruptLock` names what is wrong with it."""
        data = plain_toml(text)
        if data is None:
            import tomllib

            try:
                check_bounds(text, path=path, what="the lock")
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise CorruptLock(f"the lock does not parse: {exc}", path=path) from None
            except PlaitError as exc:
                raise CorruptLock(exc.message, path=path) from None
        fmt = data.get("lock")
        if not isinstance(fmt, int) or isinstance(fmt, bool):
            raise CorruptLock("not a plait lock: 'lock' (its format number) is missing", path=path)
        if fmt > LOCK_FORMAT:
            raise CorruptLock(f"written in lock format {fmt} by a newer plait; upgrade plait to read it", path=path)
        source = data.get("source")
        if not isinstance(source, Mapping):
            raise CorruptLock("the lock has no [source] table", path=path)
        files = data.get("files", {})
        if not isinstance(files, Mapping):
            raise CorruptLock("[files] must be a table", path=path)
        return cls(
            consumer=_text(data, "consumer", path),
            package=_text(data, "package", path),
            source=_text(source, "name", path, "source."),
            source_package=_text(source, "package", path, "source."),
            source_commit=_optional_text(source, "commit", path, "source."),
            plait_version=_text(data, "plait", path),
            files={name: _locked_file(name, entry, path) for name, entry in files.items()},
            local_edits=[_local_edit(entry, path) for entry in _list(data, "local_edits", path)],
            conflicted=[_file_name(name, path) for name in _list(data, "conflicted", path)],
            packages=_packages(data.get("packages", {}), path),
            format=fmt,
        )

    # -- writing -------------------------------------------------------------

    def dumps(self) -> str:
        """The lock as TOML: deterministic, one line per file, so a re-vendor diffs well."""
        import tomlkit

        doc = tomlkit.document()
        # The manifest gives copies plain names; a lock made otherwise (by a
        # library caller) still writes its header as one line per comment.
        header = _HEADER.format(name=shell_word(self.consumer), writer=one_line(self.written_by))
        for line in header.splitlines():
            doc.add(tomlkit.comment(line))
        doc.add(tomlkit.nl())
        doc["lock"] = _MODES_FORMAT if any(f.executable or f.base_executable for f in self.files.values()) else 1
        if self.packages:
            doc["lock"] = _PACKAGES_FORMAT
        doc["plait"] = self.plait_version
        doc["consumer"] = self.consumer
        doc["package"] = self.package
        if self.conflicted:
            doc["conflicted"] = sorted(self.conflicted)
            doc["conflicted"].comment(
                "resolve these files (their markers, or the versions beside them), then plait vendor again"
            )
        source = tomlkit.table()
        source["name"] = self.source
        source["package"] = self.source_package
        if self.source_commit:
            source["commit"] = self.source_commit
        doc["source"] = source
        if self.packages:
            packages = tomlkit.table()
            for name in sorted(self.packages):
                pin = self.packages[name]
                table = tomlkit.table()
                table["version"], table["file"], table["sha256"] = pin.version, pin.file, pin.sha256
                table["top_level"] = list(pin.top_level)
                packages[name] = table
            doc["packages"] = packages
        files = tomlkit.table()
        for name in sorted(self.files):
            entry = tomlkit.inline_table()
            locked = self.files[name]
            for key in ("sha256", "base", "source"):
                value = getattr(locked, key)
                if value is not None:
                    entry[key] = value
            for key, executable in (("mode", locked.executable), ("base_mode", locked.base_executable)):
                if executable:
                    entry[key] = EXECUTABLE_MODE
            files[name] = entry
        doc["files"] = files
        if self.local_edits:
            edits = tomlkit.aot()
            for edit in self.local_edits:
                table = tomlkit.table()
                table["file"] = edit.file
                table["path"] = edit.path
                table["kind"] = edit.kind
                if edit.detail:
                    table["detail"] = edit.detail
                edits.append(table)
            doc["local_edits"] = edits
        return tomlkit.dumps(doc)


def read_lock(vendor_dir: Path) -> Lock | None:
    """The lock of *vendor_dir*, or None when it was never vendored by plait.

    A lock that is a symlink leading out of its directory is refused before
    it is read: what it names decides what a re-vendor merges from.
    """
    path = vendor_dir / LOCK_NAME
    if path.is_symlink() and not path.resolve().is_relative_to(vendor_dir.resolve()):
        raise CorruptLock(f"the lock is a symlink leading out of its directory (to {path.resolve()})", path=str(path))
    try:
        raw = read_bytes(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CorruptLock(f"the lock cannot be read: {exc.strerror or exc}", path=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptLock("the lock is not UTF-8 text", path=str(path)) from None
    return Lock.loads(text, path=str(path))


def find_locks(root: Path) -> list[Path]:
    """Every vendored directory under *root*: the directories holding a lock, sorted.

    A consumer's repository knows its vendored directories by their locks,
    without the workspace that declares them (a pre-commit hook, a merge
    driver being installed).
    """
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_SEARCHED)
        if LOCK_NAME in names:
            found.append(Path(folder))
    return found


# --------------------------------------------------------------------------
# validation: a lock is read from disk, where anyone may have edited it


def _text(table: Mapping[str, object], key: str, path: str, prefix: str = "") -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value:
        raise CorruptLock(f"'{prefix}{key}' must be a non-empty string", path=path)
    return value


def _optional_text(table: Mapping[str, object], key: str, path: str, prefix: str = "") -> str | None:
    return _text(table, key, path, prefix) if key in table else None


def _list(table: Mapping[str, object], key: str, path: str) -> list[object]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise CorruptLock(f"'{key}' must be a list", path=path)
    return value


def _file_name(name: object, path: str) -> str:
    if not isinstance(name, str) or not is_plain_relative(name):
        raise CorruptLock(f"the lock names a path outside its vendored directory: {name!r}", path=path)
    return name


_DIGEST_KEYS = frozenset({"sha256", "base", "source"})
_MODE_KEYS = frozenset({"mode", "base_mode"})
_FILE_KEYS = _DIGEST_KEYS | _MODE_KEYS


# Entries read already in this process: a fleet's locks name the same files by the same digests.
_LOCKED: dict[tuple[str, tuple[tuple[str, object], ...]], LockedFile] = {}
_REMEMBERED = 4096


def _locked_file(name: str, entry: object, path: str) -> LockedFile:
    key = (name, tuple(entry.items())) if isinstance(entry, dict) else None
    try:
        known = _LOCKED.get(key) if key is not None else None
    except TypeError:  # a value that is no string (a hand edit): tested, and refused, below
        key = known = None
    if known is None:
        known = _new_locked_file(name, entry, path)
        if key is not None and len(_LOCKED) < _REMEMBERED:
            _LOCKED[key] = known
    return known


def _new_locked_file(name: str, entry: object, path: str) -> LockedFile:
    # (Every file of every lock of a fleet comes through here, so it asks only what it must.)
    _file_name(name, path)
    if not isinstance(entry, dict):
        raise CorruptLock(f"files.{name!r} must be a table of digests", path=path)
    if not entry.keys() <= _FILE_KEYS:
        unknown = set(entry) - _FILE_KEYS
        raise CorruptLock(f"files.{name!r}: unknown key(s) {', '.join(sorted(unknown))}", path=path)
    for key, value in entry.items():
        if key in _MODE_KEYS:
            if value not in (EXECUTABLE_MODE, "100644"):
                raise CorruptLock(f'files.{name!r}: {key} must be "100755" or "100644"', path=path)
        elif not isinstance(value, str) or not _HEX64.fullmatch(value):
            raise CorruptLock(f"files.{name!r}: {key} must be a sha256 hex digest", path=path)
    if not entry.keys() & _DIGEST_KEYS:
        raise CorruptLock(f"files.{name!r} records no digest", path=path)
    return LockedFile(
        entry.get("sha256"),
        entry.get("base"),
        entry.get("source"),
        entry.get("mode") == EXECUTABLE_MODE,
        entry.get("base_mode") == EXECUTABLE_MODE,
    )


def _packages(table: object, path: str) -> dict[str, LockedPackage]:
    if not isinstance(table, Mapping):
        raise CorruptLock("[packages] must be a table of distributions", path=path)
    out: dict[str, LockedPackage] = {}
    for name, entry in table.items():
        if not isinstance(entry, Mapping):
            raise CorruptLock(f"packages.{name}: must be a table", path=path)
        unknown = set(entry) - {"version", "file", "sha256", "top_level"}
        if unknown:
            raise CorruptLock(f"packages.{name}: unknown key(s) {', '.join(sorted(unknown))}", path=path)
        sha = entry.get("sha256")
        if not isinstance(sha, str) or not _HEX64.fullmatch(sha):
            raise CorruptLock(f"packages.{name}: sha256 must be a sha256 hex digest", path=path)
        tops = entry.get("top_level")
        if not isinstance(tops, list) or not tops or not all(isinstance(t, str) and t.isidentifier() for t in tops):
            raise CorruptLock(f"packages.{name}: top_level must list module names", path=path)
        out[str(name)] = LockedPackage(
            _text(entry, "version", path, f"packages.{name}."),
            _text(entry, "file", path, f"packages.{name}."),
            sha,
            tuple(tops),
        )
    return out


def _local_edit(entry: object, path: str) -> LocalEdit:
    if not isinstance(entry, Mapping):
        raise CorruptLock("each [[local_edits]] entry must be a table", path=path)
    return LocalEdit(
        file=_file_name(entry.get("file"), path),
        path=_text(entry, "path", path, "local_edits."),
        kind=_text(entry, "kind", path, "local_edits."),
        detail=str(entry.get("detail", "")),
    )
