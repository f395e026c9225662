"""All-or-nothing file writes.

A reader (a service importing its vendored client, git reading a merge
driver's output) must never see a half-written file, and a multi-file run
must not leave some files updated and others not.  So every write goes to a
temporary file in the same directory and is renamed over the target; a batch
stages every file first and renames only when all staged.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path


def _stage(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".plait-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    write_all({Path(path): data})


def write_all(files: Mapping[Path, str | bytes], remove: Iterable[Path] = ()) -> None:
    """Write every file (and remove every file of *remove*) or none: stage all, then rename all.

    A file to remove is first renamed aside in its own directory, so that a
    failure while staging can put it back; it is deleted only once every
    write has been renamed into place.
    """
    staged: list[tuple[Path, Path]] = []
    aside: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            raw = data.encode("utf-8") if isinstance(data, str) else data
            staged.append((_stage(Path(path), raw), Path(path)))
        for gone in map(Path, remove):
            if gone.exists() or gone.is_symlink():
                fd, moved = tempfile.mkstemp(prefix=f".{gone.name}.", suffix=".plait-del", dir=gone.parent)
                os.close(fd)
                os.replace(gone, moved)
                aside.append((Path(moved), gone))
    except BaseException:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        for parked, original in aside:
            os.replace(parked, original)
        raise
    for temp, target in staged:
        os.replace(temp, target)
    for parked, _ in aside:
        parked.unlink(missing_ok=True)


class WriteBatch:
    """Files to write and remove in one all-or-nothing step.

    A sync gathers the lineage files, the new store objects and the state
    record here, so that either all of them change or none does.
    """

    def __init__(self) -> None:
        self.writes: dict[Path, str | bytes] = {}
        self.removes: dict[Path, None] = {}

    def write(self, path: Path, data: str | bytes) -> None:
        self.removes.pop(path, None)
        self.writes[path] = data

    def remove(self, path: Path) -> None:
        self.writes.pop(path, None)
        self.removes[path] = None

    def __bool__(self) -> bool:
        return bool(self.writes or self.removes)

    def commit(self) -> None:
        write_all(self.writes, self.removes)
        self.writes.clear()
        self.removes.clear()
