"""`plait init`: write a commented lineages.toml found by reading the copies' code (a thin shell over `plait.init`)."""

from __future__ import annotations

import sys

import click

from ..init import MERGE_ORDER, InitResult, init
from . import command
from .output import Output, output_options, reports_errors

__all__ = ["init_command"]


def _summary(result: InitResult) -> str:
    found = result.survey
    counts = [f"{len(found.lineages)} lineage{'s' if len(found.lineages) != 1 else ''}"]
    counts.append(f"{len(found.consumers)} consumer{'s' if len(found.consumers) != 1 else ''}")
    what = f"canonical {found.canonical.package} ({found.canonical.place.describe()}), {', '.join(counts)}"
    if result.dry_run:
        verb = "would replace" if result.manifest.exists() else "would write"
    else:
        verb = "replaced" if result.replaced else "wrote"
    return f"{verb} {result.manifest}: {what}"


def _copy_line(result: InitResult, index: int) -> str:
    copy = result.survey.copies[index]
    would = "would be" if result.dry_run else "is"
    parts = [f"{copy.name}: {would} a {copy.kind} of {copy.source}, package {copy.package}"]
    if copy.kind == "consumer":
        parts.append(f"vendor_dir {copy.vendor_dir}")
        parts += [f"rename {a} -> {b} (vendored beside it)" for a, b in sorted(copy.beside.items())]
    else:
        if copy.absolute_imports:
            parts.append("absolute self-imports")
        parts += [f"{a} -> {b}" for a, b in sorted(copy.renamed.items())]
    parts.append(copy.place.describe())
    return ", ".join(parts)


@command("init")
@click.argument("copies", nargs=-1, metavar="[COPY]...")
@click.option(
    "--canonical",
    metavar="PATH|URL",
    default=None,
    help="The canonical package, or a repository holding it. Default: the package of this repository "
    "that the copies share.",
)
@click.option(
    "--workspace",
    "workspace_dir",
    metavar="DIR",
    default=None,
    help="Where to write lineages.toml (a directory, or the file). Default: the current directory.",
)
@click.option("--force", is_flag=True, help="Replace an existing manifest whole.")
@click.option("--dry-run", is_flag=True, help="Print the manifest; write nothing.")
@output_options("init")
@reports_errors
def init_command(
    copies: tuple[str, ...],
    canonical: str | None,
    workspace_dir: str | None,
    force: bool,
    dry_run: bool,
    out: Output,
) -> None:
    """Write lineages.toml for the canonical package and each COPY, found by
    reading their code.

    A COPY is a directory (a fork's or a service's repository, or the exact
    package directory) or a git URL; NAME=COPY names it.  In each, the copy of
    the canonical package is the package whose files best match the
    canonical's.  A top-level package is a lineage; one nested inside another
    package (a service's _vendored_* or _vendor directory) is a consumer.
    Its package is the name its imports use; whether it spells them
    absolutely, and which files it renamed, are read from the code too.
    Every finding is a comment in the manifest.

    \b
    Exit codes: 0 written (or, with --dry-run, printed); 2 errors (no copy of
    the canonical package in a COPY, several equally good ones, no canonical
    package, a manifest already there without --force): nothing written.
    """
    chosen = workspace_dir or click.get_current_context().find_root().params.get("workspace_dir")
    result = init(chosen, canonical, list(copies), force=force, dry_run=dry_run)
    if out.as_json:
        inputs = {"workspace": chosen, "canonical": canonical, "copies": list(copies), "force": force}
        out.emit_json(result.to_json(), inputs=inputs)
        sys.exit(0)
    if dry_run:
        click.echo(result.text, nl=False)
    out.line(_summary(result), "green")
    for index in range(len(result.survey.copies)):
        out.line(_copy_line(result, index))
    if result.replaced:
        out.line("the old manifest was replaced whole; the store in .plait was kept")
    if result.commands:
        lead = "then you would run" if dry_run else "next, record where each copy started, then sync and vendor"
        out.line(f"{lead}:")
        for command in result.commands:
            out.line(f"  {command}")
    if result.commits:
        lead = "then you would commit" if dry_run else "then commit"
        out.line(f"{lead} what plait wrote, in each repository; {MERGE_ORDER}:")
        for command in result.commits:
            out.line(f"  {command}")
    if dry_run:
        out.line("dry run: nothing was written")
    sys.exit(0)
