"""Collections merged element by element: order, sorting and separators.

The merge stage decides which elements a merged collection holds; these
are the rules about where they stand and how they are written:

- an ordered sequence (a list literal, positional arguments) follows diff3:
  edits that touch at one point have no right order (`ordered_clash`);
- a commutative collection sorted in base and on both sides stays sorted,
  as isort and ruff keep imported names (`keep_sorted`);
- every element gets a separator in one side's layout, so a bracketed
  import never loses its brackets while its names span lines
  (`fix_separators`);
- a conflict over some elements of a bracketed collection is marked around
  those elements alone (`Region`), inside the brackets: the rest of the
  statement merges, and each section between the markers reads as code in
  place.  An ordered sequence is cut into diff3's runs for that
  (`ordered_chunks`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from .conflicts import MergeConflict
from .match import ElementKey
from .order import side_map
from .result import Hand
from .tree import Texts


def bare(node: cst.CSTNode, texts: Texts) -> str:
    """An element's text without its trailing comma: becoming last is not an edit."""
    return texts.bare(node)


def ordered_clash(
    bl: Sequence[cst.CSTNode],
    ol: Sequence[cst.CSTNode],
    tl: Sequence[cst.CSTNode],
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

    def shape(xl: Sequence[cst.CSTNode], pairs: dict[int, int]) -> tuple[set[int], dict[int, list[str]]]:
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


def subsumes(big: Sequence[str], small: Sequence[str], base: Sequence[str]) -> bool:
    """Whether one side's edit of a run of an ordered sequence already holds the other side's.

    Both inserted `c` after `b`, and one also `d` after it; one side
    dropped `x` and the other dropped it and added `y`.  Taking *big*
    then loses nothing of *small*: what *small* added stands in *big*, in
    the same order, and what *small* removed *big* removed too.  diff3
    calls it a conflict because the two runs differ; there is no order to
    choose, since *big*'s order is *small*'s with more.
    """
    if not small and not base:
        return False  # nothing of small's to hold
    it = iter(big)
    if not all(any(x == y for y in it) for x in small):
        return False  # small's elements are not in big, in small's order
    dropped = Counter(base) - Counter(small)
    return not dropped - (Counter(base) - Counter(big))


def _sort_text(element: cst.CSTNode, texts: Texts) -> str:
    if isinstance(element, cst.ImportAlias):
        return texts.of(element.name)
    value = getattr(element, "value", None) or getattr(element, "decorator", None) or element
    if isinstance(value, cst.SimpleString):
        literal = value.evaluated_value
        return literal if isinstance(literal, str) else texts.of(value)
    return texts.of(value)


def _is_sorted(keys: Sequence[tuple[int, str, str]]) -> bool:
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


# Each order is a sort key of one shape, (rank, name, tie-break), so that
# keys of one order always compare.


def _by_type(name: str) -> tuple[int, str, str]:
    # isort's and ruff's default for imported names: CONSTANTS, Classes, then the rest.
    if name.isupper() and len(name) > 1:
        return (0, name, "")
    return (1, name, "") if name[:1].isupper() else (2, name, "")


def _plain(name: str) -> tuple[int, str, str]:
    return (0, name, "")


def _folded(name: str) -> tuple[int, str, str]:
    return (0, name.lower(), name)


# Tried in this order; the first that every version satisfies is the convention.
_SORT_ORDERS: tuple[Callable[[str], tuple[int, str, str]], ...] = (_by_type, _plain, _folded)


# One collection as base, ours and theirs have it.
Versions = tuple[Sequence[cst.CSTNode], Sequence[cst.CSTNode], Sequence[cst.CSTNode]]


def keep_sorted(merged: list[cst.CSTNode], versions: Versions, texts: Texts) -> list[cst.CSTNode]:
    """A commutative collection sorted in base and on both sides stays sorted.

    That is the convention isort and ruff enforce on imported names; the
    default, ours then theirs, would break it on every merge.
    """
    if max(len(seq) for seq in versions) < 2:
        return merged
    for order in _SORT_ORDERS:
        if all(_is_sorted([order(_sort_text(e, texts)) for e in seq]) for seq in versions):
            return sorted(merged, key=lambda e: order(_sort_text(e, texts)))
    return merged


def _comma(element: cst.CSTNode) -> cst.Comma | None:
    """The comma after an element, if it has one written."""
    comma = getattr(element, "comma", None)
    return comma if isinstance(comma, cst.Comma) else None


def _comma_style(comma: object, texts: Texts) -> Hashable:
    if not isinstance(comma, cst.Comma):
        return "none"
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace):
        return ("newline", texts.of(after.last_line), after.indent)
    return ("space", texts.of(after))


def fix_separators(
    merged: list[cst.CSTNode], versions: Versions, texts: Texts, layout_side: Hand, *, break_new: bool = False
) -> list[cst.CSTNode]:
    """Give every element a separator in the layout side's style (ours, unless too wide), keeping its line breaks.

    That layout wins whole, brackets included (see `Merger.merge_fields`):
    mixing one side's parentheses with the other side's line breaks is how
    a bracketed import loses its parentheses while its names still span
    lines.  The layout side's own elements keep their separators, so its
    line breaks stay where its author put them, and no two lines it had
    apart are ever joined:

    - an element from the other side that stands where layout elements the
      merge dropped stood (a renamed name) takes their separators;
    - one inserted after a layout element that ends a line goes on that
      line, at its end; one inserted after the last element goes on the
      last line;
    - with *break_new* (the merged line would be too wide), inserted
      elements start a new line instead.
    """
    bl, ol, tl = versions
    layout = (tl or ol or bl) if layout_side == "theirs" else (ol or tl or bl)
    if not layout:
        return merged
    sep: cst.Comma | cst.MaybeSentinel | None = next((c for c in map(_comma, layout[:-1]) if c is not None), None)
    if sep is None:
        sep = next(
            (c for seq in (ol, tl, bl) for c in map(_comma, seq[:-1]) if c is not None),
            cst.MaybeSentinel.DEFAULT,
        )
    last = getattr(layout[-1], "comma", cst.MaybeSentinel.DEFAULT)
    sep_style, last_style = _comma_style(sep, texts), _comma_style(last, texts)
    # The layout side's elements, and elements the merge built (from the
    # layout side's node, so with its separator): these keep theirs.
    originals = {id(x) for x in (*bl, *ol, *tl)}
    own = {id(e) for e in layout} | {id(e) for e in merged if id(e) not in originals}
    wanted = _line_breaks(merged, layout, own, texts, last_style, break_new)
    out = []
    for i, e in enumerate(merged):
        style = _comma_style(getattr(e, "comma", None), texts)
        if i == len(merged) - 1:
            want, want_style = last, last_style
        elif i in wanted:
            want = wanted[i]
            want_style = _comma_style(want, texts)
        elif id(e) in own and _comma(e) is not None and style != last_style:
            out.append(e)  # a separator of the layout's own, where its author put it
            continue
        else:
            want, want_style = sep, sep_style
        if style != want_style:
            e = e.with_changes(comma=want)
        out.append(e)
    return out


def _commented(comma: object) -> bool:
    after = getattr(comma, "whitespace_after", None)
    return isinstance(after, cst.ParenthesizedWhitespace) and after.first_line.comment is not None


def _breaks(comma: object) -> bool:
    return isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def _line_breaks(
    merged: Sequence[cst.CSTNode],
    layout: Sequence[cst.CSTNode],
    own: set[int],
    texts: Texts,
    last_style: Hashable,
    break_new: bool,
) -> dict[int, cst.Comma | cst.MaybeSentinel]:
    """The separators that keep the layout's line breaks around elements it does not have, by merged index.

    Only where the layout breaks lines at all; elsewhere the plain
    separator of `fix_separators` is right.
    """
    at = {id(e): k for k, e in enumerate(layout)}
    commas = [getattr(e, "comma", cst.MaybeSentinel.DEFAULT) for e in layout]
    newline = next((c for c in commas[:-1] if isinstance(c, cst.Comma) and _breaks(c)), None)
    if newline is None:
        return {}
    one_per_line = all(_breaks(c) for c in commas[:-1])
    out: dict[int, cst.Comma | cst.MaybeSentinel] = {}
    i = 0
    while i < len(merged):
        if id(merged[i]) in own:
            i += 1
            continue
        end = i
        while end < len(merged) and id(merged[end]) not in own:
            end += 1
        before = next((at[id(merged[k])] for k in range(i - 1, -1, -1) if id(merged[k]) in at), -1)
        after = next((at[id(merged[k])] for k in range(end, len(merged)) if id(merged[k]) in at), len(layout))
        if before >= after:
            i = end  # the merge reordered the layout's elements (kept sorted): no slots to speak of
            continue
        # In the place of elements the layout had there (a renamed name): their separators.
        slots = [k for k in range(before + 1, after) if k < len(layout) - 1]
        taken = list(zip(range(i, end), slots, strict=False))
        out.update((k, commas[slot]) for k, slot in taken)
        rest = list(range(i + len(taken), end))
        if rest and rest[0] > 0:
            _inserted(out, rest, merged, newline, texts, last_style, break_new, one_per_line)
        i = end
    return out


def _inserted(
    out: dict[int, cst.Comma | cst.MaybeSentinel],
    rest: list[int],
    merged: Sequence[cst.CSTNode],
    newline: cst.Comma,
    texts: Texts,
    last_style: Hashable,
    break_new: bool,
    one_per_line: bool,
) -> None:
    """Separators for elements inserted after the one before *rest*: at the end of its line, or each on a new one.

    Where the layout holds one element per line, or the break carries a
    comment about the element before it, the plain separator (a line
    break) already gives the inserted element a line of its own.
    """
    previous = rest[0] - 1
    comma = out.get(previous, getattr(merged[previous], "comma", cst.MaybeSentinel.DEFAULT))
    ends_line = _breaks(comma) and _comma_style(comma, texts) != last_style
    inner = [k for k in rest if k != len(merged) - 1]
    if break_new:
        # On a line of their own, together: the line before keeps its width.
        out[previous] = newline
    elif ends_line and inner and not one_per_line and not _commented(comma):
        # The break the previous element ended its line with moves past the insertion.
        assert isinstance(comma, cst.Comma)
        out[previous] = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        out[inner[-1]] = comma


@dataclass
class Region:
    """Elements in conflict inside one collection: each side's run and base's, with why."""

    ours: list[cst.CSTNode]
    base: list[cst.CSTNode]
    theirs: list[cst.CSTNode]
    conflict: MergeConflict
    number: int = field(default=-1)

    @property
    def template(self) -> cst.CSTNode:
        """An element of the collection, to build the sentinel that stands in for the region."""
        return next(x for version in (self.ours, self.base, self.theirs) for x in version)


def bracketed(parent: cst.CSTNode, name: str, versions: Sequence[Sequence[cst.CSTNode]]) -> bool:
    """Whether a conflict in this collection can be marked inside its brackets.

    Markers take lines of their own, so the collection must allow line
    breaks wherever an element stands: a list, set, dict or call, a
    parenthesised tuple, bases of a class with parentheses, an import's
    names in parentheses.  Parameters stay with the header conflict of
    their definition, whose `*` and `/` markers do not move.
    """
    if not any(versions):
        return False
    if isinstance(parent, (cst.List, cst.Set, cst.Dict)):
        return name == "elements"
    if isinstance(parent, cst.Call):
        return name == "args"
    if isinstance(parent, cst.Tuple):
        return name == "elements" and bool(parent.lpar)
    if isinstance(parent, cst.ImportFrom):
        return name == "names" and parent.lpar is not None
    if isinstance(parent, cst.ClassDef):
        return name in ("bases", "keywords") and isinstance(parent.lpar, cst.LeftParen)
    return False


def region_sentinel(template: cst.CSTNode, name: str, before: Sequence[object]) -> cst.CSTNode:
    """An element of *template*'s kind that is only the sentinel *name*, valid Python where it stands.

    Among arguments it is `**name` once a keyword argument precedes it
    (a positional argument may not follow one), and in a dict `**name`.
    """
    sentinel = cst.Name(name)
    if isinstance(template, cst.Arg):
        after_keywords = any(isinstance(a, cst.Arg) and (a.keyword is not None or a.star == "**") for a in before)
        return cst.Arg(value=sentinel, star="**" if after_keywords else "")
    if isinstance(template, (cst.DictElement, cst.StarredDictElement)):
        return cst.StarredDictElement(value=sentinel)
    if isinstance(template, cst.ImportAlias):
        return cst.ImportAlias(name=sentinel)
    return cst.Element(value=sentinel)


def holding(parent: cst.CSTNode, name: str, elements: Sequence[cst.CSTNode]) -> cst.CSTNode:
    """*parent* holding *elements* in field *name*, cut to what parses alone (a class to its header)."""
    node: cst.CSTNode = parent.with_changes(**{name: elements})
    if isinstance(node, cst.ClassDef):
        node = node.with_changes(body=cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])]))
    return node


# (whether it is one element both sides kept, base's run, ours', theirs')
Chunk = tuple[bool, list[cst.CSTNode], list[cst.CSTNode], list[cst.CSTNode]]


def ordered_chunks(
    bl: Sequence[cst.CSTNode],
    ol: Sequence[cst.CSTNode],
    tl: Sequence[cst.CSTNode],
    po: dict[int, int],
    pt: dict[int, int],
) -> list[Chunk] | None:
    """An ordered sequence cut as diff3 cuts lines: elements both sides kept, and the runs between them.

    None when a side's pairing is out of order (a keyword argument moved):
    then there are no runs to speak of.
    """
    for pairs in (po, pt):
        order = [pairs[i] for i in sorted(pairs)]
        if any(a >= b for a, b in zip(order, order[1:], strict=False)):
            return None
    kept = [i for i in sorted(po) if i in pt]
    chunks: list[Chunk] = []
    pb = po_prev = pt_prev = -1
    for i in [*kept, len(bl)]:
        oi, ti = (po[i], pt[i]) if i < len(bl) else (len(ol), len(tl))
        run = (list(bl[pb + 1 : i]), list(ol[po_prev + 1 : oi]), list(tl[pt_prev + 1 : ti]))
        if any(run):
            chunks.append((False, *run))
        if i < len(bl):
            chunks.append((True, [bl[i]], [ol[oi]], [tl[ti]]))
        pb, po_prev, pt_prev = i, oi, ti
    return chunks
