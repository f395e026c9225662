"""A report names members as a person does, and says what the written files change (issue 21).

The changes come from real merges of real module texts (`runs.applied_lines`
merges the file before against after); the member each is about and the
folding are `plait.members`; a conflict's member and both sides are read
from the markers the merge wrote (`summary.conflict_note`).
"""

from __future__ import annotations

from plait.members import Texts, fold
from plait.runs import FilePlan, applied_lines, merge_trees
from plait.summary import conflict_note

BEFORE = '''"""A module."""
from dataclasses import dataclass

__version__ = "0.1.0"
_ACTION_ID_KEYS = ("created_id", "updated_id")


@dataclass
class Evidence:
    mode: str


_OK = Outcome(attempted=True)


def fetch(url, timeout=5):
    return url
'''

AFTER = (
    BEFORE.replace('"0.1.0"', '"0.2.0"')
    .replace("@dataclass\n", "@dataclass(frozen=True)\n")
    .replace('("created_id", "updated_id")', '("created_id", "updated_id", "deleted_id", "merged_id", "skipped_id")')
    .replace("Outcome(attempted=True)", "Outcome(attempted=True, ok=True, error=None)")
    .replace("def fetch(url, timeout=5):", "def fetch(url, timeout=5, *, retries=3, backoff=1.0):")
)


def _members(before: str, after: str) -> dict[str, str]:
    plan = FilePlan("m.py", "m.py", "merged", before, after)
    lines = applied_lines([plan])
    return {m.brief: m.detail for m in fold([line.edit for line in lines], {"m.py": Texts(before, after)})}


def test_changes_are_named_by_member_and_one_members_changes_fold_onto_one_line() -> None:
    members = _members(BEFORE, AFTER)
    assert sorted(members) == ["~ Evidence", "~ _ACTION_ID_KEYS", "~ _OK", "~ __version__", "~ fetch"]
    # One tuple's entries, one call's keyword arguments, one def's parameters: one line each.
    assert members["~ _ACTION_ID_KEYS"] == '~ _ACTION_ID_KEYS: + entries "deleted_id", "merged_id", "skipped_id"'
    assert members["~ _OK"] == "~ _OK: + keyword arguments error, ok in Outcome(...)"
    assert members["~ fetch"] == "~ fetch: + parameters backoff, retries"
    # A decorator's argument is the class's; a version bump is its binding, not "module-level statements".
    assert members["~ Evidence"] == "~ Evidence: + keyword argument frozen in dataclass(...)"
    assert members["~ __version__"].startswith("~ __version__: ")
    assert not any("<module>" in detail or "module statements" in detail for detail in members.values())


def test_applied_is_what_the_written_file_changes_not_what_the_source_changed() -> None:
    # The copy already carried the source's new function (upstream took its patch); the source also
    # bumped its version.  Written, the file changes by the bump alone.
    base = BEFORE
    theirs = BEFORE.replace('"0.1.0"', '"0.2.0"') + "\n\ndef retry(n):\n    return n\n"
    ours = BEFORE + "\n\ndef retry(n):\n    return n\n"
    (plan,) = merge_trees({"m.py": base}, {"m.py": ours}, {"m.py": theirs})
    assert plan.result is not None and any(c.side == "both" for c in plan.result.changes), "retry was both sides'"
    assert [line.text for line in applied_lines([plan])] == ['~ <module>: __version__ = "0.2.0"']
    assert _members(plan.before or "", plan.after or "") == {"~ __version__": '~ __version__: ~ __version__ = "0.2.0"'}


def test_a_conflict_names_the_binding_and_both_values_not_the_bases_value() -> None:
    base = "DEFAULT_TIMEOUT_SECS = 30\nRETRIES = 3\n\n\nclass Client:\n    timeout = 5\n"
    ours = base.replace("= 30", "= 10").replace("timeout = 5", "timeout = 50")
    theirs = base.replace("= 30", "= 15").replace("timeout = 5", "timeout = 9")
    (plan,) = merge_trees({"c.py": base}, {"c.py": ours}, {"c.py": theirs})
    assert plan.conflicts
    notes = [conflict_note(c.file, c.path, c.kind, c.reason, c.line, plan.after) for c in plan.conflicts]
    texts = [note.text("../svc/c.py") for note in notes]
    lines = (plan.after or "").splitlines()
    markers = [i for i, line in enumerate(lines, 1) if line.startswith("<<<<<<<")]
    assert texts == [
        f"CONFLICT (both changed): DEFAULT_TIMEOUT_SECS in ../svc/c.py:{markers[0]} (ours 10, theirs 15)",
        f"CONFLICT (both changed): Client.timeout in ../svc/c.py:{markers[1]} (ours 50, theirs 9)",
    ]
    assert "30" not in " ".join(texts), "the base's value is not what a person looks for"


def test_a_class_level_setting_is_named_as_the_classs_member_and_a_body_statement_is_not() -> None:
    # The conflict on `timeout = 10` names `Client.timeout`; the applied list must name the same member.
    before = (
        "class Client:\n    timeout = 30\n\n    class Limits:\n        width = 1\n\n"
        "    def fetch(self):\n        n = 1\n        return n\n"
    )
    after = before.replace("timeout = 30", "timeout = 10").replace("width = 1", "width = 2").replace("n = 1", "n = 2")
    members = _members(before, after)
    assert sorted(members) == ["~ Client.Limits.width", "~ Client.fetch", "~ Client.timeout"]
    # A class's docstring is named as `plait diff` names it.
    documented = before.replace("class Client:\n", 'class Client:\n    """A client."""\n\n')
    assert list(_members(documented, documented.replace("A client.", "A client, retrying."))) == [
        "~ Client.<docstring>"
    ]
    # A statement in a function's body is the function's change, not a member of its own.
    assert members["~ Client.fetch"] == "~ Client.fetch: ~ n = 2"
