"""Collections merged element by element: order, sorting and separators.

The merge stage decides which elements a merged collection holds; these
are the rules about where they stand and how they are written:

- an ordered sequence (a list literal, positional arguments) follows diff3:
  edits that touch at one point have no right order (`ordered_clash`);
- a commutative collection sorted in base and on both sides stays sorted,
  as isort and ruff keep imported names (`keep_sorted`);
- every element gets a separator in one side's layout, so a bracketed
  import never loses its brackets while its names span lines
  (`fix_separators`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import libcst as cst

from .match import ElementKey
from .order import side_map
from .result import Hand
from .tree import Texts


def bare(node: Any, texts: Texts) -> str:
    """An element's text without its trailing comma: becoming last is not an edit."""
    if isinstance(getattr(node, "comma", None), cst.Comma):
        return texts.fresh(node.with_changes(comma=cst.MaybeSentinel.DEFAULT))
    return texts.of(node)


def ordered_clash(
    bl: Sequence[Any],
    ol: Sequence[Any],
    tl: Sequence[Any],
    po: dict[int, int],
    pt: dict[int, int],
    key: ElementKey,
    texts: Texts,
) -> str:
    """How edits to an ordered sequence collide, as diff3 would say ("" when they do not).

    In a list literal or positional arguments, position is meaning: an
    element one side inserts next to an element the other side deleted,
    or two different insertions at one point, have no right order.
    Keyed elements (keyword arguments) commute and are left out.
    """

    def shape(xl: Sequence[Any], pairs: dict[int, int]) -> tuple[set[int], dict[int, list[str]]]:
        deleted = {i for i in range(len(bl)) if i not in pairs and key(bl[i]) is None}
        inserted: dict[int, list[str]] = {}
        gap = 0
        for j, bi in enumerate(side_map(pairs, len(xl))):
            if bi is not None:
                gap = bi + 1
            elif key(xl[j]) is None:
                inserted.setdefault(gap, []).append(bare(xl[j], texts))
        return deleted, inserted

    o_deleted, o_inserted = shape(ol, po)
    t_deleted, t_inserted = shape(tl, pt)
    if any(o_inserted[g] != t_inserted[g] for g in o_inserted.keys() & t_inserted.keys()):
        return "both insert different elements at one position of an ordered sequence"
    for inserter, inserted, deleted in (("ours", o_inserted, t_deleted), ("theirs", t_inserted, o_deleted)):
        if any(g - 1 in deleted or g in deleted for g in inserted):
            deleter = "theirs" if inserter == "ours" else "ours"
            return f"{inserter} inserts next to an element {deleter} deletes, in an ordered sequence"
    return ""


def _sort_text(element: Any, texts: Texts) -> str:
    if isinstance(element, cst.ImportAlias):
        return texts.of(element.name)
    value = getattr(element, "value", None) or getattr(element, "decorator", None) or element
    if isinstance(value, cst.SimpleString):
        literal = value.evaluated_value
        return literal if isinstance(literal, str) else texts.of(value)
    return texts.of(value)


def _is_sorted(keys: list[Any]) -> bool:
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _by_type(name: str) -> tuple[int, str]:
    # isort's and ruff's default for imported names: CONSTANTS, Classes, then the rest.
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def _plain(name: str) -> str:
    return name


def _folded(name: str) -> tuple[str, str]:
    return (name.lower(), name)


# Tried in this order; the first that every version satisfies is the convention.
_SORT_ORDERS: tuple[Callable[[str], Any], ...] = (_by_type, _plain, _folded)


def keep_sorted(merged: list[Any], bl: Sequence[Any], ol: Sequence[Any], tl: Sequence[Any], texts: Texts) -> list[Any]:
    """A commutative collection sorted in base and on both sides stays sorted.

    That is the convention isort and ruff enforce on imported names; the
    default, ours then theirs, would break it on every merge.
    """
    if max(len(bl), len(ol), len(tl)) < 2:
        return merged
    for order in _SORT_ORDERS:
        if all(_is_sorted([order(_sort_text(e, texts)) for e in seq]) for seq in (bl, ol, tl)):
            return sorted(merged, key=lambda e: order(_sort_text(e, texts)))
    return merged


def _comma_style(comma: Any, texts: Texts) -> Hashable:
    if not isinstance(comma, cst.Comma):
        return "none"
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace):
        return ("newline", texts.of(after.last_line), after.indent)
    return ("space", texts.of(after))


def fix_separators(
    merged: list[Any], bl: Sequence[Any], ol: Sequence[Any], tl: Sequence[Any], texts: Texts, layout_side: Hand
) -> list[Any]:
    """Give every element a separator in the layout side's style (ours, unless too wide).

    That layout wins whole, brackets included (see `Merger.merge_fields`):
    an element inserted from the other side, or one that stopped being last,
    takes the layout's usual separator.  Mixing one side's parentheses with
    the other side's line breaks is how a bracketed import loses its
    parentheses while its names still span lines.  The layout side's own
    elements keep their separators: a call wrapped by hand after its third
    argument stays wrapped there.
    """
    layout = (tl or ol or bl) if layout_side == "theirs" else (ol or tl or bl)
    if not layout:
        return merged
    sep: Any = next((e.comma for e in layout[:-1] if isinstance(e.comma, cst.Comma)), None)
    if sep is None:
        sep = next(
            (e.comma for seq in (ol, tl, bl) for e in seq[:-1] if isinstance(e.comma, cst.Comma)),
            cst.MaybeSentinel.DEFAULT,
        )
    last = layout[-1].comma
    sep_style, last_style = _comma_style(sep, texts), _comma_style(last, texts)
    # The layout side's elements, and elements the merge built (from the
    # layout side's node, so with its separator): these keep theirs.
    originals = {id(x) for x in (*bl, *ol, *tl)}
    own = {id(e) for e in layout} | {id(e) for e in merged if id(e) not in originals}
    out = []
    for i, e in enumerate(merged):
        style = _comma_style(e.comma, texts)
        if i == len(merged) - 1:
            want, want_style = last, last_style
        elif id(e) in own and isinstance(e.comma, cst.Comma) and style != last_style:
            out.append(e)  # a separator of the layout's own, where its author put it
            continue
        else:
            want, want_style = sep, sep_style
        if style != want_style:
            e = e.with_changes(comma=want)
        out.append(e)
    return out
