"""The click group `plait`: the options before a command, and commands loaded by name.

Kept apart from the package's `__init__` so that the merge driver's fast
path, which never needs the group, does not import click at all.
"""

from __future__ import annotations

import importlib

import click

from . import COLOR_CHOICES, COMMANDS

__all__ = ["cli"]


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        command: click.Command = getattr(importlib.import_module(f"{__package__}.{spec.module}"), spec.attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, spec.summary) for name, spec in COMMANDS.items()])


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "-V", "--version", package_name="plait", prog_name="plait")
@click.option(
    "--workspace", "workspace_dir", metavar="DIR", default=None, help="The workspace for every command below."
)
@click.option("--color", type=click.Choice(COLOR_CHOICES), default=None, help="Colour: auto, always or never.")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error (also PLAIT_DEBUG=1).")
def cli(workspace_dir: str | None, color: str | None, debug: bool) -> None:
    """Keep vendored copies and lineages of the embedding client in step."""
