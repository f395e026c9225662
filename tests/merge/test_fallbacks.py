"""The merge's escape hatches: broken inputs, the time budget, strict callers."""

from __future__ import annotations

import pytest

from plait.errors import UnparsableSource
from plait.merge import merge3

BASE = """def f(a):
    x = 1
    return x


def g():
    return 2
"""
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


WRAPPED = (
    "from pkg.exceptions import (ConnectionError, ConnectTimeout,\n"
    "                            InvalidSchema, InvalidURL, MissingSchema,\n"
    "                            ReadTimeout, Timeout, RetryError)\n"
)


def test_layout_kept_a_name_appended_goes_on_the_last_line_or_a_new_one() -> None:
    """An element the layout side lacks goes at the end of the line it follows, or, past the width, on a new one."""
    ours = WRAPPED.replace("ConnectTimeout,", "ConnectTimeout, SSLError,")
    theirs = WRAPPED.replace("RetryError)", "RetryError, ProxyError)")
    merged = merge3(WRAPPED, ours, theirs).text
    assert merged == ours.replace("RetryError)", "RetryError, ProxyError)")
    # Both append to the last line, which together would pass both versions' width: theirs' names start a new line.
    ours = WRAPPED.replace("RetryError)", "RetryError, ProxyError)")
    added = "ContentDecodingError, ChunkedEncodingError"
    theirs = WRAPPED.replace("RetryError)", f"RetryError, {added})")
    lines = merge3(WRAPPED, ours, theirs).text.splitlines()
    assert lines == [*ours.splitlines()[:2], ours.splitlines()[2].replace(")", ","), f"{' ' * 28}{added})"]


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


def _with_edits(body: str) -> tuple[str, str, str]:
    """Base, and two sides that each append a function (forcing the structured path) and edit elsewhere."""
    base = "import os\n\n" + body + "\n\ndef g():\n    return 1\n"
    ours = base.replace("import os", "import os\nimport sys") + "\n\ndef h():\n    return 2\n"
    theirs = base.replace("return 1", "return 3") + "\n\ndef k():\n    return 4\n"
    return base, ours, theirs


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("x = " + " + ".join(f"a{i}" for i in range(500)) + "\n", id="500-term-sum"),
        pytest.param(
            "def f(x):\n    if x == 0:\n        return 0\n"
            + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, 330)),
            id="330-branch-elif",
        ),
    ],
)
def test_deeply_nested_real_code_merges_structurally(body: str) -> None:
    """These raised RecursionError from the inventory, outside the guard: a traceback, exit 1."""
    base, ours, theirs = _with_edits(body)
    result = merge3(base, ours, theirs)
    assert result.clean and result.strategy == "structured"
    assert (
        "import sys" in result.text and "return 3" in result.text and "def h" in result.text and "def k" in result.text
    )


def test_nesting_past_what_libcst_survives_is_a_line_merge_with_a_note() -> None:
    # libcst's native parser overflows the C stack around 10,000 levels: never hand it such input.
    base, ours, theirs = _with_edits("x = " + " + ".join(f"a{i}" for i in range(20_000)) + "\n")
    result = merge3(base, ours, theirs)
    assert result.strategy == "line-fallback"
    # 3.11's parser reads it and plait's depth limit stops it ("nests 20001 levels deep"); from 3.12
    # the standard parser itself gives up ("nests too deeply to parse"): either way, said so.
    assert any("nests" in n and ("levels deep" in n or "too deeply" in n) for n in result.notes), result.notes


def test_an_exception_that_cannot_even_be_printed_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from plait.merge import structured

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    def broken(*_args: object, **_kwargs: object) -> None:
        raise Unprintable

    monkeypatch.setattr(structured.StatementMatcher, "match", broken)
    result = merge3(BASE, OURS, THEIRS)
    assert result.conflicts[0].kind == "internal"
    assert "Unprintable: <unprintable>" in result.conflicts[0].reason


def test_a_bug_in_the_audits_is_caught_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard covers every stage, not a hand-kept list of exception types in one of them."""
    from plait.merge import engine

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("audit bug")

    monkeypatch.setattr(engine, "summarize", broken)
    result = merge3(BASE, OURS, THEIRS)
    assert result.strategy == "line-fallback"
    assert "ZeroDivisionError: audit bug" in result.conflicts[0].reason


def test_a_utf8_bom_is_kept_and_does_not_stop_the_structured_merge() -> None:
    bom = "\ufeff"
    result = merge3(bom + BASE, bom + OURS, bom + THEIRS)
    assert result.clean and result.strategy == "structured"
    assert result.text.startswith(bom) and result.text.count(bom) == 1
    # A side that drops the BOM is an edit like any other.
    assert not merge3(bom + BASE, OURS, bom + THEIRS).text.startswith(bom)


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        ('msg = f"{[1,\n2]!r}"\n', True),  # 3.12 reads it, 3.11 does not
        ("msg = rf'{[1,\n2]!r}'\n", True),
        ('msg = f"""{[1,\n2]!r}"""\n', False),  # triple quotes: a line break is fine on 3.11 too
        ('msg = f"{[1, 2]!r}"\nrest = [\n    3,\n]\n', False),  # the break is outside the f-string
        ("rest = [\n    3,\n]\n", False),
    ],
)
def test_a_section_is_read_under_the_oldest_grammar_a_copy_may_run(text: str, broken: bool) -> None:
    from plait.merge.decide import _breaks_a_one_line_fstring

    assert _breaks_a_one_line_fstring(text) is broken
