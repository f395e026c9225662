"""How every command writes: one place for the conventions people, grep and CI rely on.

- Colour: ``--color auto|always|never``; ``auto`` colours only a terminal and
  honours ``NO_COLOR``.  A stream that is not a terminal gets no escape code
  at all.
- Reports: a summary by default (a line per copy with counts, then what
  needs attention, then ``next:``), every member with ``--verbose``, only the
  problems with ``--quiet`` (`render` holds the shapes).
- Tables: a rich table in a terminal, when it fits with every cell whole;
  otherwise, and in a pipe, one plain line per row with every cell in full
  (node paths are never wrapped or cut), so ``grep`` finds
  ``EmbeddingClient.embed_with_outcome`` on the line that names it.
- JSON: ``{"schema": 1, "inputs": {...}, ...}``, compact by default and
  indented with ``--pretty``.
- Progress: a transient rich progress display in a terminal; in a pipe,
  plain lines on stderr, one per step, with ``--verbose`` only (as git shows
  progress only to a terminal): a CI log that captures both streams would
  otherwise read every copy twice, once as progress and once in the summary.
- Errors: one line on stderr, ``plait <command>: error: <cause>``, exit 2,
  whatever stdout gets (``--json`` too: a CI log shows why a step failed).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ..errors import PlaitError
from ..names import one_line
from ..records import field, record
from . import COLOR_CHOICES

# click and json are imported where a command is declared or prints through
# them: a merge driver's plain run (`merge_run`) uses `Output` without either.
TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import IO, Any, Literal, ParamSpec, TypeVar

    # rich is imported where it draws: a command that only prints plain lines
    # or JSON (a merge driver in a pipe) never loads it.
    from rich.console import Console

__all__ = [
    "JSON_SCHEMA",
    "ColorMode",
    "Output",
    "PlainTable",
    "color_option",
    "format_option",
    "make_console",
    "output_options",
    "reports_errors",
]

JSON_SCHEMA = 1
EXIT_ERROR = 2

if TYPE_CHECKING:
    ColorMode = Literal["auto", "always", "never"]
    P = ParamSpec("P")
    R = TypeVar("R")
else:
    ColorMode = str  # (what a colour mode is at run time)


def make_console(*, stderr: bool = False, color: ColorMode = "auto", file: IO[str] | None = None) -> Console:
    """A console for stdout (or stderr) that follows the colour conventions.

    ``always`` treats the stream as a terminal (tables and colour even in a
    pipe, for ``less -R``); ``never`` keeps the layout of the stream but
    emits no escape codes; ``auto`` colours a terminal unless ``NO_COLOR``.
    """
    from rich.console import Console

    stream = file or (sys.stderr if stderr else sys.stdout)
    if color == "always":
        return Console(file=stream, force_terminal=True, soft_wrap=True, highlight=False)
    no_color = color == "never" or bool(os.environ.get("NO_COLOR"))
    is_tty = stream.isatty()
    return Console(
        file=stream,
        force_terminal=is_tty,
        color_system="auto" if is_tty and not no_color else None,
        soft_wrap=True,
        highlight=False,
    )


@record
class PlainTable:
    """A table that stays readable in a terminal and grep-able in a pipe.

    A cell is a string.  In a terminal the table is drawn only when it
    fits the terminal's width with every cell whole (the columns named in
    *wrap* may wrap between words); a table that would have to cut a path
    or a name prints as the plain lines instead.  In a pipe each row prints
    as one line, its cells in full, separated by two spaces; empty cells
    print as ``-`` so the columns stay countable.
    """

    title: str
    columns: Sequence[str]
    wrap: Sequence[str] = ()
    rows: list[tuple[list[str], str | None]] = field(default_factory=list)

    def add(self, *cells: str, style: str | None = None) -> None:
        self.rows.append(([one_line(cell) for cell in cells], style))

    def render(self, console: Console) -> None:
        from rich.table import Table
        from rich.text import Text

        if console.is_terminal and self.width() <= console.width:
            table = Table(title=self.title or None, title_justify="left")
            for name in self.columns:
                wraps = name in self.wrap
                table.add_column(name, no_wrap=not wraps, overflow="fold", min_width=self._least(name))
            for cells, style in self.rows:
                table.add_row(*cells, style=style)
            console.print(table)
            return
        for (_cells, style), line in zip(self.rows, self.plain_lines(), strict=True):
            console.print(Text(line, style=style or ""), soft_wrap=True)

    def _least(self, column: str) -> int:
        """The narrowest *column* can be without cutting anything: its longest cell, or word if it wraps."""
        index = list(self.columns).index(column)
        cells = [column, *(cells[index] for cells, _ in self.rows if index < len(cells))]
        if column in self.wrap:
            return max((len(word) for cell in cells for word in cell.split()), default=1)
        return max((len(cell) for cell in cells), default=1)

    def width(self) -> int:
        """The width the drawn table needs with nothing cut: each column, its padding and its border."""
        return 1 + sum(self._least(column) + 3 for column in self.columns)

    def plain_lines(self) -> list[str]:
        """The rows as a pipe gets them: one line each, cells in full, two spaces apart."""
        out: list[str] = []
        for cells, _style in self.rows:
            out.append("  ".join(c if c else "-" for c in cells))
        return out


@record
class Output:
    """The output settings of one command run, and the helpers that obey them."""

    command: str
    as_json: bool = False
    pretty: bool = False
    color: ColorMode = "auto"
    # -1 with --quiet (problems only), 0 by default (a summary), 1 with --verbose (every member).
    verbosity: int = 0

    @property
    def verbose(self) -> bool:
        return self.verbosity > 0

    @property
    def quiet(self) -> bool:
        return self.verbosity < 0

    @functools.cached_property
    def out(self) -> Console:
        return make_console(color=self.color)

    @functools.cached_property
    def err(self) -> Console:
        return make_console(stderr=True, color=self.color)

    def plain(self, *, stderr: bool = False) -> bool:
        """Whether the stream gets plain text: it is not a terminal and colour is not forced.

        Plain text needs no rich at all, so a command read by a pipe or CI
        (`plait check` in a pre-commit hook) does not pay for importing it.
        """
        stream = sys.stderr if stderr else sys.stdout
        return self.color != "always" and not stream.isatty()

    def line(self, text: str, style: str | None = None, *, stderr: bool = False) -> None:
        """One line, never wrapped, printed as is (no markup, no highlighting).

        A control character plait did not choose (a directory's name holding
        an escape) is written as its escape, so that it reaches no terminal,
        now or when a log is shown.
        """
        if not text.isprintable():
            text = "\n".join(one_line(part) for part in text.split("\n"))
        if self.plain(stderr=stderr):
            print(text, file=sys.stderr if stderr else sys.stdout)
            return
        from rich.text import Text

        (self.err if stderr else self.out).print(Text(text, style=style or ""), soft_wrap=True)

    def show(self, table: PlainTable, *, stderr: bool = False) -> None:
        """A table: rich in a terminal, one plain line per row otherwise."""
        if self.plain(stderr=stderr):
            for line in table.plain_lines():
                self.line(line, stderr=stderr)
            return
        table.render(self.err if stderr else self.out)

    def heading(self, text: str) -> None:
        """A section title: bold in a terminal, ``== text ==`` in a pipe."""
        if self.out.is_terminal:
            from rich.text import Text

            self.out.print(Text(text, style="bold underline"), soft_wrap=True)
        else:
            self.line(f"== {text} ==")

    def table(self, title: str, columns: Sequence[str], *, wrap: Sequence[str] = ()) -> PlainTable:
        return PlainTable(title, columns, wrap)

    def emit_json(self, data: dict[str, Any], *, inputs: dict[str, Any]) -> None:
        """Print *data* as the command's JSON document, with the schema and inputs."""
        import json

        payload = {"schema": JSON_SCHEMA, "command": self.command, "inputs": inputs, **data}
        if self.pretty:
            text = json.dumps(payload, indent=2, ensure_ascii=False)
        else:
            text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        import click

        click.echo(text)

    def workspace(self, manifest: object) -> None:
        """The report's last line: which manifest it is about (never guessed by the reader)."""
        if manifest:
            self.line(f"workspace: {manifest}", "dim")

    def error(self, message: str) -> None:
        self.line(f"plait {self.command}: error: {message}", stderr=True)

    @contextmanager
    def progress(self, total: int, what: str) -> Iterator[Callable[[str], None]]:
        """A step counter: call the yielded function with a line per finished step.

        In a terminal (and not with --json) a transient progress bar; in a pipe
        plain lines on stderr with --verbose, so stdout stays the command's
        result; otherwise nothing.
        """
        if self.quiet or (not self.err.is_terminal and not self.verbose):
            yield lambda _message: None
            return
        if self.err.is_terminal and not self.as_json:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            with Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=self.err, transient=True
            ) as bar:
                task = bar.add_task(what, total=total)

                def advance(message: str) -> None:
                    bar.update(task, advance=1, description=message)

                yield advance
            return

        def plain(message: str) -> None:
            if not self.as_json:
                self.line(message, stderr=True)

        yield plain


def color_option(fn: Callable[P, R]) -> Callable[P, R]:
    import click

    return click.option(
        "--color",
        type=click.Choice(COLOR_CHOICES),
        default=None,
        help="Colour: auto (a terminal, unless NO_COLOR), always or never.",
    )(fn)


def format_option(*choices: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``--format text|json|markdown``: markdown for a CI job summary or a pull request's body."""
    import click

    names = ("text", *choices)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(names),
        default="text",
        show_default=True,
        help="text for people; markdown for a CI job summary or a pull request; json: same as --json.",
    )


def output_options(command: str, *, levels: bool = True) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Add --json, --pretty, --color and (with *levels*) --verbose and --quiet to a command, and
    pass it an `Output` as ``out``.

    `plait merge` takes no levels: git's driver line has its own plain parser,
    which must accept exactly what click accepts.
    """

    import click

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def wrapper(
            *args: Any,
            as_json: bool,
            pretty: bool,
            color: ColorMode | None,
            verbose: bool = False,
            quiet: bool = False,
            **kwargs: Any,
        ) -> R:
            ctx = click.get_current_context()
            if verbose and quiet:
                raise click.UsageError("--verbose and --quiet say opposite things; pass one")
            chosen = color or ctx.find_root().params.get("color") or "auto"
            out = Output(command, as_json=as_json, pretty=pretty, color=chosen, verbosity=int(verbose) - int(quiet))
            return fn(*args, out=out, **kwargs)

        decorated: Callable[..., R] = color_option(wrapper)
        if levels:
            decorated = click.option(
                "-q", "--quiet", is_flag=True, help="Only what needs attention: conflicts, refusals, errors."
            )(decorated)
            decorated = click.option(
                "-v", "--verbose", is_flag=True, help="Every member of every file, not only the summary."
            )(decorated)
        decorated = click.option("--pretty", is_flag=True, help="Indent the JSON.")(decorated)
        return click.option(
            "--json", "as_json", is_flag=True, help="Print one JSON document (schema 1) instead of text."
        )(decorated)

    return decorate


def reports_errors(fn: Callable[..., None]) -> Callable[..., None]:
    """Turn a `PlaitError` raised by a command into one line on stderr and exit 2.

    An `OSError` that names a file (permission denied, a full or read-only
    disk) is the user's environment, not a bug in plait: it is reported the
    same way, with the file named.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        out: Output = kwargs["out"]
        try:
            fn(*args, **kwargs)
        except PlaitError as exc:
            out.error(str(exc))
            sys.exit(EXIT_ERROR)
        except OSError as exc:
            if exc.filename is None:
                raise
            out.error(f"{exc.filename}: {exc.strerror or type(exc).__name__}")
            sys.exit(EXIT_ERROR)

    return wrapper
