"""`plait merge BASE OURS THEIRS`: the structured merge, usable as a git merge driver.

The click command, for help, errors and every argument form click accepts;
its options and what it does are `merge_run`'s, which git's plain
invocations reach without loading click at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from . import command
from .merge_run import OPTIONS, MergeArgs, Option, run, seconds
from .output import Output, output_options

__all__ = ["merge"]

F = TypeVar("F", bound=Callable[..., Any])


def _budget(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    try:
        return seconds(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _click_option(option: Option) -> Callable[[F], F]:
    kinds: dict[str, dict[str, Any]] = {
        "flag": {"is_flag": True},
        "text": {},
        "seconds": {"type": float, "callback": _budget},
        "size": {"type": click.IntRange(min=1)},
    }
    return click.option(
        *option.flags,
        option.dest,
        default=option.default,
        show_default=option.show_default,
        metavar=option.metavar,
        help=option.help,
        **kinds[option.kind],
    )


def _options(fn: F) -> F:
    for option in reversed(OPTIONS):  # click lists options in the order their decorators run, last first
        fn = _click_option(option)(fn)
    return fn


@command("merge")
@click.argument("base")
@click.argument("ours")
@click.argument("theirs")
@_options
@output_options("merge", levels=False)
def merge(base: str, ours: str, theirs: str, out: Output, **values: Any) -> None:
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
    if values["output"] and values["to_stdout"]:
        raise click.UsageError("-o and -p are exclusive")
    run(MergeArgs(base, ours, theirs, **values), out)
