"""TOML from disk, bounded before a parser sees it.

A manifest, a lock and the sync state are read from repositories anyone may
have edited.  Python's TOML parsers fail on some inputs in ways that are not
TOML errors: an integer of thousands of digits raises `ValueError` (the
interpreter's limit on converting long integers), and arrays or tables
nested thousands deep exhaust the recursion limit.  plait writes nothing
like either, so both are refused here, by one scan of the text, as a named
error, before any parser runs.
"""

from __future__ import annotations

from .errors import PlaitError

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "check_bounds"]

# Far beyond anything plait writes (a format number, a line number; digests are strings).
MAX_DIGITS = 40
# Arrays and inline tables inside each other, and the parts of one dotted key.
MAX_DEPTH = 32


def check_bounds(text: str, *, path: str, what: str) -> None:
    """Refuse *text* (the TOML of *what*, read from *path*) when a number or a nesting is out of bounds.

    Strings and comments are skipped, so a long digest or a path with dots
    is not counted: only what a parser would read as numbers, brackets and
    the dots of keys.
    """
    depth = dots = digits = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\" and quote[0] == '"':
                    i += 1
                elif text[i] == "\n":
                    if len(quote) == 1:
                        break  # an unterminated string: the parser says so
                    line += 1
                i += 1
            i += len(quote)
            digits = 0
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "\n":
            line += 1
            dots = 0
        if c.isdigit() or (c == "_" and digits):
            digits += 1
            if digits > MAX_DIGITS:
                raise PlaitError(f"{what}: a number on line {line} has more than {MAX_DIGITS} digits", path=path)
        else:
            digits = 0
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise PlaitError(f"{what}: arrays or tables nested more than {MAX_DEPTH} deep (line {line})", path=path)
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c == ".":
            dots += 1
            if dots > MAX_DEPTH:
                raise PlaitError(f"{what}: a key with more than {MAX_DEPTH} dotted parts (line {line})", path=path)
        i += 1
