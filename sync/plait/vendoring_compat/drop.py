"""`transformations.drop`, as vendoring 1.4.0's `remove_unnecessary_items` treats each pattern.

A pattern starting with `^` is a regex `match`ed against every relative
path (directories and files, `/`-separated); one with `*`, `?` or `[` is a
`pathlib` glob from the destination; anything else is one literal path.
Patterns run in order, each on what the earlier ones left.  Here they run
on a list of file paths (directories are the paths' prefixes), so the
vendored tree never has to be on disk, and each pattern reports whether it
dropped anything: vendoring ignores a pattern that matches nothing, plait
names it (usually a stale entry after an upgrade).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from ..errors import PlaitError
from ..records import record

__all__ = ["DropResult", "drop_paths"]


@record(frozen=True)
class DropResult:
    kept: tuple[str, ...]
    dropped: tuple[str, ...]
    unmatched: tuple[str, ...]  # the patterns that dropped nothing


def drop_paths(paths: Iterable[str], patterns: Sequence[str], *, where: str = "[tool.vendoring]") -> DropResult:
    """Apply *patterns* to the relative file *paths* of one destination."""
    kept = sorted(set(paths))
    dropped: list[str] = []
    unmatched: list[str] = []
    for pattern in patterns:
        if pattern.startswith("^"):
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise PlaitError(
                    f"transformations.drop {pattern!r} is not a valid regex: {error}", path=where
                ) from None
            roots = [entry for entry in _entries(kept) if compiled.match(entry)]
        elif "*" in pattern or "?" in pattern or "[" in pattern:
            roots = _glob(kept, [part for part in pattern.split("/") if part not in ("", ".")])
        else:
            literal = PurePosixPath(pattern).as_posix()
            roots = [literal] if literal in _entries(kept) else []
        gone = {path for path in kept if any(path == root or path.startswith(root + "/") for root in roots)}
        if not gone:
            unmatched.append(pattern)
        dropped.extend(sorted(gone))
        kept = [path for path in kept if path not in gone]
    return DropResult(kept=tuple(kept), dropped=tuple(sorted(dropped)), unmatched=tuple(unmatched))


def _entries(paths: Iterable[str]) -> set[str]:
    """Every file and directory the file *paths* imply."""
    entries: set[str] = set()
    for path in paths:
        parts = path.split("/")
        for end in range(1, len(parts) + 1):
            entries.add("/".join(parts[:end]))
    return entries


def _glob(paths: Sequence[str], parts: Sequence[str]) -> list[str]:
    """The entries `Path.glob` yields for the pattern *parts*, relative to the destination."""
    entries = _entries(paths)
    directories = {entry.rsplit("/", 1)[0] for entry in entries if "/" in entry} | {""}

    def children(directory: str) -> list[str]:
        prefix = directory + "/" if directory else ""
        return sorted(e for e in entries if e.startswith(prefix) and "/" not in e[len(prefix) :])

    def below(directory: str) -> list[str]:
        prefix = directory + "/" if directory else ""
        return [directory] + sorted(d for d in directories if d and d.startswith(prefix))

    current = [""]
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        following: list[str] = []
        for directory in current:
            if part == "**":
                following.extend(below(directory))
            else:
                for child in children(directory):
                    if fnmatchcase(child.rsplit("/", 1)[-1], part) and (last or child in directories):
                        following.append(child)
        current = sorted(set(following))
    return [entry for entry in current if entry]
