"""The merge law harness itself is trustworthy (``benchmarks/merge_laws.py``, ``law_edits.py``).

A harness that reported 0/0/0/0/0 because its edits were no-ops, or because its
classifier could not see a wrong merge, would prove nothing.  So: every
generator yields valid Python that differs from the base in the way its kind
says (cosmetic edits leave the AST alone), edits compose, and deliberately
wrong merge functions -- one that drops a side, one that raises, one that
always conflicts -- are caught, while a merge that gives the expected answer
is not blamed for anything.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field

import pytest
from law_harness import law_edits as le
from law_harness import merge_laws as ml

BASE = '''"""Inventory of shipments, a small module for the harness tests."""

import os
import textwrap
from collections import OrderedDict, namedtuple

DEFAULT_EXTENSIONS = ['.txt', '.csv', '.json']
Parcel = namedtuple('Parcel', 'name weight')


class Shipment:
    """One shipment and its parcels."""

    kind = 'parcel'  # the default kind

    def __init__(self, name, parcels=None):
        self.name = name
        self.parcels = list(parcels or [])

    def weight(self):
        total = 0
        for parcel in self.parcels:
            total += parcel.weight
        return total

    def label(self, width=40):
        text = 'shipment ' + self.name
        lines = textwrap.wrap(text, width)
        header = lines[0]
        footer = ', '.join(lines[1:])
        return header + footer


def archive_path(folder, name):
    base = name.rsplit('/', 1)[-1]
    path = '/'.join([folder, base])
    return path


def unused_helper(values):
    result = []
    for value in values:
        result.append(value * 2)
    return result


def report(shipments):
    summary = OrderedDict()
    for shipment in shipments:
        summary[shipment.name] = shipment.weight()
    print('shipments:', len(summary))
    return summary
'''


@pytest.fixture(scope="module")
def src() -> le.Source:
    return le.Source("inventory", BASE)


def first_valid(src: le.Source, kind: str, seed: int = 0) -> le.Edit:
    rng = random.Random(seed)
    for edit in le.SOLO[kind](src, rng, le.Namer(src), le.OURS):
        if le.check_edit(src, edit) is None:
            return edit
    raise AssertionError(f"no valid {kind} edit on the test module")


def first_pair(src: le.Source, kind: str, seed: int = 0) -> le.Pair:
    rng = random.Random(seed)
    for pair in le.PAIRED[kind](src, rng, le.Namer(src)):
        if all(le.check_edit(src, e) is None for e in pair.ours + pair.theirs):
            return pair
    raise AssertionError(f"no valid {kind} pair on the test module")


def defs(text: str) -> dict[str, ast.FunctionDef]:
    """Every def in the module by qualified name (Class.method or function)."""
    out: dict[str, ast.FunctionDef] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            out.update({f"{node.name}.{m.name}": m for m in node.body if isinstance(m, ast.FunctionDef)})
    return out


def changed_defs(before: str, after: str) -> set[str]:
    a, b = defs(before), defs(after)
    return {
        name for name in a.keys() | b.keys() if name not in a or name not in b or ast.dump(a[name]) != ast.dump(b[name])
    }


# -- each generator makes the edit its kind names --------------------------------------


@pytest.mark.parametrize("kind", sorted(le.SOLO))
def test_every_solo_edit_is_valid_python_that_changes_the_module(src, kind):
    edit = first_valid(src, kind)
    text = src.render([edit])
    compile(text, "edited.py", "exec")
    assert text != BASE
    same_ast = ast.dump(ast.parse(text)) == ast.dump(ast.parse(BASE))
    assert same_ast == (kind == "cosmetic"), edit.describe()
    assert not le.undefined_names(text), edit.describe()


def test_add_method_adds_exactly_one_method(src):
    text = src.render([first_valid(src, "add_method")])
    changed = changed_defs(BASE, text)
    assert len(changed) == 1 and next(iter(changed)).startswith("Shipment.")
    assert set(defs(BASE)) < set(defs(text))


def test_rename_local_renames_every_use_in_one_function(src):
    edit = first_valid(src, "rename_local")
    text = src.render([edit])
    (name,) = changed_defs(BASE, text)
    old, new = edit.where.rsplit(": local ", 1)[1].split(" -> ")

    def names(func: ast.FunctionDef) -> list[str]:
        return [n.id for n in ast.walk(func) if isinstance(n, ast.Name)]

    before, after = names(defs(BASE)[name]), names(defs(text)[name])
    assert old in before and old not in after
    assert after == [new if n == old else n for n in before]


def test_delete_function_removes_an_unreferenced_function(src):
    text = src.render([first_valid(src, "delete_function")])
    removed = set(defs(BASE)) - set(defs(text))
    assert len(removed) == 1 and set(defs(text)) < set(defs(BASE))
    (name,) = removed
    assert name.rsplit(".", 1)[-1] not in text


@pytest.mark.parametrize(
    "kind, node_type",
    [("wrap_if_else", ast.If), ("wrap_if", ast.If), ("wrap_try", ast.Try), ("wrap_with", ast.With)],
)
def test_wrap_puts_one_statement_inside_the_new_block(src, kind, node_type):
    text = src.render([first_valid(src, kind)])
    (name,) = changed_defs(BASE, text)
    before, after = defs(BASE)[name], defs(text)[name]
    added = [n for n in ast.walk(after) if isinstance(n, node_type)]
    assert len(added) == sum(isinstance(n, node_type) for n in ast.walk(before)) + 1
    block = added[0]
    inner = [ast.dump(s) for s in block.body]
    assert len(inner) == 1 and inner[0] in {ast.dump(s) for s in ast.walk(before) if isinstance(s, ast.stmt)}
    if kind == "wrap_if_else":
        assert [ast.dump(s) for s in block.orelse] == inner


def test_extract_helper_moves_statements_into_a_called_helper(src):
    edit = first_valid(src, "extract_helper")
    text = src.render([edit])
    new = set(defs(text)) - set(defs(BASE))
    assert len(new) == 1
    (helper,) = new
    (caller,) = changed_defs(BASE, text) - new
    moved = [ast.dump(s) for s in defs(text)[helper].body if not isinstance(s, ast.Return)]
    original = [ast.dump(s) for s in defs(BASE)[caller].body]
    assert len(moved) >= 2
    start = original.index(moved[0])
    assert original[start : start + len(moved)] == moved
    calls = [n for n in ast.walk(defs(text)[caller]) if isinstance(n, ast.Call)]
    assert any(helper.rsplit(".", 1)[-1] in ast.dump(c.func) for c in calls)


def test_move_function_changes_order_only(src):
    text = src.render([first_valid(src, "move_function")])
    before, after = defs(BASE), defs(text)
    assert {k: ast.dump(v) for k, v in before.items()} == {k: ast.dump(v) for k, v in after.items()}
    assert list(before) != list(after)


def test_cosmetic_edits_of_every_sort_keep_the_ast(src):
    seen = set()
    for line in le.all_lines(src):
        for what, new_line in le.cosmetic_versions(src, line.node, le.OURS):
            text = src.render(
                [le.Edit("cosmetic", what, frozenset({line.path}), {line.path: line.region(src, new_line)})]
            )
            assert text != BASE
            assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(BASE)), what
            seen.add(what.split(" ", 1)[0])
    assert {"re-quotes", "adds", "changes", "re-wraps"} <= seen


def test_append_end_appends_a_different_function_on_each_side(src):
    pair = first_pair(src, "append_end")
    ours, theirs = src.render(pair.ours), src.render(pair.theirs)
    assert ours.startswith(BASE) and theirs.startswith(BASE) and ours != theirs
    expected = src.render(pair.expected or ())
    assert expected == ours + theirs[len(BASE) :]


def test_add_imports_gives_each_side_its_own_import(src):
    for seed in range(6):
        pair = first_pair(src, "add_imports", seed)
        expected = src.render(pair.expected or ())
        for side in (pair.ours, pair.theirs):
            text = src.render(side)
            added = set(ast.dump(n) for n in ast.walk(ast.parse(text))) - set(
                ast.dump(n) for n in ast.walk(ast.parse(BASE))
            )
            aliases = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.alias) and ast.dump(n) in added]
            assert len(aliases) == 1
            assert ast.dump(aliases[0]) in {ast.dump(n) for n in ast.walk(ast.parse(expected))}


def test_cosmetic_vs_real_expects_the_real_side(src):
    for seed in range(6):
        pair = first_pair(src, "cosmetic_vs_real", seed)
        (real,) = [e for e in pair.ours + pair.theirs if not e.cosmetic]
        (cosmetic,) = [e for e in pair.ours + pair.theirs if e.cosmetic]
        assert pair.expected == (real,)
        assert ast.dump(ast.parse(src.render([cosmetic]))) == ast.dump(ast.parse(BASE))
        assert cosmetic.footprint == real.footprint  # the same statement


def test_removed_import_vs_use_leaves_a_name_undefined_only_when_both_apply(src):
    pair = first_pair(src, "removed_import_vs_use")
    assert pair.expected is None
    assert not le.undefined_names(src.render(pair.ours)) and not le.undefined_names(src.render(pair.theirs))
    assert le.undefined_names(src.render(pair.ours + pair.theirs))


def test_fast_render_equals_libcst_code(src):
    edits = [first_valid(src, kind) for kind in ("add_method", "extract_helper", "cosmetic")]
    for k in range(len(edits) + 1):
        chosen = edits[:k]
        if all(le.disjoint(e, chosen[:i]) for i, e in enumerate(chosen)):
            assert src.render(chosen) == le.render(src.module, chosen)
    assert src.render(edits[:1]) is src.render(edits[:1])  # kept, not rendered twice


def test_cases_built_from_a_real_module_are_valid_merges():
    ((name, path),) = ml.select_modules(1, seed=3, max_lines=300)
    text = ml.read_module(path)
    assert text is not None
    src = le.Source(name, text)
    cases = ml.build_cases(src, 0, (*le.EDIT_KINDS, ml.MIXED))
    assert len({c.kind for c in cases}) >= 10
    base_ast = ast.dump(ast.parse(text))
    for case in cases:
        for label, side in (("ours", case.ours), ("theirs", case.theirs), ("expected", case.expected)):
            compile(side, f"{name}/{case.kind}/{label}", "exec")
        assert case.ours != case.base and case.theirs != case.base, case.edits
        assert case.ours != case.theirs, case.edits
        if case.variant == "+append":
            assert ast.dump(ast.parse(case.ours)) != base_ast and ast.dump(ast.parse(case.theirs)) != base_ast


def test_a_kind_run_alone_rebuilds_the_same_cases(src):
    """``--only MODULE --kinds KIND`` reproduces a failure seen in a full run."""
    every = ml.build_cases(src, 7, (*le.EDIT_KINDS, ml.MIXED))
    for kind in ("extract_helper", "removed_import_vs_use", ml.MIXED):
        assert [c for c in every if c.kind == kind] == ml.build_cases(src, 7, (kind,))


def test_disjoint_edits_compose_into_the_union(src):
    """The expected merge of two disjoint edits holds each side's change, and nothing else."""
    ours = first_valid(src, "extract_helper")
    rng = random.Random(1)
    namer = le.Namer(src)
    theirs = next(e for e in le.gen_delete_function(src, rng, namer, le.THEIRS) if le.disjoint(e, [ours]))
    expected = src.render([ours, theirs])
    changed = changed_defs(BASE, expected)
    assert changed == changed_defs(BASE, src.render([ours])) | changed_defs(BASE, src.render([theirs]))


# -- the classifier catches wrong merges ------------------------------------------------


@dataclass
class FakeConflict:
    path: str
    kind: str
    reason: str


@dataclass
class FakeResult:
    text: str
    conflicts: list[FakeConflict] = field(default_factory=list)
    strategy: str = "fake"

    @property
    def clean(self) -> bool:
        return not self.conflicts


@pytest.fixture(scope="module")
def cases() -> list[ml.Case]:
    built: list[ml.Case] = []
    for name, text in (("inventory", BASE),):
        built += ml.build_cases(le.Source(name, text), 11, (*le.EDIT_KINDS, ml.MIXED))
    assert {c.kind for c in built} == {*le.EDIT_KINDS, ml.MIXED}
    return built


def judge_all(cases: list[ml.Case], merge) -> dict[str, int]:
    verdicts, _ = ml.check_cases(cases, merge)
    report = ml.Report([ml.ModuleReport("inventory", verdicts=verdicts)])
    return report.counters()


def oracle(cases: list[ml.Case], *, semantic: bool = True):
    """A merge that knows every right answer."""
    answers = {(c.base, c.ours, c.theirs): c for c in cases}

    def merge(base: str, ours: str, theirs: str) -> FakeResult:
        if ours in (base, theirs):
            return FakeResult(theirs)
        if theirs == base:
            return FakeResult(ours)
        case = answers[base, ours, theirs]
        if case.expect_conflict and semantic:
            return FakeResult(case.expected, [FakeConflict("<module>", "semantic", "removed vs used")])
        return FakeResult(case.expected)

    return merge


def test_a_merge_that_knows_the_answers_is_blamed_for_nothing(cases):
    assert judge_all(cases, oracle(cases)) == dict.fromkeys(ml.COUNTERS, 0)


def test_a_clean_merge_of_removed_import_and_new_use_counts_a_new_undefined_name(cases):
    counts = judge_all(cases, oracle(cases, semantic=False))
    expected = sum(c.expect_conflict for c in cases)
    assert expected and counts == dict.fromkeys(ml.COUNTERS, 0) | {"new_undefined": expected}


def test_a_merge_that_drops_theirs_is_silently_wrong_and_breaks_identity(cases):
    counts = judge_all(cases, lambda base, ours, theirs: FakeResult(ours))
    real_theirs = [
        c for c in cases if not c.expect_conflict and ast.dump(ast.parse(c.theirs)) != ast.dump(ast.parse(c.base))
    ]
    assert counts["silent_wrong"] >= len(real_theirs) > 0
    assert counts["identity"] > 0  # merge(B, B, X) gave B
    assert counts["traceback"] == counts["false_conflict"] == 0


def test_a_merge_that_raises_is_counted_as_tracebacks(cases):
    def boom(base: str, ours: str, theirs: str) -> FakeResult:
        raise RecursionError("maximum recursion depth exceeded")

    counts = judge_all(cases, boom)
    sides = len({(c.module, text) for c in cases for text in (c.ours, c.theirs)})
    assert counts["traceback"] == len(cases) + 3 * sides
    assert counts["silent_wrong"] == counts["false_conflict"] == counts["identity"] == 0


def test_a_merge_that_always_conflicts_is_counted_as_false_conflicts(cases):
    def refuse(base: str, ours: str, theirs: str) -> FakeResult:
        return FakeResult(ours, [FakeConflict("<module>", "modify/modify", "both sides changed this")])

    counts = judge_all(cases, refuse)
    assert counts["false_conflict"] == sum(not c.expect_conflict for c in cases)
    assert counts["identity"] > 0
    assert counts["silent_wrong"] == counts["new_undefined"] == 0


def test_run_reports_one_summary_line_and_dumps_failures_as_case_folders(tmp_path):
    def take_ours(base: str, ours: str, theirs: str) -> FakeResult:
        return FakeResult(ours)

    report = ml.run(modules=1, seed=5, kinds=["append_end", "delete_function"], jobs=1, merge=take_ours, max_lines=400)
    line = report.summary_line()
    assert line.startswith(f"merge laws: {len(report.merges)} merges over 1 modules, 2 edit kinds: silent wrong ")
    assert report.counters()["silent_wrong"] > 0
    folders = ml.dump(report, tmp_path)
    assert folders and len(folders) == len(report.failures())
    for folder in folders:
        names = {p.name for p in folder.iterdir()}
        assert {"Base.py", "Ours.py", "Theirs.py", "Expected.py", "Result.py", "why.txt", "case.toml"} <= names
        assert (folder / "why.txt").read_text().startswith("module: ")
    lines: list[str] = []
    ml.print_report(report, out=lines.append)
    assert lines[-1] == line
