"""How every command writes: one place for the conventions people, grep and CI rely on.

- Colour: ``--color auto|always|never``; ``auto`` colours only a terminal and
  honours ``NO_COLOR``.  A stream that is not a terminal gets no escape code
  at all.
- Tables: a rich table in a terminal; in a pipe, one plain line per row with
  every cell in full (node paths are never wrapped or cut), so ``grep`` finds
  ``EmbeddingClient.embed_with_outcome`` on the line that names it.
- JSON: ``{"schema": 1, "inputs": {...}, ...}``, compact by default and
  indented with ``--pretty``.
- Progress: a transient rich progress display in a terminal; plain lines
  otherwise, one per step.
- Errors: one line on stderr, ``plait <command>: error: <cause>``, exit 2.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

from ..errors import PlaitError
from . import COLOR_CHOICES

# click and json are imported where a command is declared or prints through
# them: a merge driver's plain run (`merge_run`) uses `Output` without either.
if TYPE_CHECKING:
    # rich is imported where it draws: a command that only prints plain lines
    # or JSON (a merge driver in a pipe) never loads it.
    from rich.console import Console

    from ..runs import RunReport

__all__ = [
    "JSON_SCHEMA",
    "ColorMode",
    "Output",
    "PlainTable",
    "color_option",
    "finish_run",
    "make_console",
    "output_options",
    "reports_errors",
]

JSON_SCHEMA = 1
EXIT_ERROR = 2

ColorMode = Literal["auto", "always", "never"]

P = ParamSpec("P")
R = TypeVar("R")


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


@dataclass
class PlainTable:
    """A table that stays readable in a terminal and grep-able in a pipe.

    A cell is a string.  In a terminal only the columns named in
    *wrap* may wrap (the others keep ids and names whole).  In a pipe each
    row prints as one line, its cells in full, separated by two spaces;
    empty cells print as ``-`` so the columns stay countable.
    """

    title: str
    columns: Sequence[str]
    wrap: Sequence[str] = ()
    rows: list[tuple[list[str], str | None]] = field(default_factory=list)

    def add(self, *cells: str, style: str | None = None) -> None:
        self.rows.append((list(cells), style))

    def render(self, console: Console) -> None:
        from rich.table import Table
        from rich.text import Text

        if console.is_terminal:
            table = Table(title=self.title or None, title_justify="left")
            for name in self.columns:
                wraps = name in self.wrap
                table.add_column(name, overflow="fold", no_wrap=not wraps, min_width=12 if wraps else None)
            for cells, style in self.rows:
                table.add_row(*cells, style=style)
            console.print(table)
            return
        for line in self.plain_lines():
            console.print(Text(line), soft_wrap=True)

    def plain_lines(self) -> list[str]:
        """The rows as a pipe gets them: one line each, cells in full, two spaces apart."""
        out: list[str] = []
        for cells, _style in self.rows:
            out.append("  ".join(c if c else "-" for c in cells))
        return out


@dataclass
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
        """One line, never wrapped, printed as is (no markup, no highlighting)."""
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
        plain lines on stderr, so stdout stays the command's result.
        """
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


def conflict_text(path: str, reason: str, line: int | None) -> str:
    """A conflict as a report row says it: ``CONFLICT <node path>: <reason> (line N)``."""
    return f"CONFLICT {path}: {reason}" + (f" (line {line})" if line else "")


def report_tail(
    report: RunReport[Any], out: Output, table: PlainTable, headlines: Sequence[tuple[str, str | None]]
) -> None:
    """The part of a run's report every run prints alike: its table, a headline per copy, commits, notes."""
    if table.rows:
        out.show(table)
    for text, style in headlines:
        out.line(text, style)
    for name, commit in report.commits.items():
        out.line(f"{name}: committed on {commit}")
    for name, pushed in report.pushed.items():
        out.line(f"{name}: pushed {pushed}")
    for note in report.notes:
        out.line(note)
    if report.dry_run:
        out.line(f"dry run: nothing was written; this is what a run would do in {report.manifest}")
    else:
        out.workspace(report.manifest)


def finish_run(
    report: RunReport[Any],
    out: Output,
    *,
    key: str,
    dry_run: bool,
    inputs: dict[str, Any],
    render: Callable[[Any, Output], None],
) -> None:
    """Print a run that writes copies (`sync`, `vendor`) the one way both do, and exit with its code.

    JSON: the report, each entry under *key* with its ``diff`` on a dry run.
    Text: the diffs on a dry run, the report (*render*), then every conflict
    and refusal on stderr, one line each.
    """
    if out.as_json:
        data = report.to_json()
        if dry_run:
            for entry, plan in zip(data[key], report.plans, strict=True):
                entry["diff"] = plan.diff()
        out.emit_json(data, inputs=inputs)
    else:
        import click

        if dry_run:
            for plan in report.plans:
                diff = plan.diff()
                if diff:
                    click.echo(diff, nl=False)
        render(report, out)
        for plan in report.plans:
            for conflict in plan.conflicts:
                said = "would CONFLICT" if report.dry_run else "CONFLICT"
                out.line(f"{said} {plan.name} {conflict.describe()}", stderr=True)
            if plan.outcome == "refused":
                out.error(f"{plan.name}: {'would be refused: ' if report.dry_run else ''}{plan.reason}")
    sys.exit(report.exit_code)


def color_option(fn: Callable[P, R]) -> Callable[P, R]:
    import click

    return click.option(
        "--color",
        type=click.Choice(COLOR_CHOICES),
        default=None,
        help="Colour: auto (a terminal, unless NO_COLOR), always or never.",
    )(fn)


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
