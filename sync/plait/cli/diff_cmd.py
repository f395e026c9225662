"""`plait diff A B`: a structural diff of two copies (a thin shell over `plait.lineage.diff`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..errors import PlaitError
from ..lineage.diff import diff_copies
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors
from .render import Places, render_diff

__all__ = ["diff_command"]


def _workspace_or_none(ws: Callable[[], Workspace], a: str, b: str) -> Workspace | None:
    try:
        return ws()
    except PlaitError:
        if Path(a).exists() and Path(b).exists():
            return None  # two plain paths need no workspace
        raise


@command("diff")
@click.argument("a")
@click.argument("b")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text: one line per member; markdown: ready for a pull request; json: same as --json.",
)
@workspace_option
@output_options("diff")
@reports_errors
def diff_command(a: str, b: str, fmt: str, ws: Callable[[], Workspace], out: Output) -> None:
    """Compare copy B with copy A: canonical, a lineage, a consumer's vendored
    copy (by name), or any directory or file.

    Lists the members only in A and only in B, and summarises each changed
    member: branches added to a dispatch chain, except types widened,
    parameters added; --verbose adds a small unified diff of each.

    When one copy descends from the other (a lineage from its source, a
    consumer from what it vendors), the ancestor is first carried through
    the transforms in between, as sync and vendor carry it: an import of the
    same module under the copy's package name is no difference, and neither
    is a body whose only change is such an import.

    \b
    Exit codes: 0 (whether or not they differ); 2 errors.
    """
    workspace = _workspace_or_none(ws, a, b)
    result = diff_copies(workspace, a, b)
    if out.as_json or fmt == "json":
        inputs = {"workspace": str(workspace.manifest) if workspace else None, "a": result.a_path, "b": result.b_path}
        out.emit_json(result.to_json(), inputs=inputs)
    else:
        render_diff(result, out, fmt)
        if fmt == "text" and workspace is not None:
            out.workspace(Places(workspace).manifest(workspace.manifest))
    sys.exit(0)
