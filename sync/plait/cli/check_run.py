"""What `plait check` does, and the arguments it takes, without click.

A pre-commit hook and every CI job run `plait check`, and it only hashes, so
its start-up is most of what it costs; click's import (with `inspect`,
`typing` and `gettext` behind it) was the largest part of that.  As for
`plait merge` (`merge_run`), `check_cmd` declares the click command (help,
errors, every spelling click accepts) over `run`, and `run_plain` reads the
plain forms people and hooks type (``plait [--workspace DIR] check [-q]
[NAMES...]``) and hands anything else, ``--json`` and ``--help`` included,
to click.  Whichever parses, `run` checks, so both behave alike by
construction.

The rest of the path keeps to the same budget: no `dataclasses` (records,
`plait.records`), no `typing` at run time, no `tomllib` for what plait and
most people write (`plain_toml`); tests/cli/test_check_plain_path.py holds it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ..records import record
from . import run_standalone

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import NoReturn

    from ..workspace import Workspace
    from .output import ColorMode, Output

__all__ = ["CheckArgs", "parse_plain", "run", "run_plain"]

# The group's options before the command, and the command's own: what takes a value.
_GLOBAL_VALUES = ("--workspace", "--color")
_VALUES = ("--workspace", "--color")
_FLAGS = {"--locks": "locks", "-q": "quiet", "--quiet": "quiet", "-v": "verbose", "--verbose": "verbose"}
_COLORS: dict[str, ColorMode] = {"auto": "auto", "always": "always", "never": "never"}


@record(frozen=True)
class CheckArgs:
    """One `plait check` as asked: what to check, where, and how to print it."""

    consumers: tuple[str, ...]
    locks: bool
    workspace: str | None
    color: ColorMode
    verbosity: int


def run(
    consumers: Sequence[str], locks: bool, workspace: Callable[[], Workspace], out: Output, fmt: str = "text"
) -> NoReturn:
    """Check *consumers* (default: all) of *workspace*, or with *locks* every lock under
    the paths *consumers* names; print the verdicts (as *fmt*: text, json or markdown) and
    exit with `check_exit`'s code.  An error is on stderr whatever the format."""
    from ..vendoring.check import check, check_exit, check_locks
    from .render import Places, check_markdown, render_check

    ws: Workspace | None = None
    if locks:
        roots = [Path(p) for p in consumers] or [Path(".")]
        results = check_locks(roots)
        inputs: dict[str, object] = {"locks": [str(r) for r in roots]}
    else:
        ws = workspace()
        results = check(ws, list(consumers) or None)
        inputs = {"workspace": str(ws.manifest), "consumers": list(consumers)}
    code = check_exit(results)
    if out.as_json or fmt != "text":
        if fmt == "markdown":
            print(check_markdown(results, Places(ws)))
        else:
            out.emit_json({"exit": code, "consumers": [r.to_json() for r in results]}, inputs=inputs)
        for result in results:
            if result.error:
                out.error(f"{result.consumer or result.vendor_dir}: {result.error}")
        sys.exit(code)
    render_check(results, out)
    if not results:
        out.line("no vendored directory found" if locks else "the workspace declares no consumer")
    if ws is not None and not out.quiet:
        out.workspace(Places(ws).manifest(ws.manifest))
    sys.exit(code)


def parse_plain(argv: Sequence[str]) -> CheckArgs | None:
    """*argv* (the whole command line after ``plait``) read as click reads it, or None for click to read.

    Only plain forms: options spelled in full or as ``--opt=value``, names
    that do not start with ``-``.  Anything else (``--json``, ``--help``,
    ``-qv``, ``--``, an unknown option, a value that looks like an option)
    is click's to parse, and to explain when it is wrong.
    """
    root: dict[str, str] = {}
    i = 0
    while i < len(argv) and argv[i] != "check":
        taken = _option(argv, i, _GLOBAL_VALUES, root)
        if taken is None:
            if argv[i] != "--debug":
                return None
            taken = 1
        i += taken
    if i == len(argv):
        return None
    own: dict[str, str] = {}
    flags: set[str] = set()
    names: list[str] = []
    i += 1
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-"):
            names.append(arg)
            i += 1
        elif arg in _FLAGS:
            flags.add(_FLAGS[arg])
            i += 1
        else:
            taken = _option(argv, i, _VALUES, own)
            if taken is None:
                return None
            i += taken
    if {"quiet", "verbose"} <= flags:
        return None  # click refuses the pair, and says why
    color = own.get("--color") or root.get("--color") or "auto"
    workspace = own.get("--workspace") or root.get("--workspace")
    verbosity = int("verbose" in flags) - int("quiet" in flags)
    return CheckArgs(tuple(names), "locks" in flags, workspace, _COLORS[color], verbosity)


def _option(argv: Sequence[str], i: int, known: Sequence[str], into: dict[str, str]) -> int | None:
    """How many tokens the option at ``argv[i]`` takes (its value stored in *into*), or None."""
    name, equals, value = argv[i].partition("=")
    if name not in known:
        return None
    taken = 1
    if not equals:
        if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
            return None
        value, taken = argv[i + 1], 2
    if name == "--color" and value not in _COLORS:
        return None
    into[name] = value  # (a repeated option: click keeps the last, and so does this)
    return taken


def run_plain(argv: list[str]) -> None:
    """Run the check *argv* asks for, if it parses without click; return only if it does not."""
    if os.environ.get("_PLAIT_COMPLETE"):  # click's shell completion
        return
    parsed = parse_plain(argv)
    if parsed is None:
        return
    from ..workspace import Workspace
    from .output import Output, reports_errors

    def load() -> Workspace:
        return Workspace.load(parsed.workspace)

    @reports_errors
    def checked(*, out: Output) -> None:
        run(parsed.consumers, parsed.locks, load, out)

    run_standalone(lambda: checked(out=Output("check", color=parsed.color, verbosity=parsed.verbosity)))
