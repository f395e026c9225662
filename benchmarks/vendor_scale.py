"""Re-vendoring a fleet: CPU per consumer against the parse floor, and how it grows (issue 24).

The setup, built fresh for each fleet size in a committed git repository:

* the canonical package is this repository's client (8 Python files);
* N consumers vendor it (``plait vendor --all``, untimed), then each makes
  one local edit of its own (``self.misses = <its number>`` added to
  ``TTLCache.clear`` in ``cache.py``), recorded and committed;
* upstream then adds one method to ``EmbeddingClient`` in ``client.py``,
  committed.

Then ``plait vendor --all`` runs as a whole process, with the default jobs
(one per CPU), for 25 and for 100 consumers.  Its CPU time is the user and
system time of the process and every process it waited for (workers, git),
from ``resource.getrusage(RUSAGE_CHILDREN)`` of a wrapper process: on a
machine shared with other work, CPU time is what that work skews least.

The parse floor, measured in the same run: libcst parsing all 8 files of one
vendored copy (CPU time, median of 7).  It prints:

* CPU per consumer, and as a ratio to the parse floor (goal: at most 3x at 100);
* the growth of the CPU per consumer from 25 to 100 consumers (goal: at most 1.3x);
* the peak RSS of the largest process of each run, and their ratio (goal: at most 1.5x);
* that every consumer kept its local edit and got the upstream method.

Then one big module (issue 30, Scale): a generated module of about 20,000
lines (``--module-lines``; merge_scaling.py's generator, its ``spread``
variant with about 30 class edits each side and no module-level edits, so
git's line merge is clean) added to the canonical package; one consumer
vendors it and makes the local edits (recorded and committed), upstream makes
its own (committed).  Timed side by side in the same run, each as a whole
process (CPU of it and its children, peak RSS): ``plait vendor`` of that
consumer, and ``plait merge`` of the same three versions of the module.
Goals: vendor CPU at most 3x the merge's, and at most 250 MiB peak RSS.

Run: ``python benchmarks/vendor_scale.py [--sizes 25,100] [--jobs N] [--module-lines 20000]``.
Not a test: it prints PASS/MISS per goal and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import merge_scaling
from fleet import consumer_name, vendor_dir, write_fleet

REPO = Path(__file__).resolve().parent.parent
CANONICAL = REPO / "client" / "embedding_client"
GOAL_RATIO = 3.0
GOAL_GROWTH = 1.3
GOAL_RSS = 1.5
GOAL_MODULE_RATIO = 3.0  # a re-vendor of one big module against `plait merge` of it
GOAL_MODULE_RSS_MIB = 250
MODULE_EDIT_RATE = 0.01  # about 30 class edits each side in 20,000 lines
BIG_MODULE = "services.py"

# The local edit each consumer makes (its own number: no two edits alike), and the method upstream adds.
LOCAL_EDIT = "self.misses = {i}"
NEW_METHOD = "describe"

# Runs the command given and prints what it and every process it waited for used.
_WRAPPER = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"exit": proc.returncode, "stderr": proc.stderr[-2000:], "wall": wall,
                  "cpu": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss}))
"""


class _AppendToMethod(cst.CSTTransformer):
    """Append *statement* to the body of ``cls.method``."""

    def __init__(self, cls: str, method: str, statement: str) -> None:
        self.cls, self.method, self.statement = cls, method, cst.parse_statement(statement)
        self.inside = False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.inside = node.name.value == self.cls

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if not (self.inside and updated.name.value == self.method):
            return updated
        body = updated.body
        assert isinstance(body, cst.IndentedBlock)
        return updated.with_changes(body=body.with_changes(body=[*body.body, self.statement]))


class _AddMethod(cst.CSTTransformer):
    """Append a method to class *cls*."""

    def __init__(self, cls: str, source: str) -> None:
        self.cls = cls
        module = cst.parse_module(f"class _X:\n{source}")
        first = module.body[0]
        assert isinstance(first, cst.ClassDef) and isinstance(first.body, cst.IndentedBlock)
        self.method = first.body.body[0]

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if updated.name.value != self.cls:
            return updated
        body = updated.body
        assert isinstance(body, cst.IndentedBlock)
        return updated.with_changes(body=body.with_changes(body=[*body.body, self.method]))


def _edit(path: Path, transformer: cst.CSTTransformer) -> None:
    path.write_text(cst.parse_module(path.read_text(encoding="utf-8")).visit(transformer).code, encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _plait(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    plait = Path(sys.executable).parent / "plait"
    return subprocess.run([str(plait), "--workspace", str(root), *args], capture_output=True, text=True)


def build(root: Path, consumers: int) -> None:
    """The workspace before the timed run: vendored, edited locally, upstream moved; all committed."""
    package = write_fleet(root, consumers, CANONICAL)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "canonical and consumers")
    first = _plait(root, "vendor", "--all")
    if first.returncode != 0:
        raise SystemExit(f"the first vendor failed ({first.returncode}): {first.stderr.strip()}")
    for i in range(consumers):
        _edit(vendor_dir(root, i) / "cache.py", _AppendToMethod("TTLCache", "clear", LOCAL_EDIT.format(i=i)))
    recorded = _plait(root, "vendor", "--all")  # records the local edits in the locks
    if recorded.returncode != 0:
        raise SystemExit(f"recording the local edits failed ({recorded.returncode}): {recorded.stderr.strip()}")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "vendored, with a local edit each")
    method = f'    def {NEW_METHOD}(self) -> str:\n        return f"{{self.mode}} {{self.endpoint}}"\n'
    _edit(package / "client.py", _AddMethod("EmbeddingClient", method))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "upstream: EmbeddingClient.describe")


def _has(text: str, matcher: m.BaseMatcherNode) -> bool:
    return bool(m.findall(cst.parse_module(text), matcher))


def verify(root: Path, consumers: int) -> tuple[int, int]:
    """How many consumers kept their local edit, and how many got the upstream method."""
    kept = got = 0
    for i in range(consumers):
        statement = cst.parse_statement(LOCAL_EDIT.format(i=i))
        edit = m.FunctionDef(
            name=m.Name("clear"),
            body=m.IndentedBlock(
                body=[m.ZeroOrMore(), m.MatchIfTrue(lambda node, s=statement: node.deep_equals(s)), m.ZeroOrMore()]
            ),
        )
        cache = (vendor_dir(root, i) / "cache.py").read_text(encoding="utf-8")
        if _has(cache, m.ClassDef(name=m.Name("TTLCache"))) and _has(cache, edit):
            kept += 1
        client = (vendor_dir(root, i) / "client.py").read_text(encoding="utf-8")
        if _has(client, m.ClassDef(name=m.Name("EmbeddingClient"))) and _has(
            client, m.FunctionDef(name=m.Name(NEW_METHOD))
        ):
            got += 1
    return kept, got


def parse_floor(root: Path, repeat: int = 7) -> float:
    """CPU seconds libcst takes to parse every Python file of one vendored copy (median)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(vendor_dir(root, 0).glob("*.py"))]
    samples = []
    for _ in range(repeat):
        started = time.process_time()
        for text in texts:
            cst.parse_module(text)
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def timed(argv: list[str], ok: tuple[int, ...] = (0,)) -> dict[str, float]:
    """Run *argv* as a whole process: its exit, wall time, CPU (children included) and peak RSS."""
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True, check=True)
    usage: dict[str, float] = json.loads(proc.stdout)
    if usage["exit"] not in ok:
        raise SystemExit(f"{' '.join(argv[1:4])} exited {usage['exit']}: {usage['stderr']}")
    return usage


def timed_vendor(root: Path, jobs: int | None) -> dict[str, float]:
    plait = Path(sys.executable).parent / "plait"
    return timed([str(plait), "--workspace", str(root), "vendor", "--all", *(["--jobs", str(jobs)] if jobs else [])])


def module_case(lines: int) -> merge_scaling.Case:
    """merge_scaling's spread module of about *lines* lines, few class edits each side, none at module level."""
    rate, render = merge_scaling.EDIT_RATE, merge_scaling.render
    merge_scaling.EDIT_RATE = MODULE_EDIT_RATE
    merge_scaling.render = lambda specs, pick, module: render(specs, pick, set())
    try:
        return merge_scaling.build(lines, "spread")
    finally:
        merge_scaling.EDIT_RATE, merge_scaling.render = rate, render


def build_module(root: Path, case: merge_scaling.Case) -> Path:
    """The workspace for the big module at *root*: base vendored, ours recorded, theirs upstream; the vendored file."""
    package = write_fleet(root, 1, CANONICAL)
    (package / BIG_MODULE).write_text(case.base, encoding="utf-8")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "canonical with a big module, and a consumer")
    first = _plait(root, "vendor", "--all")
    if first.returncode != 0:
        raise SystemExit(f"the first vendor failed ({first.returncode}): {first.stderr.strip()}")
    vendored = vendor_dir(root, 0) / BIG_MODULE
    if vendored.read_text(encoding="utf-8") != case.base:
        raise SystemExit("the vendored module differs from the canonical one: the merge would not see the same files")
    vendored.write_text(case.ours, encoding="utf-8")
    recorded = _plait(root, "vendor", "--all")
    if recorded.returncode != 0:
        raise SystemExit(f"recording the local edits failed ({recorded.returncode}): {recorded.stderr.strip()}")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "vendored, with local edits")
    (package / BIG_MODULE).write_text(case.theirs, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "upstream edits")
    return vendored


def big_module(lines: int) -> None:
    """Re-vendoring one big module against `plait merge` of the same three versions, in one run."""
    case = module_case(lines)
    plait = str(Path(sys.executable).parent / "plait")
    with tempfile.TemporaryDirectory(prefix="plait-vendor-module-") as tmp:
        root = Path(tmp)
        vendored = build_module(root, case)
        files = root / "merge"
        files.mkdir()
        for name in ("base", "ours", "theirs"):
            (files / f"{name}.py").write_text(getattr(case, name), encoding="utf-8")
        merge = timed([plait, "merge", str(files / "base.py"), str(files / "ours.py"), str(files / "theirs.py")])
        vendor = timed([plait, "--workspace", str(root), "vendor", consumer_name(0)])
        merged_exact = (files / "ours.py").read_text(encoding="utf-8") == case.expected
        vendored_exact = vendored.read_text(encoding="utf-8") == case.expected
        checked = _plait(root, "check").returncode
    print(f"\none module of {case.lines} lines ({case.edits_ours} edits ours, {case.edits_theirs} theirs), in one run:")
    for name, usage in (("plait merge", merge), ("plait vendor", vendor)):
        print(
            f"  {name:<13} {usage['cpu']:>6.2f} s CPU {usage['wall']:>6.2f} s wall"
            f" peak RSS {usage['maxrss_kb'] / 1024:>4.0f} MiB"
        )
    print(
        f"  merge result as expected: {merged_exact}; vendored result as expected: {vendored_exact};"
        f" plait check exit {checked}"
    )
    ratio = vendor["cpu"] / merge["cpu"]
    rss = vendor["maxrss_kb"] / 1024
    print(
        f"re-vendor CPU / merge CPU: {ratio:.2f}x (goal <= {GOAL_MODULE_RATIO}x)",
        "PASS" if ratio <= GOAL_MODULE_RATIO else "MISS",
    )
    print(
        f"re-vendor peak RSS: {rss:.0f} MiB (goal <= {GOAL_MODULE_RSS_MIB} MiB)",
        "PASS" if rss <= GOAL_MODULE_RSS_MIB else "MISS",
    )


def fleet(sizes: list[int], jobs: int | None) -> None:
    """Re-vendoring fleets of each size: CPU per consumer against the parse floor, growth, peak RSS."""
    runs: dict[int, dict[str, float]] = {}
    floors: list[float] = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix=f"plait-vendor-scale-{n}-") as tmp:
            root = Path(tmp)
            started = time.perf_counter()
            build(root, n)
            setup = time.perf_counter() - started
            floors.append(parse_floor(root))
            usage = timed_vendor(root, jobs)
            floors.append(parse_floor(root))
            kept, got = verify(root, n)
            checked = _plait(root, "check").returncode
        runs[n] = {**usage, "kept": kept, "got": got, "check": checked}
        print(
            f"{n:>4} consumers: setup {setup:.1f} s; re-vendor {usage['wall']:.2f} s wall, {usage['cpu']:.2f} s CPU,"
            f" peak RSS {usage['maxrss_kb'] / 1024:.0f} MB; local edit kept {kept}/{n}, upstream method {got}/{n},"
            f" plait check exit {checked}"
        )
    floor = statistics.median(floors)
    print(f"parse floor (libcst, the 8 files of one copy, CPU): {floor * 1000:.1f} ms")

    print(f"\n{'consumers':>9} {'CPU/consumer':>13} {'/ floor':>8} {'wall/consumer':>14} {'peak RSS':>9}")
    per: dict[int, float] = {}
    for n, usage in runs.items():
        per[n] = usage["cpu"] / n
        print(
            f"{n:>9} {per[n] * 1000:>11.1f}ms {per[n] / floor:>7.2f}x {usage['wall'] / n * 1000:>12.1f}ms"
            f" {usage['maxrss_kb'] / 1024:>7.0f}MB"
        )
    small, large = sizes[0], sizes[-1]
    ratio = per[large] / floor
    print(f"\nre-vendor CPU per consumer at {large}: {ratio:.2f}x parse floor (goal <= {GOAL_RATIO}x)", end=" ")
    print("PASS" if ratio <= GOAL_RATIO else "MISS")
    if large != small:
        growth = per[large] / per[small]
        print(f"growth per consumer {small} -> {large}: {growth:.2f}x (goal <= {GOAL_GROWTH}x)", end=" ")
        print("PASS" if growth <= GOAL_GROWTH else "MISS")
        rss = runs[large]["maxrss_kb"] / runs[small]["maxrss_kb"]
        print(f"peak RSS {large} / {small}: {rss:.2f}x (goal <= {GOAL_RSS}x)", end=" ")
        print("PASS" if rss <= GOAL_RSS else "MISS")
    complete = all(u["kept"] == n and u["got"] == n and u["check"] == 0 for n, u in runs.items())
    print(
        "every local edit kept, every consumer got the upstream method, plait check clean:",
        "PASS" if complete else "MISS",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="25,100", help="fleet sizes, smallest first")
    parser.add_argument("--jobs", type=int, default=None, help="plait vendor --jobs (default: plait's, one per CPU)")
    parser.add_argument("--module-lines", type=int, default=20000, help="the big module's size (0 skips it)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")

    if sizes:
        fleet(sizes, args.jobs)
    if args.module_lines:
        big_module(args.module_lines)
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
