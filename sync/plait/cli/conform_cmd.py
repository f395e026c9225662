"""`plait conform`: every copy against real servers (a thin shell over `plait.conformance`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from ..conformance import (
    ConformReport,
    NotAnEmbeddingClient,
    Target,
    conform,
    import_target,
    installed_canonical,
    load_scenarios,
    path_target,
    plain_lines,
    terminal_renderables,
    to_junit,
    to_markdown,
    workspace_targets,
)
from ..conformance.report import empty_junit, summary, summary_line
from ..conformance.runner import JSON_SCHEMA
from ..errors import PlaitError
from ..workspace import CANONICAL, Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors

__all__ = ["conform_command"]

_FORCE = "--force"


def _reference(workspace: Workspace) -> list[Target]:
    """The canonical client to compare hand-given copies with: the workspace's, else the one installed with plait.

    A workspace whose canonical package is not an embedding client (plait
    run in some other project) has no reference to offer.
    """
    try:
        return workspace_targets(workspace, [CANONICAL])
    except NotAnEmbeddingClient:
        return [installed_canonical()]


def _targets(
    ws: Callable[[], Workspace],
    copies: tuple[str, ...],
    given: list[Target] | None,
    force: bool,
) -> tuple[list[Target], str | None]:
    """The copies to run, the canonical client first, and the manifest they came from.

    With copies given by hand (``--path``, ``--import``) and no copy named,
    only the canonical client (the reference) and those run; without a
    workspace the reference is the canonical client installed with plait.
    A canonical package that is no embedding client raises
    `NotAnEmbeddingClient`: there is nothing to check.
    """
    try:
        workspace = ws()
    except PlaitError:
        if given is None or copies:
            raise
        return [installed_canonical(), *given], None
    manifest = str(workspace.manifest)
    if given is not None and not copies:
        return _reference(workspace) + given, manifest
    wanted = list(copies)
    if wanted and CANONICAL not in wanted:
        wanted.insert(0, CANONICAL)
    return workspace_targets(workspace, wanted, force=force) + (given or []), manifest


def _given(paths: tuple[str, ...], imports: tuple[str, ...], from_dir: str | None, force: bool) -> list[Target] | None:
    """The copies given by hand, or ``None`` when there are none."""
    if from_dir is not None and not imports:
        raise PlaitError("--from names the directory an --import is imported from: give --import NAME too")
    if not paths and not imports:
        return None
    given = [path_target(path, force=force) for path in paths]
    return given + [import_target(name, from_dir or ".", force=force) for name in imports]


@command("conform")
@click.argument("copies", nargs=-1)
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="PATH",
    help=(
        "Run the copy at PATH (repeatable): a package directory (its client module is found by looking),"
        " or a module file (…/embedding_client.py). With no COPIES named, beside the canonical client only."
    ),
)
@click.option(
    "--import",
    "imports",
    multiple=True,
    metavar="NAME",
    help="Run the copy importable as NAME (repeatable), a package or the module holding EmbeddingClient.",
)
@click.option(
    "--from",
    "from_dir",
    metavar="DIR",
    default=None,
    help="The directory --import names are imported from, as if it were on sys.path (default: the current one).",
)
@click.option("--scenario", "only", multiple=True, metavar="GLOB", help="Only the scenarios matching GLOB.")
@click.option("--scenarios", "scenario_file", metavar="FILE", default=None, help="Another scenario file.")
@click.option("--strict", is_flag=True, help="Parity differences (not only contract and safety problems) fail too.")
@click.option(
    _FORCE,
    is_flag=True,
    help="Run even where looking finds no EmbeddingClient (the package itself is imported as the client).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown", "junit"]),
    default="text",
    show_default=True,
    help=(
        "text: a verdict per copy and what needs attention (--verbose: every scenario); markdown: a table per copy,"
        " for a CI job summary or a pull request; junit: for CI test reports."
    ),
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Copies run at once (default: two per core).")
@workspace_option
@output_options("conform")
@reports_errors
def conform_command(
    copies: tuple[str, ...],
    paths: tuple[str, ...],
    imports: tuple[str, ...],
    from_dir: str | None,
    only: tuple[str, ...],
    scenario_file: str | None,
    strict: bool,
    force: bool,
    fmt: str,
    jobs: int | None,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Run every conformance scenario in every copy of the client (default:
    the canonical client, each lineage and each consumer's vendored copy),
    each copy in its own process against real loopback servers, and judge
    each copy's outcomes against the scenario's and the canonical client's.

    Every problem has a tier: contract (the promise to services), safety
    (deadline, byte budget, hostile answers), parity (what the canonical
    client does where the contract leaves room) or environment (a module the
    copy imports is not installed where plait runs: not the copy's fault, and
    no failure). A copy conforms when it has no contract or safety problem.
    Where the canonical client has no embed_with_outcome, the outcome
    contract does not apply: every copy is compared with it alone, at parity.

    By default: one verdict line per copy (how many scenarios it behaves like
    the canonical client on), then only what needs attention, then the
    command to run next. --verbose: every scenario; --quiet: only problems.

    \b
    Exit codes: 0 every copy conforms (also: the workspace's canonical
    package is no embedding client, nothing to check); 1 a contract or
    safety problem (or, with --strict, a parity difference); 2 errors (a
    copy that cannot be imported, a bad scenario file, an unknown copy).
    """
    scenarios = load_scenarios(scenario_file).named(only)
    given = _given(paths, imports, from_dir, force)
    inputs: dict[str, object] = {
        "workspace": None,
        "copies": list(copies),
        "paths": list(paths),
        "imports": list(imports),
        "from": from_dir,
        "scenarios": str(scenarios.path),
        "only": list(only),
        "strict": strict,
    }
    fmt = "json" if out.as_json else fmt
    try:
        targets, inputs["workspace"] = _targets(ws, copies, given, force)
    except NotAnEmbeddingClient as exc:
        where = f" ({exc.path})" if exc.path else ""
        line = f"nothing to check: the canonical package {exc.message}{where}; {_FORCE} runs the scenarios anyway"
        _nothing_to_check(line, out, fmt, inputs)
        sys.exit(0)
    with out.progress(len(targets), "conform") as step:
        report = conform(
            targets,
            scenarios,
            jobs=jobs,
            progress=lambda target, raw: step(f"{target.name}: {'error' if 'error' in raw else 'ran'}"),
            inputs=inputs,
            strict=strict,
        )
    _emit(report, out, fmt)
    for line in report.errors():
        out.error(line)
    failing = [copy.target.name for copy in report.copies if copy.error is None and not copy.passes(report.strict)]
    if failing and fmt != "text":
        # A CI log shows stderr, not the JSON, JUnit or markdown on stdout: say there which copies failed.
        out.line(f"plait conform: failing: {', '.join(failing)} ({summary_line(report)})", stderr=True)
    sys.exit(report.exit_code)


def _nothing_to_check(line: str, out: Output, fmt: str, inputs: dict[str, object]) -> None:
    """Say, in the format asked for, that the workspace holds no embedding client to check."""
    if fmt == "json":
        out.emit_json({"schema": JSON_SCHEMA, "exit": 0, "nothing_to_check": line, "copies": []}, inputs=inputs)
    elif fmt == "junit":
        click.echo(empty_junit(), nl=False)
    else:
        out.line(line)


def _emit(report: ConformReport, out: Output, fmt: str) -> None:
    if fmt == "json":
        # The report carries its own schema (2): it overrides the envelope's.
        out.emit_json(report.to_json(), inputs=report.inputs)
    elif fmt == "markdown":
        click.echo(to_markdown(report, verbose=out.verbose), nl=False)
    elif fmt == "junit":
        click.echo(to_junit(report), nl=False)
    elif out.verbose and out.out.is_terminal:
        for part in terminal_renderables(report):
            out.out.print(part)
    elif out.verbose:
        for line in plain_lines(report):
            out.line(line)
    else:
        for text, style in summary(report, quiet=out.quiet):
            out.line(text, style)
    if fmt == "text" and not out.quiet:
        out.workspace(report.inputs.get("workspace"))
