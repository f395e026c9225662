"""`plait install-merge-driver`: git merges vendored Python and locks with plait (a thin shell over
`plait.vendoring.drivers`)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from .. import gitops
from ..vendoring.drivers import install_merge_driver
from . import command
from .output import Output, output_options, reports_errors
from .render import Places

__all__ = ["install_driver_command"]


@command("install-merge-driver")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option(
    "--python",
    "python",
    metavar="PATH",
    default=None,
    help="The interpreter git starts plait with (default: the one running this command).",
)
@output_options("install-merge-driver")
@reports_errors
def install_driver_command(path: Path, python: str | None, out: Output) -> None:
    """Register plait as git's merge driver for the *.py files and the plait.lock
    of every vendored directory (one holding plait.lock) under PATH (default: .):
    lines in the repository's .gitattributes, and the drivers in its config.
    Running it again changes nothing.

    \b
    The driver lines it configures (an absolute interpreter, never a bare
    `plait`, so git finds it from a shell without the virtual environment;
    quoted for the shell when the path needs it):
      /abs/python -m plait merge %O %A %B -L %L -P %P
      /abs/python -m plait merge-lock %O %A %B -P %P
    Before writing anything it runs the driver once from a plain shell, and
    refuses (exit 2, naming the cause) if it does not run.
    """
    install = install_merge_driver(path, python=python)
    if out.as_json:
        out.emit_json(install.to_json(), inputs={"path": str(path), "python": python})
        sys.exit(0)
    for line in install.added:
        out.line(f"{install.gitattributes}: + {line}")
    if install.config_changed:
        out.line(f"{install.repository}: git config merge.plait.driver {install.driver}")
        out.line(f"{install.repository}: git config merge.plait-lock.driver {install.lock_driver}")
    if install.checked:
        out.line(f"checked: the driver runs {install.checked} from a plain shell")
    if not install.changed:
        out.line(f"already installed: {len(install.patterns) // 2} vendored director(ies) merge with plait")
    if gitops.uncommitted(install.gitattributes):
        # The config stays in the clone, but .gitattributes is the repository's: until it is
        # committed, nobody else's merge (and no CI) uses the driver.
        places = Places(None)
        git = places.git(install.repository)
        name = shlex.quote(places.in_repo(install.gitattributes, install.repository))
        message = shlex.quote("plait: git merges the vendored code with plait")
        out.line(f"next: {git} add {name} && {git} commit -m {message}")
    sys.exit(0)
