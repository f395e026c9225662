"""Errors that plait reports to its users.

Every failure a user can cause (an unreadable file, unparsable Python, a
corrupt lock, a path escaping the workspace) is a `PlaitError`: the CLI turns
it into one line naming the file and line or the cause, and a non-zero exit.
Anything else escaping is a bug in plait.
"""

from __future__ import annotations


class PlaitError(Exception):
    """A problem with the user's input or environment, reported as one line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.message}"


class UnparsableSource(PlaitError):
    """A Python input that does not parse; sync and vendor refuse to write from it."""
