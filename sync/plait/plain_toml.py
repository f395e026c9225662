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
    else:
        end = spelled.find(closing, 1)
        if end < 0:
            raise _NotPlain
        inner, rest = spelled[1:end], spelled[end + 1 :]
        if closing == '"':
            value = _plain_string(spelled[: end + 1])
        elif closing == "]":
            value = [_plain_string(item) for item in inner.split(", ")] if inner else []
        else:
            entry: dict[str, str] = {}
            for item in inner.split(", "):
                key, equals, string = item.partition(" = ")
                name = key if key in _BARE else _plain_key(key)
                if not equals or name in entry:
                    raise _NotPlain
                # `_plain_string`, inline: a lock holds three of these on each of its lines
                if string[:1] != '"' or string.count('"') != 2 or string[-1:] != '"' or "\\" in string:
                    raise _NotPlain
                entry[name] = string[1:-1]
            value = entry
    if rest.strip(" ") and not rest.lstrip(" ").startswith("#"):
        raise _NotPlain
    return value
