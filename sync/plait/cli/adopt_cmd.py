"""`plait adopt NAME`: record a first base for a lineage or a consumer (a thin shell over `plait.lineage.adopt`)."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import click

from .. import gitops
from ..lineage.adopt import AdoptResult, Ambiguity, AmbiguousBase, Candidate, adopt
from ..paths import LOCK_NAME
from ..workspace import Workspace
from . import command
from .options import workspace_option
from .output import Output, output_options, reports_errors
from .render import Places, branch_steps, render_adopt

__all__ = ["adopt_command"]


@command("adopt")
@click.argument("name")
@click.option(
    "--base",
    "base",
    metavar="REF|PATH",
    default=None,
    help="The source as the copy started from it: a revision of the source, or a directory of its files.",
)
@click.option(
    "--max-revisions",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Compare only the newest N revisions of the source (default: every one the dates allow).",
)
@click.option("--force", is_flag=True, help="Replace a base already recorded.")
@click.option("--dry-run", is_flag=True, help="Say which base would be recorded; write nothing.")
@click.option(
    "--commit",
    is_flag=True,
    help="Write no checkout: commit the lock (and the store) on plait/adopt-NAME-<base> branches, by plumbing.",
)
@click.option("--push", is_flag=True, help="Like --commit, then push each branch to its repository's origin.")
@workspace_option
@output_options("adopt")
@reports_errors
def adopt_command(
    name: str,
    base: str | None,
    max_revisions: int | None,
    force: bool,
    dry_run: bool,
    commit: bool,
    push: bool,
    ws: Callable[[], Workspace],
    out: Output,
) -> None:
    """Record what NAME's source looked like when NAME started from it, so that
    `plait sync` (a lineage) or `plait vendor` (a consumer, e.g. one vendored
    by hand with cp and sed) merges three ways from then on.

    With --base, a git revision of the source (found wherever the source's
    package lived then, even if it has moved since) or a directory holding
    its files.  Without it, plait reads both histories:

    \b
    1. a sync point: the latest commit of NAME's own directory whose files
       equal a revision of the source (through the transforms and the
       import spelling) makes that revision the base; later commits are local;
    2. else the revision closest by content, never one dated after NAME's
       last commit, and not one under which NAME would have deleted what the
       source had just added (members, entries, branches): local patches add
       and change code;
    3. when the two closest are too close to call, or that direction rule
       alone decides, plait names both and what each would mean, and asks
       (on a terminal) or stops with exit 2 (in a pipe, in CI, with --json):
       pass --base then.

    The whole history is walked, following the package through moves
    (pkg/ -> src/pkg/); --max-revisions bounds it.  What NAME has that the
    base does not is listed as its local edits, counted per file
    (--verbose: each one).

    \b
    Exit codes: 0 recorded; 2 errors (already adopted, no history, two
    candidates too close to call, ...).
    """
    workspace = ws()
    try:
        result = adopt(
            workspace,
            name,
            base,
            force=force,
            dry_run=dry_run,
            max_revisions=max_revisions,
            choose=_chooser(out),
            commit=commit,
            push=push,
        )
    except AmbiguousBase as exc:
        if out.as_json:
            inputs = {"workspace": str(workspace.manifest), "name": name, "base": base}
            out.emit_json({"error": str(exc), "ambiguity": exc.ambiguity.to_json()}, inputs=inputs)
        raise
    if out.as_json:
        inputs = {"workspace": str(workspace.manifest), "name": name, "base": base}
        out.emit_json({"dry_run": dry_run, **result.to_json()}, inputs=inputs)
        sys.exit(0)
    if not out.quiet:
        _report(workspace, result, out, dry_run=dry_run)
    sys.exit(0)


def _chooser(out: Output) -> Callable[[Ambiguity], Candidate | None] | None:
    """On a terminal, a prompt that lets a person choose between two close candidates; elsewhere none."""
    if out.as_json or os.environ.get("CI") or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None

    def ask(ambiguity: Ambiguity) -> Candidate | None:
        pair = (ambiguity.first, ambiguity.second)
        out.line(f"cannot tell the base alone: {ambiguity.reason}", "yellow")
        for number, (candidate, other) in enumerate(zip(pair, reversed(pair), strict=True), 1):
            r = candidate.revision
            out.line(f"  {number}. {candidate.label()} {r.summary!r}: {ambiguity.meaning(candidate, other)}")
        answer = click.prompt(
            "which base (q: stop and pass --base later)", type=click.Choice(["1", "2", "q"]), default="q"
        )
        return None if answer == "q" else pair[int(answer) - 1]

    return ask


def _report(workspace: Workspace, result: AdoptResult, out: Output, *, dry_run: bool) -> None:
    """The summary (`render.render_adopt`, which `plait demo` prints too), then what to do next."""
    render_adopt(result, out, dry_run=dry_run)
    if dry_run:
        out.line(f"next: plait adopt {result.name}{' --base ' + result.base.short if result.base.commit else ''}")
    else:
        for line in _commit_lines(workspace, result) + branch_steps(result.published, Places(workspace)):
            out.line(f"next: {line}")
        follow = f"plait vendor {result.name}" if result.kind == "consumer" else f"plait sync {result.name}"
        out.line(f"next: {follow} (merges three ways from this base)")
    # Last, as every other report ends: which manifest this was.
    out.workspace(workspace.manifest)


def _commit_lines(workspace: Workspace, result: AdoptResult) -> list[str]:
    """`git` lines that commit what adopt wrote, one per repository it wrote in, the workspace's
    first (its store holds the base the lock names)."""
    written = [workspace.store.root]
    if result.kind == "consumer":
        written.append(workspace.consumers[result.name].vendor_dir / LOCK_NAME)
    pending: dict[Path, list[str]] = {}
    for path in written:
        top = gitops.top_of(path if path.is_dir() else path.parent)
        if top is not None and gitops.uncommitted(path):
            pending.setdefault(top, []).append(path.resolve().relative_to(top).as_posix())
    lines: list[str] = []
    for top, paths in pending.items():
        shown = os.path.relpath(top, Path.cwd())
        git = "git" if shown == "." else f"git -C {shlex.quote(shown)}"
        what = " and ".join("its lock" if p.endswith(LOCK_NAME) else "the base in the store" for p in paths)
        message = f"plait adopt {result.name}: {what}"
        added = " ".join(shlex.quote(p) for p in paths)
        lines.append(f"{git} add {added} && {git} commit -m {shlex.quote(message)}")
    return lines
