"""How `plait.merge.merge3` scales with module size, against its floors.

For each size (about 100, 500, 1,000, 2,000 and 5,000 lines) this generates a
realistic Python module -- imports, ``__all__``, module constants, classes
with an ``__init__``, an ``if/elif`` dispatch inside a ``try/except``, dict
literals, helper methods, and a module-level loader function per class --
plus two edited sides.  Generation is seeded, so every run merges the same
bytes.

Both sides edit about one member in four, spread across the module: methods
changed, methods added, imports added, keyword arguments and parameters
added, ``except`` tuples widened, ``elif`` branches added, dict and set
entries and ``__all__`` names added.  The density is constant, so a bigger
module also means more edits: this is a diverged lineage, not one typo.

Two variants per size:

* ``moved`` (the default): in one class of every eight theirs moves the
  ``if``/``try`` block of ``fetch_*`` into a new ``fetch_*_with_outcome``
  (leaving ``fetch_*`` a thin wrapper) while ours edits inside that block
  (a new ``elif`` branch, a wider ``except`` tuple, a changed statement).
  The line merge cannot do this, so the structured path must; the strategy
  is printed and checked, and so is whether ours' edits followed the block.
* ``spread`` (``--variants spread,moved``): the same edits without the move,
  a control for what the moves cost.

Every side is rendered from a set of edit flags, so the merge that a perfect
engine would produce is known: the union of both sides' flags.  The script
reports whether plait's result equals it (info only; ``--dump DIR`` writes
the inputs, the expected and the actual result for a look).

For each size and variant, in one run and interleaved (the order rotates
every repeat), it measures the median of N repeats of:

* plait: ``merge3(base, ours, theirs)``, the whole pipeline;
* parse floor: ``libcst.parse_module`` on the three inputs (GC off, as merge3 runs);
* git: ``git merge-file -p`` on temp files (a subprocess, as plait runs it);

and prints merge time / parse floor.  Goals (from issue 4): the moved
variant at 2,000 lines merges within 2x its parse floor, and growth is near
linear (time per line at 5,000 lines within 1.5x of that at 500).  Each
sample records wall and CPU time (this process plus finished children, so
git's share counts); the table shows wall times and both ratios, and the
verdicts use CPU time, which other load on a shared box inflates far less.

First, start-up as git's merge driver (issues 7 and 17): whole `plait
merge` processes as git's driver line starts them, on a one-line change each
side, interleaved with a bare ``python -c pass``; the goal is a median at
most 3.5x the bare interpreter's (see `startup`).

Last, the budget (issue 14): ``merge3`` with its default 10 s budget on a
20,000-line module of the moved variant (``--budget-lines``), whose
structured merge alone would take about that long.  The whole call must end
within the budget; the goal is on the slowest of 3 runs.

Run: ``python benchmarks/merge_scaling.py [--sizes 100,500] [--repeat N]``.
The whole run is capped (``--max-seconds``, default 240): a merge whose time,
extrapolated from the sizes already measured, will not fit gets fewer
repeats, or is skipped and reported as such (a MISS for its goal).
Not a test: it prints a table with PASS/MISS per goal and always exits 0.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import libcst

from plait.merge import DEFAULT_BUDGET, merge3

SEED = 20240604
DEFAULT_SIZES = (100, 500, 1000, 2000, 5000)
EDIT_RATE = 0.25  # chance that a side makes a given edit to a given class
MOVE_EVERY = 8  # one class in this many gets the moved block (at least one)
GOAL_FLOOR_RATIO = 2.0
GOAL_FLOOR_AT = 2000
GOAL_GROWTH = 1.5
GROWTH_FROM, GROWTH_TO = 500, 5000
DEFAULT_MAX_SECONDS = 240.0

NOUNS = [
    ("invoice", "invoices"),
    ("ledger", "ledgers"),
    ("shipment", "shipments"),
    ("account", "accounts"),
    ("profile", "profiles"),
    ("report", "reports"),
    ("ticket", "tickets"),
    ("order", "orders"),
    ("payment", "payments"),
    ("session", "sessions"),
    ("document", "documents"),
    ("product", "products"),
    ("customer", "customers"),
    ("contract", "contracts"),
    ("message", "messages"),
    ("asset", "assets"),
    ("policy", "policies"),
    ("quote", "quotes"),
    ("batch", "batches"),
    ("device", "devices"),
]
AREAS = ["billing", "search", "catalog", "fulfilment", "identity", "analytics", "support", "audit"]
MODES = ["http", "api", "file"]

# Edit flags, per side.  Each pair (ours, theirs) was chosen to be independent,
# so the union of both sides is the correct merge.
OURS_CLASS_EDITS = ["dict_o", "elif_o", "exc_o", "trylog_o", "kw_o", "sum_o", "method_o", "param_o"]
THEIRS_CLASS_EDITS = [
    "dict_t",
    "elif_t",
    "exc_t",
    "handler_t",
    "kw_t",
    "hdr_t",
    "sum_t",
    "method_t",
    "close_t",
    "param_t",
]
# Ours edits inside the block theirs moves: they must follow it.
OURS_MOVE_EDITS = {"elif_o", "exc_o", "trylog_o"}


# -- generation ------------------------------------------------------------------


@dataclass
class ClassSpec:
    index: int
    name: str
    noun: str
    nouns: str
    area: str
    timeout: float
    retries: int
    mode: str
    version: int
    kind: str
    ours: set[str] = field(default_factory=set)
    theirs: set[str] = field(default_factory=set)


def _class(spec: ClassSpec, f: set[str]) -> str:
    n, ns, name = spec.noun, spec.nouns, spec.name
    moved = "moved" in f
    L: list[str] = []
    add = L.append
    add(f"class {name}:")
    add(f'    """Load and cache {ns} for the {spec.area} service."""')
    add("")
    add("    DEFAULTS = {")
    add(f'        "timeout": {spec.timeout},')
    add(f'        "retries": {spec.retries},')
    add(f'        "mode": "{spec.mode}",')
    if "dict_o" in f:
        add('        "verify": True,')
    if "dict_t" in f:
        add('        "backoff": 0.5,')
    add("    }")
    add("")
    add(f"    def __init__(self, mode: str, url: str, *, timeout: float = {spec.timeout}) -> None:")
    add("        self.mode = mode")
    add("        self.url = url")
    add("        self.timeout = timeout")
    add("        self._client = httpx.Client(timeout=timeout)")
    add("        self._cache: dict[str, dict[str, object]] = {}")
    add(f'        self._log = logging.getLogger(f"{{__name__}}.{name}")')
    add("")

    def fail(value: str) -> str:
        return f"{value}, Outcome(attempted=False, ok=False)" if moved else value

    add(f"    def fetch_{n}(self, key: str) -> dict[str, object] | None:")
    add(f'        """Fetch one {n} by key, or None when it cannot be had."""')
    if moved:
        add(f"        value, _outcome = self.fetch_{n}_with_outcome(key)")
        add("        return value")
        add("")
        add(f"    def fetch_{n}_with_outcome(self, key: str) -> tuple[dict[str, object] | None, Outcome]:")
        add(f'        """Fetch one {n} and say what happened; never raises."""')
    add("        if not key:")
    add(f"            return {fail('None')}")
    add("        try:")
    add('            if self.mode == "http":')
    add("                result = self._fetch_http(key)")
    add('            elif self.mode == "api":')
    add("                result = self._fetch_api(key)")
    if "elif_o" in f:
        add('            elif self.mode == "cache":')
        add("                result = self._cache[key]")
    if "elif_t" in f:
        add('            elif self.mode == "file":')
        add("                result = self._fetch_file(key)")
    add("            else:")
    add(f"                return {fail('None')}")
    if "trylog_o" in f:
        add(f'            self._log.debug("fetched {n} %s via %s (%d cached)", key, self.mode, len(self._cache))')
    else:
        add(f'            self._log.debug("fetched {n} %s via %s", key, self.mode)')
    add("            self._cache[key] = result")
    add("            return result, Outcome(attempted=True, ok=True)" if moved else "            return result")
    types = (
        ["httpx.HTTPError", "ValueError"]
        + (["OSError"] if "exc_o" in f else [])
        + (["KeyError"] if "exc_t" in f else [])
    )
    add(f"        except ({', '.join(types)}) as exc:")
    if moved:
        add('            evidence = f"{type(exc).__name__}: {exc}"[:200]')
        add(f'            self._log.warning("{n} fetch failed for %s: %s", key, evidence)')
        add("            return None, Outcome(attempted=True, ok=False, error=evidence)")
    elif "handler_t" in f:
        add('            evidence = f"{type(exc).__name__}: {exc}"[:200]')
        add(f'            self._log.warning("{n} fetch failed for %s: %s", key, evidence)')
        add("            return None")
    else:
        add(f'            self._log.warning("{n} fetch failed for %s: %s", key, exc)')
        add("            return None")
    add("")
    kws = (
        [f'params={{"v": {spec.version}}}']
        + (["follow_redirects=True"] if "kw_o" in f else [])
        + (["timeout=self.timeout"] if "kw_t" in f else [])
    )
    add("    def _fetch_http(self, key: str) -> dict[str, object]:")
    add(f'        response = self._client.get(f"{{self.url}}/{ns}/{{key}}", {", ".join(kws)})')
    add("        response.raise_for_status()")
    add("        return response.json()")
    add("")
    headers = ['"Accept": "application/json"'] + ([f'"X-Client": "{name}"'] if "hdr_t" in f else [])
    add("    def _fetch_api(self, key: str) -> dict[str, object]:")
    add(f"        headers = {{{', '.join(headers)}}}")
    add(f'        response = self._client.post(f"{{self.url}}/api/{ns}", json={{"key": key}}, headers=headers)')
    add("        response.raise_for_status()")
    add('        return response.json()["data"]')
    add("")
    add("    def _fetch_file(self, key: str) -> dict[str, object]:")
    add(f'        path = pathlib.Path(self.url) / "{ns}" / f"{{key}}.json"')
    add('        with path.open(encoding="utf-8") as fh:')
    add("            return json.load(fh)")
    add("")
    add("    def summarize(self, items: Iterable[Mapping[str, object]]) -> dict[str, int]:")
    add("        counts: dict[str, int] = {}")
    add("        for item in items:")
    add(f'            kind = str(item.get("kind", "{spec.kind}"))')
    add("            counts[kind] = counts.get(kind, 0) + 1")
    if "sum_o" in f:
        add(f'        self._log.info("summarized %d {ns} in %d kinds", sum(counts.values()), len(counts))')
    else:
        add(f'        self._log.info("summarized %d {ns}", sum(counts.values()))')
    if "sum_t" in f:
        add("        counts = dict(sorted(counts.items()))")
    add("        return counts")
    add("")
    if "method_o" in f:
        add(f"    def reset_{ns}(self) -> None:")
        add(f'        """Forget every cached {n}."""')
        add("        self._cache.clear()")
        add(f'        self._log.debug("{n} cache cleared")')
        add("")
    if "method_t" in f:
        add("    def describe(self) -> dict[str, object]:")
        add('        return {"mode": self.mode, "url": self.url, "cached": len(self._cache)}')
        add("")
    add("    def close(self) -> None:")
    add("        self._client.close()")
    if "close_t" in f:
        add(f'        self._log.debug("{name} closed with %d cached", len(self._cache))')
    add("")
    add("")
    params = ["paths: Iterable[pathlib.Path]", "*", "strict: bool = False"]
    params += (["limit: int = 0"] if "param_o" in f else []) + (["verbose: bool = False"] if "param_t" in f else [])
    add(f"def load_{ns}({', '.join(params)}) -> list[dict[str, object]]:")
    add(f'    """Read {ns} from JSON files; skip broken ones unless strict."""')
    add("    out: list[dict[str, object]] = []")
    add("    for path in paths:")
    add("        try:")
    add('            out.append(json.loads(path.read_text(encoding="utf-8")))')
    add("        except (OSError, ValueError):")
    add("            if strict:")
    add("                raise")
    add(f'            log.warning("skipping unreadable {n} file %s", path)')
    add("    return out")
    return "\n".join(L) + "\n"


def render(specs: list[ClassSpec], pick: Callable[[ClassSpec], set[str]], module: set[str]) -> str:
    out = [
        '"""Data services, generated by benchmarks/merge_scaling.py."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    out += ["import json", "import logging"]
    if "import_o" in module:
        out.append("import time")
    if "import_t" in module:
        out.append("import os")
    out += ["import pathlib", "from collections.abc import Iterable, Mapping", "", "import httpx", ""]
    if "outcome_t" in module:
        out += ["from plait_bench.outcome import Outcome", ""]
    out += ["log = logging.getLogger(__name__)", "", "DEFAULT_TIMEOUT = 10.0"]
    statuses = (
        ["429", "500", "502", "503"] + (["504"] if "set_o" in module else []) + (["408"] if "set_t" in module else [])
    )
    out.append(f"RETRY_STATUSES = {{{', '.join(statuses)}}}")
    out += ["", "__all__ = ["]
    for s in specs:
        out += [f'    "{s.name}",', f'    "load_{s.nouns}",']
    if "func_o" in module:
        out.append('    "load_all",')
    if "func_t" in module:
        out.append('    "registry_names",')
    out += ["]", "", ""]
    out.append("\n\n".join(_class(s, pick(s)) for s in specs))
    out += ["", "", "REGISTRY = {"]
    out += [f'    "{s.nouns}": {s.name},' for s in specs]
    out += ["}"]
    if "func_o" in module:
        out += ["", "", 'def load_all(url: str, mode: str = "http") -> dict[str, object]:']
        out += ['    """One instance of every service, keyed like REGISTRY."""']
        out += ["    return {name: cls(mode, url) for name, cls in REGISTRY.items()}"]
    if "func_t" in module:
        out += ["", "", "def registry_names() -> list[str]:", "    return sorted(REGISTRY)"]
    return "\n".join(out) + "\n"


@dataclass
class Case:
    size: int
    variant: str
    base: str
    ours: str
    theirs: str
    expected: str
    lines: int
    edits_ours: int
    edits_theirs: int
    moves: int
    moved_names: list[str]


def build(size: int, variant: str) -> Case:
    """A base of about `size` lines and two edited sides; seeded by size only.

    Both variants of a size share the base and every edit except the move.
    """
    rng = random.Random(SEED * 10007 + size)
    specs: list[ClassSpec] = []
    probe_lines = 0
    while not specs or probe_lines < size:
        i = len(specs)
        noun, nouns = NOUNS[i % len(NOUNS)]
        suffix = "" if i < len(NOUNS) else str(i // len(NOUNS) + 1)
        spec = ClassSpec(
            index=i,
            name=f"{noun.title()}Service{suffix}",
            noun=noun + suffix,
            nouns=nouns + suffix,
            area=rng.choice(AREAS),
            timeout=rng.choice([5.0, 10.0, 15.0, 30.0]),
            retries=rng.randint(1, 5),
            mode=rng.choice(MODES),
            version=rng.randint(1, 4),
            kind=rng.choice(["unknown", "other", "misc", "plain"]),
        )
        spec.ours = {e for e in OURS_CLASS_EDITS if rng.random() < EDIT_RATE}
        spec.theirs = {e for e in THEIRS_CLASS_EDITS if rng.random() < EDIT_RATE}
        specs.append(spec)
        # Each class with its loader is ~95 lines; the module frame ~25 lines
        # plus 3 per class (__all__ and REGISTRY).
        probe_lines = render(specs, lambda s: set(), set()).count("\n")
        if probe_lines > size and len(specs) > 1:
            # Keep whichever count lands closer to the target.
            shorter = render(specs[:-1], lambda s: set(), set()).count("\n")
            if abs(shorter - size) < abs(probe_lines - size):
                specs.pop()
            break
    moved: list[ClassSpec] = []
    if variant == "moved":
        stride = max(1, min(MOVE_EVERY, len(specs)))
        moved = [s for s in specs if s.index % stride == stride // 2] or [specs[len(specs) // 2]]
        for s in moved:
            s.theirs = (s.theirs - {"handler_t"}) | {"moved"}
            s.ours = s.ours | OURS_MOVE_EDITS
    mod_o = {"import_o", "set_o", "func_o"}
    mod_t = {"import_t", "set_t", "func_t"} | ({"outcome_t"} if moved else set())
    base = render(specs, lambda s: set(), set())
    ours = render(specs, lambda s: s.ours, mod_o)
    theirs = render(specs, lambda s: s.theirs, mod_t)
    expected = render(specs, lambda s: s.ours | s.theirs, mod_o | mod_t)
    for text in (base, ours, theirs, expected):
        ast.parse(text)
    return Case(
        size=size,
        variant=variant,
        base=base,
        ours=ours,
        theirs=theirs,
        expected=expected,
        lines=base.count("\n"),
        edits_ours=sum(len(s.ours) for s in specs) + len(mod_o),
        edits_theirs=sum(len(s.theirs) for s in specs) + len(mod_t),
        moves=len(moved),
        moved_names=[f"{s.name}.fetch_{s.noun}_with_outcome" for s in moved],
    )


def moves_followed(text: str, case: Case) -> bool | None:
    """Did ours' edits land in every new `*_with_outcome` method?"""
    if not case.moved_names:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    methods = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    methods[f"{node.name}.{item.name}"] = ast.get_source_segment(text, item) or ""
    for name in case.moved_names:
        src = methods.get(name, "")
        if 'self.mode == "cache"' not in src or "OSError" not in src or "(%d cached)" not in src:
            return False
    return True


# -- measurement -----------------------------------------------------------------


def cpu_now() -> float:
    """CPU seconds of this process and its finished children (git merge-file)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds of one call."""
    gc.collect()
    cpu, wall = cpu_now(), time.perf_counter()
    work()
    return time.perf_counter() - wall, cpu_now() - cpu


@dataclass
class Row:
    case: Case
    merge: float
    floor: float
    git: float
    strategy: str
    clean: bool
    conflicts: int
    exact: bool
    followed: bool | None
    error: str = ""
    merge_n: int = 0
    floor_n: int = 0
    # CPU seconds (process + children): what the box's other load does not inflate.
    merge_cpu: float = math.nan
    floor_cpu: float = math.nan


def measure(case: Case, repeat: int, merge_repeat: int, git: str, tmp: Path) -> Row:
    """Median timings for one case; the merge may get fewer repeats than the floors.

    The first merge sample also gives the result to report, so a slow merge
    runs `merge_repeat` times, not once more; `merge_repeat` 0 skips it.
    """
    paths = []
    for name, text in (("ours", case.ours), ("base", case.base), ("theirs", case.theirs)):
        path = tmp / f"{case.size}-{case.variant}-{name}.py"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    argv = [git, "merge-file", "-p", *paths]
    outcome: dict[str, object] = {}

    def run_merge() -> None:
        outcome["result"] = merge3(case.base, case.ours, case.theirs)

    def run_floor() -> None:
        # Like for like: merge3 switches the cyclic GC off for its own
        # duration, so the floor parses with it off too.  Otherwise the ratio
        # would credit the merge with a saving the floor could have had.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for text in (case.base, case.ours, case.theirs):
                libcst.parse_module(text)
        finally:
            if collecting:
                gc.enable()

    def run_git() -> None:
        subprocess.run(argv, capture_output=True, check=False)

    run_floor()  # untimed: the first libcst parse of a size pays for warm-up
    run_git()
    samples: dict[str, list[tuple[float, float]]] = {"merge": [], "floor": [], "git": []}
    error = ""
    for r in range(max(repeat, merge_repeat)):
        jobs = [("floor", run_floor), ("git", run_git)] if r < repeat else []
        if r < merge_repeat and not error:
            jobs.insert(0, ("merge", run_merge))
        for name, work in jobs[r % len(jobs) :] + jobs[: r % len(jobs)]:
            try:
                samples[name].append(timed(work))
            except Exception as exc:  # the engine is under active work: report, do not die
                error = f"{type(exc).__name__}: {exc}"

    def median(name: str, which: int) -> float:
        return statistics.median(s[which] for s in samples[name]) if samples[name] else math.nan

    floor, git_s = median("floor", 0), median("git", 0)
    result = outcome.get("result")
    if error or result is None:
        status = "error" if error else "skipped"
        return Row(
            case,
            math.nan,
            floor,
            git_s,
            status,
            False,
            0,
            False,
            None,
            error,
            0,
            len(samples["floor"]),
            math.nan,
            median("floor", 1),
        )
    return Row(
        case=case,
        merge=median("merge", 0),
        merge_cpu=median("merge", 1),
        floor_cpu=median("floor", 1),
        floor=floor,
        git=git_s,
        strategy=result.strategy,  # type: ignore[attr-defined]
        clean=result.clean,  # type: ignore[attr-defined]
        conflicts=len(result.conflicts),  # type: ignore[attr-defined]
        exact=result.text == case.expected,  # type: ignore[attr-defined]
        followed=moves_followed(result.text, case),  # type: ignore[attr-defined]
        merge_n=len(samples["merge"]),
        floor_n=len(samples["floor"]),
    )


def default_repeat(lines: int) -> int:
    if lines <= 600:
        return 7
    if lines <= 2500:
        return 5
    return 3


def project(history: list[tuple[int, float]], lines: int) -> float | None:
    """A merge time for `lines`, extrapolated from the largest sizes measured.

    From one point it assumes quadratic growth, from two the observed slope
    (never below linear): a guess on the safe side, used only to keep the
    whole run within its time cap.
    """
    points = sorted(dict(history).items())
    if not points:
        return None
    if len(points) == 1:
        (l1, t1), slope = points[0], 2.0
    else:
        (l0, t0), (l1, t1) = points[-2], points[-1]
        slope = max(1.0, math.log(t1 / t0) / math.log(l1 / l0)) if t0 > 0 and t1 > 0 and l1 != l0 else 2.0
    return float(t1 * (lines / l1) ** slope)


# -- report ----------------------------------------------------------------------


def paint(word: str) -> str:
    if os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return word
    return f"\033[{32 if word == 'PASS' else 31}m{word}\033[0m"


def yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1e3:.1f}"


def report(rows: list[Row]) -> None:
    head = (
        f"{'size':>5} {'variant':<7} {'lines':>5} {'edits o/t':>9} {'moves':>5}  {'strategy':<12} {'clean':<6} "
        f"{'plait ms':>9} {'floor ms':>9} {'git ms':>7} {'plait/floor':>11} {'(cpu)':>6} {'us/line':>8} {'N':>5}  "
        f"{'=expected':<9} moves followed"
    )
    print(head)
    print("-" * len(head))
    for row in rows:
        c = row.case
        clean = "-" if row.error else ("yes" if row.clean else f"no({row.conflicts})")
        ratio = "-" if math.isnan(row.merge) else f"{row.merge / row.floor:.2f}x"
        ratio_cpu = "-" if math.isnan(row.merge_cpu) else f"{row.merge_cpu / row.floor_cpu:.2f}x"
        per_line = "-" if math.isnan(row.merge) else f"{row.merge / c.lines * 1e6:.1f}"
        print(
            f"{c.size:>5} {c.variant:<7} {c.lines:>5} {f'{c.edits_ours}/{c.edits_theirs}':>9} {c.moves:>5}  "
            f"{row.strategy:<12} {clean:<6} {ms(row.merge):>9} {ms(row.floor):>9} {ms(row.git):>7} "
            f"{ratio:>11} {ratio_cpu:>6} {per_line:>8} {f'{row.merge_n}/{row.floor_n}':>5}  "
            f"{'-' if row.error else yes_no(row.exact):<9} {yes_no(row.followed)}"
        )
    print()
    for row in rows:
        if row.error:
            print(f"{row.case.size} {row.case.variant}: {row.strategy}: {row.error}")
    moved = {r.case.size: r for r in rows if r.case.variant == "moved" and not r.error}
    for size, row in sorted(moved.items()):
        ok = row.strategy == "structured"
        print(
            f"moved block, {size} lines: strategy {row.strategy!r} "
            f"({'structured path exercised' if ok else 'EXPECTED structured'}), "
            f"{'clean' if row.clean else f'{row.conflicts} conflict(s)'}, "
            f"ours' edits followed the move: {yes_no(row.followed)}"
        )
    print()

    variant = "moved" if any(r.case.variant == "moved" for r in rows) else "spread"
    every = {r.case.size: r for r in rows if r.case.variant == variant}
    ref = {size: r for size, r in every.items() if not r.error}
    at = every.get(GOAL_FLOOR_AT)
    goal = f"goal: plait <= {GOAL_FLOOR_RATIO:g}x parse floor at {GOAL_FLOOR_AT} lines ({variant})"
    if at is None:
        print(f"{goal}: n/a ({GOAL_FLOOR_AT} not measured)")
    elif at.error:
        print(f"{goal}: {paint('MISS')} (merge {at.strategy})")
    else:
        times, times_cpu = at.merge / at.floor, at.merge_cpu / at.floor_cpu
        print(
            f"{goal}: {times_cpu:.2f}x cpu, {times:.2f}x wall  "
            f"{paint('PASS' if times_cpu <= GOAL_FLOOR_RATIO else 'MISS')}"
        )
    sizes = sorted(ref)
    if len(sizes) >= 2:
        lo = GROWTH_FROM if GROWTH_FROM in ref else sizes[0]
        hi = GROWTH_TO if GROWTH_TO in ref else sizes[-1]
        if lo == hi:
            lo, hi = sizes[0], sizes[-1]
        a, b = ref[lo], ref[hi]
        per_a, per_b = a.merge_cpu / a.case.lines, b.merge_cpu / b.case.lines
        growth = per_b / per_a
        growth_wall = (b.merge / b.case.lines) / (a.merge / a.case.lines)
        slope = math.log(b.merge_cpu / a.merge_cpu) / math.log(b.case.lines / a.case.lines)
        floor_growth = (b.floor_cpu / b.case.lines) / (a.floor_cpu / a.case.lines)
        print(
            f"growth ({variant}): cpu time per line at {b.case.lines} lines vs {a.case.lines}: "
            f"{per_b * 1e6:.0f} / {per_a * 1e6:.0f} us = {growth:.2f}x (wall {growth_wall:.2f}x; "
            f"log-log slope {slope:.2f}; parse floor per line {floor_growth:.2f}x)"
        )
        missing = [size for size, r in every.items() if r.error and size > hi]
        note = f"; {', '.join(map(str, missing))} not measured" if missing else ""
        verdict = "MISS" if missing else ("PASS" if growth <= GOAL_GROWTH else "MISS")
        print(
            f"goal: near-linear growth (per-line time grows <= {GOAL_GROWTH:g}x from {lo} to {hi} lines{note}): "
            f"{paint(verdict)}"
        )
    else:
        print("growth: n/a (needs two measured sizes)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="comma-separated target line counts")
    parser.add_argument("--repeat", type=int, default=0, help="repeats per measurement (default: 7 / 5 / 3 by size)")
    parser.add_argument(
        "--variants", default="moved", help="comma-separated: moved (default), spread (the same edits without the move)"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=DEFAULT_MAX_SECONDS,
        help=f"cap on the whole run (default {DEFAULT_MAX_SECONDS:g}); merges projected past it get fewer repeats "
        "or are skipped; 0 = no cap",
    )
    parser.add_argument("--dump", metavar="DIR", help="write Base/Ours/Theirs/Expected/Result per case here")
    parser.add_argument(
        "--startup-repeat",
        type=int,
        default=21,
        help="plait merge processes started for the start-up goal (0 skips it)",
    )
    parser.add_argument(
        "--budget-lines",
        type=int,
        default=BUDGET_LINES,
        help=f"size of the module merged against the whole budget (default {BUDGET_LINES}; 0 skips it)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if any(v not in ("spread", "moved") for v in variants):
        parser.error("variants are spread and moved")
    git = shutil.which("git")
    if git is None:
        print("git is not on PATH; the benchmark needs git merge-file", file=sys.stderr)
        return 0

    version = subprocess.run([git, "--version"], capture_output=True, text=True).stdout.strip()
    here = Path(__file__).resolve().parent
    rev = subprocess.run(
        [git, "-C", str(here), "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"merge scaling: plait {rev or '?'}, seed {SEED}, Python {sys.version.split()[0]}, "
        f"libcst {libcst_version()}, {version}, "
        f"{os.cpu_count()} cpu(s), load {os.getloadavg()[0]:.1f}; median of N interleaved repeats"
    )
    print(
        "edits o/t: edits made by ours / theirs; "
        "moves: blocks theirs moved into a new method while ours edited inside them;"
    )
    print("N: merge / floor+git samples; =expected: result equals the union of both sides' edits")
    load, cpus = os.getloadavg()[0], os.cpu_count() or 1
    if load > cpus:
        print(
            f"note: load {load:.1f} on {cpus} cpu(s): absolute times are inflated; the interleaved ratios much less so"
        )
    print()
    started = time.perf_counter()
    cap = args.max_seconds or math.inf
    warm = build(60, "moved")
    with contextlib.suppress(Exception):  # imports, lazy tables, first-call costs
        merge3(warm.base, warm.ours, warm.theirs)
    if args.startup_repeat:
        with tempfile.TemporaryDirectory(prefix="plait-bench-") as tmp:
            startup(git, Path(tmp), args.startup_repeat)
    plan = [(size, variant) for size in sizes for variant in variants]
    rows: list[Row] = []
    history: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="plait-bench-") as tmp:
        for k, (size, variant) in enumerate(plan):
            case = build(size, variant)
            repeat = args.repeat or default_repeat(case.lines)
            guess = project(history, case.lines)
            share = (cap - (time.perf_counter() - started)) / (len(plan) - k)
            merge_repeat = repeat
            if guess is not None and guess * repeat > share:
                merge_repeat = max(0, min(repeat, int(share / guess)))
                if merge_repeat == 0 and guess <= 1.5 * share:
                    merge_repeat = 1
            row = measure(case, repeat, merge_repeat, git, Path(tmp))
            if row.strategy == "skipped":
                row.error = (
                    f"not run: projected {guess:.0f} s per merge, "
                    f"over this case's share ({max(share, 0):.0f} s) of --max-seconds"
                )
            elif not row.error:
                history.append((case.lines, row.merge))
            rows.append(row)
            print(
                f"  measured {size:>5} {variant:<6} ({case.lines} lines, N={row.merge_n}/{row.floor_n}, "
                f"{time.perf_counter() - started:.0f} s elapsed)",
                file=sys.stderr,
                flush=True,
            )
            if args.dump:
                dump(Path(args.dump), case)
    if rows:  # --sizes '' measures start-up only
        report(rows)
        print()
    if args.budget_lines:
        budget_case(args.budget_lines, BUDGET_REPEAT)
    return 0


STARTUP_GOAL_RATIO = 3.5
BUDGET_LINES = 20000
BUDGET_REPEAT = 3


def budget_case(lines: int, repeat: int) -> None:
    """The whole merge against its budget (issue 14): a module too big to merge structurally in time.

    merge3 with the default budget on the moved variant of about `lines`
    lines, whose structured merge (parsing alone) takes about as long as the
    budget: the whole call, parse, audits and fallback included, must end
    within the budget.  The goal is on the slowest of `repeat` runs.
    """
    case = build(lines, "moved")
    runs: list[tuple[float, str]] = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = merge3(case.base, case.ours, case.theirs)
        runs.append((time.perf_counter() - started, result.strategy))
    slowest = max(wall for wall, _ in runs)
    strategies = ", ".join(sorted({strategy for _, strategy in runs}))
    print(
        f"budget: {case.lines} lines (moved), the whole merge3 against its {DEFAULT_BUDGET:g} s budget, {repeat} runs: "
        f"median {statistics.median(w for w, _ in runs):.2f} s, slowest {slowest:.2f} s ({strategies})"
    )
    verdict = "PASS" if slowest <= DEFAULT_BUDGET else "MISS"
    print(f"goal: the whole merge within its budget: {slowest:.2f} s <= {DEFAULT_BUDGET:g} s  {paint(verdict)}")
    print()


def plait_command() -> list[str]:
    """How git's driver line starts plait: the console script beside this interpreter, else `-m plait`."""
    script = Path(sys.executable).with_name("plait")
    return [str(script)] if script.exists() else [sys.executable, "-m", "plait"]


def bytecode_cached() -> bool:
    """Whether plait's own modules start from cached bytecode in this environment.

    An installed plait does (pip compiles it; Python caches what it imports),
    but not where PYTHONDONTWRITEBYTECODE is set and nothing was compiled:
    then every start compiles plait's sources again.
    """
    import importlib.util

    import plait.merge.inventory

    return os.path.exists(importlib.util.cache_from_source(plait.merge.inventory.__file__))


def startup(git: str, tmp: Path, repeat: int) -> None:
    """A git merge driver's view: a whole `plait merge` process on a 1-line change each side.

    git starts the driver once per conflicted file, so process start-up is
    most of its cost.  The command is git's driver line (`%O %A %B -L %L -P
    %P`, writing ours in place; ours is put back between runs, untimed),
    interleaved (the order rotates every repeat) with a bare `python -c
    pass` of the same interpreter, which is what the goal is a multiple of,
    and `git merge-file` on the same files for scale.  When plait's bytecode
    is not cached here, both are also measured with it cached (a pycache
    prefix in a temporary directory), as an installed plait runs.
    """
    case = build(100, "spread")
    lines = case.base.splitlines(keepends=True)
    body = [i for i, line in enumerate(lines) if line.startswith("        return ")]
    ours, theirs = list(lines), list(lines)
    ours[body[0]] = ours[body[0]].rstrip("\n") + "  # ours\n"
    theirs[body[-1]] = theirs[body[-1]].rstrip("\n") + "  # theirs\n"
    files = {}
    for name, text in (("base", case.base), ("ours", "".join(ours)), ("theirs", "".join(theirs))):
        files[name] = tmp / f"startup-{name}.py"
        files[name].write_text(text, encoding="utf-8")
    scratch = tmp / "startup-merged.py"
    driver = [*plait_command(), "merge", str(files["base"]), str(scratch), str(files["theirs"])]
    driver += ["-L", "7", "-P", "client.py"]
    conditions: dict[str, dict[str, str] | None] = {"as found": None}
    cached_here = bytecode_cached()
    if not cached_here:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        conditions["bytecode cached"] = {**env, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    commands: list[tuple[str, str, list[str]]] = []
    for condition in conditions:
        commands += [(condition, "plait merge", driver), (condition, "python -c pass", [sys.executable, "-c", "pass"])]
    commands.append(
        ("as found", "git merge-file", [git, "merge-file", "-p", *(str(files[n]) for n in ("ours", "base", "theirs"))])
    )

    def once(condition: str, name: str, argv: list[str]) -> float:
        if name == "plait merge":
            shutil.copyfile(files["ours"], scratch)
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, env=conditions[condition])
        took = time.perf_counter() - t0
        if name == "plait merge" and proc.returncode != 0:
            raise RuntimeError(f"plait merge exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
        return took

    try:
        for command in commands:  # warm-up, untimed: caches bytecode where it may
            once(*command)
            once(*command)
        samples: dict[tuple[str, str], list[float]] = {(c, n): [] for c, n, _ in commands}
        for r in range(repeat):
            for condition, name, argv in commands[r % len(commands) :] + commands[: r % len(commands)]:
                samples[condition, name].append(once(condition, name, argv))
    except RuntimeError as exc:
        print(f"startup: {exc}", file=sys.stderr)
        return
    med = {key: statistics.median(times) * 1000 for key, times in samples.items()}
    print(f"start-up as git's merge driver, 1-line change each side, median of {repeat} interleaved:")
    print(f"  plait merge %O %A %B -L 7 -P client.py, run as {' '.join(plait_command())}")
    print(f"  git merge-file {med['as found', 'git merge-file']:7.1f} ms")
    for condition in conditions:
        note = ""
        if condition == "as found":
            note = (
                " (plait's bytecode cached)" if cached_here else " (plait's bytecode NOT cached: compiled every start)"
            )
        plait_ms, bare_ms = med[condition, "plait merge"], med[condition, "python -c pass"]
        ratio = plait_ms / bare_ms
        verdict = "PASS" if ratio <= STARTUP_GOAL_RATIO else "MISS"
        print(
            f"  {condition + note}: plait merge {plait_ms:.1f} ms, python -c pass {bare_ms:.1f} ms: "
            f"{ratio:.2f}x  goal <= {STARTUP_GOAL_RATIO:g}x  {paint(verdict)}"
        )
    print()


def dump(root: Path, case: Case) -> None:
    folder = root / f"{case.size}-{case.variant}"
    folder.mkdir(parents=True, exist_ok=True)
    files = [("Base", case.base), ("Ours", case.ours), ("Theirs", case.theirs), ("Expected", case.expected)]
    try:
        result = merge3(case.base, case.ours, case.theirs)
    except Exception as exc:
        notes = [f"merge3 raised {type(exc).__name__}: {exc}"]
    else:
        files.append(("Result", result.text))
        notes = [f"strategy: {result.strategy}", f"clean: {result.clean}"]
        notes += [f"conflict: {c.describe()}" for c in result.conflicts]
    for name, text in files:
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    (folder / "result.txt").write_text("\n".join(notes) + "\n", encoding="utf-8")


def libcst_version() -> str:
    try:
        from importlib.metadata import version

        return version("libcst")
    except Exception:  # pragma: no cover - metadata missing
        return "?"


if __name__ == "__main__":
    sys.exit(main())
