"""`merge_trees`: git's file rules plus merge3 per file, for any tree (a lineage or a vendored copy)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait import runs
from plait.errors import PlaitError
from plait.runs import applied_lines, merge_trees

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


# -- the byte-decided files are the merged ones ----------------------------------------------

_TEXTS = [
    "A = 1\n",
    "A = 1\nB = 2\n",
    "A = 2\n",
    "A = 1\r\n",
    "\ufeffA = 1\n",
    "def f():\n    return 1\n",
    "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    "def (:\n",
]
_tree = st.dictionaries(st.sampled_from(["a.py", "b.py", "n.txt"]), st.sampled_from(_TEXTS), max_size=3)


def _planned(base, ours, theirs, ours_raw):
    try:
        plans = merge_trees(base, ours, theirs, ours_raw=ours_raw)
    except PlaitError as exc:
        return "refused", str(exc)
    return [(p.name, p.source_name, p.action, p.before, p.after, p.result, p.conflicts) for p in plans]


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@examples(300)
@given(_tree, _tree, _tree, st.booleans())
def test_files_two_sides_agree_on_are_planned_as_the_merge_plans_them(base, ours, theirs, raw_differs) -> None:
    # The raw copy may differ from the transformed one (a hand-vendored spelling); its bytes are kept.
    ours_raw = {name: text.replace("A =", "A  =") if raw_differs else text for name, text in ours.items()}
    fast = _planned(base, ours, theirs, ours_raw)
    with mock.patch.object(runs, "_decided", lambda *args: None):
        assert fast == _planned(base, ours, theirs, ours_raw)


def test_a_file_one_side_left_alone_is_not_merged_until_its_report_is_read(monkeypatch) -> None:
    calls: list[str] = []
    real = runs.merge3

    def counting(base: str, ours: str, theirs: str, **kwargs):
        calls.append(ours)
        return real(base, ours, theirs, **kwargs)

    monkeypatch.setattr(runs, "merge3", counting)
    runs._identity_merge.cache_clear()
    runs._changes_between.cache_clear()
    one, with_b, with_c = "A = 1\n", "A = 1\n\n\ndef b():\n    return 2\n", "A = 1\n\n\ndef c():\n    return 3\n"
    base = {"same.py": one, "theirs.py": one, "ours.py": one}
    ours = {"same.py": one, "theirs.py": one, "ours.py": with_c}
    theirs = {"same.py": one, "theirs.py": with_b, "ours.py": one}

    plans = _by_name(merge_trees(base, ours, theirs))

    assert calls == []
    assert [p.after for p in plans.values()] == [with_c, one, with_b]
    # What the run changes: only the file it writes is compared (its text before against after), once.
    assert [line.text for line in applied_lines(plans.values())] == ["+ b"]
    assert calls == [with_b]
    assert [line.text for line in applied_lines(plans.values())] == ["+ b"] and calls == [with_b]
    assert plans["ours.py"].changes_by("theirs") == [] and calls == [with_b]
    assert [c.path for c in plans["ours.py"].changes_by("ours")] == ["c"]
