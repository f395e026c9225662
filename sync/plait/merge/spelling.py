"""Whether a piece of source can be re-spelled without changing its syntax.

Identity keys (an assignment's target, a branch's test, an entry of a list)
must survive cosmetic edits: `kw['hook']` re-quoted to `kw["hook"]` is the
same target.  Comparing syntax means parsing or dumping a syntax tree, which
costs far more than comparing text; most keys (`self.mode == mode`, a name)
have no quotes, comments or line breaks to re-spell, so their text is
enough.  Spacing is the one variation left, and the engine has always read a
re-spaced key as an edit.
"""

from __future__ import annotations

# Characters that start a spelling choice: a string's quotes and escapes, a
# comment, a line break inside brackets.
_RESPELLABLE = frozenset("'\"#\\\n\r")


def has_one_spelling(text: str) -> bool:
    """True when *text* holds nothing a cosmetic edit could re-spell but its spacing."""
    return _RESPELLABLE.isdisjoint(text)
