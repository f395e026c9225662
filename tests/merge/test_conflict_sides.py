"""Every conflict hunk holds each side's own text: "take ours" gives ours' code there, "take theirs" theirs'.

For each conflict kind the engine emits (`ConflictKind`), a merge that
emits it is resolved hunk by hunk to one side, as a merge tool's "take
ours" / "take theirs" does, and each hunk's section is checked against that
side's own file: between statements, the section must stand in that side
exactly between the lines that surround the hunk; inside a statement (the
elements of a call, a definition's header), the statement it completes must
be one that side has.  A section holding the other side's line, or an
empty section where the side has code, fails.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from merge_corpus import load_case

from plait.merge import CONFLICT_KINDS, merge3
from plait.merge.semantic import undefined_names

MARKS = {"<<<<<<< ours": "ours", "||||||| base": "base", "=======": "theirs", ">>>>>>> theirs": None}
LABELS = ("ours", "base", "theirs")


@dataclass
class Resolved:
    """A merged text with every hunk resolved to one side, and where each hunk's section landed (0-based, end excl.)."""

    lines: list[str]
    sections: list[tuple[int, int]]


def resolve(text: str, side: str) -> Resolved:
    out: list[str] = []
    sections: list[tuple[int, int]] = []
    part: str | None = None
    start = 0
    for line in text.splitlines():
        if line in MARKS:
            part = MARKS[line]
            if part == side:
                start = len(out)
            elif part is None:
                sections.append((start, len(out)))
            continue
        if part is None or part == side:
            out.append(line)
    return Resolved(out, sections)


def _cuts(tree: ast.Module, k: int) -> bool:
    """Whether the boundary after line *k* (1-based) falls inside a statement rather than between two."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = body[0].lineno - 1  # a compound statement's header; its bodies hold statements of their own
        if start <= k < end:
            return True
    return False


def _squeezed(text: str) -> str:
    return "".join(text.split())


def check_sides(text: str, inputs: dict[str, str], elsewhere: tuple[str, ...] = ()) -> int:
    """Assert every hunk of *text* holds each input's own text at its place; returns the number of hunks.

    Between statements, a section must be a run of that input's lines,
    with the lines around the hunk on either side of it where the input
    has them.  Inside a statement (elements of a collection), the section
    must be that input's own code.  For the inputs in *elsewhere*, a
    section is their own lines from another place (see `Emits`).
    """
    count = None
    for side in LABELS:
        resolved = resolve(text, side)
        count = len(resolved.sections)
        own = inputs[side].splitlines()
        try:
            tree: ast.Module | None = ast.parse("\n".join(resolved.lines) + "\n")
        except SyntaxError:
            tree = None  # an input that is not Python: git's line merge, between lines
        for first, end in resolved.sections:
            section = resolved.lines[first:end]
            if tree is not None and (_cuts(tree, first) or _cuts(tree, end)):
                body = _squeezed("\n".join(section)).rstrip(",")
                assert body in _squeezed(inputs[side]), f"the {side} section `{body}` is not {side}' code"
                continue
            before = resolved.lines[first - 1] if first > 0 else None
            after = resolved.lines[end] if end < len(resolved.lines) else None
            # A line around the hunk that the input does not have (merged from the other side) is no anchor.
            before_ok = (before is None or before in own) and side not in elsewhere
            after_ok = (after is None or after in own) and side not in elsewhere
            window = [*([before] if before is not None and before_ok else []), *section]
            window += [after] if after is not None and after_ok else []
            starts = [
                k
                for k in range(len(own) - len(window) + 1)
                if own[k : k + len(window)] == window
                and (before is not None or k == 0 or not before_ok)
                and (after is not None or k + len(window) == len(own) or not after_ok)
            ]
            assert starts, f"the {side} section of a hunk is not what {side} has there:\n" + "\n".join(window)
    assert count is not None
    return count


@dataclass(frozen=True)
class Emits:
    """A merge that emits one conflict kind: inputs, and what to break in the engine to reach it."""

    base: str
    ours: str
    theirs: str
    breaks: Callable[[pytest.MonkeyPatch], None] | None = None
    budget: float = 10.0
    # Inputs whose section holds their own lines from another place: a name
    # both sides added at different places is one conflict at ours' place
    # (theirs' addition moved there); a block both sides moved away leaves
    # base's section at its old home without it.
    elsewhere: tuple[str, ...] = ()


def _case(name: str, elsewhere: tuple[str, ...] = ()) -> Emits:
    case = load_case(name)
    return Emits(case.base, case.ours, case.theirs, elsewhere=elsewhere)


BASE = "import os\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n"


def _statement_merge_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from plait.merge import decide
    from plait.merge.conflicts import MergeConflict

    def invalid(_self: object, _node: object, _base: object) -> None:
        raise MergeConflict("invalid-result")

    monkeypatch.setattr(decide.Merger, "_validate", invalid)


def _structured_gives(text: str) -> Callable[[pytest.MonkeyPatch], None]:
    """A structured merge that returns *text*, clean: what a bug in it would look like to the audits."""

    def breaks(monkeypatch: pytest.MonkeyPatch) -> None:
        from plait.merge import structured

        monkeypatch.setattr(structured, "structured_merge", lambda *_args: (text, [], []))

    return breaks


def _matcher_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    from plait.merge import structured

    def broken(*_args: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(structured.StatementMatcher, "match", broken)


MOVED = "    total = compute_the_total(x, factor=2, offset=3)\n    return total\n"
MOVE_BASE = "def f(x):\n" + MOVED + "\n\ndef g(y):\n    return y\n"
METHOD = '    def f(self, m):\n        if m == "x":\n            return 1\n'
CLASSES = "class A:\n" + METHOD + "\n\nclass B:\n" + METHOD
BRANCH = '        if m == "x":\n            return 1\n        elif m == "y":\n            return 2\n'

EMITTERS: dict[str, list[Emits]] = {
    "modify/modify": [
        Emits(BASE, BASE.replace("x + 1", "x + 2"), BASE.replace("x + 1", "x + 3")),
        _case("dict_same_key_conflict"),
        _case("def_header_conflict_body_merges"),
    ],
    "delete/modify": [
        _case("delete_method_vs_modify"),
        _case("delete_statement_vs_modify"),
        _case("dict_key_delete_vs_modify"),
    ],
    "add/add": [
        _case("duplicate_binding_each_side_its_own_text"),
        _case("duplicate_assignment_added_both_sides", elsewhere=("theirs",)),
        _case("same_method_added_different"),
        _case("kwarg_same_name_conflict"),
    ],
    "move/move": [
        Emits(
            MOVE_BASE,
            "def f(x):\n    return helper_a(x)\n\n\ndef helper_a(x):\n" + MOVED + "\n\ndef g(y):\n    return y\n",
            "def f(x):\n    return helper_b(x)\n\n\ndef g(y):\n    return y\n\n\ndef helper_b(x):\n" + MOVED,
            elsewhere=("base",),
        )
    ],
    "semantic": [_case("semantic_removed_import_new_use"), _case("semantic_call_no_longer_fits")],
    "order": [_case("insertions_same_place_dependent")],
    "invalid-result": [
        Emits(BASE, BASE.replace("x + 1", "x + 2"), BASE.replace("x + 1", "x + 1 + 0"), _statement_merge_fails),
        Emits(BASE, BASE + "\nA = 1\n", BASE + "\nB = 2\n", _structured_gives("def broken(:\n")),
    ],
    "lost": [Emits(BASE, BASE + "\nA = 1\n", BASE + "\nB = 2\n", _structured_gives(BASE + "\nA = 1\n"))],
    "misplaced": [
        Emits(
            CLASSES + "\n\nX = 0\n",
            CLASSES.replace('        if m == "x":\n            return 1\n\n\nclass B', BRANCH + "\n\nclass B", 1)
            + "\n\nX = 1\n",
            CLASSES + "\n\nX = 2\n",
            _structured_gives(CLASSES[: CLASSES.rindex('        if m == "x"')] + BRANCH + "\n\nX = 1\n"),
        )
    ],
    "text": [Emits(BASE, BASE.replace("x + 1", "x +"), BASE.replace("x + 1", "x - 1"))],
    # A NUL makes a file binary by git's rule: no hunk can hold it, ours is kept whole.
    "binary": [Emits(BASE + "\0", BASE.replace("x + 1", "x + 2") + "\0", BASE.replace("x + 1", "x + 3") + "\0")],
    "budget": [Emits(BASE, BASE.replace("x + 1", "x + 2"), BASE.replace("x + 1", "x + 3"), budget=0.0)],
    "internal": [Emits(BASE, BASE.replace("x + 1", "x + 2"), BASE.replace("x + 1", "x + 3"), _matcher_raises)],
}


def test_every_conflict_kind_has_a_merge_that_emits_it() -> None:
    assert set(EMITTERS) == set(CONFLICT_KINDS)


@pytest.mark.parametrize(
    ("kind", "emits"),
    [(kind, emits) for kind, cases in EMITTERS.items() for emits in cases],
    ids=[f"{kind}-{i}" for kind, cases in EMITTERS.items() for i in range(len(cases))],
)
def test_each_hunk_resolves_to_that_sides_own_text(kind: str, emits: Emits, monkeypatch: pytest.MonkeyPatch) -> None:
    if emits.breaks is not None:
        emits.breaks(monkeypatch)
    result = merge3(emits.base, emits.ours, emits.theirs, budget=emits.budget)
    assert kind in {c.kind for c in result.conflicts}, [c.describe() for c in result.conflicts]
    inputs = {"ours": emits.ours, "base": emits.base, "theirs": emits.theirs}
    hunks = check_sides(result.text, inputs, emits.elsewhere)
    if kind == "binary":
        # git's binary merge: nothing is marked, ours stands as it was.
        assert not hunks and result.text == emits.ours
        return
    if kind not in ("lost", "misplaced"):
        # Only what is missing has no place to be marked (git's hunks stand in); everything else is marked.
        assert hunks, f"a {kind} conflict with no hunk"
    # Taking one side's sections everywhere gives code that defines what it uses, as that side's file
    # does: at least for one side (the halves of a semantic conflict stand apart, so taking the side
    # whose new code uses a removed name still needs that name back).
    leaves = {side: _newly_undefined(resolve(result.text, side).lines, inputs[side]) for side in ("ours", "theirs")}
    assert not all(leaves.values()), f"every side taken leaves names undefined: {leaves}"


def _newly_undefined(lines: list[str], own: str) -> list[str]:
    try:
        taken = undefined_names(ast.parse("\n".join(lines) + "\n"))
        defined = undefined_names(ast.parse(own))
    except SyntaxError:
        return []  # not Python: a line merge of an input that does not parse
    return sorted(set(taken) - set(defined))


def test_a_hunk_holding_the_other_sides_line_is_caught() -> None:
    """The check itself: theirs' new line under `ours`, an empty `theirs`, as plait once wrote it."""
    base = "import os\n\nA = 1\n"
    ours = "import os\n\nA = 1\n"
    theirs = "import os\n\nA = 1\nB = 2\n"
    swapped = "import os\n\nA = 1\n<<<<<<< ours\nB = 2\n||||||| base\n=======\n>>>>>>> theirs\n"
    with pytest.raises(AssertionError, match="ours section"):
        check_sides(swapped, {"ours": ours, "base": base, "theirs": theirs})
    right = "import os\n\nA = 1\n<<<<<<< ours\n||||||| base\n=======\nB = 2\n>>>>>>> theirs\n"
    assert check_sides(right, {"ours": ours, "base": base, "theirs": theirs}) == 1


def test_a_name_bound_twice_names_both_bindings_whose_they_are_and_where() -> None:
    case = load_case("duplicate_binding_each_side_its_own_text")
    result = merge3(case.base, case.ours, case.theirs)
    (conflict,) = result.conflicts
    assert conflict.ours == "from pip._vendor import chardet"
    assert conflict.theirs == "chardet = _resolve_char_detection()"
    lines = result.text.splitlines()
    for side, text in (("ours", conflict.ours), ("theirs", conflict.theirs)):
        named = f"{side}' `{text}` (line "
        assert named in conflict.reason
        line = int(conflict.reason.split(named, 1)[1].split(")", 1)[0])
        assert lines[line - 1] == text  # the line the message names is that binding, in the output
    assert lines[conflict.line - 1] == "<<<<<<< ours"


def test_the_conflict_kinds_the_type_checker_reads_are_the_ones_the_engine_lists() -> None:
    # `ConflictKind` is a Literal only for mypy (the driver does not import
    # typing); CONFLICT_KINDS is the run-time list.  One must not drift.
    import ast
    from pathlib import Path

    import plait.merge.conflicts as conflicts

    tree = ast.parse(Path(conflicts.__file__).read_text(encoding="utf-8"))
    [literal] = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["ConflictKind"]
        and isinstance(node.value, ast.Subscript)
    ]
    assert isinstance(literal, ast.Subscript) and isinstance(literal.slice, ast.Tuple)
    spelled = tuple(element.value for element in literal.slice.elts if isinstance(element, ast.Constant))
    assert spelled == conflicts.CONFLICT_KINDS
