"""Run every case of the merge corpus through ``plait.merge.merge3``.

One parametrized test per folder under ``tests/merge/cases`` (see
``merge_corpus.py`` for the folder layout and ``case.toml`` keys).
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import pytest
from merge_corpus import IDEAL_KEYS, LAWS, TOML_KEYS, case_names, change_matches, load_case

from plait.contents import encode  # (a case is parsed as its bytes, as Python reads a module: PEP 263 included)

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
        ast.parse(encode(text), filename=f"{name}/{label}.py")
    assert case.ours != case.base or case.theirs != case.base, "neither side changes anything"
    _expect_well_formed(name, "Expected.py", case.expected, case.clean, case.conflict_paths, case.conflict_kinds)
    unknown_laws = set(case.laws) - set(LAWS)
    assert not unknown_laws, f"laws the README does not name: {sorted(unknown_laws)}"
    if case.currently is None:
        assert not case.ideal and case.ideal_text is None, "Ideal.py and [ideal] belong to a known limitation"
        return
    # A known limitation: the ideal result is described as carefully as today's.
    assert case.currently.strip(), "`currently` says why today's result falls short"
    assert case.ideal_text is not None, "a known limitation keeps its ideal result in Ideal.py"
    assert case.ideal_text != case.expected, "Ideal.py is what plait does already: drop `currently`"
    unknown = set(case.ideal) - IDEAL_KEYS
    assert not unknown, f"unknown [ideal] keys: {sorted(unknown)}"
    ideal = case.ideal
    _expect_well_formed(
        name,
        "Ideal.py",
        case.ideal_text,
        ideal.get("clean", True),
        ideal.get("conflict_paths"),
        ideal.get("conflict_kinds"),
    )


def _expect_well_formed(
    name: str, file: str, text: str, clean: bool, paths: list[str] | None, kinds: list[str] | None
) -> None:
    if clean:
        ast.parse(encode(text), filename=f"{name}/{file}")
        assert "<<<<<<<" not in text
        assert not paths and not kinds
    else:
        for marker in MARKERS:
            assert marker in text, f"conflict case lacks marker {marker!r} in {file}"


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
        ast.parse(encode(result.text))
    if case.conflict_paths is not None:
        assert sorted(c.path for c in result.conflicts) == sorted(case.conflict_paths)
    if case.conflict_kinds is not None:
        assert sorted(c.kind for c in result.conflicts) == sorted(case.conflict_kinds)
    described = [c.describe() for c in result.changes]
    for pattern in case.expect_changes:
        assert any(change_matches(pattern, d) for d in described), (
            f"no change matches {pattern!r}; changes were:\n  " + "\n  ".join(described)
        )


@pytest.mark.parametrize("name", [n for n in CASES if load_case(n).currently is not None])
def test_known_limit_still_holds(name, merge3):
    """A known limitation stays one until the merge gives the ideal result; then the case is promoted.

    `test_case` holds today's result to Expected.py; this fails as soon as
    the engine does better, so Ideal.py never goes stale unnoticed.
    """
    case = load_case(name)
    result = merge3(case.base, case.ours, case.theirs)
    assert result.text != case.ideal_text, (
        f"{name} now merges as Ideal.py: make Ideal.py its Expected.py and drop `currently` and [ideal]"
    )


def test_every_law_is_held_to_by_a_case_or_a_test():
    """Each law the README names is exercised under that name: by a case's `laws`, or a test called after it."""
    named_in_cases = {law for n in CASES for law in load_case(n).laws}
    tests = {
        node.name
        for path in Path(__file__).parent.glob("test_*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }
    unheld = [law for law in LAWS if law not in named_in_cases and not any(law in t for t in tests)]
    assert not unheld, f"laws nothing holds plait to by name: {unheld}"


def test_the_readme_names_the_laws_in_order():
    """The README's Guarantees list and the corpus agree on the laws' names and order."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    guarantees = readme.partition("**Guarantees.**")[2].partition("**How it works.**")[0]
    listed = []
    for line in guarantees.splitlines():
        number, dot, rest = line.partition(". `")
        if dot and number.isdigit():
            listed.append(rest.partition("`")[0])
    assert tuple(listed) == LAWS


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
    ast.parse(encode(_resolve(case.expected, section)), filename=f"{name}/Expected.py, {section} taken")
