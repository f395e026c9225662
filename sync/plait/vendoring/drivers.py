"""Register `plait merge` as git's merge driver for the Python files of vendored directories.

A consumer's own branches edit its vendored copy too, and git's line merge
conflicts where the structured merge would not (two methods added at the
same spot).  Registering the driver takes two places:

- ``.gitattributes`` (committed, so every clone asks for the driver):
  ``<vendored dir>/**/*.py merge=plait``;
- the repository's config (local to each clone, which is why git keeps
  drivers out of committed files): ``merge.plait.driver``.

The vendored directories are found by their locks, so this works in a
consumer's repository without the workspace that declares it.  Running it
twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..commit import write_atomic
from ..errors import PlaitError
from .lock import find_locks

__all__ = ["ATTRIBUTES_HEADER", "DriverInstall", "driver_command", "install_merge_driver"]

DRIVER_NAME = "plait"
_SECTION = f'merge "{DRIVER_NAME}"'
ATTRIBUTES_HEADER = "# plait: structured 3-way merges for vendored Python (plait install-merge-driver)"


def driver_command(program: str = "plait") -> str:
    """The driver command line: git fills in base, ours, theirs, marker size and path."""
    return f"{program} merge %O %A %B -L %L -P %P"


@dataclass
class DriverInstall:
    """What `install_merge_driver` found and changed."""

    repository: Path
    gitattributes: Path
    driver: str
    patterns: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    config_changed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.added) or self.config_changed

    def to_json(self) -> dict[str, Any]:
        return {
            "repository": str(self.repository),
            "gitattributes": str(self.gitattributes),
            "driver": self.driver,
            "patterns": self.patterns,
            "added": self.added,
            "config_changed": self.config_changed,
            "changed": self.changed,
        }


def install_merge_driver(path: Path, *, program: str = "plait") -> DriverInstall:
    """Register the driver for every vendored directory under *path* (a directory of a git repository)."""
    from .. import gitops

    repo = gitops.repo_of(path)
    if repo is None or repo.working_tree_dir is None:
        raise PlaitError("not in a git repository", path=str(path))
    top = Path(repo.working_tree_dir).resolve()
    vendored = find_locks(path.resolve())
    if not vendored:
        raise PlaitError(
            "no vendored directory (one holding plait.lock) here; run `plait vendor` first", path=str(path)
        )
    install = DriverInstall(top, top / ".gitattributes", driver_command(program))
    for directory in vendored:
        rel = directory.relative_to(top).as_posix()
        if any(c.isspace() or c in '"\\' for c in rel):
            raise PlaitError(
                "a vendored directory whose path holds spaces or quotes cannot be named in .gitattributes",
                path=str(directory),
            )
        install.patterns.append(f"{rel}/**/*.py merge={DRIVER_NAME}" if rel != "." else f"*.py merge={DRIVER_NAME}")

    text = install.gitattributes.read_text(encoding="utf-8") if install.gitattributes.is_file() else ""
    present = {" ".join(line.split()) for line in text.splitlines()}
    install.added = [line for line in install.patterns if line not in present]
    if install.added:
        lines = ([ATTRIBUTES_HEADER] if ATTRIBUTES_HEADER not in present else []) + install.added
        prefix = text if not text or text.endswith("\n") else text + "\n"
        write_atomic(install.gitattributes, prefix + "\n".join(lines) + "\n")

    wanted = {"name": "plait structured 3-way merge", "driver": install.driver}
    reader = repo.config_reader("repository")
    current = {key: reader.get_value(_SECTION, key, default="") for key in wanted}
    if current != wanted:
        with repo.config_writer("repository") as config:
            for key, value in wanted.items():
                config.set_value(_SECTION, key, value)
        install.config_changed = True
    return install
