"""The laws `identity` and `deterministic`, checked byte-exact on every corpus case.

merge(B, B, T) == T;  merge(B, O, B) == O;  merge(B, X, X) == X (for X = O and
X = T); and the same inputs always give the same bytes.
"""

from __future__ import annotations

import pytest
from merge_corpus import case_names, load_case

CASES = case_names()


@pytest.fixture(scope="module")
def merge3():
    from plait.merge import merge3

    return merge3


@pytest.mark.parametrize("name", CASES)
def test_ours_unchanged_gives_theirs(name, merge3):
    case = load_case(name)
    result = merge3(case.base, case.base, case.theirs)
    assert result.text == case.theirs
    assert result.clean


@pytest.mark.parametrize("name", CASES)
def test_theirs_unchanged_gives_ours(name, merge3):
    case = load_case(name)
    result = merge3(case.base, case.ours, case.base)
    assert result.text == case.ours
    assert result.clean


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("side", ["ours", "theirs"])
def test_same_change_on_both_sides(name, side, merge3):
    case = load_case(name)
    text = getattr(case, side)
    result = merge3(case.base, text, text)
    assert result.text == text
    assert result.clean


@pytest.mark.parametrize("name", CASES)
def test_deterministic(name, merge3):
    case = load_case(name)
    first = merge3(case.base, case.ours, case.theirs)
    second = merge3(case.base, case.ours, case.theirs)
    assert first.text == second.text
    assert [c.describe() for c in first.conflicts] == [c.describe() for c in second.conflicts]
    assert [c.describe() for c in first.changes] == [c.describe() for c in second.changes]
