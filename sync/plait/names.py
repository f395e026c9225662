"""What a manifest may call a copy, and how text that is not such a name is shown on one line.

A copy's name becomes a directory (``.plait/clones/<name>``), part of a
branch (``plait/vendor-<name>``), a word on a command line (``plait vendor
<name>``, in every ``next:`` line and lock header), a key of the state and a
cell of the reports, markdown and JUnit.  So it is a plain word every one of
those takes as it is: ASCII letters, digits and ``._-``, not starting
with ``-`` or ``.`` (never an option or a hidden file), no ``/`` (never a
path), no ``..`` and no ``.lock`` or ``.`` at the end (git refuses them in
a branch), at most 100 characters.  `plait init` derives names in that alphabet; a manifest that
gives another is refused before anything reads it.

`shell_word` is a name as a command line takes it, on one line, whatever
the name; `one_line` is for the rest, the text plait shows but did not choose (a
directory's name in a comment `plait init` writes): every character that is
not printable is written as its Python escape, so a comment or a report
line stays one line and no terminal control sequence passes through.
"""

from __future__ import annotations

__all__ = ["MAX_NAME", "NAME_RULE", "copy_name_problem", "one_line", "shell_word"]

MAX_NAME = 100

#: The rule, as an error message says it.
NAME_RULE = (
    f"a name is at most {MAX_NAME} ASCII letters, digits and ._-, not starting with '-' or '.',"
    " without '..', not ending in '.' or '.lock'"
)

_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def copy_name_problem(name: str) -> str | None:
    """Why *name* cannot name a copy, or None when it can."""
    if not name or len(name) > MAX_NAME or not set(name) <= _ALPHABET:
        return NAME_RULE
    if name[0] in "-." or ".." in name or name.endswith((".", ".lock")):
        return NAME_RULE
    return None


def one_line(text: str) -> str:
    """*text* with every character that is not printable written as its escape (``\\x1b``, ``\\n``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def shell_word(text: str) -> str:
    """*text* as one word of a POSIX shell command line, printable: as it is when it is a copy's name,
    quoted when it holds what a shell reads (``'a b'``), in bash's ``$'\\x1b'`` when it holds what
    no terminal should receive."""
    if copy_name_problem(text) is None:
        return text
    if text.isprintable():
        import shlex

        return shlex.quote(text)
    return "$'" + "".join(_ansi_c(c) for c in text) + "'"


def _ansi_c(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    return char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
