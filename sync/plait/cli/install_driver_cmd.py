"""`plait install-merge-driver`: git merges vendored Python with plait (a thin shell over `plait.merge_driver`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..vendoring.drivers import install_merge_driver
from . import command
from .output import Output, output_options, reports_errors

__all__ = ["install_driver_command"]


@command("install-merge-driver")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option(
    "--program",
    default="plait",
    show_default=True,
    help="How git starts plait, e.g. '/opt/venv/bin/plait' when plait is not on git's PATH.",
)
@output_options("install-merge-driver")
@reports_errors
def install_driver_command(path: Path, program: str, out: Output) -> None:
    """Register `plait merge` as git's merge driver for the *.py files of every
    vendored directory (one holding plait.lock) under PATH (default: .): a line
    per directory in the repository's .gitattributes, and the driver in its
    config.  Running it again changes nothing.

    \b
    The driver line it configures:
      PROGRAM merge %O %A %B -L %L -P %P
    """
    install = install_merge_driver(path, program=program)
    if out.as_json:
        out.emit_json(install.to_json(), inputs={"path": str(path), "program": program})
        sys.exit(0)
    for line in install.added:
        out.line(f"{install.gitattributes}: + {line}")
    if install.config_changed:
        out.line(f"{install.repository}: git config merge.plait.driver '{install.driver}'")
    if not install.changed:
        out.line(f"already installed: {len(install.patterns)} vendored director(ies) merge with plait")
    sys.exit(0)
