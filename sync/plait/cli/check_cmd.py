"""`plait check`: the CI drift check of vendored copies (a thin shell over `plait.check`).

It only hashes, so it must also start fast: nothing here imports the merge
engine, libcst or GitPython, and the plain command lines never reach this
module at all (`check_run`, click-free, runs them).
"""

from __future__ import annotations

from collections.abc import Callable

import click

from ..workspace import Workspace
from . import command
from .check_run import run
from .options import workspace_option
from .output import Output, format_option, output_options, reports_errors

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
    run(consumers, locks, ws, out, fmt)
