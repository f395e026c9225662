"""What `vendoring sync` does to each vendored `.py` file, in its order.

vendoring reads the file with universal newlines and writes it back with
`\\n` (so CRLF and CR become LF, in every `.py` file, rewritten or not), applies
the `transformations.substitute` patterns (`re.sub` on the whole pristine
text: the user's own regexes, so plait runs them as given), then the import
rewrite.  plait runs this on the pristine upstream text before the merge:
the result is the base, so a substitution is a transform, never a local edit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import PlaitError
from .config import Substitution
from .imports import rewrite_vendored_imports

__all__ = ["apply_substitutions", "universal_newlines", "vendored_python_text"]


def universal_newlines(text: str) -> str:
    """*text* as `Path.read_text` reads it: CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def apply_substitutions(text: str, substitute: Sequence[Substitution], *, path: str) -> str:
    for substitution in substitute:
        try:
            text = re.sub(substitution.match, substitution.replace, text)
        except re.error as error:
            raise PlaitError(
                f"transformations.substitute {substitution.match!r} -> {substitution.replace!r}: {error}", path=path
            ) from None
    return text


def vendored_python_text(
    text: str, *, namespace: str, libraries: Sequence[str], substitute: Sequence[Substitution], path: str
) -> str:
    """The bytes `vendoring sync` leaves in the `.py` file whose pristine text is *text*."""
    text = apply_substitutions(universal_newlines(text), substitute, path=path)
    return rewrite_vendored_imports(text, namespace, libraries, path=path)
