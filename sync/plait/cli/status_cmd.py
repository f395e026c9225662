"""`plait status`: one row per lineage (a thin shell over `plait.status`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..status import LineageStatus, status
from ..workspace import Workspace
from .options import workspace_option
from .output import Items, Output, output_options, reports_errors

__all__ = ["status_command"]

_STYLE = {"up-to-date": "green", "behind": "yellow", "conflicted": "bold red", "error": "bold red"}


def render_status(rows: list[LineageStatus], out: Output) -> None:
    """The status table (also used by `plait demo`).

    In a pipe each lineage is one line with every pending change and every
    lineage-only feature in full.  In a terminal the table holds the counts
    and the items follow, one per line, so nothing is folded.
    """
    terminal = out.out.is_terminal
    columns = ["lineage", "state", "pending", "carries", "source now", "base"]
    table = out.table("lineages", columns, wrap=["source now", "base"])
    for row in rows:
        pending = [f"{line.file}: {line.brief}" for line in row.pending]
        carries = [f"{line.file}: {line.brief}" for line in row.kept]
        state = row.state + (f" ({', '.join(row.conflicted_files)})" if row.conflicted_files else "")
        if row.reason and not terminal:
            state += f": {row.reason}"
        table.add(
            row.name,
            state,
            str(len(pending)) if terminal else Items("pending", pending),
            str(len(carries)) if terminal else Items("carries", carries),
            row.source_now or row.source,
            row.base,
            style=_STYLE.get(row.state),
        )
    out.show(table)
    if terminal:
        for row in rows:
            if row.reason:
                out.line(f"{row.name}: {row.reason}", _STYLE.get(row.state))
            for label, items in (("pending from " + row.source, row.pending), ("carries", row.kept)):
                if items:
                    out.line(f"{row.name} {label}:", "bold")
                    for line in items:
                        out.line(f"  {line.file}: {line.brief}")


def status_exit(rows: list[LineageStatus], check: bool) -> int:
    if any(row.state == "error" for row in rows):
        return 2
    if check and any(row.state != "up-to-date" for row in rows):
        return 1
    return 0


@click.command("status", short_help="Show each lineage's source, base, pending changes and own features.")
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
    sys.exit(code)
