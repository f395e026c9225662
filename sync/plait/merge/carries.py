"""Whether one side's version of a statement already holds the other side's edits.

Both sides edit one statement; the merge may rightly come out as one side's
version, word for word, when that version already made the other side's
change and more: ours inserted the lines theirs inserted into a string, and
one more; both sides sorted `__all__` and ours also added a name.  The
ledger then finds theirs' version missing, and must not call it lost.

The test is on tokens, with a multi-line string split into its lines (so
text inside it compares line by line): *version* carries *other*'s edit of
*base* when it removed every token *other* removed, and holds *other*'s
tokens in *other*'s order.  In a collection whose order means nothing
(`__all__`, `__slots__`), counts are enough.
"""

from __future__ import annotations

import io
import tokenize
from collections import Counter

_SKIPPED = frozenset(
    {
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.COMMENT,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
)


def tokens(source: str) -> list[str] | None:
    """The statement's tokens, layout and comments aside; None when it does not tokenize alone."""
    out: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source.strip("\r\n") + "\n").readline):
            if tok.type in _SKIPPED:
                continue
            if tok.type == tokenize.STRING and "\n" in tok.string:
                out.extend(tok.string.split("\n"))
            else:
                out.append(tok.string)
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return None
    return out


def carries(base: str, version: str, other: str, *, commutative: bool = False) -> bool:
    """Whether *version* already holds every edit *other* made to *base* (all three: a statement's source)."""
    b, v, o = tokens(base), tokens(version), tokens(other)
    if b is None or v is None or o is None:
        return False
    bc, vc, oc = Counter(b), Counter(v), Counter(o)
    for token in bc.keys() | oc.keys():
        if token == ",":
            continue  # a separator follows the elements; their order is checked below
        if oc[token] < bc[token] and vc[token] > oc[token]:
            return False  # other removed it; version kept more of it
        if oc[token] > bc[token] and vc[token] < oc[token]:
            return False  # other added it; version has fewer
    return commutative or _is_subsequence(o, v)


def _is_subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(token == x for x in it) for token in short)
