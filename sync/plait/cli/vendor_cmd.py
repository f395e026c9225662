"""`plait vendor`: re-vendor consumers, keeping their local edits (a thin shell over `plait.vendor`)."""

from __future__ import annotations

import os
from collections.abc import Callable

import click

from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET
from ..vendoring.vendor import vendor
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, format_option, output_options, reports_errors
from .render import Places, finish_run, outcome_words

__all__ = ["vendor_command"]


@command("vendor")
@click.argument("consumers", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every consumer of the workspace.")
@click.option("--dry-run", is_flag=True, help="Print the unified diff and the report; write nothing.")
@click.option(
    "--commit",
    is_flag=True,
    help="Commit what the run wrote, in each repository, on branch plait/vendor-<name>-<source id>;"
    " no checkout is switched.",
)
@click.option("--push", is_flag=True, help="Commit (as --commit), then push each branch to its repository's origin.")
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), default=None, help="Consumers planned at once (default: CPUs)."
)
@click.option("--no-write-conflicts", is_flag=True, help="On any conflict write nothing and exit 1 (for CI).")
@click.option(
    "--budget", type=float, default=DEFAULT_BUDGET, show_default=True, help="Seconds per file for the structured merge."
)
@format_option("json", "markdown")
@workspace_option
@output_options("vendor")
@reports_errors
def vendor_command(
    consumers: tuple[str, ...],
    all_: bool,
    dry_run: bool,
    commit: bool,
    push: bool,
    jobs: int | None,
    no_write_conflicts: bool,
    budget: float,
    fmt: str,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Re-vendor CONSUMERS (or --all) from their source.

    For each file of a vendored directory: base = the pristine transformed
    source last vendored (from the store, by the lock), ours = the vendored
    file now, theirs = the source now, imports rewritten into the consumer's
    package.  Local edits survive; the report and the lock list them by node
    path.  Every file of a run is written, or none is.

    By default a summary per consumer: what the written files change, the
    local edits kept (and which are new, and which the source has taken),
    where the files went and the command to run next; --verbose lists every
    member, --quiet only the problems.  --format markdown is a pull
    request's body.

    \b
    Exit codes: 0 vendored or up to date; 1 conflicts; 2 errors (nothing written).
    """
    if consumers and all_:
        raise PlaitError("name consumers or pass --all, not both")
    if not consumers and not all_:
        raise PlaitError("name the consumers to vendor, or pass --all")
    workspace = ws()
    names = list(consumers) or None
    total = len(workspace.select_consumers(names))
    with out.progress(total, "vendor") as step:
        report = vendor(
            workspace,
            names,
            dry_run=dry_run,
            write_conflicts=not no_write_conflicts,
            commit=commit,
            push=push,
            jobs=jobs or os.cpu_count() or 1,
            budget=budget,
            progress=lambda plan: step(f"{plan.consumer}: {outcome_words(plan.outcome, dry_run)}"),
        )
    inputs = {"workspace": str(workspace.manifest), "consumers": list(consumers), "all": all_}
    finish_run(report, out, Places(workspace, report.roots), command="vendor", fmt=fmt, inputs=inputs)
