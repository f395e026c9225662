"""Run every case of the merge corpus through ``plait.merge.merge3``.

One parametrized test per folder under ``tests/merge/cases`` (see
``merge_corpus.py`` for the folder layout and ``case.toml`` keys).
"""

from __future__ import annotations

import ast
import difflib

import pytest
from merge_corpus import TOML_KEYS, case_names, change_matches, load_case

CASES = case_names()
MARKERS = ("<<<<<<< ours\n", "||||||| base\n", "=======\n", ">>>>>>> theirs\n")


@pytest.fixture(scope="module")
def merge3():
    from plait.merge import merge3

    return merge3


def _diff(expected: str, actual: str) -> str:
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            "Expected.py",
            "merge3 output",
        )
    )


def test_corpus_is_not_empty():
    assert CASES, "no case folders found under tests/merge/cases"


@pytest.mark.parametrize("name", CASES)
def test_case_is_well_formed(name):
    """The corpus itself is sound, independently of the engine."""
    case = load_case(name)
    unknown = set(case.meta) - TOML_KEYS
    assert not unknown, f"unknown case.toml keys: {sorted(unknown)}"
    for label, text in (("Base", case.base), ("Ours", case.ours), ("Theirs", case.theirs)):
        ast.parse(text, filename=f"{name}/{label}.py")
    assert case.ours != case.base or case.theirs != case.base, "neither side changes anything"
    if case.clean:
        ast.parse(case.expected, filename=f"{name}/Expected.py")
        assert "<<<<<<<" not in case.expected
        assert not case.conflict_paths and not case.conflict_kinds
    else:
        for marker in MARKERS:
            assert marker in case.expected, f"conflict case lacks marker {marker!r}"


@pytest.mark.parametrize("name", CASES)
def test_case(name, merge3):
    case = load_case(name)
    result = merge3(case.base, case.ours, case.theirs)

    assert result.text == case.expected, f"merged text differs from {name}/Expected.py:\n" + _diff(
        case.expected, result.text
    )
    conflicts = [c.describe() for c in result.conflicts]
    assert result.clean == case.clean, f"clean={result.clean}, conflicts: {conflicts}"
    if case.clean:
        ast.parse(result.text)
    if case.conflict_paths is not None:
        assert sorted(c.path for c in result.conflicts) == sorted(case.conflict_paths)
    if case.conflict_kinds is not None:
        assert sorted(c.kind for c in result.conflicts) == sorted(case.conflict_kinds)
    described = [c.describe() for c in result.changes]
    for pattern in case.expect_changes:
        assert any(change_matches(pattern, d) for d in described), (
            f"no change matches {pattern!r}; changes were:\n  " + "\n  ".join(described)
        )


def _resolve(text: str, section: str) -> str:
    """*text* with every conflict resolved to one section, as a merge tool's "take ours" does."""
    out: list[str] = []
    part = None
    for line in text.splitlines(keepends=True):
        if line in MARKERS:
            part = {MARKERS[0]: "ours", MARKERS[1]: "base", MARKERS[2]: "theirs", MARKERS[3]: None}[line]
            continue
        if part is None or part == section:
            out.append(line)
    return "".join(out)


@pytest.mark.parametrize("name", [n for n in CASES if not load_case(n).clean])
@pytest.mark.parametrize("section", ["ours", "base", "theirs"])
def test_each_section_reads_as_code(name, section):
    """Markers stand on lines of their own, so taking any one section of every conflict gives Python.

    That holds for a conflict marked inside brackets too: the sections are
    the elements as each side has them, separators included.
    """
    case = load_case(name)
    ast.parse(_resolve(case.expected, section), filename=f"{name}/Expected.py, {section} taken")
