"""The CI drift check: does every vendored copy match its lock, and every lock its source?

For each consumer it compares, by sha256 only (it never parses a file):

- the vendored directory with its lock: a file edited and not recorded, a
  file missing, a file the lock does not know;
- the lock with the source: a source file changed, added or deleted since
  the copy was vendored (the lock behind its source); a source or package
  rename the manifest changed since.

Each drift names the file, what differs and the command that fixes it.  A
lock that does not parse, or that names a path outside its directory, is an
error, not drift.  `check_locks` does the first half with no workspace at
all (a consumer's own repository, a pre-commit hook).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import PlaitError
from ..paths import read_bytes
from ..records import field, record
from ..store import digest_of
from ..workspace import Consumer, Workspace, is_executable, tree_files
from .lock import LOCK_NAME, Lock, find_locks, read_lock

__all__ = ["ConsumerCheck", "Drift", "DriftKind", "check", "check_exit", "check_locks", "hash_files"]

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import Any, Literal

    DriftKind = Literal["edited", "mode", "missing", "extra", "behind", "conflicted", "unlocked"]
else:
    DriftKind = str  # (what a drift's kind is at run time)


@record(frozen=True)
class Drift:
    """One way a vendored copy differs from its lock, or its lock from its source.

    file: the vendored file concerned ("" for the directory as a whole).
    """

    file: str
    kind: DriftKind
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "kind": self.kind, "detail": self.detail}


@record
class ConsumerCheck:
    """The check of one vendored directory.

    fix: the command that brings it back in step (empty when there is nothing to fix).
    """

    consumer: str
    vendor_dir: str
    source: str = ""
    locked_commit: str | None = None
    files: int = 0
    drift: list[Drift] = field(default_factory=list)
    error: str = ""
    fix: str = ""

    @property
    def state(self) -> Literal["ok", "drift", "error"]:
        if self.error:
            return "error"
        return "drift" if self.drift else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "consumer": self.consumer,
            "vendor_dir": self.vendor_dir,
            "lock": str(Path(self.vendor_dir) / LOCK_NAME),
            "state": self.state,
            "source": self.source,
            "locked_commit": self.locked_commit,
            "files": self.files,
            "drift": [d.to_json() for d in self.drift],
            "fix": self.fix,
            "error": self.error,
        }


def check_exit(results: Iterable[ConsumerCheck]) -> int:
    """0 when everything matches, 1 on drift, 2 on an error (an error outranks drift)."""
    states = {r.state for r in results}
    if "error" in states:
        return 2
    return 1 if "drift" in states else 0


def hash_files(files: Iterable[tuple[str, str | os.PathLike[str]]]) -> dict[str, str]:
    """relative path → sha256 of the file's bytes."""
    out: dict[str, str] = {}
    crlf: dict[str, tuple[Path, bytes]] = {}
    for rel, path in files:
        try:
            data = read_bytes(path)
        except OSError as exc:
            raise PlaitError(f"cannot read: {exc.strerror or type(exc).__name__}", path=str(path)) from None
        out[rel] = digest_of(data)
        if b"\r\n" in data:
            crlf[rel] = (Path(path), data)
    if crlf:
        # What git would commit, not what the checkout shows: an autocrlf checkout's CRLF
        # files hash as the LF an ordinary clone holds, so a clean `git status` is a clean check.
        from .. import gitops

        converted = gitops.committed_with_lf(dict(crlf.values()))
        for rel, (path, data) in crlf.items():
            if path in converted:
                out[rel] = digest_of(data.replace(b"\r\n", b"\n"))
    return out


def check(ws: Workspace, names: Iterable[str] | None = None) -> list[ConsumerCheck]:
    """Check *names* (default: every consumer) against their locks and sources.

    A killed run's journal, still waiting, is an error rather than a verdict
    on files that are half the old run and half the new.
    """
    ws.store.refuse_if_interrupted()
    source_hashes: dict[str, dict[str, str]] = {}
    verified: set[str] = set()  # base objects read and hashed already: the consumers of a source share them
    results: list[ConsumerCheck] = []
    for consumer in ws.select_consumers(names):
        result = ConsumerCheck(consumer.name, str(consumer.vendor_dir), consumer.source)
        fix = f"plait vendor {consumer.name}"
        try:
            ws.checkout(consumer)  # a consumer in a remote repository is cloned once, as vendor does
            ws.refuse_sparse(consumer, root=consumer.vendor_dir)
            lock = read_lock(consumer.vendor_dir)
            if lock is None:
                by_hand = consumer.vendor_dir.is_dir() and any(consumer.vendor_dir.iterdir())
                if by_hand:
                    # Vendored by hand: its base is found by adopt, not guessed by a vendor.
                    fix = f"plait adopt {consumer.name}"
                    detail = f"no {LOCK_NAME}: vendored without plait; `{fix}` records the base it was copied from"
                else:
                    detail = f"no {LOCK_NAME}: never vendored; `{fix}` vendors it"
                result.drift.append(Drift("", "unlocked", detail))
            else:
                _bases_stored(ws, lock, verified)
                on_disk = _on_disk(consumer.vendor_dir, consumer.exclude, consumer.confine, consumer.name)
                result.drift += _against_lock(lock, on_disk, fix, consumer.vendor_dir)
                if consumer.source not in source_hashes:
                    source = ws.copy(consumer.source)
                    ws.checkout(source)
                    ws.refuse_sparse(source)  # a file outside the cone is no file deleted upstream
                    source_hashes[consumer.source] = hash_files(ws.walk_files(source))
                result.drift += _against_source(consumer, lock, source_hashes[consumer.source])
                result.locked_commit = lock.source_commit
                result.files = len(lock.vendored())
        except PlaitError as exc:
            result.error = str(exc)
        if result.drift and not result.error:
            result.fix = fix
        results.append(result)
    return results


def check_locks(roots: Iterable[Path]) -> list[ConsumerCheck]:
    """Check every vendored directory (a directory holding a lock) under *roots* against
    its lock alone: no workspace, no source, so the lock's freshness is not checked."""
    results: list[ConsumerCheck] = []
    for root in roots:
        if not root.is_dir():
            raise PlaitError("no such directory", path=str(root))
        for vendor_dir in find_locks(root):
            result = ConsumerCheck("", str(vendor_dir))
            try:
                lock = read_lock(vendor_dir)
                assert lock is not None
                result.consumer, result.source = lock.consumer, lock.source
                result.locked_commit, result.files = lock.source_commit, len(lock.vendored())
                fix = f"plait vendor {lock.consumer}"
                on_disk = _on_disk(vendor_dir, (), root.resolve(), lock.consumer)
                result.drift = _against_lock(lock, on_disk, fix, vendor_dir)
                if result.drift:
                    result.fix = f"{fix} (in the workspace that declares it)"
            except PlaitError as exc:
                result.error = str(exc)
            results.append(result)
    return results


def _bases_stored(ws: Workspace, lock: Lock, verified: set[str]) -> None:
    """Refuse a lock whose bases the store has lost or holds corrupt: without them no
    re-vendor is a 3-way merge.

    Each base is read and hashed, as a re-vendor would read it: a flipped
    byte in an object is named here, not found later as ordinary drift or a
    wrong merge.  A branch that pruned an object merged with one whose lock
    still names it is how one goes missing.  Each object once per run
    (*verified*): a fleet's locks name the same few.
    """
    from ..store import CorruptStore

    for name, digest in sorted(lock.bases().items()):
        if digest in verified:
            continue
        try:
            ws.store.read(digest, what=f"the base of {name}")
            verified.add(digest)
        except CorruptStore as exc:
            if not os.path.lexists(ws.store.path_of(digest)):
                raise PlaitError(
                    f"the store has lost the base of {name} ({digest[:12]}…); restore"
                    f" {ws.store.path_of(digest).relative_to(ws.dir)} from git history",
                    path=str(ws.store.root),
                ) from None
            raise PlaitError(
                f"{exc.message}; restore {ws.store.path_of(digest).relative_to(ws.dir)} from git history",
                path=exc.path,
            ) from None


def _on_disk(vendor_dir: Path, exclude: Iterable[str], confine: Path, who: str) -> dict[str, str]:
    if not vendor_dir.is_dir():
        return {}
    return hash_files(tree_files(vendor_dir, exclude=exclude, confine=confine, who=who))


def _against_lock(lock: Lock, on_disk: Mapping[str, str], fix: str, vendor_dir: Path) -> list[Drift]:
    drift: list[Drift] = []
    expected = lock.vendored()
    executable = lock.executable() if lock.records_modes else None
    for rel in sorted(set(expected) | set(on_disk)):
        if rel not in on_disk:
            drift.append(
                Drift(rel, "missing", f"in the lock but not on disk: restore it, or run `{fix}` to record its deletion")
            )
        elif rel not in expected:
            drift.append(
                Drift(
                    rel,
                    "extra",
                    f"on disk but not in the lock: remove it, or run `{fix}` to record it as the consumer's own",
                )
            )
        elif on_disk[rel] != expected[rel] and rel not in lock.conflicted:
            # A conflicted file is said once, below: "revert it" is no advice for a merged file.
            drift.append(
                Drift(
                    rel,
                    "edited",
                    f"differs from the lock (edited by hand?): revert it, or run `{fix}` to record the edit",
                )
            )
        elif executable is not None and is_executable(vendor_dir / rel) != (rel in executable):
            # Only a lock that records modes (format 2) says what each file's mode is.
            drift.append(_mode_drift(rel, rel in executable, fix))
    for rel in lock.conflicted:
        drift.append(
            Drift(
                rel,
                "conflicted",
                f"unresolved (a vendor conflict, or a lock git merged): resolve any markers in it, or choose"
                f" between the versions beside it and remove them, then run `{fix}`",
            )
        )
    return drift


def _mode_drift(rel: str, executable: bool, fix: str) -> Drift:
    if executable:
        detail = f"is not executable, but was vendored as 100755: `chmod +x` it, or run `{fix}` to record the change"
    else:
        detail = f"is executable, but was vendored as 100644: `chmod -x` it, or run `{fix}` to record the change"
    return Drift(rel, "mode", detail)


def _against_source(consumer: Consumer, lock: Lock, source_files: Mapping[str, str]) -> list[Drift]:
    """Whether the lock is current with its source and with the manifest."""
    fix = f"run `plait vendor {consumer.name}`"
    drift: list[Drift] = []
    if lock.source != consumer.source:
        drift.append(
            Drift("", "behind", f"vendored from {lock.source}, but the manifest says {consumer.source}: {fix}")
        )
        return drift
    if lock.package != consumer.package:
        drift.append(
            Drift("", "behind", f"vendored as {lock.package}, but the manifest says {consumer.package}: {fix}")
        )
    now = {rel: digest for rel, digest in source_files.items() if consumer.selects(rel)}
    then = lock.sources()
    since = f"since it was vendored from {lock.source_short}"
    for rel in sorted(set(now) | set(then)):
        if rel not in then:
            drift.append(Drift(rel, "behind", f"new in {lock.source} {since}: {fix}"))
        elif rel not in now:
            drift.append(Drift(rel, "behind", f"deleted from {lock.source} {since}: {fix}"))
        elif now[rel] != then[rel]:
            drift.append(Drift(rel, "behind", f"changed in {lock.source} {since}: {fix}"))
    return drift
