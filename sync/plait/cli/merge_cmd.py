"""`plait merge BASE OURS THEIRS`: the structured merge, usable as a git merge driver."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..atomic import write_atomic
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET, merge3
from .render import err_console, summary_table


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


@click.command()
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("ours", type=click.Path(dir_okay=False))
@click.argument("theirs", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the result here instead of over OURS.")
@click.option("-p", "--print", "to_stdout", is_flag=True, help="Print the result to stdout instead of writing OURS.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary, changes and conflicts as JSON.")
@click.option(
    "--summary", is_flag=True, help="Print what each side contributed and the conflicts as a table on stderr."
)
@click.option(
    "--budget",
    type=float,
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Seconds the structured merge may take before falling back to a line merge.",
)
def merge(
    base: str, ours: str, theirs: str, output: str | None, to_stdout: bool, as_json: bool, summary: bool, budget: float
) -> None:
    """Three-way merge THEIRS (incoming) into OURS (local), both descended from BASE.

    \b
    Exit codes, as `git merge-file`:
      0  clean
      1  conflicts remain (git-style markers in the output; stderr names each)
      2  error (nothing written)

    As a git merge driver:
      git config merge.plait.driver "plait merge %O %A %B"
      echo '*.py merge=plait' >> .gitattributes
    """
    if output and to_stdout:
        raise click.UsageError("-o and -p are exclusive")
    console = err_console()
    try:
        texts = [_read(p) for p in (base, ours, theirs)]
        result = merge3(*texts, budget=budget)
        for note in result.notes:
            console.print(f"plait merge: {note}", markup=False, highlight=False)
        if to_stdout:
            if as_json:
                click.echo(json.dumps(result.to_json(include_text=True), indent=2))
            else:
                sys.stdout.write(result.text)
                sys.stdout.flush()
        else:
            target = Path(output or ours)
            try:
                write_atomic(target, result.text)
            except OSError as exc:
                raise PlaitError(f"cannot write: {exc.strerror or exc}", path=str(target)) from None
            if as_json:
                click.echo(json.dumps(result.to_json(), indent=2))
    except PlaitError as exc:
        console.print(f"plait merge: error: {exc}", markup=False, highlight=False)
        sys.exit(2)
    if summary:
        console.print(summary_table(result))
    for conflict in result.conflicts:
        console.print(f"CONFLICT {conflict.describe()}", markup=False, highlight=False)
    sys.exit(0 if result.clean else 1)
