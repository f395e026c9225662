"""The `plait` command: argument parsing, rendering and exit codes only.

Each command lives in its own module so that it stays a thin shell over one
library function.  Exit codes follow git where git has an analogue
(`git merge-file`: 0 clean, 1 conflicts) and use 2 for usage and input errors.
"""

from __future__ import annotations

import click

from .. import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="plait")
def cli() -> None:
    """Keep vendored copies and lineages of the embedding client in step."""


def _register() -> None:
    from .merge_cmd import merge
    from .probe_cmd import probe

    cli.add_command(probe)
    cli.add_command(merge)


def main() -> None:
    _register()
    cli(prog_name="plait")
