"""`merge_trees`: git's file rules plus merge3 per file, for any tree (a lineage or a vendored copy)."""

from __future__ import annotations

from plait.runs import merge_trees

BASE = {"a.py": "A = 1\n", "gone.py": "G = 1\n", "edited.py": "E = 1\n", "notes.txt": "v1\n"}
THEIRS = {"a.py": "A = 1\nB = 2\n", "new.py": "N = 1\n", "edited.py": "E = 1\n", "notes.txt": "v2\n"}
OURS = {
    "a.py": "A = 1\n\nC = 3\n",
    "gone.py": "G = 1\n",
    "edited.py": "E = 10\n",
    "local.py": "L = 1\n",
    "notes.txt": "v1\n",
}


def _by_name(plans):
    return {p.name: p for p in plans}


def test_each_file_follows_the_rules() -> None:
    plans = _by_name(merge_trees(BASE, OURS, THEIRS))
    # Both inserted after A: ours first, then theirs (the merge is deterministic).
    assert (plans["a.py"].action, plans["a.py"].after) == ("merged", "A = 1\n\nC = 3\nB = 2\n")
    assert (plans["new.py"].action, plans["new.py"].after) == ("added", "N = 1\n")
    assert (plans["gone.py"].action, plans["gone.py"].after) == ("deleted", None)
    assert (plans["edited.py"].action, plans["edited.py"].changes_file) == ("unchanged", False)
    assert (plans["local.py"].action, plans["local.py"].source_name) == ("kept", None)
    assert (plans["notes.txt"].action, plans["notes.txt"].after) == ("merged", "v2\n")


def test_protected_files_are_never_touched_and_reasons_name_the_local_copy() -> None:
    ours = {**OURS, "gone.py": "G = 2\n"}
    plans = _by_name(merge_trees(BASE, ours, THEIRS, protected={"a.py"}, local="the consumer"))
    assert (plans["a.py"].action, plans["a.py"].after) == ("kept", OURS["a.py"])
    (conflict,) = plans["gone.py"].conflicts
    assert conflict.reason == "the source deleted this file; the consumer changed it"


def test_the_raw_local_text_is_kept_byte_for_byte_when_nothing_changes() -> None:
    # The transformed text may differ from what is on disk; an untouched file keeps the disk's bytes.
    plans = _by_name(
        merge_trees({"x.py": "X = 1\n"}, {"x.py": "X = 1\n"}, {"x.py": "X = 1\n"}, ours_raw={"x.py": "X = 1\r\n"})
    )
    assert plans["x.py"].after == "X = 1\r\n" and not plans["x.py"].changes_file
