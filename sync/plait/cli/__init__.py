"""The `plait` command: argument parsing, rendering and exit codes only.

Each command lives in its own module so that it stays a thin shell over one
library function; `output` holds the conventions they all follow.  Exit
codes follow git where git has an analogue (`git merge-file`: 0 clean,
1 conflicts) and use 2 for usage and input errors.
"""

from __future__ import annotations

import click

from .. import __version__
from .output import COLOR_CHOICES


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="plait")
@click.option(
    "--workspace", "workspace_dir", metavar="DIR", default=None, help="The workspace for every command below."
)
@click.option("--color", type=click.Choice(COLOR_CHOICES), default=None, help="Colour: auto, always or never.")
def cli(workspace_dir: str | None, color: str | None) -> None:
    """Keep vendored copies and lineages of the embedding client in step."""


def _register() -> None:
    from .adopt_cmd import adopt_command as adopt
    from .demo_cmd import demo
    from .diff_cmd import diff_command as diff
    from .merge_cmd import merge
    from .probe_cmd import probe
    from .status_cmd import status_command as status
    from .sync_cmd import sync_command as sync

    for command in (probe, merge, status, sync, diff, adopt, demo):
        cli.add_command(command)


def main() -> None:
    _register()
    cli(prog_name="plait")
