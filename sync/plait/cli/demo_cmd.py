"""`plait demo`: the whole workflow on the bundled workspace, without touching it.

It composes the library calls the other commands make, and prints each
through the other commands' own renderers: `status`, a dry-run `sync`
(what would be applied, and the lineages' own code it keeps), the `sync`
itself on a temporary copy of the workspace, the adoption of a consumer
vendored by hand, the re-vendoring of every consumer and the drift check,
the conformance of every copy against real loopback servers, and the `diff`
of the sibling against the canonical client afterwards.  Each section is
its summary and the lines that make its point; ``--verbose`` prints every
member.  The repository stays clean: every write lands in the copy.
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
from ..lineage.status import overview
from ..lineage.sync import sync
from ..summary import detail_lines
from ..vendoring.check import check, check_exit
from ..vendoring.lock import read_lock
from ..vendoring.vendor import vendor
from ..workspace import CANONICAL, Workspace, copy_workspace
from . import command
from .options import demo_workspace_option
from .output import Output, output_options, reports_errors
from .render import Places, render_adopt, render_check, render_diff, render_overview, render_run

__all__ = ["OWN_REPOSITORIES", "demo"]

# How to start on one's own repositories: the demo's last lines (VENDORING.md walks through them).
OWN_REPOSITORIES = (
    ("plait init --canonical ../corelib ../fork ../svc", "a commented lineages.toml, read from the copies' code"),
    ("plait adopt fork && plait adopt svc", "each copy's base, found in the canonical's history"),
    ("plait sync && plait vendor --all", "three-way merges that keep every local patch"),
)


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
    the status of every copy, what a sync would apply and keep, the sync,
    the adoption of every consumer vendored by hand, the re-vendoring of
    every consumer and its drift check, the conformance of every copy, and
    how a lineage differs from the canonical client afterwards.  Each
    section is a summary; --verbose prints every member.

    \b
    Exit codes: 0 it ran (a conflict in the copy is part of what it shows;
    --json has the sync's own exit code as sync_exit); 2 errors.
    """
    workspace = ws()
    order = workspace.sync_order()
    target = compare or (order[-1].name if order else CANONICAL)
    view = overview(workspace)
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
                    "status": [row.to_json() for row in view.lineages],
                    "overview": view.to_json(),
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
        here, there = Places(workspace), Places(copy)
        out.heading(f"1. status: where every copy stands ({here.manifest(workspace.manifest)})")
        render_overview(view, out, here, footer=False)
        out.heading("2. what a sync would apply, and keep of each lineage's own (a dry run)")
        render_run(preview, out, here, command="sync", footer=False)
        if not out.verbose:
            for plan in preview.plans:
                story = plan.story("dry")
                for line in detail_lines(story, only="kept"):
                    out.line(line, "cyan")
        where = f"kept in {there.show(copy.dir)}" if keep else "removed afterwards"
        out.heading(f"3. the sync, on a copy of the workspace ({where})")
        render_run(report, out, there, command="sync", footer=False)
        changes = sum(len(p.changed) for p in again.plans)
        out.line(f"a second sync would change {changes} file{'s' if changes != 1 else ''}")
        out.heading("4. a consumer vendored by hand (cp + sed) is adopted: plait finds the commit it was copied at")
        for result_of in adopted:
            render_adopt(result_of, out)
        if not adopted:
            out.line("every consumer already has a lock; nothing to adopt")
        out.heading("5. every consumer re-vendored from its synced source, local edits kept, then checked")
        render_run(vendored, out, there, command="vendor", footer=False)
        render_check(checked, out, footer=False)
        out.heading("6. every copy against the same hostile loopback servers (plait conform)")
        if isinstance(conformance, ConformReport):
            for copy_result in conformance.copies:
                out.line(copy_line(copy_result))
            out.line(summary_line(conformance))
        else:
            out.line(conformance["nothing_to_check"])
        out.heading(f"7. {target} compared with the canonical client, after the sync")
        render_diff(result, out, "text")
        out.heading("next, on your own repositories")
        width = max(len(cmd) for cmd, _ in OWN_REPOSITORIES)
        for cmd, what in OWN_REPOSITORIES:
            out.line(f"  {cmd.ljust(width)}   # {what}")
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
