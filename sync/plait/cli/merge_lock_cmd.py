"""`plait merge-lock BASE OURS THEIRS`: git's merge driver for plait.lock (a thin shell over
`plait.vendoring.lock_merge`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import PlaitError
from ..vendoring.lock_merge import merge_lock_files
from . import command
from .output import Output, output_options

__all__ = ["merge_lock"]


@command("merge-lock")
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("ours", type=click.Path(dir_okay=False))
@click.argument("theirs", type=click.Path(dir_okay=False))
@click.option(
    "-P",
    "--path",
    "pathname",
    default=None,
    help="The lock's path in the repository (git's %P): its vendored files are beside it.",
)
@output_options("merge-lock")
def merge_lock(base: str, ours: str, theirs: str, pathname: str | None, out: Output) -> None:
    """Merge THEIRS (incoming) into OURS (local), two plait.lock files descended
    from BASE, and write the result over OURS: always a lock that parses, never
    text markers.  Files one side re-vendored come from it; where both changed
    a file's digests, they are re-derived from the merged file when git has
    written it, else the file is listed as conflicted until `plait vendor`
    re-derives them.

    \b
    Exit codes:
      0  the lock merged
      1  the lock parses but waits for `plait vendor CONSUMER` (stderr names it)
      2  error: OURS or THEIRS is not a lock (nothing written)

    \b
    As a git merge driver (`plait install-merge-driver` registers it):
      git config merge.plait-lock.driver '/abs/python -m plait merge-lock %O %A %B -P %P'
      echo '<vendored dir>/plait.lock merge=plait-lock' >> .gitattributes
    """
    where = pathname or ours
    try:
        result = merge_lock_files(Path(base), Path(ours), Path(theirs), pathname=pathname)
    except PlaitError as exc:
        out.error(str(exc))
        sys.exit(2)
    exit_code = 0 if result.clean else 1
    if out.as_json:
        data = {
            "exit": exit_code,
            "clean": result.clean,
            "consumer": result.lock.consumer,
            "source_commit": result.lock.source_commit,
            "unsettled": [{"file": name, "why": why} for name, why in result.unsettled.items()],
            "notes": result.notes,
            "fix": result.fix,
        }
        out.emit_json(data, inputs={"base": base, "ours": ours, "theirs": theirs, "path": pathname})
    for note in result.notes:
        out.line(f"plait merge-lock: {where}: {note}", stderr=True)
    for name, why in result.unsettled.items():
        out.line(f"CONFLICT {where}: {name}: {why}", stderr=True)
    if result.fix:
        out.line(f"plait merge-lock: {where} parses; after the merge, run: {result.fix}", stderr=True)
    sys.exit(exit_code)
