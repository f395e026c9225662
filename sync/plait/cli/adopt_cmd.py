"""`plait adopt LINEAGE`: record a first base (a thin shell over `plait.adopt`)."""

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
@click.argument("lineage")
@click.option(
    "--base",
    "base",
    metavar="REF|PATH",
    default=None,
    help="The source as the lineage forked it: a revision or a directory.",
)
@click.option("--force", is_flag=True, help="Replace a base already recorded.")
@click.option("--dry-run", is_flag=True, help="Say which base would be recorded; write nothing.")
@workspace_option
@output_options("adopt")
@reports_errors
def adopt_command(
    lineage: str, base: str | None, force: bool, dry_run: bool, ws: Callable[[], Workspace], out: Output
) -> None:
    """Record what LINEAGE's source looked like when the lineage forked, so
    that `plait sync` can merge three ways from then on.

    With --base, a git revision of the source or a directory holding its
    files.  Without it, plait walks the git history of the source's files,
    picks the revision closest to the lineage (fewest differing members,
    then lines) and prints the choice, why, and the runner-up.

    \b
    Exit codes: 0 recorded; 2 errors (already adopted, no history, ...).
    """
    workspace = ws()
    result = adopt(workspace, lineage, base, force=force, dry_run=dry_run)
    if out.as_json:
        inputs = {"workspace": str(workspace.manifest), "lineage": lineage, "base": base}
        out.emit_json({"dry_run": dry_run, **result.to_json()}, inputs=inputs)
        sys.exit(0)
    verb = "would record" if dry_run else "recorded"
    out.line(f"{lineage}: {verb} base {result.source}@{result.base.short} ({len(result.base.files)} files)", "green")
    out.line(f"why: {result.why()}")
    if result.runner_up is not None:
        out.line(f"runner-up: {result.runner_up.describe()}")
    for note in result.notes:
        out.line(note)
    sys.exit(0)
