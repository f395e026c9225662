"""A file's bytes as the text plait carries, and back, without losing a byte.

Every stage of plait holds a file as ``str`` (the merge, the transforms and
the reports all read text), but a copy holds what people put in it: UTF-8
with or without a BOM, CRLF, latin-1, a PNG.  A file is therefore decoded as
UTF-8 with ``surrogateescape``, the way `os.fsdecode` carries file names: a
byte that is not UTF-8 becomes a lone surrogate (U+DC80..U+DCFF) and encodes
back to that very byte.  So any file round-trips exactly, its digest is the
digest of its bytes, and what cannot be read as text says so itself:

- `is_utf8`: no escaped byte; Python's parser and libcst can read it.
- `is_binary`: a NUL in its first 8000 bytes, git's own test; such a file is
  never merged by lines, let alone parsed, and never gets markers.

This module imports nothing: `plait check` hashes through it.
"""

from __future__ import annotations

__all__ = ["BINARY_PROBE", "decode", "encode", "is_binary", "is_utf8"]

# git's buffer_is_binary looks at the first 8000 bytes for a NUL.
BINARY_PROBE = 8000


def decode(data: bytes) -> str:
    """*data* as plait's text: UTF-8, every other byte kept as a lone surrogate."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """The bytes *text* was decoded from (`decode`), or its UTF-8 when it was made as text."""
    return text.encode("utf-8", "surrogateescape")


def is_utf8(text: str) -> bool:
    """Whether *text* decoded from valid UTF-8: no byte of it was escaped."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_binary(text: str) -> bool:
    """Whether the file is binary by git's rule: a NUL byte in its first 8000 bytes.

    (A character of the text is at least one byte, so the first 8000
    characters hold at least the first 8000 bytes.)
    """
    return "\0" in text[:BINARY_PROBE]
