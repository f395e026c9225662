"""A conflict whose text holds no marker is never written as if resolved (issue 30).

The audits can find an addition missing that they cannot point at; the
merge then conflicts with git's text, which may hold no marker.  Written
as it is, the next `plait vendor` (or `sync --continue`) would find no
marker and record it: a side's change gone unseen.  sync and vendor mark
the whole file instead, as `plait merge` does for git.
"""

from __future__ import annotations

import pytest

from plait import runs
from plait.merge import Conflict, MergeResult

BASE = "def f():\n    return 1\n"


def test_a_markerless_conflict_is_marked_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    ours, theirs = BASE + "\nA = 1\n", BASE + "\nB = 2\n"
    lost = Conflict("<module>", "lost", "theirs added B, which the result lacks")
    monkeypatch.setattr(runs, "merge3", lambda *a, **k: MergeResult(ours, [lost], [], "line-fallback"))
    (plan,) = runs.merge_trees({"m.py": BASE}, {"m.py": ours}, {"m.py": theirs})
    assert plan.action == "conflict"
    assert plan.after is not None and runs.marker_line(plan.after) == 1
    assert "A = 1" in plan.after and "B = 2" in plan.after


def test_a_budget_conflict_keeps_gits_clean_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    merged = BASE + "\nA = 1\nB = 2\n"
    over = Conflict("<module>", "budget", "past the budget; this is a line merge")
    monkeypatch.setattr(runs, "merge3", lambda *a, **k: MergeResult(merged, [over], [], "line-fallback"))
    (plan,) = runs.merge_trees({"m.py": BASE}, {"m.py": BASE + "\nA = 1\n"}, {"m.py": BASE + "\nB = 2\n"})
    assert plan.after == merged
