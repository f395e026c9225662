"""`plait sync`: carry each source's changes into its lineages (a thin shell over `plait.sync`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..errors import PlaitError
from ..lineage.sync import Resolution, abort_sync, continue_sync, sync
from ..merge import DEFAULT_BUDGET
from ..workspace import Workspace, repository_top
from . import command
from .options import workspace_option
from .output import Output, format_option, output_options, reports_errors
from .render import Places, finish_run, outcome_words

__all__ = ["sync_command"]


def _render_resolutions(results: list[Resolution], verb: str, out: Output, workspace: Workspace) -> None:
    """A line per lineage, then what to run next (as a sync's own report ends), then the manifest."""
    for r in results:
        if r.done:
            restored = f" (restored {', '.join(r.restored)})" if r.restored else ""
            out.line(f"{r.lineage}: {verb}{restored}", "green")
        else:
            out.line(f"{r.lineage}: still conflicted", "bold red")
            for problem in r.problems:
                out.line(f"  {problem}")
    places = Places(workspace)
    pending = " ".join(r.lineage for r in results if not r.done)
    if pending:
        give_up = f"(to give up: plait sync --abort {pending})"
        out.line(f"next: resolve the markers, then plait sync --continue {pending} {give_up}")
    elif verb == FINISHED:
        # What the sync wrote is now the lineage's, uncommitted, with the state beside the manifest.
        tops = [places.repo(r.lineage) for r in results] + [repository_top(workspace.store.root)]
        shown = list(dict.fromkeys(top for top in tops if top is not None))
        if shown:
            there = " in each" if len(shown) > 1 else ""
            out.line(f"next: {', '.join(f'{places.git(top)} diff' for top in shown)}, then commit{there}")
    out.workspace(places.manifest(workspace.manifest))


FINISHED = "sync finished"


@command("sync")
@click.argument("lineages", nargs=-1)
@click.option("--dry-run", is_flag=True, help="Print the unified diff and the report; write nothing.")
@click.option(
    "--commit",
    is_flag=True,
    help="Commit what the run wrote, in each repository, on branch plait/sync-<source id>; no checkout is switched.",
)
@click.option("--push", is_flag=True, help="Commit (as --commit), then push each branch to its repository's origin.")
@click.option("--continue", "continue_", is_flag=True, help="Finish a conflicted sync once the markers are gone.")
@click.option("--abort", is_flag=True, help="Give up a conflicted sync: put the files back as they were.")
@click.option("--no-write-conflicts", is_flag=True, help="On any conflict write nothing and exit 1 (for CI).")
@click.option(
    "--budget", type=float, default=DEFAULT_BUDGET, show_default=True, help="Seconds per file for the structured merge."
)
@format_option("json", "markdown")
@workspace_option
@output_options("sync")
@reports_errors
def sync_command(
    lineages: tuple[str, ...],
    dry_run: bool,
    commit: bool,
    push: bool,
    continue_: bool,
    abort: bool,
    no_write_conflicts: bool,
    budget: float,
    fmt: str,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Sync LINEAGES (default: all) from their sources, in dependency order.

    For each mapped file: base = the source as last synced (from the store),
    ours = the lineage now, theirs = the source now, all through the
    lineage's transforms.  Every file of a run is written, or none is.

    \b
    By default a summary per lineage: what the written files change, what
    the lineage keeps of its own, and the command to run next; --verbose
    lists every member, --quiet only the problems.

    \b
    Conflicts work like git merge: files get markers and the lineage waits.
      plait sync --continue LINEAGE   after fixing the markers
      plait sync --abort LINEAGE      to put the files back
    \b
    Exit codes: 0 synced or up to date; 1 conflicts (or skipped); 2 errors.
    """
    if continue_ and abort:
        raise PlaitError("--continue and --abort are exclusive")
    workspace = ws()
    inputs = {"workspace": str(workspace.manifest), "lineages": list(lineages)}
    if continue_ or abort:
        results = (continue_sync if continue_ else abort_sync)(workspace, list(lineages) or None)
        code = 0 if all(r.done for r in results) else 1
        if out.as_json:
            action = "continue" if continue_ else "abort"
            out.emit_json({"action": action, "exit": code, "lineages": [r.to_json() for r in results]}, inputs=inputs)
        else:
            _render_resolutions(results, FINISHED if continue_ else "sync aborted", out, workspace)
        sys.exit(code)

    total = len(workspace.sync_order(list(lineages) or None))
    with out.progress(total, "sync") as step:
        report = sync(
            workspace,
            list(lineages) or None,
            dry_run=dry_run,
            write_conflicts=not no_write_conflicts,
            commit=commit,
            push=push,
            budget=budget,
            progress=lambda plan: step(f"{plan.name}: {outcome_words(plan.outcome, dry_run)}"),
        )
    finish_run(report, out, Places(workspace, report.roots), command="sync", fmt=fmt, inputs=inputs)
