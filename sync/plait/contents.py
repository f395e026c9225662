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
- `declared_encoding` / `as_unicode` / `from_unicode`: a Python file that is
  not UTF-8 but says what it is (PEP 263, ``# -*- coding: latin-1 -*-``) is
  valid Python; what parses it (the parse check, the import rewrite, the
  merge) reads it as the Unicode it declares and gives back its own bytes.
- `line_style`: a file's line ending is a property of the file, not an edit
  of each of its lines (CRLF copies of an LF source).

This module imports nothing at import time: `plait check` hashes through it.
"""

from __future__ import annotations

__all__ = [
    "BINARY_PROBE",
    "as_unicode",
    "declared_encoding",
    "decode",
    "encode",
    "from_unicode",
    "is_binary",
    "is_utf8",
    "line_style",
    "plain_lines",
    "python_text",
]

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


def declared_encoding(text: str) -> str | None:
    """The encoding a Python file that is not UTF-8 declares in its first two lines, when its
    bytes decode by it; None for UTF-8 text, or for one that declares none (or a wrong one).

    As the interpreter reads it (`tokenize.detect_encoding`): a latin-1 file
    with ``# -*- coding: latin-1 -*-`` is valid Python, one without is not.
    """
    if is_utf8(text):
        return None
    import codecs
    import io
    import tokenize

    data = encode(text)
    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
        if codecs.lookup(encoding).name == "utf-8":
            return None
        data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None
    return encoding


def as_unicode(text: str) -> tuple[str, str] | None:
    """(*text* as the Unicode its declared encoding says, that encoding), or None (`declared_encoding`)."""
    encoding = declared_encoding(text)
    if encoding is None:
        return None
    return encode(text).decode(encoding), encoding


def python_text(text: str) -> str | None:
    """What a Python reader (ast, libcst) takes for the file *text*: itself when it is UTF-8,
    the Unicode its declared encoding gives when it declares one (`as_unicode`), None when
    it is neither, and so not Python."""
    if is_utf8(text):
        return text
    declared = as_unicode(text)
    return declared[0] if declared is not None else None


def from_unicode(text: str, encoding: str) -> str | None:
    """Unicode *text* back as plait's text of its bytes in *encoding*; None when it cannot be
    written in it (a character the encoding lacks)."""
    try:
        return decode(text.encode(encoding))
    except UnicodeEncodeError:
        return None


def line_style(text: str) -> str:
    """The line ending *text* uses: ``\\r\\n`` where it has one, else ``\\r`` where it has one, else ``\\n``."""
    return "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"


def plain_lines(text: str) -> str:
    """*text* with every line ending ``\\n`` (CRLF and a lone CR alike): line endings compared away."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
