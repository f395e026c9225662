"""What `merge3(...).changes` says a side changed: the smallest named node and the statement.

A real patch reported only as "changed module-level statements in <module>"
(issue 15) gives a maintainer nothing to look for. A changed definition, or
the module's own statements, names the first statement the side changed.
"""

from __future__ import annotations

from plait.merge import merge3

BASE = '''TIMEOUT = 5.0


class Config:
    retries = 3

    def __init__(self, timeout):
        self.name = "config"
        timeout = float(timeout)
        self.timeout = timeout

    def describe(self):
        """Say what this is."""
        return self.name
'''


def _changes(ours: str, theirs: str = BASE) -> list[str]:
    return [c.describe() for c in merge3(BASE, ours, theirs).changes]


def test_a_changed_method_names_the_statement() -> None:
    ours = BASE.replace("timeout = float(timeout)", "timeout = max(timeout, 1.0)")
    changes = merge3(BASE, ours, BASE.replace("retries = 3", "retries = 5")).changes
    (change,) = [c for c in changes if c.side == "ours"]
    assert change.describe() == "ours changed Config.__init__: timeout = max(timeout, 1.0)"
    assert (change.path, change.statement) == ("Config.__init__", "timeout = max(timeout, 1.0)")


def test_module_level_statements_are_named_by_the_statement() -> None:
    changes = _changes(BASE.replace("TIMEOUT = 5.0", "TIMEOUT = 10.0"), BASE.replace("retries = 3", "retries = 4"))
    assert "ours changed <module>: TIMEOUT = 10.0" in changes
    assert "theirs changed Config: retries = 4" in changes
    assert not any("module-level statements" in c for c in changes)


def test_an_added_branch_holds_its_body_and_the_statement_beside_it_is_named() -> None:
    ours = BASE.replace(
        "        return self.name\n",
        "        if not self.name:\n            return '?'\n        return self.name.title()\n",
    )
    changes = _changes(ours)
    # The new `if` is reported as the branch it adds, its body with it (a branch that moves
    # into another method takes its body along); the statement beside it is what else changed.
    assert "ours added branch not self.name in Config.describe" in changes
    assert "ours changed Config.describe: return self.name.title()" in changes


def test_an_edit_inside_a_branch_names_the_edited_line_and_counts_the_rest() -> None:
    ours = BASE.replace("        return self.name\n", "        if self.name:\n            return self.name\n")
    ours2 = ours.replace("            return self.name\n", "            x = 1\n            return self.name.title()\n")
    changes = [c.describe() for c in merge3(ours, ours2, ours).changes]
    assert "ours changed Config.describe: x = 1 (and 1 more)" in changes


def test_a_statement_reported_as_an_element_is_not_named_again() -> None:
    changes = _changes(BASE + "\nLIMIT = 3\n")
    assert changes == ["ours added attribute LIMIT in <module>", "ours changed module-level statements in <module>"]


def test_a_removal_names_the_statement_removed() -> None:
    ours = BASE.replace('        self.name = "config"\n', "")
    assert 'ours changed Config.__init__: removed self.name = "config"' in _changes(ours)


def test_a_change_of_comments_or_the_header_alone_names_no_statement() -> None:
    ours = BASE.replace("    def describe(self):\n", "    def describe(self, short=False):\n").replace(
        "        return self.name\n", "        return self.name  # the name\n"
    )
    changes = merge3(BASE, ours, BASE).changes
    changed = [c for c in changes if c.kind == "changed"]
    assert [(c.path, c.statement) for c in changed] == [("Config.describe", "")]
    assert "ours added parameter short in Config.describe" in [c.describe() for c in changes]


def test_both_sides_changing_one_statement_alike_name_it_once() -> None:
    both = BASE.replace("timeout = float(timeout)", "timeout = max(timeout, 1.0)")
    ours = both.replace("retries = 3", "retries = 4")
    assert "both changed Config.__init__: timeout = max(timeout, 1.0)" in _changes(ours, both)
