"""The `plait` command: argument parsing, rendering and exit codes only.

Each command lives in its own module so that it stays a thin shell over one
library function; `output` holds the conventions they all follow.  Exit
codes follow git where git has an analogue (`git merge-file`: 0 clean,
1 conflicts) and use 2 for usage and input errors.

Commands load lazily: git starts `plait merge` once per conflicted file, and
that process must not pay for libcst, rich, httpx or GitPython when the
merge never needs them.  It does not even pay for click: a `plait merge`
whose arguments are the plain kind git passes goes straight to the
command's own click-free runner (`merge_run`), as does a plain `plait
check` (`check_run`: a hook's whole cost is its start-up), and everything
else, help and errors included, goes through the click group in `group`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ..records import record

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import Any

    import click

COLOR_CHOICES = ("auto", "always", "never")


@record(frozen=True)
class CommandSpec:
    """Where a command lives, and what it does in one line.

    The one line is declared here and nowhere else: `plait --help` lists it
    without importing any command, and `command` opens the command's own
    `--help` with it.
    """

    module: str
    attribute: str
    summary: str


COMMANDS: dict[str, CommandSpec] = {
    "merge": CommandSpec("merge_cmd", "merge", "Three-way merge one Python file; usable as a git merge driver."),
    "merge-lock": CommandSpec(
        "merge_lock_cmd", "merge_lock", "Merge two branches' plait.lock; git's merge driver for locks."
    ),
    "status": CommandSpec(
        "status_cmd", "status_command", "Show each lineage's source, base, pending changes and own features."
    ),
    "sync": CommandSpec(
        "sync_cmd", "sync_command", "Carry every source change into its lineages, keeping what they add."
    ),
    "diff": CommandSpec("diff_cmd", "diff_command", "Compare two copies member by member: semantic, not textual."),
    "init": CommandSpec("init_cmd", "init_command", "Write a commented lineages.toml by reading the copies' code."),
    "adopt": CommandSpec(
        "adopt_cmd", "adopt_command", "Record the base of a never-synced lineage or a hand-vendored consumer."
    ),
    "vendor": CommandSpec(
        "vendor_cmd", "vendor_command", "Re-vendor consumers from their source, keeping their local edits."
    ),
    "check": CommandSpec(
        "check_cmd", "check_command", "Check vendored copies against their locks, and locks against sources."
    ),
    "consumers": CommandSpec(
        "consumers_cmd", "consumers_command", "List the consumers; --json is a CI matrix (fromJSON)."
    ),
    "install-merge-driver": CommandSpec(
        "install_driver_cmd",
        "install_driver_command",
        "Make git merge vendored Python files and locks with plait.",
    ),
    "probe": CommandSpec("probe_cmd", "probe", "Embed one text through the client: is embedding degraded, and why?"),
    "conform": CommandSpec(
        "conform_cmd", "conform_command", "Run the conformance scenarios in every copy, against real servers."
    ),
    "demo": CommandSpec(
        "demo_cmd",
        "demo",
        "Show status, sync, vendor, check, conform and diff on a temporary copy of the workspace.",
    ),
}


def command(name: str) -> Callable[[Callable[..., Any]], click.Command]:
    """`click.command` for the command *name*, with its summary from `COMMANDS` and its docstring after it."""
    import inspect

    import click

    summary = COMMANDS[name].summary

    def decorate(fn: Callable[..., Any]) -> click.Command:
        details = inspect.cleandoc(fn.__doc__ or "")
        return click.command(name, short_help=summary, help=f"{summary}\n\n{details}")(fn)

    return decorate


def run_standalone(body: Callable[[], object]) -> None:
    """Run *body* as click's standalone mode runs a command, for the click-free runners
    (`merge_run`, `check_run`): Ctrl-C says so, and a reader that went away ends the
    run quietly, both with exit 1."""
    try:
        body()
    except KeyboardInterrupt:
        print("\nAborted!", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        # Let the final flush go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def __getattr__(name: str) -> click.Group:
    # `plait.cli.cli`, the click group, is built on first use: the merge
    # driver's fast path never needs it.
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _end_now(done: SystemExit) -> None:
    """End a merge driver's process now that its result is written and said: flush, then `os._exit`.

    git starts `plait merge` once per file, and tearing down the modules a
    merge imported (and collecting its trees) cost a sixth of the process.
    Nothing is left to do at that point: the result was renamed into place
    and fsynced, no thread or atexit handler of plait's is alive.
    """
    code = done.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a reader that went away: nothing more to say to it
            stream.flush()
    os._exit(code or 0)


def main() -> None:
    """The console script: an internal error is one line asking for a report, never a traceback.

    A traceback in the middle of `git merge` reads as a conflict with no
    markers; the one line says what failed and how to see more.
    """
    args = sys.argv[1:]
    try:
        if args[:1] == ["merge"]:
            from .merge_run import run_plain

            try:
                run_plain(args[1:])  # returns only when click must parse these arguments
            except SystemExit as done:
                _end_now(done)
        elif "check" in args:
            from .check_run import run_plain as run_check

            run_check(args)  # the same: `plait check` is what pre-commit hooks and CI run
        from .group import cli

        cli.main(args, prog_name="plait")
    except Exception as exc:  # the last guard of the process
        if "--debug" in args or os.environ.get("PLAIT_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        else:
            try:
                detail = f"{type(exc).__name__}: {exc}"
            except Exception:  # an exception whose str() fails
                detail = type(exc).__name__
            print(
                f"plait: internal error ({detail}); this is a bug in plait, please report it "
                "(run with --debug or PLAIT_DEBUG=1 for the traceback)",
                file=sys.stderr,
            )
        sys.exit(2)
