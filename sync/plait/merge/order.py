"""Sequence order: how base, ours and theirs elements interleave in a merge.

Pure bookkeeping over indices, shared by the merge stage (statement bodies,
branches, collections) and the inventory (definitions a side reordered), so
it knows nothing about syntax trees.
"""

from __future__ import annotations

import bisect
from collections.abc import Container, Iterator, Sequence

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from typing import Literal, TypeVar

    T = TypeVar("T")
    Origin = Literal["base", "ours", "theirs"]
else:
    Origin = str
Slot = tuple[Origin, int]


def lis_members(seq: Sequence[int]) -> set[int]:
    """Values on one longest increasing subsequence: the ones that did not move."""
    tails: list[int] = []
    tail_idx: list[int] = []
    prev = [-1] * len(seq)
    for i, v in enumerate(seq):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_idx.append(i)
        else:
            tails[k] = v
            tail_idx[k] = i
        prev[i] = tail_idx[k - 1] if k else -1
    out: set[int] = set()
    i = tail_idx[-1] if tail_idx else -1
    while i >= 0:
        out.add(seq[i])
        i = prev[i]
    return out


def side_map(pairs: dict[int, int], length: int) -> list[int | None]:
    """For each position of a side, the base position it pairs with (None: added)."""
    out: list[int | None] = [None] * length
    for i, j in pairs.items():
        out[j] = i
    return out


def sequence_order(
    nb: int,
    o_map: Sequence[int | None],
    t_map: Sequence[int | None],
    free: Container[tuple[Origin, int]] = (),
) -> list[Slot]:
    """Interleave base, ours and theirs elements into one order.

    Ours' order is primary.  Theirs' additions (and the base elements theirs
    moved) go right after their preceding neighbour in theirs, past any of
    ours' additions at that spot: when both insert at the same place, ours
    comes first, then theirs.

    `free` names elements whose position carries no meaning (definitions
    among definitions).  A free addition of theirs that stands where theirs
    deleted free base elements does not replace them in place: it goes after
    them, so that two sides appending definitions at one end of a module
    still read ours first when theirs also deleted the last one.
    """
    seq: list[Slot] = [("base", bi) if bi is not None else ("ours", j) for j, bi in enumerate(o_map)]
    in_seq = {bi for bi in o_map if bi is not None}
    t_has = {bi for bi in t_map if bi is not None}
    for bi in range(nb):
        # Ours dropped it but theirs kept it: decide (delete, or conflict) where it stood.
        if bi in in_seq or bi not in t_has:
            continue
        pos = 0
        for prev in range(bi - 1, -1, -1):
            if prev in in_seq:
                pos = seq.index(("base", prev)) + 1
                break
        while pos < len(seq) and seq[pos][0] == "ours":
            pos += 1
        seq.insert(pos, ("base", bi))
        in_seq.add(bi)
    t_order = [bi for bi in t_map if bi is not None]
    o_order = [bi for bi in o_map if bi is not None]
    relocated = set(t_order) - lis_members(t_order)
    relocated &= lis_members(o_order)
    for bi in relocated:
        seq.remove(("base", bi))
    prev_slot: Slot | None = None
    for j, tbi in enumerate(t_map):
        if tbi is not None and tbi not in relocated:
            prev_slot = ("base", tbi)
            continue
        slot: Slot = ("theirs", j) if tbi is None else ("base", tbi)
        if tbi is None and ("theirs", j) in free:
            prev_slot = _past_deleted(prev_slot, seq, t_has, free)
        pos = seq.index(prev_slot) + 1 if prev_slot is not None else 0
        while pos < len(seq) and seq[pos][0] == "ours":
            pos += 1
        seq.insert(pos, slot)
        prev_slot = slot
    return seq


def _past_deleted(
    anchor: Slot | None, seq: list[Slot], t_has: set[int], free: Container[tuple[Origin, int]]
) -> Slot | None:
    """The last of the free base elements theirs deleted right after *anchor*, or *anchor*."""
    after = anchor[1] + 1 if anchor is not None and anchor[0] == "base" else (0 if anchor is None else None)
    if after is None:
        return anchor
    while after not in t_has and ("base", after) in free and ("base", after) in seq:
        anchor = ("base", after)
        after += 1
    return anchor


def aligned(
    bl: Sequence[T], ol: Sequence[T], tl: Sequence[T], po: dict[int, int], pt: dict[int, int]
) -> Iterator[tuple[Origin, T, T | None, T | None]]:
    """Walk three paired sequences in merged order.

    Yields ("base", b, ours version or None, theirs version or None) for a
    base element, and ("ours" | "theirs", element, None, None) for an
    addition.
    """
    for kind, idx in sequence_order(len(bl), side_map(po, len(ol)), side_map(pt, len(tl))):
        if kind == "base":
            yield kind, bl[idx], (ol[po[idx]] if idx in po else None), (tl[pt[idx]] if idx in pt else None)
        else:
            yield kind, (ol if kind == "ours" else tl)[idx], None, None
