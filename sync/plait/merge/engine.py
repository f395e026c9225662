"""The merge pipeline end to end: identity, fast path, structured, fallbacks."""

from __future__ import annotations

import ast
import gc
import hashlib
import time

import libcst as cst

from ..errors import UnparsableSource
from .inventory import Inventory, law5_violations, summarize, take_inventory
from .lines import LineMerge, merge_lines
from .match import BudgetExceeded, Deadline, StatementMatcher
from .merge import Merger
from .render import render
from .result import Conflict, MergeResult

DEFAULT_BUDGET = 10.0
_LABELS = ("base", "ours", "theirs")


def _parse(text: str, label: str) -> tuple[ast.Module | None, str | None]:
    try:
        return ast.parse(text), None
    except SyntaxError as exc:
        return None, f"{label} does not parse (line {exc.lineno}: {exc.msg})"
    except ValueError as exc:  # null bytes
        return None, f"{label} does not parse ({exc})"


def _line_conflicts(lm: LineMerge) -> list[Conflict]:
    return [Conflict("<module>", "text", "both sides changed these lines", line) for line in lm.conflict_lines]


def _tag(base: str, ours: str, theirs: str) -> str:
    """A sentinel prefix no input contains; derived from the inputs so output is deterministic."""
    seed = hashlib.sha256("\0".join((base, ours, theirs)).encode()).hexdigest()
    for i in range(0, len(seed) - 10):
        tag = seed[i : i + 10]
        if not any(f"__plait_{tag}" in s for s in (base, ours, theirs)):
            return tag
    raise RuntimeError("no free sentinel tag")  # pragma: no cover - 2^40 collisions


def merge3(base: str, ours: str, theirs: str, *, budget: float = DEFAULT_BUDGET, strict: bool = False) -> MergeResult:
    """Merge `theirs` (incoming) into `ours` (local), both descended from `base`.

    With `strict`, an input that does not parse raises `UnparsableSource`
    (sync and vendor must not write lineages from broken code); otherwise the
    merge falls back to a line merge and says so in `notes`.  The budget
    counts from this call, parsing included.
    """
    deadline = Deadline(time.perf_counter() + budget)
    # A merge allocates millions of short-lived, acyclic CST nodes; the cyclic
    # collector would only rescan them.  Everything is released on return.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _merge3(base, ours, theirs, deadline, budget, strict)
    finally:
        if collecting:
            gc.enable()


def _merge3(base: str, ours: str, theirs: str, deadline: Deadline, budget: float, strict: bool) -> MergeResult:
    trees = []
    problems = []
    for text, label in zip((base, ours, theirs), _LABELS):
        tree, problem = _parse(text, label)
        trees.append(tree)
        if problem:
            problems.append((label, problem))
    if problems:
        if strict:
            label, problem = problems[0]
            raise UnparsableSource(problem.split(" does not parse ", 1)[1].strip("()"), path=label)
        lm = merge_lines(base, ours, theirs)
        notes = [f"{p}; used a line-based merge" for _, p in problems]
        return MergeResult(lm.text, _line_conflicts(lm), [], "line-fallback", notes)

    inv_b, inv_o, inv_t = (take_inventory(tree, text) for tree, text in zip(trees, (base, ours, theirs)))  # type: ignore[arg-type]

    # Identity laws hold byte for byte: nothing to merge when a side is unchanged.
    if ours == base or theirs == base or ours == theirs:
        text, inv_r = (theirs, inv_t) if ours == base else (ours, inv_o)
        changes, _ = summarize(inv_b, inv_o, inv_t, inv_r)
        return MergeResult(text, [], changes, "identity")

    lm = merge_lines(base, ours, theirs)
    if lm.clean and not law5_violations(inv_b, inv_o, inv_t):
        tree, _problem = _parse(lm.text, "result")
        if tree is not None:
            changes, lost = summarize(inv_b, inv_o, inv_t, take_inventory(tree, lm.text))
            if not lost:
                return MergeResult(lm.text, [], changes, "line")

    return _structured(base, ours, theirs, lm, (inv_b, inv_o, inv_t), deadline, budget)


def _structured(
    base: str, ours: str, theirs: str, lm: LineMerge, invs: tuple[Inventory, Inventory, Inventory], deadline: Deadline, budget: float
) -> MergeResult:
    inv_b, inv_o, inv_t = invs
    tag = _tag(base, ours, theirs)
    try:
        modules = []
        for text, label in zip((base, ours, theirs), _LABELS):
            deadline.check()
            try:
                modules.append(cst.parse_module(text))
            except cst.ParserSyntaxError as exc:
                changes, _ = summarize(inv_b, inv_o, inv_t, None)
                note = f"{label} is Python that libcst cannot parse (line {exc.raw_line}); used a line-based merge"
                return MergeResult(lm.text, _line_conflicts(lm), changes, "line-fallback", [note])
        bm, om, tm = modules
        from .tree import Texts

        texts = Texts()
        for module in modules:
            texts.capture(module)
        matcher = StatementMatcher(texts, deadline)
        merger = Merger(texts, matcher.match(bm, om), matcher.match(bm, tm), deadline, tag)
        merged = merger.merge_module(bm, om, tm)
        text, conflicts = render(merged, merger.pending, tag)
    except BudgetExceeded:
        changes, _ = summarize(inv_b, inv_o, inv_t, None)
        budget_conflict = Conflict("<module>", "budget", f"the structured merge ran past its {budget:g}s budget; this is a line merge")
        return MergeResult(lm.text, [budget_conflict, *_line_conflicts(lm)], changes, "line-fallback", [budget_conflict.reason])
    except (RecursionError, cst.CSTValidationError, cst.CSTLogicError, ValueError, TypeError, KeyError, AttributeError, AssertionError) as exc:
        # A bug in plait must not cost the user their merge: as a git driver
        # a traceback would read as "conflicts" with no markers at all.  The
        # line merge is shown instead, flagged as a conflict naming the bug.
        changes, _ = summarize(inv_b, inv_o, inv_t, None)
        bug = Conflict("<module>", "internal", f"the structured merge failed ({type(exc).__name__}: {exc}); this is a line merge, please report it")
        return MergeResult(lm.text, [bug, *_line_conflicts(lm)], changes, "line-fallback", [bug.reason])

    if conflicts:
        changes, _ = summarize(inv_b, inv_o, inv_t, None)
        return MergeResult(text, conflicts, changes, "structured")
    tree, problem = _parse(text, "the structured result")
    if tree is None:
        # Never emit a structured result that does not re-parse as clean.
        changes, _ = summarize(inv_b, inv_o, inv_t, None)
        bad = Conflict("<module>", "invalid-result", f"{problem}; this is a line merge")
        return MergeResult(lm.text, [bad, *_line_conflicts(lm)], changes, "line-fallback", [bad.reason])
    changes, lost = summarize(inv_b, inv_o, inv_t, take_inventory(tree, text))
    return MergeResult(text, lost, changes, "structured")
