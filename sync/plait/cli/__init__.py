"""The `plait` command: argument parsing, rendering and exit codes only.

Each command lives in its own module so that it stays a thin shell over one
library function; `output` holds the conventions they all follow.  Exit
codes follow git where git has an analogue (`git merge-file`: 0 clean,
1 conflicts) and use 2 for usage and input errors.

Commands load lazily: git starts `plait merge` once per conflicted file, and
that process must not pay for libcst, rich, httpx or GitPython when the
merge never needs them.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback

import click

COLOR_CHOICES = ("auto", "always", "never")

# name: (module, attribute, one-line help).  The help is here, not read from
# the command, so `plait --help` lists every command without importing any.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "merge": ("merge_cmd", "merge", "Three-way merge one Python file; usable as a git merge driver."),
    "merge-lock": ("merge_lock_cmd", "merge_lock", "Merge two branches' plait.lock; git's merge driver for locks."),
    "status": ("status_cmd", "status_command", "Show each lineage's source, base, pending changes and own features."),
    "sync": ("sync_cmd", "sync_command", "Carry every source change into its lineages, keeping what they add."),
    "diff": ("diff_cmd", "diff_command", "Compare two copies member by member: semantic, not textual."),
    "init": ("init_cmd", "init_command", "Write a commented lineages.toml by reading the copies' code."),
    "adopt": ("adopt_cmd", "adopt_command", "Record the base a never-synced lineage forked from."),
    "vendor": ("vendor_cmd", "vendor_command", "Re-vendor consumers from their source, keeping their local edits."),
    "check": ("check_cmd", "check_command", "Check vendored copies against their locks, and locks against sources."),
    "consumers": ("consumers_cmd", "consumers_command", "List the consumers; --json is a CI matrix (fromJSON)."),
    "install-merge-driver": (
        "install_driver_cmd",
        "install_driver_command",
        "Make git merge the Python files of vendored directories with plait.",
    ),
    "probe": ("probe_cmd", "probe", "Embed one text through the client: is embedding degraded, and why?"),
    "conform": ("conform_cmd", "conform_command", "Run the conformance scenarios in every copy, against real servers."),
    "demo": ("demo_cmd", "demo", "Show status, sync and diff on a temporary copy of the workspace."),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module, attribute, short = spec
        command: click.Command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        command.short_help = short
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_m, _a, short) in COMMANDS.items()])


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "-V", "--version", package_name="plait", prog_name="plait")
@click.option(
    "--workspace", "workspace_dir", metavar="DIR", default=None, help="The workspace for every command below."
)
@click.option("--color", type=click.Choice(COLOR_CHOICES), default=None, help="Colour: auto, always or never.")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error (also PLAIT_DEBUG=1).")
def cli(workspace_dir: str | None, color: str | None, debug: bool) -> None:
    """Keep vendored copies and lineages of the embedding client in step."""


def main() -> None:
    """The console script: an internal error is one line asking for a report, never a traceback.

    A traceback in the middle of `git merge` reads as a conflict with no
    markers; the one line says what failed and how to see more.
    """
    try:
        cli.main(prog_name="plait")
    except Exception as exc:  # the last guard of the process
        if "--debug" in sys.argv[1:] or os.environ.get("PLAIT_DEBUG") == "1":
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
