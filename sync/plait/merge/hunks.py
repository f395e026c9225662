"""Conflict hunks on an already merged text, each section holding that side's own text.

Some problems are only found once a merge is done: a name the result binds
twice, a use of a name the other side removed.  They are marked in the
merged text, and a hunk there must read as any diff3 hunk does: ``ours``
is what ours has at that place, even nothing, ``base`` what base has, and
``theirs`` what theirs has, so that "take ours" or "take theirs" gives that
side's code, never the other side's line under the wrong label.

The place is found as diff3 finds it: the merged text is aligned line by
line with each input, and a hunk runs between the nearest lines around the
problem that all three inputs have at the same spot (its anchors).  Between
them each section is that input's lines.  A hunk is widened to the next
anchors while taking a side's section would not parse (anchors inside a
bracket that the sides close differently), up to the whole file, which
always parses: it is that side.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from .conflicts import Markers

Label = Literal["base", "ours", "theirs"]
LABELS: tuple[Label, Label, Label] = ("base", "ours", "theirs")
# Widening stops trying anchor by anchor after this many steps and takes the whole file.
_WIDEN_STEPS = 12


def _line_map(result: Sequence[str], side: Sequence[str]) -> list[int | None]:
    """For each line of *result*, the line of *side* it is (None: the side does not have it there)."""
    out: list[int | None] = [None] * len(result)
    key = [line.rstrip("\r\n") for line in result]
    matcher = SequenceMatcher(None, key, [line.rstrip("\r\n") for line in side])
    for a, b, size in matcher.get_matching_blocks():
        for d in range(size):
            out[a + d] = b + d
    return out


@dataclass
class Hunk:
    """Lines ``start:end`` of the merged text (0-based) replaced by the three inputs' lines at that place."""

    start: int
    end: int
    spans: dict[Label, tuple[int, int]]


class Alignment:
    """A merged text aligned with base, ours and theirs, line by line."""

    def __init__(self, result: str, inputs: tuple[str, str, str]) -> None:
        self.lines = result.splitlines(keepends=True)
        self.sides = {label: text.splitlines(keepends=True) for label, text in zip(LABELS, inputs, strict=True)}
        self.maps = {label: _line_map(self.lines, lines) for label, lines in self.sides.items()}

    def owner(self, line: int) -> str:
        """Whose line (1-based) of the merged text this is: ``ours``, ``theirs``, ``both sides`` or ``neither side``."""
        has = [label for label in ("ours", "theirs") if self.maps[label][line - 1] is not None]
        if len(has) == 2:
            return "both sides"
        return has[0] if has else "neither side"

    def _anchor(self, index: int) -> bool:
        return all(self.maps[label][index] is not None for label in LABELS)

    def _before(self, index: int) -> int:
        """The nearest anchor at or before *index* (-1: the start of the file)."""
        while index >= 0 and not self._anchor(index):
            index -= 1
        return index

    def _after(self, index: int) -> int:
        """The nearest anchor at or after *index* (the line count: the end of the file)."""
        while index < len(self.lines) and not self._anchor(index):
            index += 1
        return index

    def _hunk(self, before: int, after: int) -> Hunk:
        spans: dict[Label, tuple[int, int]] = {}
        for label in LABELS:
            lo = self.maps[label][before] if before >= 0 else -1
            hi = self.maps[label][after] if after < len(self.lines) else len(self.sides[label])
            assert lo is not None and hi is not None  # anchors are lines every input has
            spans[label] = (lo + 1, hi)
        return Hunk(before + 1, after, spans)

    def section(self, hunk: Hunk, label: Label) -> list[str]:
        lo, hi = hunk.spans[label]
        return self.sides[label][lo:hi]

    def _reads(self, hunk: Hunk) -> bool:
        """Whether taking ours' or theirs' section of *hunk* gives a module that parses."""
        for label in ("ours", "theirs"):
            text = "".join([*self.lines[: hunk.start], *self.section(hunk, label), *self.lines[hunk.end :]])
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return False
        return True

    def hunks(self, regions: Sequence[tuple[int, int]]) -> list[Hunk]:
        """One hunk per group of regions (1-based first and last lines) whose hunks overlap, in file order."""
        spans: list[tuple[int, int]] = []
        for first, last in sorted(regions):
            before, after = self._before(first - 2), self._after(last)
            if spans and before < spans[-1][1]:
                # Overlapping or touching the previous hunk: one hunk for both.
                before, after = spans[-1][0], max(after, spans[-1][1])
                spans.pop()
            spans.append((before, after))
        out: list[Hunk] = []
        for before, after in spans:
            hunk = self._hunk(before, after)
            for _step in range(_WIDEN_STEPS):
                if self._reads(hunk) or (before < 0 and after >= len(self.lines)):
                    break
                before = self._before(before - 1) if before >= 0 else before
                after = self._after(after + 1) if after < len(self.lines) else after
                hunk = self._hunk(before, after)
            else:
                hunk = self._hunk(-1, len(self.lines))
            if out and hunk.start < out[-1].end:
                hunk = self._hunk(out.pop().start - 1, max(hunk.end, after))
            out.append(hunk)
        return out

    def mark(self, regions: Sequence[tuple[int, int]], markers: Markers) -> tuple[str, Marked]:
        """The merged text with a hunk around each region, and where each line went.

        Lines all three sections begin or end with (the blank lines around a
        statement, mostly) stand outside the markers, as git trims a hunk.
        """
        newline = "\r\n" if self.lines and self.lines[0].endswith("\r\n") else "\n"
        out: list[str] = []
        moved: dict[int, int] = {}
        placed: list[Placed] = []
        done = 0
        for hunk in self.hunks(regions):
            for index in range(done, hunk.start):
                moved[index + 1] = len(out) + 1
                out.append(self.lines[index])
            bodies = {label: self.section(hunk, label) for label in LABELS}
            head = _common(list(bodies.values()))
            tail = _common([body[head:][::-1] for body in bodies.values()])
            at = Placed(hunk, head, tail, len(out) + 1 + head)
            out.extend(bodies["ours"][:head])
            for label in ("ours", "base", "theirs"):
                out.append(markers.line(label) + newline)
                at.starts[label] = len(out) + 1
                body = bodies[label][head : len(bodies[label]) - tail]
                if body and not body[-1].endswith(("\n", "\r")):
                    body = [*body[:-1], body[-1] + newline]
                out.extend(body)
            out.append(markers.line("end") + newline)
            at.tail_at = len(out) + 1
            out.extend(bodies["ours"][len(bodies["ours"]) - tail :])
            placed.append(at)
            done = hunk.end
        for index in range(done, len(self.lines)):
            moved[index + 1] = len(out) + 1
            out.append(self.lines[index])
        return "".join(out), Marked(self, moved, placed)


def _common(bodies: list[list[str]]) -> int:
    """How many leading lines all *bodies* share."""
    count = 0
    while all(count < len(b) for b in bodies) and len({b[count].rstrip("\r\n") for b in bodies}) == 1:
        count += 1
    return count


@dataclass
class Placed:
    """A hunk as written: its common head and tail lines, and the output line each part starts on."""

    hunk: Hunk
    head: int
    tail: int
    marker: int
    starts: dict[Label, int] = field(default_factory=dict)
    tail_at: int = 0

    def line(self, label: Label, at: int) -> int:
        """The output line of line *at* (0-based) of *label*'s input, which lies in this hunk's section."""
        lo, hi = self.hunk.spans[label]
        offset = at - lo
        if offset < self.head:
            return self.marker - self.head + offset
        if offset >= hi - lo - self.tail:
            return self.tail_at + offset - (hi - lo - self.tail)
        return self.starts[label] + offset - self.head


@dataclass
class Marked:
    """Where the lines of a merged text stand once hunks are marked in it."""

    alignment: Alignment
    moved: dict[int, int]
    placed: list[Placed]

    def _holding(self, line: int) -> Placed | None:
        return next((p for p in self.placed if p.hunk.start < line <= p.hunk.end), None)

    def marker(self, line: int) -> int | None:
        """The output line of the `<<<<<<<` marker of the hunk holding merged line *line* (1-based)."""
        placed = self._holding(line)
        return placed.marker if placed is not None else None

    def line(self, line: int) -> int | None:
        """Where merged line *line* stands in the output: in place, or inside the section of the side it is from."""
        if line in self.moved:
            return self.moved[line]
        placed = self._holding(line)
        if placed is None:
            return None
        for label in ("ours", "theirs", "base"):
            at = self.alignment.maps[label][line - 1]
            if at is not None:
                return placed.line(label, at)
        return None


__all__ = ["Alignment", "Hunk", "Marked", "Placed"]
