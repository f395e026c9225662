"""vendoring 1.4.0's import rewrite (tasks/vendor.py `rewrite_file_imports`), without a regex on code.

vendoring rewrites by regex, line by line, wherever a line *starts* (after
whitespace) with `import LIB` or `from LIB`: import statements, and the lines
inside multi-line strings (docstrings showing usage get rewritten too).  Its
output is what projects commit, so plait must produce the same bytes.

Here the stdlib tokenizer finds those lines (a physical line whose first
token is `import`/`from`, or a line inside a multi-line string token), and
each is rewritten by vendoring's four rules spelled with str methods:

1. `import LIB` + whitespace/end     -> `from NS import LIB`...
2. `import LIB.x.y` + ` as`          -> `import NS.LIB.x.y as`...
3. any other `import LIB.x`          -> an error: it cannot be rewritten
4. `from LIB.` / `from LIB ` + ...   -> `from NS.LIB`...

applied per library in vendoring's order.  A text the tokenizer cannot read
is left to libcst to report (the caller parses every vendored file).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence

from ..errors import PlaitError

__all__ = ["UnrewritableVendoredImport", "rewrite_vendored_imports"]


class UnrewritableVendoredImport(PlaitError):
    """`import a.b` without `as`: no namespace form binds `a` the same way (vendoring refuses it too)."""


def rewrite_vendored_imports(text: str, namespace: str, libraries: Sequence[str], *, path: str) -> str:
    """*text* with every import of *libraries* moved under *namespace*, as vendoring writes it."""
    if namespace == "" or not libraries:
        return text
    lines = text.split("\n")
    for index in sorted(_candidate_lines(text)):
        if index >= len(lines):
            continue
        line = lines[index]
        for library in libraries:
            line = _rewrite_line(line, namespace, library, path=path, number=index + 1)
        lines[index] = line
    return "\n".join(lines)


def _rewrite_line(line: str, namespace: str, library: str, *, path: str, number: int) -> str:
    rest = line.lstrip()
    indent = line[: len(line) - len(rest)]
    plain = f"import {library}"
    # rule 1: `import LIB` then whitespace or the end of the line
    if rest.startswith(plain) and (len(rest) == len(plain) or rest[len(plain)].isspace()):
        rest = f"from {namespace} import {library}" + rest[len(plain) :]
    # rule 2: `import LIB.dotted` followed by whitespace and `as`
    if rest.startswith(plain + "."):
        tail = rest[len(plain) :]
        dotted = tail.split(None, 1)[0] if tail.strip() else tail
        after = tail[len(dotted) :]
        if len(dotted) > 1 and after[:1].isspace() and after.lstrip().startswith("as"):
            rest = f"import {namespace}.{library}" + tail
    # rule 3: any other dotted import of LIB
    if rest.startswith(plain + ".") and len(rest) > len(plain) + 1 and not rest[len(plain) + 1].isspace():
        raise UnrewritableVendoredImport(
            f"`{rest.split(None, 2)[0]} {rest.split(None, 2)[1]}` cannot be rewritten for the namespace "
            f"{namespace} (vendoring refuses it too): write `import {library}.x as x` or `from {library} import x`",
            path=path,
            line=number,
        )
    # rule 4: `from LIB.` or `from LIB` then whitespace
    opener = f"from {library}"
    if (
        rest.startswith(opener)
        and len(rest) > len(opener)
        and (rest[len(opener)] == "." or rest[len(opener)].isspace())
    ):
        rest = f"from {namespace}.{library}" + rest[len(opener) :]
    return indent + rest


def _candidate_lines(text: str) -> set[int]:
    """0-based indexes of the lines vendoring's regexes can touch: import/from lines and string interiors."""
    found: set[int] = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return _every_line(text)
    line_started: set[int] = set()
    for token in tokens:
        row, col = token.start
        if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
            continue
        first_on_line = row not in line_started and token.line[:col].strip() == ""
        line_started.add(row)
        if token.type == tokenize.STRING and token.end[0] > row:
            found.update(range(row, token.end[0]))  # rows row+1..end, 0-based
            line_started.update(range(row, token.end[0] + 1))
        if first_on_line and token.type == tokenize.NAME and token.string in ("import", "from"):
            found.add(row - 1)
    return found


def _every_line(text: str) -> set[int]:
    # Not Python the tokenizer reads: vendoring's regexes still apply to every line.
    return set(range(text.count("\n") + 1))
