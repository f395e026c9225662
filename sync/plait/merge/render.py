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
    headers = {f"# {sentinel_name(tag, p.number, 'header')}": p for p in pending if p.headers is not None}
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if headers and stripped.endswith("__") and "# __plait_" in stripped:
            p = headers.get(stripped[stripped.index("# __plait_") :])
            if p is not None:
                first_line[p.number] = _header_block(out, line, p, newline)
                continue
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


def header_lines(skeleton: cst.CSTNode, indent: str, newline: str) -> list[str]:
    """A definition's header printed at its real depth.

    Printing it inside a block indented like the definition lets libcst
    indent decorators and the `def` line while raw continuation lines of a
    multi-line signature keep their own columns, which re-indenting text
    line by line would break.
    """
    stmt: cst.BaseStatement = skeleton  # type: ignore[assignment]
    if indent:
        stmt = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[stmt], indent=indent))
    lines = cst.Module(body=[stmt], default_newline=newline).code.splitlines(keepends=True)
    # Drop the wrapper's `if _:` and the skeleton's `pass`.
    return lines[1:-1] if indent else lines[:-1]


def _header_block(out: list[str], sentinel_line: str, p: PendingConflict, newline: str) -> int:
    """Replace ours' printed header, whose colon line carries the sentinel, by markers around all three headers.

    Returns the 1-based output line of the `<<<<<<<` marker.
    """
    assert p.headers is not None
    ours, base, theirs = p.headers
    count = len(header_lines(ours, "", newline))
    printed = [*out[len(out) - (count - 1) :], sentinel_line] if count > 1 else [sentinel_line]
    if count > 1:
        del out[len(out) - (count - 1) :]
    first = printed[0]
    indent = first[: len(first) - len(first.lstrip())]
    marker_at = len(out) + 1
    out.append(MARKER_OURS + newline)
    out.extend(header_lines(ours, indent, newline))
    out.append(MARKER_BASE + newline)
    out.extend(header_lines(base, indent, newline))
    out.append(MARKER_SEP + newline)
    out.extend(header_lines(theirs, indent, newline))
    out.append(MARKER_THEIRS + newline)
    return marker_at
