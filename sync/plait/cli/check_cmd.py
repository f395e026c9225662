"""`plait check`: the CI drift check of vendored copies (a thin shell over `plait.check`).

It only hashes, so it must also start fast: nothing here imports the merge
engine, libcst or GitPython.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..vendoring.check import check, check_exit, check_locks
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, format_option, output_options, reports_errors
from .render import Places, check_markdown, render_check

__all__ = ["check_command"]


@command("check")
@click.argument("consumers", nargs=-1)
@click.option(
    "--locks",
    is_flag=True,
    help="No workspace: check every directory holding a plait.lock under the paths given (default: .) "
    "against its lock only.",
)
@format_option("json", "markdown")
@workspace_option
@output_options("check")
@reports_errors
def check_command(consumers: tuple[str, ...], locks: bool, fmt: str, ws: Callable[[], Workspace], out: Output) -> None:
    """Check CONSUMERS (default: all): every vendored file matches the lock, and
    every lock is current with its source.  It hashes files; it parses none.

    \b
    Exit codes: 0 everything matches; 1 drift (a file edited but not recorded,
    a missing or extra file, a lock behind its source), each named with the
    command that fixes it; 2 errors (a corrupt lock, a lock naming a path
    outside its directory).
    """
    workspace: Workspace | None = None
    if locks:
        roots = [Path(p) for p in consumers] or [Path(".")]
        results = check_locks(roots)
        inputs: dict[str, object] = {"locks": [str(r) for r in roots]}
    else:
        workspace = ws()
        results = check(workspace, list(consumers) or None)
        inputs = {"workspace": str(workspace.manifest), "consumers": list(consumers)}
    code = check_exit(results)
    if out.as_json or fmt == "json":
        out.emit_json({"exit": code, "consumers": [r.to_json() for r in results]}, inputs=inputs)
        for result in results:
            if result.error:
                out.error(f"{result.consumer or result.vendor_dir}: {result.error}")
        sys.exit(code)
    if fmt == "markdown":
        click.echo(check_markdown(results, Places(workspace)))
        sys.exit(code)
    render_check(results, out)
    if not results:
        out.line("no vendored directory found" if locks else "the workspace declares no consumer")
    if workspace is not None and not out.quiet:
        out.workspace(Places(workspace).manifest(workspace.manifest))
    sys.exit(code)
