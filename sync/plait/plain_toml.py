"""TOML in its plainest spelling, read without `tomllib`.

`plait check` reads a manifest and every lock of a fleet, and importing the
standard library's TOML parser (with `typing` and `datetime` behind it) and
parsing with it (pure Python) cost more than hashing every vendored file.
What plait writes, and what most people write in a manifest, is a small
subset: tables named by bare keys (``[consumers.svc]``) or one quoted key,
keys set to a string without escapes, a decimal integer, ``true`` or
``false``, a one-line list of such strings or a one-line table of them,
comments.  `plain_toml` reads that subset and returns exactly what
`tomllib.loads` would; at the first line it does not know (an escape, a
dotted key, a multi-line list, a table defined twice, a character TOML may
refuse, …) it returns None, and the caller parses with `tomllib`, which
also names what is wrong with a text that is not TOML.  So a text reads the
same whichever parser reads it.

(Read with str methods, not regular expressions: compiling those cost
`plait check` a tenth of what reading with them saved.)
"""

from __future__ import annotations

from .toml_input import MAX_DEPTH, MAX_DIGITS

__all__ = ["plain_toml"]


class _NotPlain(Exception):
    """A line `plain_toml` leaves to tomllib."""


# Lines read already in this process, and what they say: a fleet's locks
# share most of their lines (the same files vendored from the same source).
_READ: dict[str, tuple[str, object]] = {}
_REMEMBERED = 4096


def plain_toml(text: str) -> dict[str, object] | None:
    """*text* as `tomllib` reads it, when every line is of the plain kinds; else None."""
    root: dict[str, object] = {}
    table = root
    headed: set[int] = {id(root)}  # the tables headers made, explicitly or on the way: the only ones they extend
    arrays: set[str] = set()
    try:
        for line in text.split("\n"):
            known = _READ.get(line)
            if known is not None:  # (a key and value read before: tested already)
                key, read = known
                if key in table:
                    raise _NotPlain
                table[key] = read.copy() if isinstance(read, dict | list) else read  # (each text its own tables)
                continue
            if not line.isprintable():
                raise _NotPlain  # control characters, which TOML refuses almost everywhere
            if not line.strip(" ") or line.startswith("#"):
                continue
            if line.startswith("[[") and line.endswith("]]"):
                name = _plain_key(line[2:-2])
                if name in root and name not in arrays:
                    raise _NotPlain
                arrays.add(name)
                table = {}
                array = root.setdefault(name, [])
                assert isinstance(array, list)
                array.append(table)
            elif line.startswith("[") and line.endswith("]"):
                table = _header(root, line[1:-1], headed, arrays)
            else:
                spelled, _, value = line.partition(" = ")
                key, read = _plain_key(spelled), _plain_value(value)
                if key in table:
                    raise _NotPlain
                if len(_READ) < _REMEMBERED:
                    _READ[line] = (key, read)
                table[key] = read.copy() if isinstance(read, dict | list) else read
    except _NotPlain:
        return None
    return root


def _header(root: dict[str, object], spelled: str, headed: set[int], arrays: set[str]) -> dict[str, object]:
    """The new table ``[spelled]`` names: one quoted key, or bare keys joined by dots."""
    parts = [_plain_key(spelled)] if spelled.startswith('"') else [_plain_key(p) for p in spelled.split(".")]
    if len(parts) > MAX_DEPTH or parts[0] in arrays:
        raise _NotPlain
    table = root
    for part in parts[:-1]:
        below = table.get(part)
        if below is None:
            below = table[part] = {}
            headed.add(id(below))
        elif not isinstance(below, dict) or id(below) not in headed:
            raise _NotPlain  # a value, or an inline table: TOML refuses to extend either
        table = below
    if parts[-1] in table:
        raise _NotPlain  # defined twice, or a super-table after its sub-table: tomllib decides
    new: dict[str, object] = {}
    table[parts[-1]] = new
    headed.add(id(new))
    return new


def _plain_key(spelled: str) -> str:
    """A bare key, or a quoted one without escapes."""
    if spelled.startswith('"'):
        return _plain_string(spelled)
    if spelled and spelled.isascii() and spelled.replace("-", "a").replace("_", "a").isalnum():
        return spelled
    raise _NotPlain


def _plain_string(spelled: str) -> str:
    if len(spelled) < 2 or not spelled.endswith('"') or '"' in spelled[1:-1] or "\\" in spelled:
        raise _NotPlain
    return spelled[1:-1]


_BOOLEANS = {"true": True, "false": False}
# The bare keys of plait's files, known good without a test.
_BARE = frozenset({"sha256", "base", "source", "path", "package", "vendor_dir", "name", "commit", "file", "kind"})


def _quoted(spelled: str, at: int) -> tuple[str, int]:
    """The string without escapes quoted at *at*, and where it ends: the item a list or inline table holds."""
    end = spelled.find('"', at + 1) if spelled[at : at + 1] == '"' else -1
    if end < 0 or "\\" in spelled[at:end]:
        raise _NotPlain
    return spelled[at + 1 : end], end + 1


def _plain_items(spelled: str, closing: str) -> tuple[list[str] | dict[str, str], int]:
    """A one-line list of strings, or inline table of them, spelled as tomlkit writes it
    (``["a", "b"]``, ``{sha256 = "…", base = "…"}``), and where it ends.

    Read item by item, never split on ``", "``: a quoted item may hold the
    separator or the closing bracket (a file named ``", "``).
    """
    items: list[str] = []
    entry: dict[str, str] = {}
    at = 1
    if closing == "]" and spelled[1:2] == "]":
        return items, 2
    while True:
        if closing == "]":
            item, at = _quoted(spelled, at)
            items.append(item)
        else:
            if spelled[at : at + 1] == '"':
                name, at = _quoted(spelled, at)
            else:
                ends = spelled.find(" = ", at)
                if ends < 0:
                    raise _NotPlain
                name, at = spelled[at:ends], ends
                if name not in _BARE:
                    _plain_key(name)
            if not spelled.startswith(" = ", at) or name in entry:
                raise _NotPlain
            entry[name], at = _quoted(spelled, at + 3)
        if spelled.startswith(", ", at):
            at += 2
        elif spelled.startswith(closing, at):
            return (items if closing == "]" else entry), at + 1
        else:
            raise _NotPlain


def _plain_value(spelled: str) -> object:
    """A value of the plain kinds, and nothing after it but a comment."""
    closing = {'"': '"', "[": "]", "{": "}"}.get(spelled[:1])
    if closing is None:
        word, _, rest = spelled.partition(" ")
        value: object
        if word in _BOOLEANS:
            value = _BOOLEANS[word]
        elif not word.isdigit() or not word.isascii() or (word.startswith("0") and word != "0"):
            raise _NotPlain
        elif len(word) > MAX_DIGITS:
            raise _NotPlain  # `check_bounds` names it; int() would raise past the interpreter's limit
        else:
            value = int(word)
    elif closing == '"':
        end = spelled.find('"', 1)
        if end < 0:
            raise _NotPlain
        value, rest = _plain_string(spelled[: end + 1]), spelled[end + 1 :]
    else:
        value, at = _plain_items(spelled, closing)
        rest = spelled[at:]
    if rest.strip(" ") and not rest.lstrip(" ").startswith("#"):
        raise _NotPlain
    return value
