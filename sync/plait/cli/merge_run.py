"""What `plait merge` does, and the arguments it takes, without click.

git starts `plait merge %O %A %B -L %L -P %P` once per conflicted file, so
the process's start-up is most of what a user waits for, and click's import
alone is a large share of it.  The options are declared once, here, as data:
`merge_cmd` builds the click command from them (help, errors, every form
click accepts), and `run_plain` reads the plain forms git and people type
(`-L 7`, `-L7`, `--path=x`) and hands anything else to click.  Whichever
parses, `run` does the merge, so both paths behave alike by construction.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from .. import contents
from ..commit import read_regular, require_regular, write_atomic
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET, MergeResult, merge3
from ..merge.conflicts import Markers
from ..records import record
from . import COLOR_CHOICES, run_standalone

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts this process once per file)
if TYPE_CHECKING:
    from typing import Any, Literal, NoReturn

    from .output import ColorMode, Output

__all__ = ["OPTIONS", "MergeArgs", "Option", "parse_plain", "run", "run_plain", "seconds"]

# text: any string; seconds: a finite number above 0; size: an integer >= 1.
if TYPE_CHECKING:
    Kind = Literal["flag", "text", "seconds", "size"]
else:
    Kind = str


@record(frozen=True)
class Option:
    """One option of `plait merge`: its flags, where its value goes, and its help."""

    dest: str
    flags: tuple[str, ...]
    kind: Kind
    help: str
    default: str | float | int | bool | None = None
    metavar: str | None = None

    @property
    def show_default(self) -> bool:
        return self.kind != "flag" and self.default is not None


OPTIONS: tuple[Option, ...] = (
    Option("output", ("-o", "--output"), "text", "Write the result here instead of over OURS.", metavar="FILE"),
    Option("to_stdout", ("-p", "--print"), "flag", "Print the result to stdout instead of writing OURS.", False),
    Option(
        "show_summary", ("--summary",), "flag", "Print what each side contributed and the conflicts on stderr.", False
    ),
    Option(
        "budget",
        ("--budget",),
        "seconds",
        "Seconds the whole merge may take; past them it ends as a line merge.",
        DEFAULT_BUDGET,
    ),
    Option("marker_size", ("-L", "--marker-size"), "size", "Conflict marker size (git's %L).", 7),
    Option("pathname", ("-P", "--path"), "text", "The file's path in the repository (git's %P), for messages."),
    Option("base_label", ("-S", "--base-label"), "text", "Label of the base marker line (git's %S).", "base"),
    Option("ours_label", ("-X", "--ours-label"), "text", "Label of the ours marker line (git's %X).", "ours"),
    Option("theirs_label", ("-Y", "--theirs-label"), "text", "Label of the theirs marker line (git's %Y).", "theirs"),
)

# The output options every command shares are declared in `output`; the
# plain parser only needs to recognise them.
_OUTPUT_FLAGS = {"--json": "as_json", "--pretty": "pretty"}


def seconds(value: str | float) -> float:
    """A budget: a finite number of seconds above 0 (ValueError says why not)."""
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"must be a finite number of seconds above 0, not {value}")
    return number


def _size(value: str | int) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(f"must be at least 1, not {value}")
    return number


@record(frozen=True)
class MergeArgs:
    """Everything one `plait merge` was asked, parsed.

    (Records, not dataclasses, here: each dataclass costs the driver's
    start-up about a millisecond to build, and `dataclasses` itself more.)
    """

    base: str
    ours: str
    theirs: str
    output: str | None = None
    to_stdout: bool = False
    show_summary: bool = False
    budget: float = DEFAULT_BUDGET
    marker_size: int = 7
    pathname: str | None = None
    base_label: str = "base"
    ours_label: str = "ours"
    theirs_label: str = "theirs"


_BY_FLAG = {flag: option for option in OPTIONS for flag in option.flags}


def parse_plain(argv: list[str]) -> tuple[MergeArgs, bool, bool, ColorMode] | None:
    """*argv* (after `merge`) as (arguments, --json, --pretty, --color), or None for click to parse.

    Accepts three operands and the options above, each given once or more
    as `-L 7`, `-L7`, `--marker-size 7` or `--marker-size=7`.  Anything else
    (help, an unknown or clustered option, `--`, a bad value, -o with -p) is
    None, and click's own parser then accepts it or says what is wrong, in
    its own words.  So this never accepts what click would refuse.
    """
    operands: list[str] = []
    values: dict[str, Any] = {}
    flags = {"as_json": False, "pretty": False}
    color: str = "auto"
    rest = iter(argv)
    for arg in rest:
        if not arg.startswith("-") or arg == "-":
            if arg == "-":
                return None
            operands.append(arg)
            continue
        if arg.startswith("--"):
            name, equals, value = arg.partition("=")
            inline = value if equals else None
        else:
            name, inline = arg[:2], (arg[2:] or None)
        if name in _OUTPUT_FLAGS and inline is None:
            flags[_OUTPUT_FLAGS[name]] = True
            continue
        option = _BY_FLAG.get(name)
        if option is None and name != "--color":
            return None
        if option is not None and option.kind == "flag":
            if inline is not None:
                return None
            values[option.dest] = True
            continue
        given = inline if inline is not None else next(rest, None)
        if given is None:
            return None
        if option is None:
            if given not in COLOR_CHOICES:
                return None
            color = given
            continue
        try:
            values[option.dest] = _convert(option.kind, given)
        except ValueError:
            return None
    if len(operands) != 3 or (values.get("output") is not None and values.get("to_stdout")):
        return None
    args = MergeArgs(operands[0], operands[1], operands[2], **values)
    mode: ColorMode = "always" if color == "always" else "never" if color == "never" else "auto"
    return args, flags["as_json"], flags["pretty"], mode


def _convert(kind: Kind, value: str) -> str | float | int:
    if kind == "seconds":
        return seconds(value)
    if kind == "size":
        return _size(value)
    return value


def run_plain(argv: list[str]) -> None:
    """Run the merge *argv* asks for, if it parses without click; return only if it does not."""
    if os.environ.get("_PLAIT_COMPLETE"):  # click's shell completion
        return
    parsed = parse_plain(argv)
    if parsed is None:
        return
    from .output import Output

    args, as_json, pretty, color = parsed
    out = Output("merge", as_json=as_json, pretty=pretty, color=color)
    run_standalone(lambda: run(args, out))  # so that the plain path ends as click's would


_SIDE_LABEL = {"theirs": "applied", "ours": "kept", "both": "both"}


def _read(path: str) -> str:
    """An input, which must be a regular file or a symlink to one, as plait's text of its
    bytes (`plait.contents`): latin-1 or binary, it is merged as git would merge it."""
    return contents.decode(read_regular(path))


def _target(path: str) -> Path:
    """Where the result goes: through a symlink to its target, as `git merge-file` writes.

    Renaming a temporary file over the link itself would replace the link
    with a regular file; renaming it over what is not a regular file (a
    FIFO, a device such as /dev/null) would replace that, so it is refused.
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target  # a new file
    except OSError as exc:
        raise PlaitError(f"cannot write: {exc.strerror or exc}", path=path) from None
    require_regular(path, mode)
    return target


def _never_silently_short(result: MergeResult, texts: list[str], markers: Markers) -> None:
    """A conflicted result with no marker in it (a statement the audits found missing,
    which they cannot point at) becomes one whole-file conflict: nothing a side
    wrote may vanish from the file git is handed without a marker to say so.
    (A binary file takes no markers: it stays ours, as git's own binary merge leaves it.)"""
    if (
        result.clean
        or result.strategy == "binary"
        or any(line.startswith(markers.line("ours")) for line in result.text.splitlines())
    ):
        return
    from ..merge.lines import whole_file_conflict

    result.text = whole_file_conflict(texts[0], texts[1], texts[2], markers).text
    result.notes.append("the merge could not show a conflict in place, so the whole file is marked")


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
    out.show(table, stderr=True)


def run(args: MergeArgs, out: Output) -> NoReturn:
    """Merge, write, report, and exit as `git merge-file` does: 0 clean, 1 conflicts, 2 errors."""
    markers = Markers(args.marker_size, args.ours_label, args.base_label, args.theirs_label)
    # Messages name the user's files: git hands the driver temporary ones,
    # so the repository path (%P) names ours when it is given.
    names = (args.base, args.pathname or args.ours, args.theirs)
    try:
        texts = [_read(p) for p in (args.base, args.ours, args.theirs)]
        target = None if args.to_stdout else _target(args.output or args.ours)
        result = merge3(texts[0], texts[1], texts[2], budget=args.budget, markers=markers, names=names)
        _never_silently_short(result, texts, markers)
        for note in result.notes:
            out.line(f"plait merge: {note}", stderr=True)
        written = None
        if target is not None:
            target = _target(args.output or args.ours)  # again: the merge took time
            try:
                write_atomic(target, result.text)
            except OSError as exc:
                raise PlaitError(f"cannot write: {exc.strerror or exc}", path=str(target)) from None
            written = str(target)
    except PlaitError as exc:
        out.error(str(exc))
        sys.exit(2)
    if out.as_json:
        inputs = {
            "base": args.base,
            "ours": args.ours,
            "theirs": args.theirs,
            "path": args.pathname,
            "output": written,
        }
        out.emit_json(result.to_json(include_text=args.to_stdout), inputs=inputs)
    elif args.to_stdout:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    if args.show_summary:
        summary(result, out)
    # Under git, the repository path (%P) says which file; git's temporary names would not.
    where = f"{args.pathname}: " if args.pathname else ""
    for conflict in result.conflicts:
        out.line(f"CONFLICT {where}{conflict.describe()}", stderr=True)
    sys.exit(0 if result.clean else 1)
