"""Shared rich consoles for the commands.

rich already drops colour when NO_COLOR is set or the stream is not a TTY, so
CI logs and pipes get plain text without any hand-rolled ANSI handling.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..merge import MergeResult


def err_console() -> Console:
    return Console(stderr=True, soft_wrap=True)


def summary_table(result: MergeResult) -> Table:
    """What a merge applied from theirs, kept from ours, and could not decide."""
    verdict = "clean" if result.clean else f"{len(result.conflicts)} conflict(s)"
    table = Table(title=f"{result.strategy} merge, {verdict}", title_justify="left")
    # Node paths are what a maintainer searches for: fold, never truncate.
    table.add_column("", no_wrap=True)
    table.add_column("change", overflow="fold")
    table.add_column("where", overflow="fold")
    table.add_column("note", overflow="fold")
    label = {"theirs": "applied", "ours": "kept", "both": "both"}
    for c in result.changes:
        what = f"{c.kind} {c.detail}".strip()
        table.add_row(label[c.side], what, c.path, c.note)
    for k in result.conflicts:
        table.add_row("CONFLICT", k.kind, k.path, k.reason + (f" (line {k.line})" if k.line else ""))
    return table
