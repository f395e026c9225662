"""Merge the plait.lock of two branches: what git's lock merge driver (`plait merge-lock`) does.

Two branches that each re-vendored change the same lock; git's line merge
leaves markers in it, and a lock with markers does not parse.  This merges
the three locks (base, ours, theirs) as data, and always writes a lock that
parses.

Each field is merged three-way: what one side changed since the base is
taken from it, what both changed alike is taken once.  A file's ``base`` and
``source`` digests go together (they name one vendoring of the file); when
both sides changed them differently, the side vendored from the newer
source commit wins, if git can tell which is newer (the commit is in this
repository and one descends from the other), else nothing is decided.

A file's ``sha256`` is the vendored file itself, so when both sides changed
it differently its value is the merged file's, which only git's merge of
that file produces.  What git does, checked with git 2.39: it runs the merge
drivers of a merge from the top of the working tree, one path at a time in
*reverse* path order.  merge-ort (the default since git 2.34) writes the
working tree only after every driver has run, so the merged file is never
there yet; the older ``-s recursive`` writes each file as it merges it, so
the files after ``plait.lock`` in path order are.  A file counts as merged
when the working tree no longer holds what HEAD (ours) holds at that path:
git refuses to merge over local changes, so only the merge can have written
it.  Its sha256 is then re-derived from it.  Otherwise the entry keeps ours'
digest, the file is listed in ``conflicted``, and the merge asks for
``plait vendor <consumer>``, which re-derives every digest from the merged
files (``plait check`` names the same command until then).

``local_edits`` and ``conflicted`` merge as sets: the union of what either
side added, less what either side removed since the base (an edit a side
found upstreamed, a conflict a side resolved).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal, TypeVar

from .. import gitops
from ..errors import PlaitError
from .lock import LocalEdit, Lock, LockedFile, LockedPackage

__all__ = ["GitView", "LockMerge", "MergedFile", "merge_lock_files", "merge_locks"]

Side = Literal["ours", "theirs"]
T = TypeVar("T")

_MARKER = "<<<<<<<"


@dataclass(frozen=True)
class MergedFile:
    """A vendored file as git's merge of it left the working tree.

    sha256: its digest, None when the merge deleted it.
    markers: it holds conflict markers.
    """

    sha256: str | None
    markers: bool = False


@dataclass
class LockMerge:
    """The merged lock, and what it could not settle.

    unsettled: file → why its digests wait for ``plait vendor`` (the lock
      lists these files in ``conflicted`` too).
    notes: one line per decision people should know of, or field that
      conflicted.
    needs_vendor: the lock is not final until ``plait vendor`` runs.
    """

    lock: Lock
    unsettled: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    needs_vendor: bool = False

    @property
    def clean(self) -> bool:
        return not self.needs_vendor

    @property
    def fix(self) -> str:
        return f"plait vendor {self.lock.consumer}" if self.needs_vendor else ""


class GitView:
    """What git can say, during a merge, about the vendored files beside a lock.

    It asks the git command line directly: the driver runs inside git's own
    merge, once per lock, and needs three plumbing answers, not GitPython's
    start-up.  Any failure (no repository, an unknown commit) is an answer
    of "cannot tell", which the merge turns into a request for ``plait vendor``.
    """

    def __init__(self, top: Path, vendor_dir: str | None) -> None:
        self.top = top
        self.vendor_dir = vendor_dir

    def _repo_path(self, rel: str) -> str:
        assert self.vendor_dir is not None
        return rel if self.vendor_dir in ("", ".") else f"{self.vendor_dir}/{rel}"

    def merged(self, names: Sequence[str]) -> dict[str, MergedFile]:
        """The files of *names* that git's merge has already written to the working tree."""
        if self.vendor_dir is None or not names:
            return {}
        paths = {name: self._repo_path(name) for name in names}
        at_head = gitops.head_blobs(self.top, list(paths.values()))
        if at_head is None:
            return {}
        on_disk = [p for p in paths.values() if (self.top / p).is_file()]
        hashed = gitops.hash_files(self.top, on_disk) if on_disk else []
        if hashed is None or len(hashed) != len(on_disk):
            return {}
        now = dict(zip(on_disk, hashed, strict=True))
        out: dict[str, MergedFile] = {}
        for name, path in paths.items():
            if now.get(path) == at_head.get(path):
                continue  # what HEAD has: not merged yet (or merged to exactly ours, which is told apart by no one)
            if path not in now:
                out[name] = MergedFile(None)
                continue
            data = (self.top / path).read_bytes()
            markers = any(line.startswith(_MARKER.encode()) for line in data.splitlines())
            out[name] = MergedFile(hashlib.sha256(data).hexdigest(), markers)
        return out

    def newer(self, ours: str | None, theirs: str | None) -> Side | None:
        """Which commit descends from the other, when both are in this repository."""
        if not ours or not theirs or ours == theirs:
            return None
        checks: tuple[tuple[str, str, Side], ...] = ((ours, theirs, "theirs"), (theirs, ours, "ours"))
        for ancestor, descendant, side in checks:
            if gitops.is_ancestor(self.top, ancestor, descendant):
                return side
        return None


def _three_way(base: T, ours: T, theirs: T) -> tuple[T, bool]:
    """The merged value and whether both sides changed it differently (then: ours)."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _merge_set(base: Iterable[T], ours: Sequence[T], theirs: Sequence[T]) -> list[T]:
    """ours' order, then theirs' additions; less what either side removed since the base."""
    was = set(base)
    kept_ours, kept_theirs = set(ours), set(theirs)
    out = [item for item in ours if item in kept_theirs or item not in was]
    out += [item for item in theirs if item not in kept_ours and item not in was]
    return list(dict.fromkeys(out))


def merge_locks(
    base: Lock | None,
    ours: Lock,
    theirs: Lock,
    *,
    merged: Callable[[Sequence[str]], dict[str, MergedFile]],
    newer: Callable[[str | None, str | None], Side | None],
    plait_version: str,
) -> LockMerge:
    """The merge of two locks of one vendored directory from their common *base* (None: both added it).

    merged: the files git's merge already wrote, among those asked (`GitView.merged`).
    newer: which side's source commit is the newer (`GitView.newer`).
    """
    notes: list[str] = []
    needs_vendor = False

    def field_of(name: str) -> str:
        nonlocal needs_vendor
        values = [getattr(lock, name) if lock is not None else None for lock in (base, ours, theirs)]
        value, both = _three_way(values[0], values[1], values[2])
        if both:
            needs_vendor = True
            notes.append(f"the branches vendored with {name} {values[1]} and {values[2]}; kept ours'")
        return str(value)

    consumer, package = field_of("consumer"), field_of("package")
    source, source_package = field_of("source"), field_of("source_package")

    side = newer(ours.source_commit, theirs.source_commit)
    commit, both = _three_way(base.source_commit if base else None, ours.source_commit, theirs.source_commit)
    if both and side == "theirs":
        commit = theirs.source_commit
    if both:
        said = f"{side}', the newer" if side else "ours' (git cannot tell which is newer)"
        notes.append(f"both branches re-vendored (from {ours.source_commit} and {theirs.source_commit}): kept {said}")

    empty = LockedFile()
    names = sorted({*ours.files, *theirs.files, *(base.files if base else {})})
    files: dict[str, LockedFile] = {}
    unsettled: dict[str, str] = {}
    pending: dict[str, LockedFile] = {}
    for name in names:
        b = base.files.get(name, empty) if base else empty
        o, t = ours.files.get(name, empty), theirs.files.get(name, empty)
        (base_digest, source_digest), pair_both = _three_way((b.base, b.source), (o.base, o.source), (t.base, t.source))
        if pair_both:
            if side is None:
                unsettled[name] = "re-vendored on both branches, from source commits git cannot order"
            else:
                base_digest, source_digest = (t.base, t.source) if side == "theirs" else (o.base, o.source)
        sha, sha_both = _three_way(b.sha256, o.sha256, t.sha256)
        entry = LockedFile(sha, base_digest, source_digest)
        if sha_both:
            pending[name] = entry
        elif entry != empty:
            files[name] = entry

    settled = merged(sorted(pending))
    for name, entry in pending.items():
        state = settled.get(name)
        if state is None:
            # Not merged yet: ours' digest stays until `plait vendor` re-derives it.
            unsettled.setdefault(name, "changed on both branches; git has not written the merged file yet")
            files[name] = entry
            continue
        if state.markers:
            unsettled.setdefault(name, "changed on both branches, and git's merge of it left conflict markers")
        rederived = LockedFile(state.sha256, entry.base, entry.source)
        if rederived != empty:
            files[name] = rederived
    unsettled = dict(sorted(unsettled.items()))

    packages: dict[str, LockedPackage] = {}
    for member in sorted({*ours.packages, *theirs.packages, *(base.packages if base else {})}):
        was = base.packages.get(member) if base else None
        pin, pin_both = _three_way(was, ours.packages.get(member), theirs.packages.get(member))
        if pin_both:
            needs_vendor = True
            notes.append(f"both branches moved {member}'s pin; kept ours', `plait vendor` re-derives its files")
        if pin is not None:
            packages[member] = pin

    conflicted = _merge_set(base.conflicted if base else [], ours.conflicted, theirs.conflicted)
    edits: list[LocalEdit] = _merge_set(base.local_edits if base else [], ours.local_edits, theirs.local_edits)
    lock = Lock(
        consumer=consumer,
        package=package,
        source=source,
        source_package=source_package,
        source_commit=commit,
        plait_version=plait_version,
        files=files,
        local_edits=edits,
        conflicted=sorted({*conflicted, *unsettled}),
        packages=packages,
    )
    return LockMerge(lock, unsettled, notes, needs_vendor or bool(unsettled))


def _running_version() -> str:
    # Not `vendor.plait_version`: importing the vendor module loads libcst,
    # which a driver that never parses Python must not pay for.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("plait")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "unknown"


def _read_lock(path: Path, raw: bytes, label: str, *, may_be_empty: bool = False) -> Lock | None:
    if may_be_empty and not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PlaitError(f"{label} is not UTF-8 text", path=str(path)) from None
    return Lock.loads(text, path=f"{path} ({label})")


def merge_lock_files(
    base: Path, ours: Path, theirs: Path, *, pathname: str | None = None, top: Path | None = None
) -> LockMerge:
    """Merge the lock files *base*, *ours*, *theirs* and write the result over *ours*, as git's driver does.

    pathname: the lock's path in the repository (git's %P); without it the
      vendored files are not looked at, so every file both sides changed
      waits for ``plait vendor``.
    top: the top of the working tree (git runs drivers there; default: the
      current directory).
    Raises `PlaitError` (nothing written) when ours or theirs does not parse.
    """
    from ..commit import read_regular, write_atomic

    # All three read before any is parsed: a FIFO would block a read forever and
    # a device (/dev/zero) never end one, whichever side it is.
    raws = [read_regular(str(path)) for path in (base, ours, theirs)]
    base_lock = _read_lock(base, raws[0], "base", may_be_empty=True)
    ours_lock, theirs_lock = _read_lock(ours, raws[1], "ours"), _read_lock(theirs, raws[2], "theirs")
    assert ours_lock is not None and theirs_lock is not None
    vendor_dir = PurePosixPath(pathname).parent.as_posix() if pathname else None
    view = GitView(top or Path.cwd(), vendor_dir)
    result = merge_locks(
        base_lock, ours_lock, theirs_lock, merged=view.merged, newer=view.newer, plait_version=_running_version()
    )
    try:
        write_atomic(ours, result.lock.dumps())
    except OSError as exc:
        raise PlaitError(f"cannot write: {exc.strerror or exc}", path=str(ours)) from None
    return result
