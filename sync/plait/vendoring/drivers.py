"""Register plait's git merge drivers for vendored directories: Python files and plait.lock.

A consumer's own branches edit its vendored copy too, and git's line merge
conflicts where the structured merge would not (two methods added at the
same spot); two branches that each re-vendored change the same lock, which
git's line merge turns into markers that no longer parse.  Registering the
drivers takes two places:

- ``.gitattributes`` (committed, so every clone asks for the drivers):
  ``<vendored dir>/**/*.py merge=plait`` and ``<vendored dir>/plait.lock
  merge=plait-lock``;
- the repository's config (local to each clone, which is why git keeps
  drivers out of committed files): ``merge.plait.driver`` and
  ``merge.plait-lock.driver``.

The drivers name the interpreter by absolute path and plait as its module
(``/abs/python -m plait merge ...``, quoted when the path needs it), never
a bare ``plait``: git runs them from whatever shell started it, often one
without the virtual environment, and a driver git cannot start reads as a
conflict without markers while the other branch's change is silently
missing.  So the
registered command line is run once, through ``sh`` the way git runs it,
before anything is written; one that does not run is refused with its cause.

The vendored directories are found by their locks, so this works in a
consumer's repository without the workspace that declares it.  Running it
twice changes nothing.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..commit import write_atomic
from ..errors import PlaitError
from ..paths import LOCK_NAME
from .lock import find_locks

__all__ = [
    "ATTRIBUTES_HEADER",
    "DRIVER_NAME",
    "LOCK_DRIVER_NAME",
    "DriverInstall",
    "check_driver",
    "driver_command",
    "expand_driver",
    "install_merge_driver",
    "lock_driver_command",
    "python_program",
]

DRIVER_NAME = "plait"
LOCK_DRIVER_NAME = "plait-lock"
ATTRIBUTES_HEADER = "# plait: structured 3-way merges for vendored Python (plait install-merge-driver)"

_DESCRIPTIONS = {
    DRIVER_NAME: "plait structured 3-way merge",
    LOCK_DRIVER_NAME: "plait lock merge (union of the files, hashes re-derived)",
}

# What the check runs the driver on: a merge whose answer is known.
_CHECK_BASE = "A = 1\n"
_CHECK_OURS = "A = 1\nB = 2\n"

# The environment a shell without the virtual environment has: the
# interpreter must find plait on its own, not through these.
_ENVIRONMENT_CRUTCHES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH")


def python_program(python: str | os.PathLike[str] | None = None) -> str:
    """How git starts plait: ``/abs/python -m plait``, the path quoted for git's shell.

    The interpreter keeps its path as given (made absolute, symlinks not
    resolved): a virtual environment's ``bin/python`` is a link to the base
    interpreter, and only through the link does it find the environment's
    packages.
    """
    return f"{shlex.quote(os.path.abspath(python or sys.executable))} -m plait"


def _escape_percent(program: str) -> str:
    # git expands %O, %A, %P... anywhere in the driver line, the program's
    # path included; %% is its literal percent sign.
    return program.replace("%", "%%")


def driver_command(program: str | None = None) -> str:
    """The Python driver's line: git fills in base, ours, theirs, marker size and path."""
    return f"{_escape_percent(program or python_program())} merge %O %A %B -L %L -P %P"


def lock_driver_command(program: str | None = None) -> str:
    """The lock driver's line: the path (%P) says where the lock's vendored files are."""
    return f"{_escape_percent(program or python_program())} merge-lock %O %A %B -P %P"


def expand_driver(line: str, values: Mapping[str, str]) -> str:
    """*line* as git hands it to ``sh -c``: ``%X`` replaced by its value, single-quoted, ``%%`` by ``%``.

    The check below runs the registered line through this, so what it runs
    is what git will run, quoting included.
    """
    out: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        if char == "%" and i + 1 < len(line):
            key = line[i + 1]
            if key == "%":
                out.append("%")
                i += 2
                continue
            if key in values:
                out.append(shlex.quote(values[key]) if key != "L" else values[key])
                i += 2
                continue
        out.append(char)
        i += 1
    return "".join(out)


@dataclass
class DriverInstall:
    """What `install_merge_driver` found and changed.

    driver, lock_driver: the command lines registered for Python files and for locks.
    checked: what the check of the driver printed (the plait version it runs).
    """

    repository: Path
    gitattributes: Path
    python: str
    driver: str
    lock_driver: str
    checked: str = ""
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
            "python": self.python,
            "driver": self.driver,
            "lock_driver": self.lock_driver,
            "checked": self.checked,
            "patterns": self.patterns,
            "added": self.added,
            "config_changed": self.config_changed,
            "changed": self.changed,
        }


def check_driver(program: str) -> str:
    """Run the driver line of *program* once, through ``sh`` as git does, on a merge whose answer is known.

    It runs in the environment a shell without the virtual environment
    would give it (no PYTHONPATH, VIRTUAL_ENV...; the default PATH), so a
    driver that works only from the shell that installs it is refused here,
    not discovered in the middle of someone's merge.  Returns the plait
    version the driver runs; raises `PlaitError` naming the cause.
    """
    line = driver_command(program)
    with tempfile.TemporaryDirectory(prefix="plait-driver-check-") as scratch:
        files = {name: Path(scratch) / f"{name}.py" for name in ("base", "ours", "theirs")}
        for name, text in (("base", _CHECK_BASE), ("ours", _CHECK_OURS), ("theirs", _CHECK_BASE)):
            files[name].write_text(text, encoding="utf-8")
        values = {"O": str(files["base"]), "A": str(files["ours"]), "B": str(files["theirs"]), "P": "check.py"}
        done = _plain_shell(expand_driver(line, {**values, "L": "7"}), line)
        if done.returncode != 0 or files["ours"].read_text(encoding="utf-8") != _CHECK_OURS:
            said = (done.stderr.strip().splitlines() or ["it printed nothing"])[-1]
            raise PlaitError(
                f"the merge driver does not run in a plain shell (exit {done.returncode}: {said}); "
                f"pass --python an interpreter that has plait installed: {line}"
            )
    return _plain_shell(expand_driver(f"{_escape_percent(program)} --version", {}), line).stdout.strip()


def _plain_shell(command: str, line: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENVIRONMENT_CRUTCHES}
    env["PATH"] = os.defpath
    try:
        return subprocess.run(
            ["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlaitError(f"the merge driver does not run ({exc}): {line}") from None


def install_merge_driver(path: Path, *, python: str | os.PathLike[str] | None = None) -> DriverInstall:
    """Register both drivers for every vendored directory under *path* (a directory of a git repository).

    *python*: the interpreter git starts plait with (default: the one
    running this).  Nothing is written unless the driver runs.
    """
    from .. import gitops

    top = gitops.top_of(path)
    if top is None:
        raise PlaitError("not in a git repository", path=str(path))
    vendored = find_locks(path.resolve())
    if not vendored:
        raise PlaitError(
            "no vendored directory (one holding plait.lock) here; run `plait vendor` first", path=str(path)
        )
    interpreter = os.path.abspath(python or sys.executable)
    if not os.access(interpreter, os.X_OK) or os.path.isdir(interpreter):
        raise PlaitError("no such interpreter (not an executable file)", path=interpreter)
    program = python_program(interpreter)
    install = DriverInstall(
        top, top / ".gitattributes", interpreter, driver_command(program), lock_driver_command(program)
    )
    if install.gitattributes.is_symlink() or (install.gitattributes.exists() and not install.gitattributes.is_file()):
        # Writing through a link would copy its target (anything on the machine)
        # into a file the user is told to commit.
        raise PlaitError(
            ".gitattributes is a symlink or not a regular file; plait writes only a regular one there",
            path=str(install.gitattributes),
        )
    for directory in vendored:
        rel = directory.relative_to(top).as_posix()
        if rel == ".":
            install.patterns += [f"*.py merge={DRIVER_NAME}", f"/{LOCK_NAME} merge={LOCK_DRIVER_NAME}"]
        else:
            pattern = attribute_pattern(rel)
            install.patterns += [
                _quoted(f"{pattern}/**/*.py") + f" merge={DRIVER_NAME}",
                _quoted(f"{pattern}/{LOCK_NAME}") + f" merge={LOCK_DRIVER_NAME}",
            ]
    _verify_patterns(top, install.patterns, vendored)

    text = install.gitattributes.read_text(encoding="utf-8") if install.gitattributes.is_file() else ""
    present = {" ".join(line.split()) for line in text.splitlines()}
    install.added = [line for line in install.patterns if " ".join(line.split()) not in present]
    wanted = {
        f"merge.{DRIVER_NAME}.name": _DESCRIPTIONS[DRIVER_NAME],
        f"merge.{DRIVER_NAME}.driver": install.driver,
        f"merge.{LOCK_DRIVER_NAME}.name": _DESCRIPTIONS[LOCK_DRIVER_NAME],
        f"merge.{LOCK_DRIVER_NAME}.driver": install.lock_driver,
    }
    stale = {key: value for key, value in wanted.items() if gitops.config_get(top, key) != value}
    if stale or install.added:
        install.checked = check_driver(program)
    if install.added:
        lines = ([ATTRIBUTES_HEADER] if ATTRIBUTES_HEADER not in present else []) + install.added
        prefix = text if not text or text.endswith("\n") else text + "\n"
        write_atomic(install.gitattributes, prefix + "\n".join(lines) + "\n")
    for key, value in stale.items():
        # git itself writes the value: it quotes what its config syntax
        # would otherwise read as a comment (#, ;) or an escape (", \).
        gitops.config_set(top, key, value)
    install.config_changed = bool(stale)
    return install


def attribute_pattern(rel: str) -> str:
    """*rel* (a directory, top-relative) as a .gitattributes pattern that matches it and nothing else.

    git reads ``* ? [ ] \\`` as glob syntax anywhere and ``# !`` at the start
    as a comment and a negation: each is escaped with a backslash.
    """
    escaped = "".join("\\" + c if c in "*?[]\\" else c for c in rel)
    return "\\" + escaped if escaped.startswith(("#", "!")) else escaped


def _quoted(pattern: str) -> str:
    """A pattern holding whitespace or quotes in git's C-style double quotes (else as it is)."""
    if not any(c.isspace() or c == '"' for c in pattern):
        return pattern
    inner = pattern.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return f'"{inner}"'


def _verify_patterns(top: Path, patterns: list[str], vendored: list[Path]) -> None:
    """Ask git itself which files *patterns* give each driver, before anything is written.

    In a scratch repository whose only attributes are *patterns*, every
    file of *top* (tracked or not) is put to ``git check-attr``: each
    vendored ``.py`` file must get ``merge=plait``, each lock
    ``merge=plait-lock``, and nothing else either.  A pattern git reads
    otherwise than plait meant is refused, named, rather than reported as
    installed.
    """
    from .. import gitops

    files = gitops.listed_files(top)
    rels = [d.relative_to(top).as_posix() for d in vendored]

    def inside(name: str, rel: str) -> bool:
        return rel == "." or name.startswith(rel + "/")

    expected = {}
    for name in files:
        for rel in rels:
            if inside(name, rel):
                if name.endswith(".py"):
                    expected[name] = DRIVER_NAME
                elif name == (LOCK_NAME if rel == "." else f"{rel}/{LOCK_NAME}"):
                    expected[name] = LOCK_DRIVER_NAME
    with tempfile.TemporaryDirectory(prefix="plait-attributes-") as scratch:
        gitops.init(Path(scratch))
        (Path(scratch) / ".gitattributes").write_text("\n".join(patterns) + "\n", encoding="utf-8")
        got = gitops.check_attr(Path(scratch), "merge", files, isolated=True)
    wrong = sorted(
        name for name in files if (got.get(name) if got.get(name) != "unspecified" else None) != expected.get(name)
    )
    if wrong:
        shown = ", ".join(wrong[:5]) + (f" and {len(wrong) - 5} more" if len(wrong) > 5 else "")
        raise PlaitError(
            f"the .gitattributes patterns for the vendored directories would not match exactly their files"
            f" (git disagrees on {shown}); nothing was written",
            path=str(top / ".gitattributes"),
        )
