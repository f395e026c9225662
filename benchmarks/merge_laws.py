"""The merge laws on real code: independent edit pairs on standard-library modules (issue 7).

Hand-written corpus cases prove what their authors thought of.  This harness
takes real modules -- the ``.py`` files of the running Python's standard
library, which every machine has -- and makes realistic, independent edits on
the two sides with libcst (`law_edits.py`): add a method, add imports, rename
a local, delete a function, wrap a statement in ``if``/``try``/``with``,
extract a block into a helper, move a function, append at the end, cosmetic
edits alone and against real edits of the same statement, and a removed
import against a new use of it.  Edits on the two sides touch disjoint
regions, so the right merge is known without the engine: both edit sets
applied to the base (same-point insertions: ours first).  The one exception
is the removed import against a new use, where the right outcome is a
conflict of kind ``semantic``.

Every pair runs twice: as generated, and with both sides also appending a
different function at the end of the file, which forces the engine off its
line-based fast path.  Each merge is classified:

* silent wrong: clean, but its AST differs from the expected one (or a
  conflict was expected);
* false conflict: a conflict where the expected merge is clean;
* traceback: ``merge3`` raised;
* identity failure: ``merge(B, B, X)``, ``merge(B, X, B)`` or
  ``merge(B, X, X)`` is not X byte for byte, for every generated side X;
* new undefined names: a clean merge in which pyflakes finds an undefined
  name that is undefined neither in base, ours nor theirs.

``layout`` counts clean merges with the right AST but a different text (info).

Run: ``python benchmarks/merge_laws.py [--modules 30] [--seed S] [--kinds a,b]
[--jobs 2] [--max-seconds 900] [--dump DIR] [--check]``.  It prints a table per
edit kind and one summary line; it exits 0 (it is a benchmark), or with
``--check`` 1 when any counter is not zero.  ``--dump DIR`` writes every
failing merge as a corpus-style folder (Base/Ours/Theirs/Expected/Result.py
and why.txt).

The test suite imports this file as a library (``tests/merge/test_laws_sample.py``
runs a small fixed sample through `run`).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import math
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import libcst as cst
import tomlkit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import law_edits as le  # noqa: E402 - a sibling of this script, not an installed module

DEFAULT_MODULES = 32
GOAL_MODULES = 30
DEFAULT_SEED = 7
DEFAULT_JOBS = 2
DEFAULT_MAX_SECONDS = 1800.0
MIN_LINES, MAX_LINES = 80, 3000
# Test packages and tools are not library code; encodings/ is ~100 generated, near-identical codec tables.
SKIPPED_DIRS = {"idlelib", "turtledemo", "site-packages", "__pycache__", "tests", "test", "encodings"}
MIXED = "mixed"
TRIES = 12  # candidate edits tried per kind and side before giving up on a module
COUNTERS = ("silent_wrong", "false_conflict", "traceback", "identity", "new_undefined")
COUNTER_LABELS = {
    "silent_wrong": "silent wrong",
    "false_conflict": "false conflicts",
    "traceback": "tracebacks",
    "identity": "identity failures",
    "new_undefined": "new undefined names",
}


class MergeOutcome(Protocol):
    """What the harness reads from a merge: `plait.merge.MergeResult`, treated as a black box."""

    @property
    def text(self) -> str: ...

    @property
    def clean(self) -> bool: ...

    @property
    def strategy(self) -> str: ...

    @property
    def conflicts(self) -> Sequence[object]: ...


MergeFunction = Callable[[str, str, str], MergeOutcome]


def default_merge(base: str, ours: str, theirs: str) -> MergeOutcome:
    from plait.merge import merge3

    return merge3(base, ours, theirs)


# -- cases -------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One three-way merge with a known right answer."""

    module: str
    kind: str
    variant: str
    edits: tuple[str, ...]
    base: str
    ours: str
    theirs: str
    expected: str
    expect_conflict: bool = False
    # Equally right merges that differ from `expected` only in the order of same-point insertions whose
    # anchor one side deleted: there "ours first" and "theirs took the deleted statement's place" both hold.
    alternatives: tuple[str, ...] = ()


def _describe(ours: Sequence[le.Edit], theirs: Sequence[le.Edit]) -> tuple[str, ...]:
    return tuple(f"ours {e.describe()}" for e in ours) + tuple(f"theirs {e.describe()}" for e in theirs)


def build_cases(src: le.Source, seed: int | str, kinds: Sequence[str]) -> list[Case]:
    """Every case one module yields for the given kinds, deterministically from `seed`.

    Each kind draws from its own generator, seeded by (seed, module, kind), so
    ``--only MODULE --kinds KIND`` rebuilds exactly the cases of a full run.

    Solo kinds put the edit on one side and an edit of another kind on the
    other; paired kinds make both sides at once; ``mixed`` gives each side
    2-3 edits of random kinds.  All edits of a case have disjoint footprints.
    """

    def valid(edit: le.Edit) -> bool:
        return le.check_edit(src, edit) is None

    def first(kind: str, side: str, taken: Sequence[le.Edit], rng: random.Random, namer: le.Namer) -> le.Edit | None:
        for n, edit in enumerate(le.SOLO[kind](src, rng, namer, side)):
            if n >= TRIES:
                break
            if le.disjoint(edit, taken) and valid(edit):
                return edit
        return None

    cases: list[Case] = []
    for kind in kinds:
        rng = random.Random(f"{seed}:{src.name}:{kind}")
        namer = le.Namer(src)
        pair: le.Pair | None = None
        if kind in le.PAIRED:
            for n, candidate in enumerate(le.PAIRED[kind](src, rng, namer)):
                if n >= TRIES:
                    break
                if all(valid(e) for e in candidate.ours + candidate.theirs):
                    pair = candidate
                    break
        elif kind in le.SOLO:
            side = rng.choice((le.OURS, le.THEIRS))
            primary = first(kind, side, (), rng, namer)
            partner = None
            if primary is not None:
                for other_kind in le.shuffled(rng, [k for k in le.SOLO if k != kind]):
                    partner = first(other_kind, le.THEIRS if side == le.OURS else le.OURS, (primary,), rng, namer)
                    if partner is not None:
                        break
            if primary is not None and partner is not None:
                ours, theirs = ((primary,), (partner,)) if side == le.OURS else ((partner,), (primary,))
                pair = le.Pair(ours, theirs, ours + theirs)
        elif kind == MIXED:
            sides: dict[str, list[le.Edit]] = {le.OURS: [], le.THEIRS: []}
            for side, edits in sides.items():
                want = rng.randint(2, 3)
                for other_kind in le.shuffled(rng, list(le.SOLO) * 2):
                    edit = first(other_kind, side, sides[le.OURS] + sides[le.THEIRS], rng, namer)
                    if edit is not None:
                        edits.append(edit)
                    if len(edits) == want:
                        break
            if len(sides[le.OURS]) >= 2 and len(sides[le.THEIRS]) >= 2:
                pair = le.Pair(tuple(sides[le.OURS]), tuple(sides[le.THEIRS]), (*sides[le.OURS], *sides[le.THEIRS]))
        if pair is not None:
            cases.extend(_variants(src, rng, namer, kind, pair))
    return cases


def _variants(src: le.Source, rng: random.Random, namer: le.Namer, kind: str, pair: le.Pair) -> list[Case]:
    """The pair as made, and with both sides also appending a function (the structured path)."""
    variants: list[tuple[str, tuple[le.Edit, ...], tuple[le.Edit, ...]]] = [("plain", (), ())]
    if kind != "append_end":
        appended_ours = le.append_function(src, rng, namer, le.OURS)
        appended_theirs = le.append_function(src, rng, namer, le.THEIRS)
        variants.append(("+append", (appended_ours,), (appended_theirs,)))
    out = []
    for variant, extra_ours, extra_theirs in variants:
        ours, theirs = pair.ours + extra_ours, pair.theirs + extra_theirs
        alternatives: tuple[str, ...] = ()
        if pair.expected is None:
            expected_edits = ours + theirs  # both applied: what a clean merge would wrongly give
        else:  # ours' part first, then theirs', so same-point insertions come out ours first
            ours_part = tuple(e for e in pair.expected if e in pair.ours) + extra_ours
            theirs_part = tuple(e for e in pair.expected if e in pair.theirs) + extra_theirs
            expected_edits = ours_part + theirs_part
            if _end_anchor_deleted(src, ours, theirs):
                alternatives = (src.render(theirs_part + ours_part),)
        texts = [src.render(edits) for edits in (ours, theirs, expected_edits)]
        if not all(le.compiles(text) for text in texts):
            continue  # the edits interfere after all; the harness never offers a broken case
        if pair.expected is not None:
            sides_undefined = src.undefined | le.undefined_names(texts[0]) | le.undefined_names(texts[1])
            if le.undefined_names(texts[2]) - sides_undefined:
                continue
        out.append(
            Case(
                src.name,
                kind,
                variant,
                _describe(ours, theirs),
                src.text,
                texts[0],
                texts[1],
                texts[2],
                expect_conflict=pair.expected is None,
                alternatives=alternatives,
            )
        )
    return out


def _end_anchor_deleted(src: le.Source, ours: Sequence[le.Edit], theirs: Sequence[le.Edit]) -> bool:
    """Both sides insert at the end of the module, and one side deleted the module's last statement."""
    size = len(src.module.body)
    end, last = ((), size), (size - 1,)
    both_insert = any(end in e.insert for e in ours) and any(end in e.insert for e in theirs)
    return both_insert and any(e.replace.get(last) == () for e in (*ours, *theirs))


# -- judging -----------------------------------------------------------------------


@dataclass
class Verdict:
    """How one merge (or one identity check) went."""

    module: str
    kind: str
    variant: str
    check: str  # "pair", or the identity law: "B,B,X" / "B,X,B" / "B,X,X"
    edits: tuple[str, ...]
    clean: bool | None = None
    strategy: str = ""
    silent_wrong: bool = False
    false_conflict: bool = False
    traceback: bool = False
    identity: bool = False
    new_undefined: tuple[str, ...] = ()
    layout: bool = False
    other_conflict_kind: bool = False
    why: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def failures(self) -> list[str]:
        return [c for c in COUNTERS if getattr(self, c)]


def _excerpt(expected: str, actual: str, limit: int = 24) -> str:
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True), "Expected.py", "Result.py", n=2
    )
    lines = list(diff)
    more = f"... ({len(lines) - limit} more diff lines)\n" if len(lines) > limit else ""
    return "".join(lines[:limit]) + more


def _conflicts(result: MergeOutcome) -> list[str]:
    described = []
    for conflict in result.conflicts:
        kind, path, reason = (getattr(conflict, a, "?") for a in ("kind", "path", "reason"))
        described.append(f"{kind} at {path}: {reason}")
    return described


def _ast_dump(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError):
        return None


class Undefined:
    """pyflakes' undefined names per text, computed once."""

    def __init__(self) -> None:
        self._cache: dict[str, frozenset[str]] = {}

    def __call__(self, text: str) -> frozenset[str]:
        if text not in self._cache:
            self._cache[text] = le.undefined_names(text)
        return self._cache[text]


def judge(case: Case, merge: MergeFunction, undefined: Undefined | None = None) -> Verdict:
    """Merge one case and classify the result against the expected one."""
    undefined = undefined or Undefined()
    verdict = Verdict(case.module, case.kind, case.variant, "pair", case.edits)
    files = {"Base.py": case.base, "Ours.py": case.ours, "Theirs.py": case.theirs, "Expected.py": case.expected}
    try:
        result = merge(case.base, case.ours, case.theirs)
    except Exception:  # a traceback is exactly what this counts
        verdict.traceback = True
        verdict.why.append("merge3 raised:\n" + traceback.format_exc(limit=-6))
        verdict.files = files
        return verdict
    verdict.clean, verdict.strategy = result.clean, result.strategy
    conflicts = _conflicts(result)
    tree = _ast_dump(result.text) if result.clean else None
    if result.clean and tree is not None:
        new = undefined(result.text) - undefined(case.base) - undefined(case.ours) - undefined(case.theirs)
        verdict.new_undefined = tuple(sorted(new))
        if new:
            verdict.why.append(f"clean, but pyflakes finds new undefined names: {', '.join(sorted(new))}")
    if case.expect_conflict:
        if result.clean and not verdict.new_undefined:
            verdict.silent_wrong = True
            verdict.why.append("clean, but one side removed a name the other side's new code uses")
        elif not result.clean and not any(getattr(c, "kind", "") == "semantic" for c in result.conflicts):
            verdict.other_conflict_kind = True
            verdict.why.append("conflict, but not of kind semantic: " + "; ".join(conflicts))
    elif not result.clean:
        verdict.false_conflict = True
        verdict.why.append("conflict where both edits apply: " + "; ".join(conflicts))
    elif tree is None:
        verdict.silent_wrong = True
        verdict.why.append("clean, but the result does not parse")
    elif tree != _ast_dump(case.expected) and any(tree == _ast_dump(alt) for alt in case.alternatives):
        verdict.layout = True
        verdict.why.append(
            "an equally right order (one side deleted the statement both sides inserted after):\n"
            + _excerpt(case.expected, result.text, limit=12)
        )
    elif tree != _ast_dump(case.expected):
        verdict.silent_wrong = True
        verdict.why.append(
            "clean, but the AST differs from the expected merge:\n" + _excerpt(case.expected, result.text)
        )
    elif result.text != case.expected:
        verdict.layout = True
        verdict.why.append("same AST, different text:\n" + _excerpt(case.expected, result.text, limit=12))
    if verdict.failures or verdict.layout or verdict.other_conflict_kind:
        verdict.files = files | {"Result.py": result.text}
    return verdict


IDENTITY_LAWS = ("B,B,X", "B,X,B", "B,X,X")


def identity_checks(case: Case, side: str, text: str, merge: MergeFunction) -> list[Verdict]:
    """merge(B,B,X), merge(B,X,B) and merge(B,X,X) must all be X, byte for byte."""
    out = []
    for law in IDENTITY_LAWS:
        ours, theirs = {"B,B,X": (case.base, text), "B,X,B": (text, case.base), "B,X,X": (text, text)}[law]
        verdict = Verdict(case.module, case.kind, case.variant, law, case.edits + (f"(identity law on {side}'s text)",))
        files = {"Base.py": case.base, "Ours.py": ours, "Theirs.py": theirs, "Expected.py": text}
        try:
            result = merge(case.base, ours, theirs)
        except Exception:
            verdict.traceback = True
            verdict.why.append(f"merge({law}) raised:\n" + traceback.format_exc(limit=-6))
            verdict.files = files
            out.append(verdict)
            continue
        if result.text != text or not result.clean:
            verdict.identity = True
            state = "clean" if result.clean else "conflicts: " + "; ".join(_conflicts(result))
            verdict.why.append(f"merge({law}) is not X ({state}):\n" + _excerpt(text, result.text))
            verdict.files = files | {"Result.py": result.text}
        verdict.clean, verdict.strategy = result.clean, result.strategy
        out.append(verdict)
    return out


# -- modules -----------------------------------------------------------------------


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def candidate_modules() -> list[tuple[str, Path]]:
    """Importable-looking ``.py`` files of the standard library, test packages and tools left out."""
    root = stdlib_root()
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d.isidentifier() and d not in SKIPPED_DIRS and not d.startswith("test"))
        rel = Path(folder).relative_to(root)
        for name in sorted(files):
            stem = name[:-3]
            if not name.endswith(".py") or not stem.isidentifier() or stem.startswith("test"):
                continue
            parts = [*rel.parts] if stem == "__init__" else [*rel.parts, stem]
            if parts:
                found.append((".".join(parts), Path(folder) / name))
    return sorted(found)


def read_module(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (UnicodeDecodeError, OSError):
        return None


def select_modules(
    count: int, seed: int, *, min_lines: int = MIN_LINES, max_lines: int = MAX_LINES, only: Sequence[str] = ()
) -> list[tuple[str, Path]]:
    """`count` modules drawn by `seed` (or exactly `only`), each parsing and within the line limits."""
    candidates = candidate_modules()
    if only:
        by_name = dict(candidates)
        missing = [name for name in only if name not in by_name]
        if missing:
            raise SystemExit(f"no such standard-library module here: {', '.join(missing)}")
        return [(name, by_name[name]) for name in only]
    random.Random(seed).shuffle(candidates)
    picked = []
    for name, path in candidates:
        text = read_module(path)
        if text is None or not min_lines <= text.count("\n") <= max_lines:
            continue
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        picked.append((name, path))
        if len(picked) == count:
            break
    return picked


@dataclass(frozen=True)
class Job:
    name: str
    path: Path
    seed: int
    kinds: tuple[str, ...]
    deadline: float
    merge: MergeFunction | None = None
    keep: int = 0  # cases whose texts come back, to be merged again as whole processes


@dataclass
class ModuleReport:
    name: str
    lines: int = 0
    verdicts: list[Verdict] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # kinds that produced a case
    unfinished: int = 0  # cases not merged because time ran out
    error: str = ""  # the harness itself failed on this module
    kept: list[Case] = field(default_factory=list)  # a seeded sample of its cases (Job.keep)


def check_module(job: Job) -> ModuleReport:
    report = ModuleReport(job.name)
    merge = job.merge or default_merge
    try:
        text = read_module(job.path)
        assert text is not None
        report.lines = text.count("\n")
        src = le.Source(job.name, text)
        cases = build_cases(src, job.seed, job.kinds)
    except (cst.ParserSyntaxError, RecursionError, AssertionError, ValueError) as exc:
        report.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return report
    report.kinds = sorted({case.kind for case in cases})
    report.verdicts, report.unfinished = check_cases(cases, merge, deadline=job.deadline)
    report.kept = random.Random(f"{job.seed}:{job.name}:process").sample(cases, min(job.keep, len(cases)))
    return report


def check_cases(
    cases: Sequence[Case], merge: MergeFunction, *, deadline: float = float("inf")
) -> tuple[list[Verdict], int]:
    """Judge every case, and the identity laws once per distinct side; also how many cases time left unmerged."""
    undefined = Undefined()
    seen: set[str] = set()
    verdicts: list[Verdict] = []
    unfinished = 0
    for case in cases:
        if time.monotonic() > deadline:
            unfinished += 1
            continue
        verdicts.append(judge(case, merge, undefined))
        for side, side_text in (("ours", case.ours), ("theirs", case.theirs)):
            if side_text not in seen:
                seen.add(side_text)
                verdicts.extend(identity_checks(case, side, side_text, merge))
    return verdicts, unfinished


# -- the whole run -----------------------------------------------------------------


@dataclass
class Report:
    modules: list[ModuleReport]
    seconds: float = 0.0

    @property
    def verdicts(self) -> list[Verdict]:
        return [v for m in self.modules for v in m.verdicts]

    @property
    def merges(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.check == "pair"]

    def counters(self) -> dict[str, int]:
        counts = Counter(c for v in self.verdicts for c in v.failures)
        return {c: counts[c] for c in COUNTERS}

    def failures(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.failures]

    def kinds(self) -> list[str]:
        """Edit kinds exercised (``mixed`` is a combination, not a kind)."""
        return sorted({v.kind for v in self.merges} - {MIXED})

    def summary_line(self) -> str:
        counts = self.counters()
        modules = sum(1 for m in self.modules if m.verdicts)
        figures = " / ".join(f"{COUNTER_LABELS[c]} {counts[c]}" for c in COUNTERS)
        return (
            f"merge laws: {len(self.merges)} merges over {modules} modules, {len(self.kinds())} edit kinds: {figures}"
        )


def run(
    *,
    modules: int = DEFAULT_MODULES,
    seed: int = DEFAULT_SEED,
    kinds: Sequence[str] | None = None,
    jobs: int = DEFAULT_JOBS,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    max_lines: int = MAX_LINES,
    only: Sequence[str] = (),
    merge: MergeFunction | None = None,
    keep: int = 0,
) -> Report:
    """Run the laws over `modules` standard-library modules; the library entry point the tests call.

    `keep` cases per module come back with their texts (`ModuleReport.kept`),
    for `process_times`.
    """
    started = time.monotonic()
    chosen = tuple(kinds) if kinds else (*le.EDIT_KINDS, MIXED)
    unknown = set(chosen) - {*le.EDIT_KINDS, MIXED}
    if unknown:
        raise ValueError(f"unknown edit kinds: {', '.join(sorted(unknown))}")
    picked = select_modules(modules, seed, max_lines=max_lines, only=only)
    deadline = started + max_seconds
    work = [Job(name, path, seed, chosen, deadline, merge, keep) for name, path in picked]
    if jobs <= 1 or len(work) <= 1:
        reports = [check_module(job) for job in work]
    else:
        # fork: the children inherit this module (loaded by path in tests) and the merge function.
        with multiprocessing.get_context("fork").Pool(min(jobs, len(work))) as pool:
            reports = list(pool.imap_unordered(check_module, work))
    order = {name: i for i, (name, _) in enumerate(picked)}
    reports.sort(key=lambda r: order[r.name])
    return Report(reports, time.monotonic() - started)


# -- per merge as a whole process ------------------------------------------------

GOAL_PROCESS_MEDIAN = 0.25
DEFAULT_PROCESS_MERGES = 160


def process_times(cases: Sequence[Case], tmp: Path) -> tuple[list[float], list[float], int]:
    """Wall seconds of `plait merge` as git runs it, one process per case, start-up included.

    What a user waits for per conflicted file: git's driver line on the
    case's three texts, writing ours in place (put back untimed before each
    run).  Each run is followed by a bare `python -c pass` of the same
    interpreter, for the share that is only the interpreter starting.  Also
    how many exited 2 (an error, which would make the times meaningless).
    """
    from merge_scaling import plait_command

    merges: list[float] = []
    bare: list[float] = []
    errors = 0
    files = {name: tmp / f"{name}.py" for name in ("base", "ours", "theirs", "merged")}
    for case in cases:
        for name, text in (("base", case.base), ("ours", case.ours), ("theirs", case.theirs)):
            files[name].write_text(text, encoding="utf-8", newline="")
        shutil.copyfile(files["ours"], files["merged"])
        argv = [*plait_command(), "merge", *(str(files[n]) for n in ("base", "merged", "theirs"))]
        argv += ["-L", "7", "-P", case.module.replace(".", "/") + ".py"]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        merges.append(time.perf_counter() - started)
        errors += done.returncode not in (0, 1)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=False)
        bare.append(time.perf_counter() - started)
    return merges, bare, errors


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value with at least `fraction` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def print_process_times(report: Report, count: int, seed: int, out: Callable[[str], None] = print) -> None:
    """Merge a seeded sample of the run's cases again as processes: the median and p95 a user waits."""
    kept = [case for module in report.modules for case in module.kept]
    cases = random.Random(f"{seed}:process").sample(kept, min(count, len(kept)))
    if not cases:
        return
    with tempfile.TemporaryDirectory(prefix="plait-laws-") as tmp:
        merges, bare, errors = process_times(cases, Path(tmp))
    median, p95 = statistics.median(merges), percentile(merges, 0.95)
    lines = sorted(case.base.count("\n") for case in cases)
    out("")
    if errors:
        out(f"per merge as a whole process: {errors} of {len(cases)} plait merge processes exited with an error")
    out(
        f"per merge as a whole process (plait merge as git's driver, start-up included): {len(cases)} merges "
        f"over {len({c.module for c in cases})} modules of {lines[0]}-{lines[-1]} lines: "
        f"median {median:.3f} s, p95 {p95:.3f} s, max {max(merges):.3f} s "
        f"(python -c pass: median {statistics.median(bare):.3f} s)"
    )
    verdict = "PASS" if median <= GOAL_PROCESS_MEDIAN else "MISS"
    out(f"goal: median per merge as a whole process <= {GOAL_PROCESS_MEDIAN:g} s: {median:.3f} s: {verdict}")


# -- output ------------------------------------------------------------------------


def table(report: Report) -> list[str]:
    """One row per edit kind: merges, outcomes and each counter."""
    header = (
        "kind",
        "modules",
        "merges",
        "clean",
        "conflict",
        "silent",
        "false-c",
        "trace",
        "ident",
        "undef",
        "layout",
    )
    rows: list[tuple[str, ...]] = []
    kinds = sorted({v.kind for v in report.verdicts}, key=lambda k: (k == MIXED, k))
    for kind in [*kinds, "total"]:
        verdicts = [v for v in report.verdicts if kind in (v.kind, "total")]
        merges = [v for v in verdicts if v.check == "pair"]
        modules = len({v.module for v in merges})
        counts = Counter(c for v in verdicts for c in v.failures)
        rows.append(
            (
                kind,
                str(modules),
                str(len(merges)),
                str(sum(v.clean is True for v in merges)),
                str(sum(v.clean is False for v in merges)),
                *(str(counts[c]) for c in COUNTERS),
                str(sum(v.layout for v in merges)),
            )
        )
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in (header, *rows)
    ]


def print_report(report: Report, *, show: int = 40, out: Callable[[str], None] = print) -> None:
    for module in report.modules:
        if module.error:
            out(f"harness skipped {module.name}: {module.error}")
    unfinished = sum(m.unfinished for m in report.modules)
    if unfinished:
        out(f"time limit reached: {unfinished} cases not merged")
    for line in table(report):
        out(line)
    out(
        "columns: silent = silent wrong, false-c = false conflicts, trace = tracebacks, ident = identity failures, "
        "undef = new undefined names, layout = right AST but different text (info)"
    )
    others = [v for v in report.merges if v.other_conflict_kind]
    if others:
        out(f"info: {len(others)} expected conflicts were raised with a kind other than semantic")
    failures = report.failures()
    if failures:
        out("")
        out(f"failures ({len(failures)}):")
        for verdict in failures[:show]:
            check = "" if verdict.check == "pair" else f" identity {verdict.check}"
            first = verdict.why[0].splitlines()[0] if verdict.why else ""
            out(f"  {'+'.join(verdict.failures)}: {verdict.module} {verdict.kind} {verdict.variant}{check}: {first}")
        if len(failures) > show:
            out(f"  ... {len(failures) - show} more (--dump DIR writes them all)")
    layouts = [v for v in report.merges if v.layout]
    for verdict in layouts[:3]:
        out("")
        out(f"layout: {verdict.module} {verdict.kind} {verdict.variant}:")
        for line in verdict.why[0].splitlines()[1:]:
            out(f"    {line}")
    identity_checks_run = sum(v.check != "pair" for v in report.verdicts)
    out("")
    out(f"({identity_checks_run} identity checks; {report.seconds:.0f} s)")
    goal = f"0 / 0 / 0 / 0 / 0 over at least {GOAL_MODULES} modules and all {len(le.EDIT_KINDS)} edit kinds"
    out(f"goal: {goal}: {goal_verdict(report)}")
    out(report.summary_line())


def goal_verdict(report: Report) -> str:
    modules = sum(1 for m in report.modules if m.verdicts)
    covered = modules >= GOAL_MODULES and report.kinds() == sorted(le.EDIT_KINDS)
    if not any(report.counters().values()) and covered:
        return "PASS"
    return "MISS" if covered else "MISS (sample too small for the goal)"


def dump(report: Report, root: Path, *, layout: bool = False) -> list[Path]:
    """Write each failing merge as ``root/<kind>-<module>-<n>/`` with the corpus's file names and why.txt."""
    from plait.commit import write_atomic

    written = []
    numbers: Counter[tuple[str, str]] = Counter()
    for verdict in report.verdicts:
        if not verdict.failures and not (layout and verdict.layout):
            continue
        numbers[verdict.kind, verdict.module] += 1
        folder = root / f"{verdict.kind}-{verdict.module}-{numbers[verdict.kind, verdict.module]}"
        check = "the pair merge" if verdict.check == "pair" else f"identity law merge({verdict.check}) == X"
        why = [
            f"module: {verdict.module}",
            f"kind: {verdict.kind} ({verdict.variant})",
            f"check: {check}",
            f"counters: {', '.join(verdict.failures) or 'layout only'}",
            f"strategy: {verdict.strategy or '-'}",
            "edits:",
            *(f"  {edit}" for edit in verdict.edits),
            "",
            *verdict.why,
        ]
        expect_conflict = verdict.check == "pair" and verdict.kind == "removed_import_vs_use"
        if expect_conflict:
            why.append("Expected.py is both sides applied; the right merge is a conflict of kind semantic.")
        meta = tomlkit.document()
        meta["description"] = f"{verdict.kind} ({verdict.variant}) on {verdict.module}: " + "; ".join(verdict.edits)
        if expect_conflict:
            meta["clean"] = False
            meta["conflict_kinds"] = ["semantic"]
        files: dict[Path, str | bytes] = {folder / name: text for name, text in verdict.files.items()}
        files[folder / "why.txt"] = "\n".join(why) + "\n"
        files[folder / "case.toml"] = tomlkit.dumps(meta)
        for path, data in files.items():
            write_atomic(path, data)
        written.append(folder)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--modules", type=int, default=DEFAULT_MODULES, help="how many stdlib modules (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="picks the modules and the edits")
    parser.add_argument("--kinds", default="", help=f"comma-separated subset of: {', '.join((*le.EDIT_KINDS, MIXED))}")
    parser.add_argument("--only", default="", help="comma-separated module names instead of a seeded draw")
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help="worker processes (default %(default)s)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS, help="stop merging after this long")
    parser.add_argument("--max-lines", type=int, default=MAX_LINES, help="skip modules longer than this")
    parser.add_argument("--dump", metavar="DIR", help="write each failing merge as a case folder here")
    parser.add_argument("--dump-layout", action="store_true", help="with --dump, also write layout-only differences")
    parser.add_argument("--check", action="store_true", help="exit 1 when any counter is not zero")
    parser.add_argument(
        "--process-merges",
        type=int,
        default=DEFAULT_PROCESS_MERGES,
        help="cases merged again, one `plait merge` process each, for the per-merge wall time "
        "(default %(default)s; 0 skips it)",
    )
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    only = [m for m in args.only.split(",") if m]
    per_module = math.ceil(max(args.process_merges, 0) / max(len(only) or args.modules, 1))
    try:
        report = run(
            modules=args.modules,
            seed=args.seed,
            kinds=kinds or None,
            jobs=args.jobs,
            max_seconds=args.max_seconds,
            max_lines=args.max_lines,
            only=only,
            keep=per_module,
        )
    except ValueError as exc:
        parser.error(str(exc))
    print(
        f"merge laws: Python {sys.version.split()[0]} standard library ({stdlib_root()}), seed {args.seed}, "
        f"{len(report.modules)} modules, {args.jobs} jobs"
    )
    print_process_times(report, args.process_merges, args.seed)
    print_report(report)
    if args.dump:
        written = dump(report, Path(args.dump), layout=args.dump_layout)
        print(f"wrote {len(written)} case folders under {args.dump}")
    return 1 if args.check and any(report.counters().values()) else 0


if __name__ == "__main__":
    sys.exit(main())
