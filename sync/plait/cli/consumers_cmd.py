"""`plait consumers`: the consumer list, as a table or as a CI matrix (`--json`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..workspace import Consumer, Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors

__all__ = ["consumers_command", "matrix_entry"]


def matrix_entry(consumer: Consumer) -> dict[str, str]:
    """One job of a CI matrix: flat strings, spelled as the manifest spells them, so they
    mean the same on a CI runner as on the machine that wrote them."""
    table = consumer.table
    return {
        "consumer": consumer.name,
        "source": consumer.source,
        "path": str(table.get("path", "")),
        "git": str(table.get("git", "")),
        "ref": str(table.get("ref", "")),
        "subdir": str(table.get("subdir", "")),
        "vendor_dir": consumer.vendor_rel,
        "package": consumer.package,
    }


@command("consumers")
@workspace_option
@output_options("consumers")
@reports_errors
def consumers_command(ws: Callable[[], Workspace], out: Output) -> None:
    """List the workspace's consumers: where each lives, its vendored directory
    and the source it vendors from.

    \b
    With --json the document's "matrix" is a GitHub Actions matrix, one job per consumer:
      matrix: ${{ fromJSON(needs.list.outputs.consumers).matrix }}
      run: plait vendor ${{ matrix.consumer }}
    """
    workspace = ws()
    entries = [matrix_entry(c) for c in workspace.consumers.values()]
    if out.as_json:
        data: dict[str, Any] = {"count": len(entries), "consumers": entries, "matrix": {"include": entries}}
        out.emit_json(data, inputs={"workspace": str(workspace.manifest)})
        sys.exit(0)
    table = out.table("consumers", ["consumer", "source", "where", "vendored directory", "package"])
    for entry in entries:
        where = f"{entry['git']}@{entry['ref'] or 'HEAD'}" if entry["git"] else entry["path"]
        table.add(entry["consumer"], entry["source"], where, entry["vendor_dir"], entry["package"])
    if table.rows:
        out.show(table)
    else:
        out.line("the workspace declares no consumer")
    out.workspace(workspace.manifest)
    sys.exit(0)
