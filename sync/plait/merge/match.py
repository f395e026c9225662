"""Stage 2, match: pair base nodes with their versions on one side.

Keys first (names, import modules, assignment targets, branch tests), then
the longest common subsequence of unchanged text, then similarity only inside
the gaps that are left, so nothing goes quadratic on big modules.  Last, the
statements one side deleted are paired with statements that side added
anywhere else: that is a move, and the other side's edits follow the block to
its new home.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Hashable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TypeVar

import libcst as cst
from libcst.helpers import get_full_name_for_node

from .tree import (
    Texts,
    block_body,
    body_keys,
    branch_key,
    case_key,
    child_bodies,
    handler_key,
    if_chain,
    imported_names,
    kind_of,
    nested_bodies,
    statement_key,
)

N = TypeVar("N", bound=cst.CSTNode)

# Below this many words a statement (`return None`) is too generic to call a move.
MOVE_MIN_WORDS = 6
MOVE_MIN_SIMILARITY = 0.5
MOVE_MIN_SIMILARITY_KEYED = 0.25
GAP_MIN_SIMILARITY = 0.2


class BudgetExceeded(Exception):
    """The per-file time budget ran out; the caller falls back to a line merge."""


@dataclass
class Deadline:
    at: float

    def check(self) -> None:
        if time.perf_counter() > self.at:
            raise BudgetExceeded


SequenceKeys = Callable[[Sequence[N]], list[Hashable | None]]


def each(key: Callable[[N], Hashable | None]) -> SequenceKeys[N]:
    """Keys of a sequence whose elements are keyed one by one, position aside."""
    return lambda seq: [key(n) for n in seq]


def match_sequence(
    base: Sequence[N],
    side: Sequence[N],
    texts: Texts,
    keys: SequenceKeys[N],
    *,
    pair_gaps: bool = True,
) -> dict[int, int]:
    """Pair positions of `base` with positions of `side`: {base index: side index}.

    Unique keys pair regardless of position; unkeyed elements pair along the
    longest run of unchanged text; with `pair_gaps`, what is left pairs within
    its gap by kind and similarity, so an edited `return` stays one edit
    instead of a deletion plus an addition.  Commutative collections turn gap
    pairing off: there, a different element is a different element.
    """
    pairs: dict[int, int] = {}
    bkeys = keys(base)
    skeys = keys(side)
    bcount: dict[Hashable, int] = {}
    scount: dict[Hashable, int] = {}
    for k in bkeys:
        if k is not None:
            bcount[k] = bcount.get(k, 0) + 1
    for k in skeys:
        if k is not None:
            scount[k] = scount.get(k, 0) + 1
    side_by_key = {k: j for j, k in enumerate(skeys) if k is not None and scount[k] == 1}
    for i, k in enumerate(bkeys):
        if k is not None and bcount[k] == 1 and k in side_by_key:
            pairs[i] = side_by_key[k]
    taken = set(pairs.values())

    rest_b = [i for i in range(len(base)) if i not in pairs]
    rest_s = [j for j in range(len(side)) if j not in taken]
    if rest_b and rest_s:
        sm = SequenceMatcher(
            None, [texts.bare(base[i]) for i in rest_b], [texts.bare(side[j]) for j in rest_s], autojunk=False
        )
        for a, b, size in sm.get_matching_blocks():
            for d in range(size):
                pairs[rest_b[a + d]] = rest_s[b + d]
                taken.add(rest_s[b + d])
    if pair_gaps:
        _pair_gaps(base, side, texts, pairs, taken, bkeys, skeys)
    return pairs


_NAME_KEYS = {("def",), ("from",), ("import",), ("assign",)}


def _may_pair(bkey: Hashable | None, skey: Hashable | None, b: cst.CSTNode, x: cst.CSTNode) -> bool:
    """Whether two leftover elements could be one element, edited.

    A def, class, import or assignment target is its name: with another name
    it is another element, however alike the bodies (deleting `parse` and
    adding `render` is not an edit of `parse`).  A branch's key is its test,
    and an edited test is still the same branch.
    """
    if kind_of(b) != kind_of(x):
        return False
    if bkey is None or skey is None or bkey == skey:
        return True
    if isinstance(bkey, tuple) and bkey[:1] == ("from",):
        # An import is its module and its names: the same names from
        # another module is that import, edited (`.a` became `.b`).
        names = imported_names(b)
        return names is not None and names == imported_names(x)
    return not (isinstance(bkey, tuple) and bkey[:1] in _NAME_KEYS)


def _pair_gaps(
    base: Sequence[N],
    side: Sequence[N],
    texts: Texts,
    pairs: dict[int, int],
    taken: set[int],
    bkeys: list[Hashable | None],
    skeys: list[Hashable | None],
) -> None:
    unmatched = [i for i in range(len(base)) if i not in pairs]
    if not unmatched:
        return
    # The side window a base element may pair within: between the side
    # positions of its nearest paired neighbours.
    prev_side = [-1] * len(base)
    last = -1
    for i in range(len(base)):
        if i in pairs:
            last = max(last, pairs[i])
        prev_side[i] = last
    next_side = [len(side)] * len(base)
    nxt = len(side)
    for i in range(len(base) - 1, -1, -1):
        if i in pairs:
            nxt = min(nxt, pairs[i])
        next_side[i] = nxt
    paired_last = -1
    for n, i in enumerate(unmatched):
        # A pair made in this pass bounds the next ones too: pairs never cross.
        lo, hi = max(prev_side[i], paired_last), next_side[i]
        best, best_sim = None, -1.0
        window = [j for j in range(lo + 1, hi) if j not in taken and _may_pair(bkeys[i], skeys[j], base[i], side[j])]
        for j in window:
            sim = texts.similarity(base[i], side[j])
            if sim > best_sim:
                best, best_sim = j, sim
        if best is None:
            continue
        if _closer_later(base, side, texts, unmatched[n + 1 :], best, best_sim, (prev_side, next_side), (bkeys, skeys)):
            continue
        if best_sim >= GAP_MIN_SIMILARITY or len(window) == 1:
            pairs[i] = best
            taken.add(best)
            paired_last = best


# How many later leftovers of one gap are asked whether they fit a side element better.
_RIVALS = 16


def _closer_later(
    base: Sequence[N],
    side: Sequence[N],
    texts: Texts,
    later: Sequence[int],
    j: int,
    sim: float,
    bounds: tuple[list[int], list[int]],
    keys: tuple[list[Hashable | None], list[Hashable | None]],
) -> bool:
    """Whether a later leftover of base in the same gap is more like side element *j* than the one at hand.

    Base holds two `try` blocks and the side one, the second edited: the
    first leftover must not take it because it comes first (then the
    second reads as deleted, and the first as rewritten into it).
    """
    prev_side, next_side = bounds
    bkeys, skeys = keys
    for i in later[:_RIVALS]:
        if not prev_side[i] < j < next_side[i]:
            break
        if _may_pair(bkeys[i], skeys[j], base[i], side[j]) and texts.similarity(base[i], side[j]) > sim:
            return True
    return False


ElementKey = Callable[[cst.CSTNode], Hashable | None]


def element_policy(
    parent: cst.CSTNode, field: str, texts: Texts, commutative: Container[int]
) -> tuple[ElementKey, bool]:
    """How the elements of a sequence field pair: a key function, and whether leftovers may pair by similarity.

    Keyed fields are commutative collections: an element is its key, and a
    different key is a different element.  `commutative` holds the ids of
    list and tuple literals that are data (``__all__``); every other list,
    tuple and positional argument list is ordered and pairs like statements.
    Each key names the element kind it reads; any other node has no key.
    """
    t = texts

    def value(node: cst.CSTNode) -> str:
        # By syntax, so a re-quoted entry is still the same entry.
        return t.syntax(node) or t.of(node)

    def imported(a: cst.CSTNode) -> Hashable | None:
        if not isinstance(a, cst.ImportAlias):
            return None
        return t.of(a.name) + (" as " + t.of(a.asname.name) if a.asname else "")

    def entry(e: cst.CSTNode) -> Hashable | None:
        if isinstance(e, cst.DictElement):
            return value(e.key)
        return "**" + value(e.value) if isinstance(e, cst.StarredDictElement) else None

    def element(e: cst.CSTNode) -> Hashable | None:
        return value(e.value) if isinstance(e, cst.BaseElement) else None

    def argument(a: cst.CSTNode) -> Hashable | None:
        if not isinstance(a, cst.Arg):
            return None
        if a.keyword is not None:
            return ("kw", a.keyword.value)
        return ("star", a.star, t.of(a.value)) if a.star else None

    def base(a: cst.CSTNode) -> Hashable | None:
        return value(a.value) if isinstance(a, cst.Arg) else None

    def class_keyword(a: cst.CSTNode) -> Hashable | None:
        if not isinstance(a, cst.Arg):
            return None
        return a.keyword.value if a.keyword is not None else t.of(a.value)

    def decorator(d: cst.CSTNode) -> Hashable | None:
        # A decorator is its callee: `@cache` and `@cache(maxsize=8)` are one decorator.
        if not isinstance(d, cst.Decorator):
            return None
        return get_full_name_for_node(d.decorator) or t.of(d.decorator)

    def parameter(p: cst.CSTNode) -> Hashable | None:
        return p.name.value if isinstance(p, cst.Param) else None

    def handler(h: cst.CSTNode) -> Hashable | None:
        return handler_key(h, t) if isinstance(h, (cst.ExceptHandler, cst.ExceptStarHandler)) else None

    def case(c: cst.CSTNode) -> Hashable | None:
        return case_key(c, t) if isinstance(c, cst.MatchCase) else None

    if isinstance(parent, (cst.ImportFrom, cst.Import)) and field == "names":
        return imported, False
    if isinstance(parent, cst.Dict) and field == "elements":
        return entry, False
    if isinstance(parent, cst.Set) and field == "elements":
        return element, False
    if isinstance(parent, (cst.List, cst.Tuple)) and field == "elements" and id(parent) in commutative:
        return element, False
    if isinstance(parent, cst.Call) and field == "args":
        return argument, True
    if isinstance(parent, cst.ClassDef) and field == "bases":
        return base, False
    if isinstance(parent, cst.ClassDef) and field == "keywords":
        return class_keyword, False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and field == "decorators":
        return decorator, False
    if isinstance(parent, cst.Parameters) and field in ("params", "kwonly_params", "posonly_params"):
        return parameter, False
    if isinstance(parent, (cst.Try, cst.TryStar)) and field == "handlers":
        return handler, True
    if isinstance(parent, cst.Match) and field == "cases":
        return case, True
    return unkeyed, True


def unkeyed(_node: cst.CSTNode) -> Hashable | None:
    """The key of an element that has none: it pairs by position and text."""
    return None


Branch = cst.If | cst.Else


def branch_pairs(b: cst.If, x: cst.If, texts: Texts) -> tuple[list[Branch], list[Branch], dict[int, int]]:
    bc, xc = if_chain(b), if_chain(x)
    return bc, xc, match_sequence(bc, xc, texts, each(lambda n: branch_key(n, texts)))


Handler = cst.ExceptHandler | cst.ExceptStarHandler


def handler_pairs(b: cst.Try | cst.TryStar, x: cst.Try | cst.TryStar, texts: Texts) -> dict[int, int]:
    bh: Sequence[Handler] = b.handlers
    xh: Sequence[Handler] = x.handlers
    return match_sequence(bh, xh, texts, each(lambda h: handler_key(h, texts)))


def paired_bodies(
    b: cst.CSTNode, x: cst.CSTNode, texts: Texts
) -> list[tuple[Sequence[cst.BaseStatement], Sequence[cst.BaseStatement]]]:
    """The statement bodies of two versions of one compound statement, paired.

    Branches and except clauses pair exactly as the merge stage will pair
    them, so matched statements inside them are the ones the merge meets.
    """
    if type(b) is not type(x):
        return []
    out: list[tuple[Sequence[cst.BaseStatement], Sequence[cst.BaseStatement]]] = []
    if isinstance(b, cst.If) and isinstance(x, cst.If):
        bc, xc, pairs = branch_pairs(b, x, texts)
        for i, j in pairs.items():
            bb, xb = block_body(bc[i].body), block_body(xc[j].body)
            if bb is not None and xb is not None:
                out.append((bb, xb))
        return out
    if isinstance(b, (cst.Try, cst.TryStar)) and isinstance(x, (cst.Try, cst.TryStar)):
        for i, j in handler_pairs(b, x, texts).items():
            bb, xb = block_body(b.handlers[i].body), block_body(x.handlers[j].body)
            if bb is not None and xb is not None:
                out.append((bb, xb))
    if isinstance(b, cst.Match) and isinstance(x, cst.Match):
        pairs = match_sequence(b.cases, x.cases, texts, each(lambda c: case_key(c, texts)))
        for i, j in pairs.items():
            bb, xb = block_body(b.cases[i].body), block_body(x.cases[j].body)
            if bb is not None and xb is not None:
                out.append((bb, xb))
        return out
    bslots = {slot: body for slot, body in child_bodies(b, texts) if slot[0] != "except"}
    for slot, xbody in child_bodies(x, texts):
        if slot[0] != "except" and slot in bslots:
            out.append((bslots[slot], xbody))
    return out


def _ancestry(node: cst.BaseStatement, parents: dict[int, cst.BaseStatement]) -> list[cst.BaseStatement]:
    """Enclosing statements, nearest first."""
    out = []
    cur = parents.get(id(node))
    while cur is not None:
        out.append(cur)
        cur = parents.get(id(cur))
    return out


def _def_name(ancestry: list[cst.BaseStatement]) -> str:
    return next((a.name.value for a in ancestry if isinstance(a, cst.FunctionDef)), "")


def _name_affinity(a: str, b: str) -> bool:
    """`embed` and `embed_with_outcome`: a block tends to move into a function named after its old home."""
    return bool(a and b) and (a in b or b in a)


@dataclass
class SideMatch:
    """Base statements paired with one side's statements, moves included."""

    fwd: dict[int, cst.BaseStatement] = field(default_factory=dict)
    back: dict[int, cst.BaseStatement] = field(default_factory=dict)
    # ids of base statements whose partner stands in another body (moved).
    moved: set[int] = field(default_factory=set)
    # ids of side statements that hold a move destination somewhere inside.
    holds_move: set[int] = field(default_factory=set)

    def pair(self, b: cst.BaseStatement, x: cst.BaseStatement) -> None:
        self.fwd[id(b)] = x
        self.back[id(x)] = b

    def partner(self, b: cst.BaseStatement) -> cst.BaseStatement | None:
        return self.fwd.get(id(b))

    def origin(self, x: cst.BaseStatement) -> cst.BaseStatement | None:
        return self.back.get(id(x))


class StatementMatcher:
    """Pairs every statement of a base module with one side's module."""

    def __init__(self, texts: Texts, deadline: Deadline) -> None:
        self.texts = texts
        self.deadline = deadline
        # Keys depend on a statement's place in its body (see `body_keys`),
        # so they are computed per body and looked up per statement.
        self._keys: dict[int, tuple[cst.BaseStatement, Hashable | None]] = {}

    def keys_of(self, body: Sequence[cst.BaseStatement]) -> list[Hashable | None]:
        keys: list[Hashable | None] = list(body_keys(body, self.texts))
        for stmt, key in zip(body, keys, strict=True):
            self._keys[id(stmt)] = (stmt, key)
        return keys

    def key(self, stmt: cst.BaseStatement) -> Hashable | None:
        hit = self._keys.get(id(stmt))
        if hit is not None and hit[0] is stmt:
            return hit[1]
        return statement_key(stmt, self.texts)

    def match(self, base: cst.Module, side: cst.Module) -> SideMatch:
        m = SideMatch()
        self._match_bodies(base.body, side.body, m)
        # A move pairs blocks, and the blocks' insides then pair like any
        # other pair; that can expose moves nested deeper, hence a few rounds.
        for _round in range(3):
            if not self._find_moves(base.body, side.body, m):
                break
        return m

    def _match_bodies(
        self, bbody: Sequence[cst.BaseStatement], xbody: Sequence[cst.BaseStatement], m: SideMatch
    ) -> None:
        self.deadline.check()
        pairs = match_sequence(bbody, xbody, self.texts, self.keys_of)
        for i, j in pairs.items():
            m.pair(bbody[i], xbody[j])
        for i, j in pairs.items():
            self._descend(bbody[i], xbody[j], m)

    def _descend(self, b: cst.BaseStatement, x: cst.BaseStatement, m: SideMatch) -> None:
        if self.texts.of(b) == self.texts.of(x):
            # Identical subtrees still pair statement by statement: the other
            # side may move a block out of this one (extract a helper, wrap a
            # statement), and a statement without a partner here would read
            # as "this side deleted it".
            self._pair_identical(b, x, m)
            return
        for bb, xb in paired_bodies(b, x, self.texts):
            self._match_bodies(bb, xb, m)

    def _pair_identical(self, b: cst.BaseStatement, x: cst.BaseStatement, m: SideMatch) -> None:
        stack = [(b, x)]
        while stack:
            bs, xs = stack.pop()
            for bbody, xbody in zip(nested_bodies(bs), nested_bodies(xs), strict=True):
                for bi, xi in zip(bbody, xbody, strict=True):
                    m.pair(bi, xi)
                    stack.append((bi, xi))

    # -- moves -------------------------------------------------------------------
    def _unpaired(
        self,
        body: Sequence[cst.BaseStatement],
        counterpart: Callable[[cst.BaseStatement], cst.BaseStatement | None],
        out: list[cst.BaseStatement],
        parents: dict[int, cst.BaseStatement],
        parent: cst.BaseStatement | None = None,
    ) -> None:
        """Statements of *body*, at any depth, with no counterpart: base's orphans or a side's newcomers.

        Subtrees whose counterpart is identical are skipped whole; *parents*
        records the enclosing statement of everything visited below them.
        """
        self.keys_of(body)
        for s in body:
            other = counterpart(s)
            if other is not None and self.texts.of(other) == self.texts.of(s):
                continue
            if parent is not None:
                parents[id(s)] = parent
            if other is None:
                out.append(s)
            for _slot, inner in child_bodies(s, self.texts):
                self._unpaired(inner, counterpart, out, parents, s)

    def _find_moves(self, bbody: Sequence[cst.BaseStatement], xbody: Sequence[cst.BaseStatement], m: SideMatch) -> bool:
        orphans: list[cst.BaseStatement] = []
        newcomers: list[cst.BaseStatement] = []
        parents: dict[int, cst.BaseStatement] = {}
        orphan_parents: dict[int, cst.BaseStatement] = {}
        self._unpaired(bbody, m.partner, orphans, orphan_parents)
        self._unpaired(xbody, m.origin, newcomers, parents)
        if not orphans or not newcomers:
            return False
        by_kind: dict[str, list[cst.BaseStatement]] = {}
        for n in newcomers:
            if self.texts.size(n) >= MOVE_MIN_WORDS:
                by_kind.setdefault(kind_of(n), []).append(n)
        used: set[int] = set()
        found = []
        paired_orphans: set[int] = set()
        for o in orphans:
            self.deadline.check()
            if self.texts.size(o) < MOVE_MIN_WORDS or self._inside(o, paired_orphans, orphan_parents):
                continue
            okey = self.key(o)
            home = _ancestry(o, orphan_parents)
            home_depth = {id(a): len(home) - i for i, a in enumerate(home)}
            home_name = _def_name(home)
            best, best_score = None, None
            for n in by_kind.get(kind_of(o), ()):
                if id(n) in used or not _may_pair(okey, self.key(n), o, n):
                    continue
                keyed = okey is not None and okey == self.key(n)
                sim = self.texts.similarity(o, n)
                if sim < (MOVE_MIN_SIMILARITY_KEYED if keyed else MOVE_MIN_SIMILARITY):
                    continue
                # Where a block lands matters more than how alike it looks:
                # several classes moving the same-shaped block into their own
                # new methods must each get their own block back.
                there = _ancestry(n, parents)
                locality = next(
                    (home_depth[id(b)] for b in (m.origin(a) for a in there) if b is not None and id(b) in home_depth),
                    0,
                )
                affinity = _name_affinity(home_name, _def_name(there))
                score = (locality, affinity, keyed, sim)
                if best_score is None or score > best_score:
                    best, best_score = n, score
            if best is None:
                continue
            used.add(id(best))
            # Everything inside the chosen block pairs by descent, not as moves.
            stack = [best]
            while stack:
                cur = stack.pop()
                used.add(id(cur))
                for _slot, inner in child_bodies(cur, self.texts):
                    stack.extend(inner)
            m.pair(o, best)
            m.moved.add(id(o))
            paired_orphans.add(id(o))
            found.append((o, best))
            anc = parents.get(id(best))
            while anc is not None:
                m.holds_move.add(id(anc))
                anc = parents.get(id(anc))
        for o, n in found:
            self._descend(o, n, m)
        return bool(found)

    @staticmethod
    def _inside(node: cst.BaseStatement, ids: set[int], parents: dict[int, cst.BaseStatement]) -> bool:
        anc = parents.get(id(node))
        while anc is not None:
            if id(anc) in ids:
                return True
            anc = parents.get(id(anc))
        return False
