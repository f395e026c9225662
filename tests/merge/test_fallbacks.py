"""The merge's escape hatches: broken inputs, the time budget, strict callers."""

from __future__ import annotations

import pytest

from plait.errors import UnparsableSource
from plait.merge import merge3

BASE = '''def f(a):
    x = 1
    return x


def g():
    return 2
'''
# Both sides insert a different statement at the same spot: git's line merge
# conflicts there, so only the structured path can merge this cleanly.
OURS = BASE.replace("    x = 1\n", "    x = 1\n    log(a)\n")
THEIRS = BASE.replace("    x = 1\n", "    x = 1\n    check(a)\n")


def test_structured_merge_resolves_what_lines_cannot() -> None:
    result = merge3(BASE, OURS, THEIRS)
    assert result.clean and result.strategy == "structured"
    assert "    log(a)\n    check(a)\n" in result.text  # ours first, then theirs


def test_past_the_budget_it_falls_back_to_lines_and_is_not_clean() -> None:
    result = merge3(BASE, OURS, THEIRS, budget=0)
    assert result.strategy == "line-fallback"
    assert not result.clean
    assert any(c.kind == "budget" for c in result.conflicts)
    assert any("budget" in n for n in result.notes)
    # The fallback still carries git's own markers for the overlapping lines.
    assert "<<<<<<< ours" in result.text


def test_unparsable_input_falls_back_and_says_which_side() -> None:
    broken = OURS.replace("def g():", "def g(:")
    result = merge3(BASE, broken, THEIRS)
    assert result.strategy == "line-fallback"
    assert any(n.startswith("ours does not parse (line 7") for n in result.notes)


def test_strict_callers_refuse_unparsable_input_with_side_and_line() -> None:
    broken = THEIRS.replace("return 2", "return (2")
    with pytest.raises(UnparsableSource) as info:
        merge3(BASE, OURS, broken, strict=True)
    assert info.value.path == "theirs"
    assert "line" in str(info.value)


def test_bracketed_import_keeps_ours_layout_whole() -> None:
    """Theirs' one-line names join ours' bracketed layout; parentheses never drop."""
    base = "from x import (\n    a,\n    b,\n)\n"
    ours = "from x import (\n    a,\n    b,\n    c,\n)\n"
    theirs = "from x import a, b, d\n"
    assert merge3(base, ours, theirs).text == "from x import (\n    a,\n    b,\n    c,\n    d,\n)\n"
    # And the other way round: ours reflowed to one line, so theirs' name joins that line.
    assert merge3(base, theirs.replace("d", "c"), ours.replace("c", "d")).text == "from x import a, b, c, d\n"


def test_an_engine_bug_degrades_to_a_flagged_line_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a git driver, a traceback would read as 'conflicts' with no markers at all."""
    from plait.merge import structured

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(structured.StatementMatcher, "match", broken)
    result = merge3(BASE, OURS, THEIRS)
    assert result.strategy == "line-fallback"
    assert [c.kind for c in result.conflicts][0] == "internal"
    assert "KeyError" in result.conflicts[0].reason
    assert "<<<<<<< ours" in result.text  # git's own merge of the overlapping lines
