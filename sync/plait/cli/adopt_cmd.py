"""`plait adopt NAME`: record a first base for a lineage or a consumer (a thin shell over `plait.lineage.adopt`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..lineage.adopt import adopt
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors

__all__ = ["adopt_command"]


@command("adopt")
@click.argument("name")
@click.option(
    "--base",
    "base",
    metavar="REF|PATH",
    default=None,
    help="The source as the copy started from it: a revision of the source, or a directory of its files.",
)
@click.option("--force", is_flag=True, help="Replace a base already recorded.")
@click.option("--dry-run", is_flag=True, help="Say which base would be recorded; write nothing.")
@click.option(
    "--commit",
    is_flag=True,
    help="Write no checkout: commit the lock (and the store) on plait/adopt-NAME-<base> branches, by plumbing.",
)
@click.option("--push", is_flag=True, help="Like --commit, then push each branch to its repository's origin.")
@workspace_option
@output_options("adopt")
@reports_errors
def adopt_command(
    name: str,
    base: str | None,
    force: bool,
    dry_run: bool,
    commit: bool,
    push: bool,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Record what NAME's source looked like when NAME started from it, so that
    `plait sync` (a lineage) or `plait vendor` (a consumer, e.g. one vendored
    by hand with cp and sed) merges three ways from then on.

    With --base, a git revision of the source or a directory holding its
    files.  Without it, plait walks the git history of the source's files,
    carries each revision through NAME's transforms, picks the revision
    closest to NAME (fewest differing members, then lines) and prints the
    choice, why, and the runner-up.  What NAME has that the base does not
    is listed as its local edits.

    \b
    Exit codes: 0 recorded; 2 errors (already adopted, no history, ...).
    """
    workspace = ws()
    result = adopt(workspace, name, base, force=force, dry_run=dry_run, commit=commit, push=push)
    if out.as_json:
        inputs = {"workspace": str(workspace.manifest), "name": name, "base": base}
        out.emit_json({"dry_run": dry_run, **result.to_json()}, inputs=inputs)
        sys.exit(0)
    verb = "would record" if dry_run else "recorded"
    where = "its lock" if result.kind == "consumer" else "the sync state"
    out.line(
        f"{name}: {verb} base {result.source}@{result.base.short} ({len(result.base.files)} files) in {where}",
        "green",
    )
    out.line(f"why: {result.why()}")
    if result.runner_up is not None:
        out.line(f"runner-up: {result.runner_up.describe()}")
    for edit in result.local_edits:
        out.line(f"local edit: {edit.file}: {edit.text}", "cyan")
    for published in result.published:
        out.line(f"committed on {published['branch']}@{published['commit'][:7]} in {published['repository']}")
    for note in result.notes:
        out.line(note)
    next_step = f"plait vendor {name}" if result.kind == "consumer" else f"plait sync {name}"
    if not dry_run:
        out.line(f"next: `{next_step}` merges three ways from this base")
    out.line(f"workspace: {workspace.manifest}")
    sys.exit(0)
