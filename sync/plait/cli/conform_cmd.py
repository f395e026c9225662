"""`plait conform`: every copy against real servers (a thin shell over `plait.conformance`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from ..conformance import (
    ConformReport,
    Target,
    conform,
    installed_canonical,
    load_scenarios,
    path_target,
    render_text,
    to_junit,
    to_markdown,
    workspace_targets,
)
from ..errors import PlaitError
from ..workspace import CANONICAL, Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors

__all__ = ["conform_command"]


def _targets(
    ws: Callable[[], Workspace], copies: tuple[str, ...], paths: tuple[str, ...]
) -> tuple[list[Target], str | None]:
    """The copies to run, the canonical client first, and the manifest they came from.

    With ``--path`` and no copy named, only the canonical client (the
    reference) and those directories run; without a workspace the reference
    is the canonical client installed with plait.
    """
    try:
        workspace: Workspace | None = ws()
    except PlaitError:
        if not paths or copies:
            raise
        workspace = None
    manifest = str(workspace.manifest) if workspace is not None else None
    if workspace is None:
        reference = [installed_canonical()]
    elif paths and not copies:
        reference = workspace_targets(workspace, [CANONICAL])
    else:
        wanted = list(copies)
        if wanted and CANONICAL not in wanted:
            wanted.insert(0, CANONICAL)
        reference = workspace_targets(workspace, wanted)
    named = [path_target(path) for path in paths]
    return reference + named, manifest


@command("conform")
@click.argument("copies", nargs=-1)
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="DIR",
    help="Run the copy in DIR (repeatable); with no COPIES named, beside the canonical client only.",
)
@click.option("--scenario", "only", multiple=True, metavar="GLOB", help="Only the scenarios matching GLOB.")
@click.option("--scenarios", "scenario_file", metavar="FILE", default=None, help="Another scenario file.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown", "junit"]),
    default="text",
    show_default=True,
    help="text: the matrix (a table, or one line per copy and scenario in a pipe); junit: for CI test reports.",
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Copies run at once (default: two per core).")
@workspace_option
@output_options("conform")
@reports_errors
def conform_command(
    copies: tuple[str, ...],
    paths: tuple[str, ...],
    only: tuple[str, ...],
    scenario_file: str | None,
    fmt: str,
    jobs: int | None,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Run every conformance scenario in every copy of the client (default:
    the canonical client, each lineage and each consumer's vendored copy),
    each copy in its own process against real loopback servers, and compare
    each copy's outcomes with the scenario's and with the canonical client's.

    \b
    Exit codes: 0 every copy conforms; 1 a divergence; 2 errors (a copy
    that cannot be imported, a bad scenario file, an unknown copy).
    """
    scenarios = load_scenarios(scenario_file).named(only)
    targets, manifest = _targets(ws, copies, paths)
    as_json = out.as_json or fmt == "json"
    with out.progress(len(targets), "conform") as step:
        report = conform(
            targets,
            scenarios,
            jobs=jobs,
            progress=lambda target, raw: step(f"{target.name}: {'error' if 'error' in raw else 'ran'}"),
            inputs={
                "workspace": manifest,
                "copies": list(copies),
                "paths": list(paths),
                "scenarios": str(scenarios.path),
                "only": list(only),
            },
        )
    _emit(report, out, "json" if as_json else fmt)
    for line in report.errors():
        out.error(line)
    sys.exit(report.exit_code)


def _emit(report: ConformReport, out: Output, fmt: str) -> None:
    if fmt == "json":
        data: dict[str, Any] = report.to_json()
        out.emit_json(data, inputs=report.inputs)
    elif fmt == "markdown":
        click.echo(to_markdown(report), nl=False)
    elif fmt == "junit":
        click.echo(to_junit(report), nl=False)
    else:
        render_text(report, out)
