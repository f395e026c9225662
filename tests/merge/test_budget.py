"""The time budget covers the whole merge: parsing, the structured merge, the audits, the fallback.

These are behavioural bounds, not benchmarks: a small budget on an input
far too large for it must still come back soon after the budget, with
nothing lost.  The limits leave room for a loaded machine; what they catch
is a merge that runs on for the seconds its stages take regardless of the
budget (on a 60,000-line input: about 4.5 s idle for a 1 s budget, before).
"""

from __future__ import annotations

import ast
import time

import pytest

import plait.merge.engine as engine
from plait.merge import merge3
from plait.merge.lines import LineMergeTimeout, merge_lines

BUDGET = 1.0
LIMIT = 3.0  # the budget, plus the one parse that cannot be stopped, plus a loaded machine


def _limit(texts: tuple[str, ...]) -> float:
    """LIMIT, or on a machine so loaded that parsing the inputs alone takes long, the budget plus twice that.

    The bound is the budget plus the parse that cannot be stopped: both are
    wall time, so a starved process gets the same bound in the parses it
    actually managed.  A merge that ran on for its stages (ten parses and
    more) still misses it.
    """
    started = time.perf_counter()
    for text in texts:
        ast.parse(text)
    return max(LIMIT, BUDGET + 2 * (time.perf_counter() - started))


def _module(functions: int, added: str = "") -> str:
    """A module of small functions; *added* names a function the side adds after every 50th."""
    parts = ['"""A generated module."""\n\nimport os\n']
    for i in range(functions):
        parts.append(
            f"\n\ndef f{i}(x, y):\n    total = x + y + {i}\n    if total > {i}:\n        total -= 1\n"
            f"    for k in range(3):\n        total += k\n    return total\n"
        )
        if added and i % 50 == 0:
            parts.append(f"\n\ndef {added}{i}(x):\n    return f{i}(x, x) * 2\n")
    return "".join(parts)


@pytest.fixture(scope="module")
def large() -> tuple[str, str, str]:
    """About 60,000 lines, where both sides add functions at the same spots: git conflicts, so the
    structured merge would be needed, and it alone would take far longer than the budget."""
    return _module(6600), _module(6600, "ours_"), _module(6600, "theirs_")


def test_a_small_budget_on_a_large_input_ends_soon_after_the_budget(large: tuple[str, str, str]) -> None:
    base, ours, theirs = large
    limit = _limit(large)
    started = time.perf_counter()
    result = merge3(base, ours, theirs, budget=BUDGET)
    took = time.perf_counter() - started
    assert took < limit, f"a {BUDGET:g}s budget took {took:.1f}s"
    assert result.strategy == "line-fallback"
    assert any(c.kind == "budget" for c in result.conflicts)
    assert "budget" in result.notes[0]
    # Nothing lost: git's line merge keeps both sides' functions, between markers where they clash.
    assert "def ours_6550(x):" in result.text and "def theirs_6550(x):" in result.text
    assert result.text.count("<<<<<<< ours") == 132


def test_with_the_budget_spent_an_identity_merge_is_still_exact(large: tuple[str, str, str]) -> None:
    base, ours, _theirs = large
    limit = _limit((base,))
    started = time.perf_counter()
    result = merge3(base, base, ours, budget=1e-6)
    assert time.perf_counter() - started < limit
    assert result.clean and result.text == ours and result.strategy == "identity"


def test_git_merge_file_is_stopped_at_its_timeout() -> None:
    with pytest.raises(LineMergeTimeout):
        merge_lines("a\n", "b\n", "c\n", timeout=1e-9)


def test_when_not_even_the_line_merge_fits_both_versions_are_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # No grace for git: with the budget spent, git is stopped at once.
    monkeypatch.setattr(engine, "LINE_MERGE_GRACE", 0.0)
    base = "x = 1\ny = 2\n"
    ours, theirs = base.replace("1", "10"), base.replace("1", "11")
    result = merge3(base, ours, theirs, budget=1e-9)
    assert result.text == f"<<<<<<< ours\n{ours}||||||| base\n{base}=======\n{theirs}>>>>>>> theirs\n"
    assert [c.kind for c in result.conflicts] == ["budget", "budget"]
    assert "kept whole" in result.conflicts[1].reason


def test_a_whole_file_conflict_keeps_crlf_and_a_missing_last_newline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "LINE_MERGE_GRACE", 0.0)
    base, ours, theirs = "x = 1\r\ny = 2", "x = 10\r\ny = 2", "x = 11\r\ny = 2"
    text = merge3(base, ours, theirs, budget=1e-9).text
    assert text.count("\n") == text.count("\r\n") == 10
    assert text.startswith("<<<<<<< ours\r\nx = 10\r\ny = 2\r\n||||||| base\r\n")
