"""`plait status`: the workspace at a glance, a row per copy (a thin shell over `plait.lineage.status`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..lineage.status import overview
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, format_option, output_options, reports_errors
from .render import Places, overview_markdown, render_overview

__all__ = ["status_command"]


@command("status")
@click.argument("names", nargs=-1)
@click.option(
    "--check",
    is_flag=True,
    help="Exit 1 when a lineage or consumer is behind, conflicted, unlocked or never synced (for CI).",
)
@format_option("json", "markdown")
@workspace_option
@output_options("status")
@reports_errors
def status_command(names: tuple[str, ...], check: bool, fmt: str, ws: Callable[[], Workspace], out: Output) -> None:
    """Show where every copy stands (or NAMES: lineages and consumers): the
    canonical and its commit; for each lineage its base, the source changes
    a sync would apply and its own changes; for each consumer the commit it
    was vendored from, how many source files changed since, its local edits
    and any drift `plait check` would find; each with the command to run
    next.  --verbose lists every pending change and local edit by member.

    \b
    Exit codes: 0 ok; with --check, 1 when anything is pending; 2 errors.
    """
    workspace = ws()
    lineages = [n for n in names if n in workspace.lineages]
    total = len(workspace.sync_order(lineages or None)) if lineages or not names else 0
    total += len([n for n in names if n in workspace.consumers]) if names else len(workspace.consumers)
    with out.progress(total, "status") as step:
        view = overview(workspace, list(names) or None, progress=lambda name, state: step(f"{name}: {state}"))
    code = view.exit_code(check)
    places = Places(workspace)
    if out.as_json or fmt == "json":
        inputs = {"workspace": str(workspace.manifest), "names": list(names)}
        out.emit_json({"exit": code, **view.to_json()}, inputs=inputs)
    elif fmt == "markdown":
        click.echo(overview_markdown(view, places))
    else:
        render_overview(view, out, places)
    for name, state, reason in [(r.name, r.state, r.reason) for r in view.lineages] + [
        (c.name, c.state, c.reason) for c in view.consumers
    ]:
        if state == "error":
            # A reason that names the copy already (`<file>: svc: symlink escapes …`) is not prefixed again.
            out.error(reason if f" {name}: " in f" {reason}" else f"{name}: {reason}")
    sys.exit(code)
