"""`plait demo`: the whole workflow on the bundled workspace, without touching it.

It composes the library calls the other commands make: `status`, a dry-run
`sync` (what would be applied and kept), the `sync` itself on a temporary
copy of the workspace, the re-vendoring of every consumer and the drift
check, the conformance of every copy against real loopback servers, and the
`diff` of the sibling against the canonical client afterwards.  The
repository stays clean: every write lands in the copy.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import click

from ..conformance import load_scenarios
from ..conformance.report import copy_line, summary_line
from ..conformance.runner import ConformReport, conform
from ..conformance.targets import NotAnEmbeddingClient, workspace_targets
from ..lineage.adopt import adopt
from ..lineage.diff import diff_copies
from ..lineage.status import status
from ..lineage.sync import sync
from ..vendoring.check import check, check_exit
from ..vendoring.lock import read_lock
from ..vendoring.vendor import vendor
from ..workspace import CANONICAL, Workspace, copy_workspace
from . import command
from .options import demo_workspace_option
from .output import Output, output_options, reports_errors
from .render import check_summary, render_diff, render_report, render_status, render_vendor_report

__all__ = ["demo"]


@command("demo")
@click.option(
    "--lineage",
    "compare",
    default=None,
    help="The lineage to diff against the canonical client afterwards (default: the last in sync order).",
)
@click.option("--keep", is_flag=True, help="Keep the temporary copy and print where it is.")
@demo_workspace_option
@output_options("demo")
@reports_errors
def demo(compare: str | None, keep: bool, ws: Callable[[], Workspace], out: Output) -> None:
    """Run the whole job on the workspace, writing only to a temporary copy:
    the status of every lineage, what a sync would apply and keep, the sync,
    the adoption of every consumer vendored by hand, the re-vendoring of
    every consumer and its drift check, the conformance of every copy, and
    how a lineage differs from the canonical client afterwards.

    \b
    Exit codes: 0 it ran (a conflict in the copy is part of what it shows;
    --json has the sync's own exit code as sync_exit); 2 errors.
    """
    workspace = ws()
    order = workspace.sync_order()
    target = compare or (order[-1].name if order else CANONICAL)
    rows = status(workspace)
    preview = sync(workspace, dry_run=True)
    folder = Path(tempfile.mkdtemp(prefix="plait-demo-"))
    try:
        copy = copy_workspace(workspace, folder)
        report = sync(copy)
        again = sync(copy, dry_run=True)
        # A consumer vendored by hand (no plait.lock) gets its base first, so that
        # its re-vendor is a 3-way merge that keeps its local edits.
        adopted = [adopt(copy, c.name) for c in copy.consumers.values() if read_lock(c.vendor_dir) is None]
        vendored = vendor(copy)
        checked = check(copy)
        conformance = _conformance(copy)
        result = diff_copies(copy, CANONICAL, target)
        if out.as_json:
            out.emit_json(
                {
                    "exit": 0,
                    "sync_exit": report.exit_code,
                    "copy": str(copy.dir) if keep else None,
                    "status": [row.to_json() for row in rows],
                    "preview": preview.to_json(),
                    "sync": report.to_json(),
                    "second_run_changes": sum(len(p.changed) for p in again.plans),
                    "adopted": [a.to_json() for a in adopted],
                    "vendor": vendored.to_json(),
                    "check": {"exit": check_exit(checked), "consumers": [c.to_json() for c in checked]},
                    "conform": conformance.to_json() if isinstance(conformance, ConformReport) else conformance,
                    "diff": result.to_json(),
                },
                inputs={"workspace": str(workspace.manifest), "lineage": target},
            )
            sys.exit(0)
        out.heading(f"1. status of every lineage ({workspace.manifest})")
        render_status(rows, out)
        out.heading("2. what a sync would apply (+ ~ - >) and keep, as a dry run says it")
        render_report(preview, out)
        out.heading(
            f"3. the sync, on a copy of the workspace ({'kept in ' + str(copy.dir) if keep else 'removed afterwards'})"
        )
        for plan in report.plans:
            files = ", ".join(f.name for f in plan.changed) or "no file"
            out.line(f"{plan.name}: {plan.outcome}; wrote {files}", "bold red" if plan.conflicts else None)
            for conflict in plan.conflicts:
                out.line(f"  CONFLICT {conflict.describe()}", "bold red")
        changes = sum(len(p.changed) for p in again.plans)
        outcomes = ", ".join(f"{p.name} {p.outcome}" for p in again.plans)
        out.line(f"a second sync would change {changes} file(s) ({outcomes})")
        out.heading("4. a consumer vendored by hand (cp + sed) is adopted: plait finds the commit it was copied at")
        for result_of in adopted:
            out.line(f"{result_of.name}: base {result_of.source}@{result_of.base.short}; {result_of.why()}")
            if result_of.runner_up is not None:
                out.line(f"{result_of.name}: runner-up {result_of.runner_up.describe()}")
            for edit in result_of.local_edits:
                out.line(f"{result_of.name}: local edit {edit.file}: {edit.text}")
        if not adopted:
            out.line("every consumer already has a lock; nothing to adopt")
        out.heading("5. every consumer re-vendored from its synced source, local edits kept, then checked")
        render_vendor_report(vendored, out)
        for consumer in checked:
            out.line(check_summary(consumer))
        out.heading("6. every copy against the same hostile loopback servers (plait conform)")
        if isinstance(conformance, ConformReport):
            for copy_result in conformance.copies:
                out.line(copy_line(copy_result))
            out.line(summary_line(conformance))
        else:
            out.line(conformance["nothing_to_check"])
        out.heading(f"7. {target} compared with the canonical client, after the sync")
        render_diff(result, out, "text")
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    sys.exit(0)


def _conformance(copy: Workspace) -> ConformReport | dict[str, str]:
    """Every copy of *copy* against the scenarios; where the canonical package is no client, why not."""
    try:
        return conform(workspace_targets(copy), load_scenarios())
    except NotAnEmbeddingClient as exc:
        return {"nothing_to_check": f"nothing to check: the canonical package {exc.message}"}
