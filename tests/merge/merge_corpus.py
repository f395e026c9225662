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
    laws = ["hidden_delete_modify"]                # the laws (README, Guarantees) the case holds plait to

A known limitation is data too, the way mergiraf keeps ``ExpectedIdeally``
beside ``Expected`` in its failing cases: ``Expected.py`` and the keys above
stay what plait does today (so a change of it is seen), ``Ideal.py`` holds
what it should do, and::

    currently = "the header conflicts whole: parameters are not marked alone"   # why it falls short
    [ideal]                                        # the ideal result's conflicts
    clean = false
    conflict_kinds = ["modify/modify"]

The runner checks both, and fails once the merge gives ``Ideal.py``: the
limitation is gone, and the case becomes an ordinary one.

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
IDEAL = "Ideal.py"
TOML_KEYS = {"clean", "conflict_paths", "conflict_kinds", "expect_changes", "description", "laws", "currently", "ideal"}
IDEAL_KEYS = {"clean", "conflict_paths", "conflict_kinds"}

# The merge laws by name, in the README's order (its Guarantees list).
LAWS = (
    "identity",
    "untouched_verbatim",
    "valid_python",
    "nothing_lost_silently",
    "hidden_delete_modify",
    "no_duplicate_bindings",
    "no_new_undefined_names",
    "cosmetic_never_beats_real",
    "independent_changes_merge",
    "ordered_where_order_means",
    "same_point_insertions",
    "layout_kept",
    "narrowest_markers",
    "never_worse_than_git",
    "deterministic",
)


def read_exact(path: Path) -> str:
    """A file as plait reads it (`plait.contents`): no newline translation, any encoding, byte-exact."""
    from plait import contents

    return contents.decode(path.read_bytes())


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
    laws: list[str] = field(default_factory=list)
    # A known limitation: why today's result falls short, and the ideal one.
    currently: str | None = None
    ideal: dict = field(default_factory=dict)
    ideal_text: str | None = None
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
        laws=list(meta.get("laws", [])),
        currently=meta.get("currently"),
        ideal=dict(meta.get("ideal", {})),
        ideal_text=read_exact(folder / IDEAL) if (folder / IDEAL).is_file() else None,
        meta=meta,
    )


def change_matches(pattern: str, description: str) -> bool:
    if "*" in pattern:
        return fnmatch.fnmatchcase(description, f"*{pattern}*")
    return pattern in description
