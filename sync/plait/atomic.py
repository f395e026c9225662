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
from collections.abc import Mapping
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


def write_all(files: Mapping[Path, str | bytes]) -> None:
    """Write every file or none: stage all, then rename all."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            raw = data.encode("utf-8") if isinstance(data, str) else data
            staged.append((_stage(Path(path), raw), Path(path)))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
