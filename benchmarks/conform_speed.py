"""How long `plait conform` takes on the bundled workspace: the whole matrix, and each copy.

One run measures, side by side:

* the workspace as committed (the upstream lineage is behind the client
  hardening, so its drips run until the server stops them: the slow case);
* the workspace after ``plait sync`` and ``plait vendor --all``, on a
  temporary copy (every copy carries the hardened client, every call ends at
  its deadline);

each with the copies run in parallel (as ``plait conform`` does) and one at a
time (``--jobs 1``), so the table shows what running copies side by side
buys.  Every scenario runs concurrently inside each copy's process either way.

Goal: the whole matrix of the bundled workspace under 30 s on 2 cores.

Run: ``python benchmarks/conform_speed.py``.  Not a test: it prints a table
with PASS/MISS per goal and always exits 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from plait.conformance import ConformReport, conform, load_scenarios, workspace_targets
from plait.lineage.adopt import adopt
from plait.lineage.sync import sync
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace, copy_workspace

REPO = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 30.0


def _run(ws: Workspace, jobs: int | None) -> tuple[float, ConformReport]:
    started = time.monotonic()
    report = conform(workspace_targets(ws), load_scenarios(), jobs=jobs)
    return time.monotonic() - started, report


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> None:
    bundled = Workspace.load(REPO / "lineages")
    scenarios = len(load_scenarios().scenarios)
    with tempfile.TemporaryDirectory(prefix="plait-conform-bench-") as folder:
        synced = copy_workspace(bundled, Path(folder))
        sync(synced)
        adopt(synced, "mnemo")  # the consumer vendored by hand, onboarded first
        vendor(synced)
        runs = {}
        for label, ws in (("as committed", bundled), ("after sync+vendor", synced)):
            runs[label] = (_run(ws, None), _run(ws, 1))
    cores = os.cpu_count()
    print(f"plait conform: {scenarios} scenarios, bundled workspace, {cores} cores, Python {sys.version.split()[0]}")
    print()
    header = f"{'workspace':<18} {'copies':>6} {'parallel s':>11} {'one at a time s':>16} {'ratio':>6}"
    print(f"{header}  {'goal':<10} result")
    print("-" * 84)
    for label, ((parallel, report), (serial, _)) in runs.items():
        ok = parallel <= GOAL_SECONDS
        print(
            f"{label:<18} {len(report.copies):>6} {parallel:>11.2f} {serial:>16.2f} {parallel / serial:>6.2f}"
            f"  {'≤ 30 s':<10} {_verdict(ok)}"
        )
    print()
    print(f"{'workspace':<18} {'copy':<12} {'seconds':>8}  outcome (in the parallel run)")
    print("-" * 84)
    for label, ((_parallel, report), _serial) in runs.items():
        for copy in report.copies:
            if copy.error is not None:
                outcome = f"error: {copy.error[:60]}"
            else:
                outcome = "conforms" if copy.conforms else f"{copy.count('fail')} failing scenarios"
            print(f"{label:<18} {copy.target.name:<12} {copy.elapsed:>8.2f}  {outcome}")


if __name__ == "__main__":
    main()
