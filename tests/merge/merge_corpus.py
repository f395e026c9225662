"""Discovery and loading of the merge case corpus (``tests/merge/cases``).

Each case is one folder holding ``Base.py``, ``Ours.py``, ``Theirs.py`` and
``Expected.py``, plus an optional ``case.toml``::

    clean = false                                  # default: true
    conflict_paths = ["EmbeddingClient.embed"]     # exact multiset of Conflict.path
    conflict_kinds = ["delete/modify"]             # exact multiset of Conflict.kind
    expect_changes = [                             # each must match some Change.describe()
        "theirs added EmbeddingClient.embed_with_outcome",
        'ours *"uds"',
    ]

An ``expect_changes`` entry is a plain substring, unless it contains ``*``: then
it is a glob matched anywhere in the description (``ours *"uds"`` means "a
description that starts a match at ``ours`` and later mentions ``"uds"``").

Adding a case is a one-folder change: nothing here lists the cases.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CASES_DIR = Path(__file__).parent / "cases"
FILES = ("Base.py", "Ours.py", "Theirs.py", "Expected.py")
TOML_KEYS = {"clean", "conflict_paths", "conflict_kinds", "expect_changes", "description"}


def read_exact(path: Path) -> str:
    """Read a file without newline translation, so comparisons are byte-exact."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


@dataclass
class Case:
    name: str
    folder: Path
    base: str
    ours: str
    theirs: str
    expected: str
    clean: bool = True
    conflict_paths: list[str] | None = None
    conflict_kinds: list[str] | None = None
    expect_changes: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


def case_names() -> list[str]:
    return sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def load_case(name: str) -> Case:
    folder = CASES_DIR / name
    missing = [f for f in FILES if not (folder / f).is_file()]
    if missing:
        raise FileNotFoundError(f"case {name!r} lacks {', '.join(missing)}")
    meta: dict = {}
    toml_path = folder / "case.toml"
    if toml_path.is_file():
        with open(toml_path, "rb") as handle:
            meta = tomllib.load(handle)
    return Case(
        name=name,
        folder=folder,
        base=read_exact(folder / "Base.py"),
        ours=read_exact(folder / "Ours.py"),
        theirs=read_exact(folder / "Theirs.py"),
        expected=read_exact(folder / "Expected.py"),
        clean=meta.get("clean", True),
        conflict_paths=meta.get("conflict_paths"),
        conflict_kinds=meta.get("conflict_kinds"),
        expect_changes=list(meta.get("expect_changes", [])),
        meta=meta,
    )


def change_matches(pattern: str, description: str) -> bool:
    if "*" in pattern:
        return fnmatch.fnmatchcase(description, f"*{pattern}*")
    return pattern in description
