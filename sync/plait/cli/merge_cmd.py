"""`plait merge BASE OURS THEIRS`: the structured merge, usable as a git merge driver.

git starts this once per conflicted file, so the common case (the fast
path settles it, nothing is asked for but the file) loads neither libcst
nor rich: both are imported only by the code that needs them.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import click

from ..atomic import write_atomic
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET, MergeResult, merge3
from ..merge.conflicts import Markers
from .output import Output, output_options

_SIDE_LABEL = {"theirs": "applied", "ours": "kept", "both": "both"}


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        raise PlaitError("no such file", path=path) from None
    except IsADirectoryError:
        raise PlaitError("is a directory, not a file", path=path) from None
    except UnicodeDecodeError as exc:
        raise PlaitError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    except OSError as exc:
        raise PlaitError(exc.strerror or str(exc), path=path) from None


def _budget(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise click.BadParameter(f"must be a finite number of seconds above 0, not {value}")
    return value


def _target(path: str) -> Path:
    """Where the result goes: through a symlink to its target, as `git merge-file` writes.

    Renaming a temporary file over the link itself would replace the link
    with a regular file.
    """
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def summary(result: MergeResult, out: Output) -> None:
    """What a merge applied from theirs, kept from ours, and could not decide, on stderr.

    A table in a terminal; in a pipe one line per row with full node paths,
    so `grep EmbeddingClient.embed_with_outcome` finds its row.
    """
    verdict = "clean" if result.clean else f"{len(result.conflicts)} conflict(s)"
    table = out.table(f"{result.strategy} merge, {verdict}", ("", "change", "where", "note"), wrap=("note",))
    for c in result.changes:
        table.add(_SIDE_LABEL[c.side], f"{c.kind} {c.detail}".strip(), c.path, c.note)
    for k in result.conflicts:
        table.add("CONFLICT", k.kind, k.path, k.reason + (f" (line {k.line})" if k.line else ""))
    table.render(out.err)


@click.command()
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("ours", type=click.Path(dir_okay=False))
@click.argument("theirs", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the result here instead of over OURS.")
@click.option("-p", "--print", "to_stdout", is_flag=True, help="Print the result to stdout instead of writing OURS.")
@click.option(
    "--summary", "show_summary", is_flag=True, help="Print what each side contributed and the conflicts on stderr."
)
@click.option(
    "--budget",
    type=float,
    default=DEFAULT_BUDGET,
    show_default=True,
    callback=_budget,
    help="Seconds the structured merge may take before falling back to a line merge.",
)
@click.option(
    "-L",
    "--marker-size",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    help="Conflict marker size (git's %L).",
)
@click.option(
    "-P", "--path", "pathname", default=None, help="The file's path in the repository (git's %P), for messages."
)
@click.option("-S", "--base-label", default="base", show_default=True, help="Label of the base marker line (git's %S).")
@click.option("-X", "--ours-label", default="ours", show_default=True, help="Label of the ours marker line (git's %X).")
@click.option(
    "-Y", "--theirs-label", default="theirs", show_default=True, help="Label of the theirs marker line (git's %Y)."
)
@output_options("merge")
def merge(
    base: str,
    ours: str,
    theirs: str,
    output: str | None,
    to_stdout: bool,
    show_summary: bool,
    budget: float,
    marker_size: int,
    pathname: str | None,
    base_label: str,
    ours_label: str,
    theirs_label: str,
    out: Output,
) -> None:
    """Three-way merge THEIRS (incoming) into OURS (local), both descended from BASE.

    \b
    Exit codes, as `git merge-file`:
      0  clean
      1  conflicts remain (git-style markers in the output; stderr names each)
      2  error (nothing written)

    \b
    As a git merge driver (all of git's placeholders are understood):
      git config merge.plait.driver 'plait merge %O %A %B -L %L -P %P'
      echo '*.py merge=plait' >> .gitattributes
    """
    if output and to_stdout:
        raise click.UsageError("-o and -p are exclusive")
    markers = Markers(marker_size, ours_label, base_label, theirs_label)
    # Messages name the user's files: git hands the driver temporary ones,
    # so the repository path (%P) names ours when it is given.
    names = (base, pathname or ours, theirs)
    try:
        texts = [_read(p) for p in (base, ours, theirs)]
        result = merge3(texts[0], texts[1], texts[2], budget=budget, markers=markers, names=names)
        for note in result.notes:
            out.line(f"plait merge: {note}", stderr=True)
        written = None
        if not to_stdout:
            target = _target(output or ours)
            try:
                write_atomic(target, result.text)
            except OSError as exc:
                raise PlaitError(f"cannot write: {exc.strerror or exc}", path=str(target)) from None
            written = str(target)
    except PlaitError as exc:
        out.error(str(exc))
        sys.exit(2)
    if out.as_json:
        inputs: dict[str, Any] = {"base": base, "ours": ours, "theirs": theirs, "path": pathname, "output": written}
        out.emit_json(result.to_json(include_text=to_stdout), inputs=inputs)
    elif to_stdout:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    if show_summary:
        summary(result, out)
    # Under git, the repository path (%P) says which file; git's temporary names would not.
    where = f"{pathname}: " if pathname else ""
    for conflict in result.conflicts:
        out.line(f"CONFLICT {where}{conflict.describe()}", stderr=True)
    sys.exit(0 if result.clean else 1)
