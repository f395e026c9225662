"""The nothing-lost ledger catches what a merge walk gets wrong.

These feed `summarize` a hand-made wrong result, as a buggy merge would
produce, and check that the loss is named instead of passing as clean.
"""

from __future__ import annotations

import ast

from plait.merge.inventory import summarize, take_inventory


def inv(src: str):
    return take_inventory(ast.parse(src), src)


BASE = '''class A:
    def f(self, m):
        if m == "x":
            return 1

class B:
    def f(self, m):
        if m == "x":
            return 1
'''
OURS = BASE.replace('''class B:''', '''class B:''').replace(
    '''class A:
    def f(self, m):
        if m == "x":
            return 1
''',
    '''class A:
    def f(self, m):
        if m == "x":
            return 1
        elif m == "y":
            return 2
''',
)


def test_an_addition_that_landed_in_another_class_is_misplaced_not_moved() -> None:
    wrong = BASE.replace(
        '''class B:
    def f(self, m):
        if m == "x":
            return 1
''',
        '''class B:
    def f(self, m):
        if m == "x":
            return 1
        elif m == "y":
            return 2
''',
    )
    _changes, lost = summarize(inv(BASE), inv(OURS), inv(BASE), inv(wrong))
    assert [(c.kind, c.path) for c in lost] == [("misplaced", "A.f")]
    assert "B.f" in lost[0].reason


def test_an_addition_missing_from_the_result_is_lost() -> None:
    _changes, lost = summarize(inv(BASE), inv(OURS), inv(BASE), inv(BASE))
    assert [(c.kind, c.path) for c in lost] == [("lost", "A.f")]


def test_a_definition_stacked_twice_is_reported() -> None:
    ours = BASE + "\ndef g():\n    return 1\n"
    theirs = BASE + "\ndef g():\n    return 2\n"
    stacked = BASE + "\ndef g():\n    return 1\n\ndef g():\n    return 2\n"
    _changes, lost = summarize(inv(BASE), inv(ours), inv(theirs), inv(stacked))
    assert ("add/add", "g") in [(c.kind, c.path) for c in lost]
