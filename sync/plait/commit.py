"""The one commit protocol every mutating command uses: lock, stage, switch, prune, sweep.

plait's promise is that nothing is lost or half-written, even when a run is
killed with SIGKILL at any file operation.  Every command that writes a
workspace (sync, vendor, adopt, ``sync --continue`` / ``--abort``, init)
goes through `Transaction.commit`, which runs these steps in this order:

1. **Stage.**  Every file (copies' files, locks, the sync state, the
   manifest) is written to a temporary file beside its target and fsynced.
   Nothing the user sees has changed yet.
2. **Objects.**  New store objects are written, each to a temporary file
   that is fsynced and renamed into ``objects/ab/cdef…``.  They are
   content-addressed, so an object nobody names yet is harmless: a kill
   here leaves the old workspace plus garbage that the next prune removes,
   and a failure here removes what it added.
3. **Switch.**  A journal naming every staged file and every removal is
   written atomically to ``.plait/journal.json``.  From this instant the run
   has happened: a kill after it is rolled *forward* by the next run.
4. **Apply.**  Each staged file is renamed over its target, each removal
   is done, the state and the locks last.
5. **Prune.**  Only now are store objects deleted, and only those that no
   lock, state record, pending base or conflicted record *on disk after the
   run* (or committed at HEAD) names.  Then the journal is deleted: a kill
   while pruning is finished by the next run too.
6. **Sweep.**  Temporary files that earlier killed runs left behind are
   removed.

Every mutating command starts with `recover`, under the workspace lock:
it finishes an interrupted journal (step 4 onwards) and sweeps temporary
files, so a rerun always mends what a kill interrupted.  The lock
(`workspace_lock`, an ``fcntl.flock`` on the ``.plait`` directory) keeps
two runs from interleaving; read-only commands (status, check, diff) never
take it.

This module knows paths, not workspaces: `plait.session` binds it to one
(which directories a run may write, what keeps a store object alive).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from . import contents
from .errors import PlaitError
from .paths import JOURNAL_NAME
from .records import field, record

__all__ = [
    "JOURNAL_NAME",
    "TEMP_SUFFIXES",
    "Recovery",
    "Transaction",
    "WorkspaceBusy",
    "file_mode",
    "fsync_dir",
    "read_regular",
    "recover",
    "require_regular",
    "stage_file",
    "sweep_temps",
    "workspace_lock",
    "write_atomic",
]

# What a staged file is called until it is renamed into place; ".plait-del"
# is what earlier versions of plait parked a removed file as.
TEMP_SUFFIXES = (".plait-tmp", ".plait-del")
_JOURNAL_FORMAT = 1
DEFAULT_LOCK_TIMEOUT = 60.0
ENV_LOCK_TIMEOUT = "PLAIT_LOCK_TIMEOUT"


class WorkspaceBusy(PlaitError):
    """Another plait run holds the workspace lock for longer than we wait."""


def _os_error(exc: OSError, what: str, path: Path | str) -> PlaitError:
    reason = exc.strerror or type(exc).__name__
    return PlaitError(f"cannot {what}: {reason}", path=str(path))


def fsync_dir(folder: Path) -> None:
    """Make a rename in *folder* durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def file_mode(target: Path, executable: bool | None) -> int | None:
    """The mode a file written over *target* gets when it must be *executable* or not, as git
    sets it (the execute bit wherever the read bit is, or none); None: as `stage_file` decides."""
    if executable is None:
        return None
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        mode = 0o644
    return mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111


# A file name may be NAME_MAX (255) bytes; the temporary name adds a dot, a dot, mkstemp's 8 random
# characters and the suffix.  So a long name is cut for its temporary twin, never the other way round:
# a legal name must stay writable.
_TEMP_NAME_BUDGET = 255 - len(".") - len(".") - 8 - len(TEMP_SUFFIXES[0])


def temp_prefix(name: str) -> str:
    """The prefix of *name*'s temporary twins: ``.<name>.``, *name* cut to fit NAME_MAX.

    The cut falls on a character boundary (a name is UTF-8 bytes on disk), and the journal
    check recognises a twin by this same prefix, so both agree whatever the length.
    """
    encoded = os.fsencode(name)
    if len(encoded) <= _TEMP_NAME_BUDGET:
        return f".{name}."
    cut = _TEMP_NAME_BUDGET
    while cut > 0 and (encoded[cut] & 0xC0) == 0x80:  # never inside a UTF-8 sequence
        cut -= 1
    return f".{os.fsdecode(encoded[:cut])}."


def stage_file(target: Path, data: bytes, *, mode: int | None = None) -> Path:
    """Write *data* to a fsynced temporary file beside *target*; its path.

    The temporary file is named ``.<name>.<random>.plait-tmp`` so that a
    sweep can recognise it whoever left it.  It takes *mode*, else the
    target's mode when the target exists (a rename must not change
    permissions), else 0644.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target.name), suffix=TEMP_SUFFIXES[0], dir=target.parent)
    except OSError as exc:
        raise _os_error(exc, "write into this directory", target.parent) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            try:
                mode = target.stat().st_mode & 0o7777
            except OSError:
                mode = 0o644
        os.chmod(tmp, mode)
    except OSError as exc:
        os.unlink(tmp)
        raise _os_error(exc, "write", target) from None
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace one file all at once (stage, fsync, rename): readers see the old or the new.

    For a single file outside any workspace (git's merge driver output,
    ``.gitattributes``); a workspace write goes through `Transaction`.
    """
    target = Path(path)
    raw = contents.encode(data) if isinstance(data, str) else data
    tmp = stage_file(target, raw)
    try:
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _os_error(exc, "replace", target) from None
    fsync_dir(target.parent)


# What an input or a target may be instead of a regular file, in the words of the error.
_NOT_REGULAR: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def require_regular(path: str, mode: int) -> None:
    """Refuse what is not a regular file: reading a FIFO blocks, and writing "over" a device replaces it."""
    if stat.S_ISREG(mode):
        return
    what = next((name for test, name in _NOT_REGULAR if test(mode)), "not a file")
    if os.path.islink(path):
        raise PlaitError(f"leads to {os.path.realpath(path)}, {what}, not a regular file", path=path)
    raise PlaitError(f"is {what}, not a regular file", path=path)


def read_regular(path: str) -> bytes:
    """The bytes of an input, which must be a regular file or a symlink to one.

    Checked before opening (a FIFO would block the open), and again on the
    open file, which is opened without blocking, in case the path was
    swapped in between.
    """
    try:
        require_regular(path, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise PlaitError("no such file", path=path) from None
    except OSError as exc:
        raise PlaitError(exc.strerror or str(exc), path=path) from None
    try:
        require_regular(path, os.fstat(fd).st_mode)
    except PlaitError:
        os.close(fd)
        raise
    try:
        with open(fd, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise PlaitError(exc.strerror or str(exc), path=path) from None


# --------------------------------------------------------------------------
# the lock


@contextlib.contextmanager
def workspace_lock(store_root: Path, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the exclusive lock of a workspace's store for the duration.

    The lock is an ``flock`` on the ``.plait`` directory itself, so taking
    it writes nothing: a run that then refuses leaves the workspace exactly
    as it was.  A second run waits up to *timeout* seconds (default
    ``$PLAIT_LOCK_TIMEOUT`` or 60) and then fails with the holder's pid
    named: waiting is what two CI steps racing for one checkout want, and a
    bound is what keeps a forgotten run from hanging the next one forever.
    The kernel releases the lock when the holder dies, so a SIGKILL never
    leaves it stuck.
    """
    import fcntl

    if timeout is None:
        timeout = lock_timeout()
    try:
        store_root.mkdir(parents=True, exist_ok=True)
        fd = os.open(store_root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise _os_error(exc, "lock the workspace", store_root) from None
    try:
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            except OSError as exc:
                # A file system without flock (some network mounts): running
                # unlocked could interleave two runs' writes, so refuse, named.
                raise _os_error(exc, "lock the workspace (does its file system support flock?)", store_root) from None
            if time.monotonic() >= deadline:
                raise WorkspaceBusy(
                    f"another plait run holds the workspace lock ({_holder(fd)}); waited {timeout:g} s"
                    f" (set ${ENV_LOCK_TIMEOUT} to wait longer)",
                    path=str(store_root),
                ) from None
            time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def lock_timeout() -> float:
    """``$PLAIT_LOCK_TIMEOUT`` (default 60): a finite number of seconds, 0 or more.

    Refused otherwise, named: ``nan`` would make the deadline compare false
    forever, ``inf`` wait forever, which is what the bound exists to prevent.
    """
    raw = os.environ.get(ENV_LOCK_TIMEOUT)
    if raw is None or raw.strip() == "":
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (0 <= value < float("inf")):
        raise PlaitError(f"${ENV_LOCK_TIMEOUT} must be a finite number of seconds, 0 or more, not {raw!r}")
    return value


def _holder(fd: int) -> str:
    """``pid N`` of the process holding the flock on *fd*'s file, read from /proc/locks (Linux)."""
    info = os.fstat(fd)
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            for line in fh:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
                held = len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted
                if held and fields[4].isdigit() and int(fields[4]) != os.getpid():
                    return f"pid {fields[4]}"
    except OSError:
        pass
    return "pid unknown"


# --------------------------------------------------------------------------
# the journal


@record
class Recovery:
    """What `recover` found and did: a journal rolled forward, temp files swept."""

    finished: bool = False
    operations: int = 0
    swept: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.finished:
            out.append(f"finished an interrupted run ({self.operations} file operation(s) left to do)")
        if self.swept:
            out.append(f"removed {len(self.swept)} temporary file(s) an interrupted run left")
        return out


def _journal_entries(path: Path, allowed: Callable[[Path], bool]) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """The renames and removals a journal names, each checked before anything is done.

    A journal is written atomically by plait, so one that does not parse or
    names a path outside the workspace was not written by plait: it is
    refused, never obeyed.
    """
    try:
        import json  # (here: a merge driver that writes one file never reads a journal)

        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise PlaitError(f"an interrupted run's journal cannot be read ({exc}); remove it", path=str(path)) from None
    if not isinstance(data, dict) or data.get("journal") != _JOURNAL_FORMAT:
        raise PlaitError("not a plait journal (no format number); remove it", path=str(path))
    renames: list[tuple[Path, Path]] = []
    removes: list[Path] = []
    for entry in data.get("renames", []):
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(p, str) for p in entry)):
            raise PlaitError("a journal rename must be [staged, target]", path=str(path))
        staged, target = Path(entry[0]), Path(entry[1])
        named_like_ours = staged.name.startswith(temp_prefix(target.name)) and staged.name.endswith(TEMP_SUFFIXES[0])
        if staged.parent != target.parent or not named_like_ours or not allowed(target):
            raise PlaitError(f"the journal names a path plait would not write: {target}", path=str(path))
        renames.append((staged, target))
    for entry in data.get("removes", []):
        if not isinstance(entry, str) or not allowed(Path(entry)):
            raise PlaitError(f"the journal names a path plait would not remove: {entry}", path=str(path))
        removes.append(Path(entry))
    return renames, removes


def _apply(renames: Iterable[tuple[Path, Path]], removes: Iterable[Path]) -> int:
    """Rename each staged file into place and do each removal; idempotent, so a
    journal can be applied again after a kill in the middle of applying it."""
    done = 0
    folders: set[Path] = set()
    for staged, target in renames:
        if os.path.lexists(staged):
            try:
                os.replace(staged, target)
            except OSError as exc:
                raise _os_error(exc, "replace", target) from None
            folders.add(target.parent)
            done += 1
    for target in removes:
        if os.path.lexists(target):
            try:
                os.unlink(target)
            except OSError as exc:
                raise _os_error(exc, "remove", target) from None
            folders.add(target.parent)
            done += 1
    for folder in folders:
        fsync_dir(folder)
    return done


def _prune(prune: Callable[[], Iterable[Path]] | None) -> list[Path]:
    pruned: list[Path] = []
    if prune is not None:
        for path in prune():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                pruned.append(path)
    return pruned


def sweep_temps(folders: Iterable[Path], *, recursive: Iterable[Path] = ()) -> list[str]:
    """Remove plait's temporary files from *folders* (and everything under *recursive*).

    Only names plait gives its own temporary files (``.<name>.<random>.plait-tmp``
    and the older ``.plait-del``) are touched; call this under the workspace
    lock, so no other run's staged file is among them.
    """
    swept: list[str] = []

    def consider(entry: os.DirEntry[str]) -> None:
        if entry.name.startswith(".") and entry.name.endswith(TEMP_SUFFIXES) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                swept.append(entry.path)
            except OSError:
                pass

    for folder in folders:
        with contextlib.suppress(OSError), os.scandir(folder) as listing:
            for entry in listing:
                consider(entry)
    for top in recursive:
        for below, dirs, _names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in (".git", "clones")]
            with contextlib.suppress(OSError), os.scandir(below) as listing:
                for entry in listing:
                    consider(entry)
    return sorted(swept)


def recover(
    store_root: Path,
    *,
    allowed: Callable[[Path], bool],
    prune: Callable[[], Iterable[Path]] | None = None,
    folders: Iterable[Path] = (),
    recursive: Iterable[Path] = (),
) -> Recovery:
    """Finish what a killed run switched to, and sweep what killed runs staged.

    Call it under `workspace_lock`, before planning: a journal on disk means
    a run passed its switch point, so its renames and removals are done now
    (whatever is already done is skipped), then its prune, then the journal
    goes.  Temporary
    files without a journal belong to a run killed before its switch point:
    the old workspace is intact, so they are simply removed.
    """
    result = Recovery()
    journal = store_root / JOURNAL_NAME
    if os.path.lexists(journal):
        if journal.is_symlink():
            raise PlaitError("the journal is a symlink; plait never writes one; remove it", path=str(journal))
        renames, removes = _journal_entries(journal, allowed)
        result.finished = True
        result.operations = _apply(renames, removes) + len(_prune(prune))
        journal.unlink()
        fsync_dir(store_root)
    result.swept = sweep_temps([store_root, *folders], recursive=[store_root / "objects", *recursive])
    return result


# --------------------------------------------------------------------------
# the transaction


@record
class Transaction:
    """Everything one run writes, committed by the protocol above.

    store_root: the ``.plait`` directory (journal and objects live there).
    objects: store objects to add, digest → content.
    writes / removes: every other file, by absolute path.
    executable: written files whose execute bit the run sets (True) or clears
      (False), as git carries a mode; a file not named keeps its target's mode.
    last: targets renamed after every other (the sync state and the locks:
      they say which files are current, so they switch last).
    """

    store_root: Path
    objects: dict[str, bytes] = field(default_factory=dict)
    writes: dict[Path, bytes] = field(default_factory=dict)
    removes: dict[Path, None] = field(default_factory=dict)
    executable: dict[Path, bool] = field(default_factory=dict)
    last: set[Path] = field(default_factory=set)
    created: list[Path] = field(default_factory=list)
    pruned: list[Path] = field(default_factory=list)
    # Every object the run names, whether or not it had to be added: what a
    # branch of the run (`--commit`) must hold.
    named: set[str] = field(default_factory=set)

    def write(self, path: Path, data: str | bytes, *, last: bool = False, executable: bool | None = None) -> None:
        """Write *data* to *path*; *executable* sets or clears its execute bit (None: the target's mode)."""
        self.removes.pop(path, None)
        self.writes[path] = contents.encode(data) if isinstance(data, str) else data
        if executable is not None:
            self.executable[path] = executable
        if last:
            self.last.add(path)

    def remove(self, path: Path) -> None:
        self.writes.pop(path, None)
        self.executable.pop(path, None)
        self.last.discard(path)
        self.removes[path] = None

    def add_object(self, digest: str, data: bytes) -> None:
        self.objects[digest] = data

    def __bool__(self) -> bool:
        return bool(self.objects or self.writes or self.removes)

    def object_path(self, digest: str) -> Path:
        return self.store_root / "objects" / digest[:2] / digest[2:]

    def commit(self, *, prune: Callable[[], Iterable[Path]] | None = None, sweep: Iterable[Path] = ()) -> list[Path]:
        """Run steps 1–6; the object files pruned.

        *prune* is called after the switch, when the state and the locks on
        disk are the new ones, and returns the objects nobody names; *sweep*
        names the directories whose stale temporary files go last.
        """
        staged: list[tuple[Path, Path]] = []
        created: list[Path] = []
        journal = self.store_root / JOURNAL_NAME
        try:
            ordered = sorted(self.writes, key=lambda p: (p in self.last, str(p)))
            for target in ordered:
                mode = file_mode(target, self.executable.get(target))
                staged.append((stage_file(target, self.writes[target], mode=mode), target))
            created = self._write_objects()
            payload = {
                "journal": _JOURNAL_FORMAT,
                "pid": os.getpid(),
                "renames": [[str(s), str(t)] for s, t in staged],
                "removes": [str(p) for p in self.removes],
            }
            import json

            tmp = stage_file(journal, json.dumps(payload, indent=1).encode("utf-8"), mode=0o644)
            try:
                os.replace(tmp, journal)  # the switch point
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                raise _os_error(exc, "write the journal", journal) from None
        except BaseException:
            # Before the switch nothing the user sees has changed: undo what was
            # staged, and the objects this run added (nobody names them yet).
            for temp, _target in staged:
                temp.unlink(missing_ok=True)
            for path in created:
                path.unlink(missing_ok=True)
            raise
        fsync_dir(self.store_root)
        _apply(staged, self.removes)
        # The journal stays until the prune is done: a kill in the middle of
        # pruning is finished by the next run, like one in the middle of renaming.
        pruned = _prune(prune)
        journal.unlink()
        fsync_dir(self.store_root)
        sweep_temps({t.parent for _s, t in staged} | set(sweep))
        self.created, self.pruned = created, pruned
        return pruned

    def touched(self) -> list[Path]:
        """Every path a committed transaction changed: files, removals, objects added and pruned."""
        return sorted({*self.writes, *self.removes, *self.created, *self.pruned})

    def _write_objects(self) -> list[Path]:
        """Store the new objects; the ones this call created (to undo on a failure)."""
        folders: set[Path] = set()
        created: list[Path] = []
        try:
            for digest, data in sorted(self.objects.items()):
                target = self.object_path(digest)
                if target.is_file():
                    continue
                tmp = stage_file(target, data, mode=0o644)
                try:
                    os.replace(tmp, target)
                except OSError as exc:
                    tmp.unlink(missing_ok=True)
                    raise _os_error(exc, "store an object", target) from None
                created.append(target)
                folders.add(target.parent)
        except BaseException:
            for path in created:
                path.unlink(missing_ok=True)
            raise
        for folder in folders:
            fsync_dir(folder)
        return created
