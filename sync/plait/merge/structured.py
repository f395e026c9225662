"""The structured path: libcst trees through match, merge and render.

Kept apart from `engine` so that importing the engine does not import
libcst: only a merge that reaches this path pays for it.

Its deadline is checked inside matching and merging, but a libcst parse
cannot be stopped, and at 20,000 lines one takes seconds.  So after each
parse the time the rest will take is extrapolated from the parses so far,
and the merge gives up as soon as that would pass the deadline, rather than
finding out after it.
"""

from __future__ import annotations

import time

import libcst as cst

from .conflicts import Conflict, Markers, Sentinels
from .decide import Merger
from .match import BudgetExceeded, Deadline, StatementMatcher
from .render import render
from .result import Change
from .tree import Texts

__all__ = ["BudgetExceeded", "LibcstUnparsable", "structured_merge"]

# Capturing texts, matching, merging and rendering take about a third of the
# three parses (measured at 2,000 to 20,000 lines).
AFTER_PARSING = 0.35


class LibcstUnparsable(Exception):
    """An input the stdlib parses but libcst does not (new syntax, say)."""

    def __init__(self, index: int, line: int) -> None:
        super().__init__(index, line)
        self.index = index
        self.line = line


def structured_merge(
    base: str, ours: str, theirs: str, deadline_at: float, markers: Markers
) -> tuple[str, list[Conflict], list[Change]]:
    """The merged text, its conflicts, and the cosmetic edits dropped for real ones."""
    deadline = Deadline(deadline_at)
    inputs = (base, ours, theirs)
    modules = []
    started = time.perf_counter()
    for index, text in enumerate(inputs):
        deadline.check()
        try:
            modules.append(cst.parse_module(text))
        except cst.ParserSyntaxError as exc:
            raise LibcstUnparsable(index, exc.raw_line) from None
        done = sum(len(t) for t in inputs[: index + 1])
        rest = sum(len(t) for t in inputs[index + 1 :])
        per_char = (time.perf_counter() - started) / max(done, 1)
        if time.perf_counter() + per_char * (rest + AFTER_PARSING * (done + rest)) > deadline.at:
            raise BudgetExceeded
    bm, om, tm = modules
    texts = Texts()
    for module in modules:
        texts.capture(module)
    matcher = StatementMatcher(texts, deadline)
    sentinels = Sentinels(base, ours, theirs)
    merger = Merger(texts, matcher.match(bm, om), matcher.match(bm, tm), deadline, sentinels)
    merged = merger.merge_module(bm, om, tm)
    text, conflicts = render(merged, merger.pending, sentinels, markers, texts)
    return text, conflicts, merger.dropped
