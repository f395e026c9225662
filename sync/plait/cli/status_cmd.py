"""`plait status`: one row per lineage (a thin shell over `plait.status`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..lineage.status import LineageStatus, status
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors
from .render import render_status

__all__ = ["status_command"]


def status_exit(rows: list[LineageStatus], check: bool) -> int:
    if any(row.state == "error" for row in rows):
        return 2
    if check and any(row.state != "up-to-date" for row in rows):
        return 1
    return 0


@command("status")
@click.argument("lineages", nargs=-1)
@click.option("--check", is_flag=True, help="Exit 1 when a lineage is behind, conflicted or never synced (for CI).")
@workspace_option
@output_options("status")
@reports_errors
def status_command(lineages: tuple[str, ...], check: bool, ws: Callable[[], Workspace], out: Output) -> None:
    """Show, for each lineage (default: all), its source and base, the source
    changes a sync would apply (by node path), the lineage-only code it
    carries, and whether a sync is waiting on a conflict.

    \b
    Exit codes: 0 ok; with --check, 1 when anything is pending; 2 errors.
    """
    workspace = ws()
    total = len(workspace.sync_order(list(lineages) or None))
    with out.progress(total, "status") as step:
        rows = status(workspace, list(lineages) or None, progress=lambda row: step(f"{row.name}: {row.state}"))
    code = status_exit(rows, check)
    if out.as_json:
        inputs = {"workspace": str(workspace.manifest), "lineages": list(lineages)}
        out.emit_json({"exit": code, "lineages": [row.to_json() for row in rows]}, inputs=inputs)
    else:
        render_status(rows, out)
        out.workspace(workspace.manifest)
    sys.exit(code)
