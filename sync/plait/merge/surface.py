"""What a file is besides its code, taken off before the merge and put back after.

The stages count lines by ``\\n``, assume the last one ends, and read Python
as Unicode.  A file people have may have a UTF-8 BOM, CRLF or bare-CR line
endings (or a mix), no final newline, or a declared encoding other than
UTF-8 (``# -*- coding: latin-1 -*-``, PEP 263).  `merge3` takes all of that
off here, merges what is left, and gives the result the file's own surface
again, so every caller (the git driver, sync, vendor, the reports) gets the
same fix-ups from one place:

- a BOM is merged like any edit: the result has one when the side that
  changed it (or both) has one;
- the inputs get one line ending and a final newline when they differ in
  that, or one has none, or uses a bare CR; the result is written in ours'
  line ending (the copy's: a line ending is a property of the file, not an
  edit of each line), and without a final newline when neither side had one;
- inputs that are not UTF-8 but declare one encoding are merged as the
  Unicode they declare and written back in it; where that cannot be done
  (no declaration, or one the result cannot be written in) the texts stay
  as their bytes, which git's line merge takes as they are.

Inputs one side left as they were keep their line endings: the result is
the other side, byte for byte (the identity law); their BOM and encoding are
taken off only so that what each side changed can be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import contents

__all__ = ["Surface", "take_off"]

_BOM = "\ufeff"
Texts = tuple[str, str, str]


@dataclass(frozen=True)
class Surface:
    """How to give a merged text the surface its inputs had: ``put_back(text, clean=...)``."""

    bom: bool = False
    style: str = "\n"
    unended: bool = False
    normalised: bool = False
    encoding: str | None = None

    def put_back(self, text: str, *, clean: bool) -> str:
        """*text* (merged from the inputs `take_off` gave) with the inputs' surface again."""
        if self.normalised:
            if clean and self.unended and text.endswith("\n"):
                text = text[:-1]
            if self.style != "\n":
                text = text.replace("\n", self.style)
        if self.bom and not text.startswith(_BOM):
            text = _BOM + text
        if self.encoding is not None:
            back = contents.from_unicode(text, self.encoding)
            if back is not None:
                text = back
        return text


def take_off(texts: Texts, *, python: bool = True) -> tuple[Texts, Surface]:
    """The three inputs as the stages take them, and the `Surface` that gives a result back.

    A file that is not *python* keeps its bytes (git's line merge takes any),
    so only its line endings are made one.
    """
    unicode, encoding = _declared(texts) if python else (texts, None)
    stripped, bom = _strip_bom(unicode)
    base, ours, theirs = texts
    if ours in (base, theirs) or theirs == base:
        return stripped, Surface(bom, encoding=encoding)
    normal, style, unended, normalised = _one_line_ending(stripped)
    return normal, Surface(bom, style, unended, normalised, encoding)


def _declared(texts: Texts) -> tuple[Texts, str | None]:
    """*texts* as Unicode when one of them is not UTF-8 but declares an encoding every
    input decodes by (ours' first), and that encoding; else *texts* as they are."""
    if all(contents.is_utf8(t) for t in texts):
        return texts, None
    for text in (texts[1], texts[2], texts[0]):
        encoding = contents.declared_encoding(text)
        if encoding is None:
            continue
        try:
            decoded = tuple(contents.encode(t).decode(encoding) for t in texts)
        except UnicodeDecodeError:
            continue
        return (decoded[0], decoded[1], decoded[2]), encoding
    return texts, None


def _strip_bom(texts: Texts) -> tuple[Texts, bool]:
    """The texts without a UTF-8 BOM, and whether the result carries one (merged like any edit)."""
    b, o, t = (s.startswith(_BOM) for s in texts)
    keep = t if o == b else o
    stripped = tuple(s[1:] if s.startswith(_BOM) else s for s in texts)
    return (stripped[0], stripped[1], stripped[2]), keep


def _one_line_ending(texts: Texts) -> tuple[Texts, str, bool, bool]:
    """The inputs with one line ending and a final newline where they need it; ours' line
    ending; whether neither side ends with a newline; whether anything was changed."""
    base, ours, theirs = texts
    style = contents.line_style(ours)
    lone_cr = any("\r" in t.replace("\r\n", "") for t in texts)
    unended = any(t and not t.endswith(("\n", "\r")) for t in texts)
    mixed = len({contents.line_style(t) for t in texts if t}) > 1
    if not (lone_cr or unended or mixed):
        return texts, style, False, False
    plain: Callable[[str], str] = _ended
    neither_ends = bool(ours) and not ours.endswith(("\n", "\r")) and not theirs.endswith(("\n", "\r"))
    return (plain(base), plain(ours), plain(theirs)), style, neither_ends, True


def _ended(text: str) -> str:
    text = contents.plain_lines(text)
    return text if not text or text.endswith("\n") else text + "\n"
