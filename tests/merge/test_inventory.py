"""The nothing-lost ledger catches what a merge walk gets wrong.

These feed `summarize` a hand-made wrong result, as a buggy merge would
produce, and check that the loss is named instead of passing as clean.
"""

from __future__ import annotations

import ast

from plait.merge.inventory import summarize, take_inventory


def inv(src: str):
    return take_inventory(ast.parse(src), src)


BASE = """class A:
    def f(self, m):
        if m == "x":
            return 1

class B:
    def f(self, m):
        if m == "x":
            return 1
"""
# Ours adds a branch to A.f only; B.f, identical in base, is left as it was.
OURS = BASE.replace(
    """class A:
    def f(self, m):
        if m == "x":
            return 1
""",
    """class A:
    def f(self, m):
        if m == "x":
            return 1
        elif m == "y":
            return 2
""",
)


def test_an_addition_that_landed_in_another_class_is_misplaced_not_moved() -> None:
    wrong = BASE.replace(
        """class B:
    def f(self, m):
        if m == "x":
            return 1
""",
        """class B:
    def f(self, m):
        if m == "x":
            return 1
        elif m == "y":
            return 2
""",
    )
    _changes, lost = summarize(inv(BASE), inv(OURS), inv(BASE), inv(wrong))
    assert [(c.kind, c.path) for c in lost] == [("misplaced", "A.f")]
    assert lost[0].reason == 'ours added branch m == "y" here but the merge put it in B.f'
    # The same branch where ours put it is no loss at all: the ledger tells the two places apart.
    _changes, lost = summarize(inv(BASE), inv(OURS), inv(BASE), inv(OURS))
    assert lost == []


def test_an_addition_missing_from_the_result_is_lost() -> None:
    _changes, lost = summarize(inv(BASE), inv(OURS), inv(BASE), inv(BASE))
    # The branch, and the statement inside it, both named at their definition.
    assert {(c.kind, c.path) for c in lost} == {("lost", "A.f")}
    assert any('branch m == "y"' in c.reason for c in lost)
    assert any("`return 2`" in c.reason for c in lost)


def test_a_statement_moved_into_a_helper_must_arrive() -> None:
    """The extract-helper loss: one side moves statements into a new def, the result keeps the def but not them."""
    base = "def f(items):\n    total = sum(items)\n    log(total)\n    return total\n"
    theirs = (
        "def _log(items):\n    total = sum(items)\n    log(total)\n\n\n"
        "def f(items):\n    _log(items)\n    return sum(items)\n"
    )
    hollow = "def _log(items):\n    pass\n\n\ndef f(items):\n    _log(items)\n    return sum(items)\n"
    _changes, lost = summarize(inv(base), inv(base), inv(theirs), inv(hollow))
    assert [c.kind for c in lost] == ["lost", "lost"]
    assert {c.path for c in lost} == {"_log"}


def test_a_cosmetic_edit_need_not_survive_the_other_sides_deletion() -> None:
    base = "x = 1\nprint('a')\n"
    ours = 'x = 1\nprint("a")  # loud\n'
    theirs = "x = 1\n"
    _changes, lost = summarize(inv(base), inv(ours), inv(theirs), inv(theirs))
    assert lost == []


def test_a_definition_stacked_twice_is_reported() -> None:
    ours = BASE + "\ndef g():\n    return 1\n"
    theirs = BASE + "\ndef g():\n    return 2\n"
    stacked = BASE + "\ndef g():\n    return 1\n\ndef g():\n    return 2\n"
    _changes, lost = summarize(inv(BASE), inv(ours), inv(theirs), inv(stacked))
    assert ("add/add", "g") in [(c.kind, c.path) for c in lost]


def test_an_assignment_bound_twice_where_no_side_did_is_reported() -> None:
    ours = "LIMIT = 1\n" + BASE
    theirs = BASE + "\nLIMIT = 2\n"
    both = "LIMIT = 1\n" + BASE + "\nLIMIT = 2\n"
    _changes, lost = summarize(inv(BASE), inv(ours), inv(theirs), inv(both))
    assert [(c.kind, c.path) for c in lost] == [("add/add", "LIMIT")]
    assert "lines 1, 12" in lost[0].reason
