"""Options shared by the workspace commands: which workspace, and loading it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..workspace import ENV_WORKSPACE, Workspace, bundled_workspace

__all__ = ["demo_workspace_option", "workspace_option"]

R = TypeVar("R")


def workspace_option(fn: Callable[..., R]) -> Callable[..., R]:
    """Add ``--workspace DIR`` and pass the loaded workspace as ``ws``.

    The option may also be given before the command (``plait --workspace DIR
    status``); without either, `plait.workspace.locate` decides.  Loading
    happens inside the command, so a bad manifest is reported like any other
    error of that command.
    """

    @click.option(
        "--workspace",
        "workspace_dir",
        metavar="DIR",
        default=None,
        help=f"The workspace (a directory with lineages.toml, or the file). Default: ${ENV_WORKSPACE}, "
        "else the nearest lineages.toml upwards.",
    )
    @functools.wraps(fn)
    def wrapper(*args: Any, workspace_dir: str | None, **kwargs: Any) -> R:
        chosen = workspace_dir or click.get_current_context().find_root().params.get("workspace_dir")
        return fn(*args, ws=lambda: Workspace.load(chosen), **kwargs)

    return wrapper


def demo_workspace_option(fn: Callable[..., R]) -> Callable[..., R]:
    """``--workspace DIR`` for `plait demo`: without it, the bundled workspace (never the
    one the current directory is in: the demo writes only to a copy, but it
    shows the bundled story)."""

    @click.option(
        "--workspace",
        "workspace_dir",
        metavar="DIR",
        default=None,
        help="The workspace to run the demo on (default: the bundled one).",
    )
    @functools.wraps(fn)
    def wrapper(*args: Any, workspace_dir: str | None, **kwargs: Any) -> R:
        chosen = workspace_dir or click.get_current_context().find_root().params.get("workspace_dir")
        return fn(*args, ws=lambda: Workspace.load(chosen or bundled_workspace()), **kwargs)

    return wrapper
