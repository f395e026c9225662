"""Stage 4, render: code out, conflict markers in, and the re-parse check.

libcst prints the merged tree; every region that came from an input node
prints byte for byte as it was.  A conflict was left in the tree as sentinel
statements around the three versions, so each version is printed at its real
indentation (multi-line strings included) and only the sentinel lines become
markers, at column 0 as git writes them.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from .lines import MARKER_BASE, MARKER_OURS, MARKER_SEP, MARKER_THEIRS
from .merge import PendingConflict, sentinel_name
from .result import Conflict

_MARKERS = {"ours": MARKER_OURS, "base": MARKER_BASE, "theirs": MARKER_SEP, "end": MARKER_THEIRS}


def render(module: cst.Module, pending: Sequence[PendingConflict], tag: str) -> tuple[str, list[Conflict]]:
    text = module.code
    if not pending:
        return text, []
    newline = module.default_newline
    sentinels = {sentinel_name(tag, p.number, part): (p, part) for p in pending for part in _MARKERS}
    prefix = f"__plait_{tag}_"
    out: list[str] = []
    first_line: dict[int, int] = {}
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        hit = sentinels.get(stripped) if stripped.startswith(prefix) else None
        if hit is None:
            out.append(line)
            continue
        p, part = hit
        if part == "ours":
            first_line[p.number] = len(out) + 1
        out.append(_MARKERS[part] + newline)
    # Conflicts found inside a statement that later conflicted as a whole
    # were never printed; only the printed ones are reported.
    conflicts = [Conflict(p.path, p.kind, p.reason, first_line[p.number]) for p in pending if p.number in first_line]
    return "".join(out), conflicts
