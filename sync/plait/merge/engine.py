"""The merge pipeline end to end: identity, fast path, structured, audits, fallbacks.

Every result, whichever path made it, passes the same audits before it may
be called clean: nothing either side added is lost (the inventory), no name
is bound twice where no side did, no deletion hides a modification, and no
name is left undefined that no input left undefined (the semantic check).

libcst is imported only when the structured path runs: as a git merge driver
plait starts once per conflicted file, and most merges end on the fast path.

The budget covers the whole merge: parsing, the structured merge, the
audits and the fallback.  Not every stage can be stopped half-way (a parse
runs to its end), so before each costly stage the merge asks whether that
stage fits in what is left, estimated from the stages this same merge has
already timed, and when it does not it takes the cheap way out: git's line
merge, flagged, with nothing computed that does not fit.
"""

from __future__ import annotations

import ast
import gc
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .. import contents
from ..errors import PlaitError, UnparsableSource
from ..records import record, replace
from .conflicts import DEFAULT_MARKERS, Conflict, Markers
from .facts import MODULE
from .inventory import Inventory, hidden_delete_modify, summarize, take_inventory
from .lines import LineMerge, LineMergeTimeout, merge_lines, whole_file_conflict
from .result import Change, MergeResult, Strategy
from .semantic import SemanticCheck, StatementSpans
from .surface import take_off
from .text import binary_merge

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from .hunks import Alignment, Marked

DEFAULT_BUDGET = 10.0
_LABELS = ("base", "ours", "theirs")

# Deeper than this (a 3,000-term `a + b + ...`), libcst's native parser can
# overflow the C stack; such modules get a flagged line merge instead.
MAX_DEPTH = 3000
_PARSE_RECURSION = 20_000


# Costs relative to what a merge measures of itself, from merges of 2,000 to
# 20,000 lines (benchmarks/merge_scaling.py prints the budget case):
# - the three inventories take about 1.5x the three stdlib parses;
INVENTORIES_PER_PARSE = 1.5
# - auditing one candidate (parse, inventory, ledger, pyflakes) takes about
#   as long as parsing and taking the inventories of all three inputs;
AUDIT_PER_PREWORK = 1.0
# - listing the changes takes under half of that;
CHANGES_PER_PREWORK = 0.5
# - the structured merge takes about 10x the stdlib parses (libcst's parse
#   alone 7-8x); the cheap way out is taken up front only when even an
#   optimistic estimate would not fit, the structured path then extrapolates
#   from its own first parse.
STRUCTURED_PER_PARSE = 5.0
# git's line merge takes milliseconds; it is never given less than this,
# so that a spent budget still gets git's result rather than the whole file
# between markers.
LINE_MERGE_GRACE = 0.25


class _Budget:
    """The per-file time budget, counted from the start of the call, and what the merge timed so far."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.perf_counter() + seconds
        self.parsing = 0.0  # the three stdlib parses
        self.prework = 0.0  # ... and the three inventories

    def left(self) -> float:
        return self.at - time.perf_counter()

    def fits(self, seconds: float) -> bool:
        """Whether work expected to take *seconds* ends within the budget."""
        return time.perf_counter() + seconds <= self.at

    @property
    def audit(self) -> float:
        """What auditing one candidate result is expected to cost."""
        return AUDIT_PER_PREWORK * self.prework

    @property
    def reason(self) -> str:
        return f"the structured merge would not finish within its {self.seconds:g}s budget; this is a line merge"


def merge3(
    base: str,
    ours: str,
    theirs: str,
    *,
    budget: float = DEFAULT_BUDGET,
    strict: bool = False,
    markers: Markers = DEFAULT_MARKERS,
    names: tuple[str, str, str] = _LABELS,
) -> MergeResult:
    """Merge `theirs` (incoming) into `ours` (local), both descended from `base`.

    With `strict`, an input that does not parse raises `UnparsableSource`
    (sync and vendor must not write lineages from broken code); otherwise the
    merge falls back to a line merge and says so in `notes`.  The budget
    counts from this call, parsing included.  `markers` sets git's marker
    size and labels; `names` is how notes and errors name the three inputs
    (the CLI passes file names).

    Any text a file may hold is taken (`surface`): a BOM, CRLF or bare-CR
    line endings, no final newline, a declared encoding; a text that is not
    UTF-8 and declares none is merged as its bytes, by lines (strict: refused).
    A binary input (git's rule, `plait.contents.is_binary`) is never merged
    by lines: unless a side left it as it was, ours is kept and a `binary`
    conflict says so, as git's own binary merge does.

    Never raises for a bug in plait: an internal error degrades to a line
    merge flagged as a conflict.  It raises `PlaitError` only when not even
    a line merge can be made (no git on PATH).
    """
    if any(contents.is_binary(text) for text in (base, ours, theirs)):
        return binary_merge(base, ours, theirs)
    started = _Budget(budget)
    with _quiet_gc():
        try:
            return _Merge(base, ours, theirs, started, strict, markers, names).run()
        except PlaitError:
            raise
        except Exception as exc:  # the guard: a bug must not cost the user their merge
            return _flagged_line_merge(base, ours, theirs, markers, names, exc)


def _flagged_line_merge(
    base: str, ours: str, theirs: str, markers: Markers, names: tuple[str, str, str], exc: Exception
) -> MergeResult:
    """git's line merge, flagged as a conflict that names the bug."""
    lm = merge_lines(base, ours, theirs, markers, names)
    detail = _describe_exception(exc)
    bug = Conflict(
        MODULE, "internal", f"the structured merge failed ({detail}); this is a line merge, please report it"
    )
    return MergeResult(lm.text, [bug, *_line_conflicts(lm)], [], "line-fallback", [bug.reason])


def _describe_exception(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose str() fails still gets named
        text = "<unprintable>"
    return f"{type(exc).__name__}: {text}"[:300]


@contextmanager
def _quiet_gc() -> Iterator[None]:
    # A merge allocates millions of short-lived, acyclic CST nodes; the cyclic
    # collector would only rescan them.  Everything is released on return.
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


_recursion_lock = threading.Lock()
_recursion_users = 0
_recursion_saved = 0


@contextmanager
def _deep_recursion(limit: int) -> Iterator[None]:
    """Raise the interpreter's recursion limit while any merge needs it.

    The tree walks (ast visitors, libcst's visitors and printer) recurse once
    per nesting level, and real modules hold expressions hundreds of levels
    deep.  The limit is process-wide, so concurrent merges share one raise
    and the last one out restores it.
    """
    global _recursion_users, _recursion_saved
    with _recursion_lock:
        if _recursion_users == 0:
            _recursion_saved = sys.getrecursionlimit()
        _recursion_users += 1
        if sys.getrecursionlimit() < limit:
            sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        with _recursion_lock:
            _recursion_users -= 1
            if _recursion_users == 0:
                sys.setrecursionlimit(_recursion_saved)


def _line_conflicts(lm: LineMerge) -> list[Conflict]:
    if lm.whole_file:
        why = "no time was left for even a line merge: both versions are kept whole between markers"
        return [Conflict(MODULE, "budget", why, 1)]
    return [Conflict(MODULE, "text", "both sides changed these lines", line) for line in lm.conflict_lines]


def _parse(text: str, label: str) -> tuple[ast.Module | None, str | None]:
    try:
        return ast.parse(text), None
    except UnicodeEncodeError:  # a byte `plait.contents` kept, in a file that declares no encoding
        return None, f"{label} does not parse (it is not UTF-8, and declares no encoding)"
    except SyntaxError as exc:
        return None, f"{label} does not parse (line {exc.lineno}: {exc.msg})"
    except ValueError as exc:  # null bytes
        return None, f"{label} does not parse ({exc})"
    except (RecursionError, MemoryError):
        return None, f"{label} nests too deeply to parse"


@record
class _Region:
    """Lines of a candidate result to put between markers, and for a name bound twice, the lines that bind it."""

    conflict: Conflict
    first: int
    last: int
    bindings: tuple[int, ...] = ()


@record
class _Audit:
    """What is wrong with a candidate result, by the laws every result must keep.

    `marked` problems can be shown in place (a use of a removed name, a name
    bound twice); the others (a lost statement, a hidden deletion) cannot,
    because what is wrong is what is missing.
    """

    changes: list[Change]
    problems: list[Conflict]
    marked: list[_Region]

    @property
    def passed(self) -> bool:
        return not self.problems and not self.marked


def _bound_twice(region: _Region, alignment: Alignment, where: Marked) -> Conflict:
    """The conflict of a name the merge binds more often than either side, naming each binding and whose it is.

    Lines are the output's: a binding inside the hunk is on its side's section.
    """
    conflict = region.conflict
    name = conflict.path.rpartition(".")[2]
    scope = conflict.path.rpartition(".")[0]
    place = "at module level" if not scope else f"in {scope}"
    named: list[str] = []
    spelled: dict[str, str] = {}
    for line in region.bindings:
        owner = alignment.owner(line)
        text = _short(alignment.lines[line - 1])
        at = where.line(line)
        named.append(f"{owner}' `{text}`" + (f" (line {at})" if at else ""))
        for side in ("ours", "theirs"):
            if owner in (side, "both sides"):
                spelled.setdefault(side, text)
    count = len(region.bindings)
    times = "twice" if count == 2 else f"{count} times"
    reason = f"{name} is bound {times} {place}, more than on either side: {', '.join(named)}"
    return Conflict(
        conflict.path,
        conflict.kind,
        reason,
        where.marker(region.first),
        ours=spelled.get("ours", ""),
        theirs=spelled.get("theirs", ""),
    )


def _short(line: str, width: int = 60) -> str:
    text = line.strip()
    return text if len(text) <= width else text[: width - 3] + "..."


class _Merge:
    """One merge: the state the stages share, and the order they run in."""

    def __init__(
        self,
        base: str,
        ours: str,
        theirs: str,
        budget: _Budget,
        strict: bool,
        markers: Markers,
        names: tuple[str, str, str],
    ) -> None:
        self.raw = (base, ours, theirs)
        self.budget = budget
        self.invs: tuple[Inventory, Inventory, Inventory] | None = None
        self.strict = strict
        self.markers = markers
        self.names = names

    def run(self) -> MergeResult:
        (base, ours, theirs), surface = take_off(self.raw)
        result = self._run(base, ours, theirs)
        result.text = surface.put_back(result.text, clean=result.clean)
        raw_base, raw_ours, raw_theirs = self.raw
        if raw_ours == raw_base:  # the identity law, byte for byte, whatever the surface
            result.text = raw_theirs
        elif raw_theirs == raw_base or raw_ours == raw_theirs:
            result.text = raw_ours
        return result

    def _run(self, base: str, ours: str, theirs: str) -> MergeResult:
        self.texts = (base, ours, theirs)
        started = time.perf_counter()
        trees: list[ast.Module] = []
        problems: list[tuple[str, str]] = []
        # The parser's nesting check follows the recursion limit; machine-made
        # modules (a 4,000-term sum) parse fine with room to recurse.
        with _deep_recursion(_PARSE_RECURSION):
            for index, (text, name) in enumerate(zip(self.texts, self.names, strict=True)):
                if index and not self.strict and not self._parse_fits(started, index):
                    # (strict callers must hear of every input that does not
                    # parse, so they always parse all three.)
                    if problems:
                        break
                    return self._out_of_time()
                tree, problem = _parse(text, name)
                if tree is not None:
                    trees.append(tree)
                if problem:
                    problems.append((name, problem))
        if problems:
            if self.strict:
                name, problem = problems[0]
                raise UnparsableSource(problem.split(" does not parse ", 1)[-1].strip("()"), path=name)
            return self._line_fallback([f"{p}; used a line-based merge" for _, p in problems])
        self.budget.parsing = time.perf_counter() - started
        if not self.budget.fits(INVENTORIES_PER_PARSE * self.budget.parsing):
            return self._out_of_time()
        with _deep_recursion(_PARSE_RECURSION):
            try:
                invs = tuple(take_inventory(tree, text) for tree, text in zip(trees, self.texts, strict=True))
            except RecursionError:
                invs = ()
            depth = max((inv.depth for inv in invs), default=_PARSE_RECURSION)
            if depth > MAX_DEPTH:
                # As for an input that does not parse: git's merge, said so.
                return self._line_fallback(
                    [
                        f"an input nests {depth} levels deep, past the {MAX_DEPTH} the structured merge handles; "
                        "used a line-based merge"
                    ]
                )
            self.budget.prework = time.perf_counter() - started
            return self._merge(trees[0], trees[1], trees[2], (invs[0], invs[1], invs[2]))

    def _parse_fits(self, started: float, index: int) -> bool:
        """Whether parsing input *index* fits in the budget, at the rate the inputs before it parsed."""
        done = sum(len(t) for t in self.texts[:index])
        return self.budget.fits((time.perf_counter() - started) / max(done, 1) * len(self.texts[index]))

    def _lines(self) -> LineMerge:
        """git's line merge within what is left of the budget (never less than a grace), else the whole file."""
        try:
            timeout = max(self.budget.left(), LINE_MERGE_GRACE)
            return merge_lines(*self.texts, self.markers, self.names, timeout=timeout)
        except LineMergeTimeout:
            return whole_file_conflict(*self.texts, self.markers)

    def _line_fallback(self, notes: list[str], changes: list[Change] | None = None) -> MergeResult:
        lm = self._lines()
        return MergeResult(lm.text, _line_conflicts(lm), changes or [], "line-fallback", notes)

    def _changes(self) -> list[Change]:
        """What each side contributed, as far as the inventories tell without a result; none if no time is left."""
        if self.invs is None or not self.budget.fits(CHANGES_PER_PREWORK * self.budget.prework):
            return []
        changes, _ = summarize(*self.invs, None)
        return changes

    def _out_of_time(self, lm: LineMerge | None = None) -> MergeResult:
        """The cheap way out, when the budget is spent or the next stage would overrun it.

        No more work than fits: an identity merge needs none, otherwise git's
        line merge (*lm* when it was made already), flagged as a budget
        conflict, with the change list only if there is time to make it.
        """
        base, ours, theirs = self.texts
        if ours in (base, theirs) or theirs == base:
            return MergeResult(theirs if ours == base else ours, [], [], "identity")
        lm = lm or self._lines()
        reason = self.budget.reason
        over = Conflict(MODULE, "budget", reason)
        return MergeResult(lm.text, [over, *_line_conflicts(lm)], self._changes(), "line-fallback", [reason])

    def _merge(
        self, bt: ast.Module, ot: ast.Module, tt: ast.Module, invs: tuple[Inventory, Inventory, Inventory]
    ) -> MergeResult:
        base, ours, theirs = self.texts
        self.invs = invs
        self.semantic = SemanticCheck(bt, ot, tt, invs)

        # Identity laws hold byte for byte: nothing to merge when a side is unchanged.
        if ours in (base, theirs) or theirs == base:
            text, inv_r = (theirs, invs[2]) if ours == base else (ours, invs[1])
            changes, _ = summarize(*invs, inv_r)
            return MergeResult(text, [], changes, "identity")

        lm = self._lines()
        if not lm.clean:
            return self._structured(lm)
        if not self.budget.fits(self.budget.audit):
            return self._out_of_time(lm)
        line_audit = self._audit(lm.text, hidden=hidden_delete_modify(*invs))
        if line_audit is None:
            return self._structured(lm)
        if line_audit.passed:
            return MergeResult(lm.text, [], line_audit.changes, "line")
        if not line_audit.problems and all(r.conflict.kind == "semantic" for r in line_audit.marked):
            # Only uses of a name the other side removed: the structured
            # merge would combine the same two edits, so mark them in
            # git's result.
            return self._with_marks(lm.text, line_audit, "line")
        result = self._structured(lm)
        # Never worse than git where git is right: git's clean result may be
        # rejected only for the reasons named against it.  A structured
        # result that conflicts for any other reason gives way to git's,
        # with those reasons marked (or listed, where nothing can be marked).
        named = {c.kind for c in line_audit.problems} | {r.conflict.kind for r in line_audit.marked}
        if result.clean or {c.kind for c in result.conflicts} <= named | {"semantic", "add/add"}:
            return result
        return self._with_marks(lm.text, line_audit, "line")

    def _audit(self, text: str, hidden: list[str] | None = None) -> _Audit | None:
        """Check a candidate against every law; None when it does not even parse."""
        tree, _problem = _parse(text, "result")
        if tree is None:
            return None
        assert self.invs is not None  # audits run after the inventories
        inv_r = take_inventory(tree, text)
        changes, problems = summarize(*self.invs, inv_r)
        for path in hidden or ():
            problems.append(Conflict(path, "delete/modify", f"one side deleted {path} and the other changed it"))
        spans = StatementSpans(tree)
        marked: list[_Region] = []
        for conflict in list(problems):
            if conflict.kind == "add/add" and conflict.line is not None:
                _path, first, last = spans.around(conflict.line)
                problems.remove(conflict)
                scope, _, name = conflict.path.rpartition(".")
                bound = tuple(sorted(inv_r.binding_lines.get((scope or MODULE, name), [])))
                marked.append(_Region(conflict, first, last, bound))
        semantic, uses = self.semantic.conflicts(tree, inv_r)
        marked += [_Region(c, u.first, u.last) for c, u in zip(semantic, uses, strict=True)]
        return _Audit(changes, problems, marked)

    def _with_marks(self, text: str, audit: _Audit, strategy: Strategy) -> MergeResult:
        """*text* with a hunk around each problem found in it, each section holding that input's own lines."""
        from .hunks import Alignment

        alignment = Alignment(text, self.texts)
        marked, where = alignment.mark([(r.first, r.last) for r in audit.marked], self.markers)
        conflicts = [
            _bound_twice(r, alignment, where) if r.bindings else replace(r.conflict, line=where.marker(r.first))
            for r in audit.marked
        ]
        return MergeResult(marked, [*audit.problems, *conflicts], audit.changes, strategy)

    def _structured(self, lm: LineMerge) -> MergeResult:
        from .structured import BudgetExceeded, LibcstUnparsable, structured_merge

        base, ours, theirs = self.texts
        # The structured result still has to be audited: its own deadline
        # leaves room for that, and it is not started at all when not even
        # an optimistic estimate of it fits.
        if not self.budget.fits(STRUCTURED_PER_PARSE * self.budget.parsing + self.budget.audit):
            return self._out_of_time(lm)
        try:
            text, conflicts, dropped = structured_merge(
                base, ours, theirs, self.budget.at - self.budget.audit, self.markers
            )
        except BudgetExceeded:
            return self._out_of_time(lm)
        except LibcstUnparsable as exc:
            note = (
                f"{self.names[exc.index]} is Python that libcst cannot parse (line {exc.line}); used a line-based merge"
            )
            return MergeResult(lm.text, _line_conflicts(lm), self._changes(), "line-fallback", [note])

        if conflicts:
            return MergeResult(text, conflicts, [*self._changes(), *dropped], "structured")
        if not self.budget.fits(self.budget.audit):
            return self._out_of_time(lm)
        audit = self._audit(text)
        if audit is None:
            # Never emit a structured result that does not re-parse as clean.
            _tree, problem = _parse(text, "the structured result")
            bad = Conflict(MODULE, "invalid-result", f"{problem}; this is a line merge")
            return MergeResult(lm.text, [bad, *_line_conflicts(lm)], self._changes(), "line-fallback", [bad.reason])
        audit.changes.extend(dropped)
        if audit.passed:
            return MergeResult(text, [], audit.changes, "structured")
        if audit.problems and not lm.clean:
            # What is missing cannot be marked where it is not: git's line
            # merge, whose hunks hold every line of both sides, with the
            # problem named.
            note = "the structured merge " + "; ".join(c.reason for c in audit.problems) + "; this is a line merge"
            return MergeResult(lm.text, [*audit.problems, *_line_conflicts(lm)], audit.changes, "line-fallback", [note])
        return self._with_marks(text, audit, "structured")


__all__ = ["DEFAULT_BUDGET", "merge3"]
