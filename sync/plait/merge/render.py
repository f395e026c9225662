"""Stage 4, render: code out, conflict markers in.

libcst prints the merged tree; every region that came from an input node
prints byte for byte as it was.  A conflict was left in the tree as sentinel
statements around the three versions, so each version is printed at its real
indentation (multi-line strings included) and only the sentinel lines become
markers, at column 0 as git writes them.  A conflict over some elements of a
collection was left as one sentinel element with its three sections printed
beside it; here it becomes markers on lines of their own inside the brackets.

Whether the result re-parses is checked after this stage, by `engine`, with
the audits: a result that does not is never called clean.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from .conflicts import DEFAULT_MARKERS, Conflict, Markers, Part, PendingConflict, Sentinels
from .tree import Texts


def render(
    module: cst.Module, pending: Sequence[PendingConflict], sentinels: Sentinels, markers: Markers, texts: Texts
) -> tuple[str, list[Conflict]]:
    text = texts.printed(module)
    if not pending:
        return text, []
    newline = module.default_newline
    by_number = {p.number: p for p in pending}
    out: list[str] = []
    first_line: dict[int, int] = {}
    for line in text.splitlines(keepends=True):
        hit = sentinels.read(line)
        if hit is None or hit[0] not in by_number:
            if sentinels.find_elements(line) is None:
                out.append(line)
            else:
                _element_regions(line, sentinels, by_number, markers, newline, out, first_line)
            continue
        number, part = hit
        p = by_number[number]
        if part == "header":
            first_line[number] = _header_block(out, line, p, newline, markers)
            continue
        if part == "ours":
            first_line[number] = len(out) + 1
        out.append(markers.line(part) + newline)
    # Conflicts found inside a statement that later conflicted as a whole
    # were never printed; only the printed ones are reported.
    conflicts = [
        Conflict(p.path, p.kind, p.reason, first_line[p.number], ours=p.values[0], theirs=p.values[1])
        for p in pending
        if p.number in first_line
    ]
    return "".join(out), conflicts


def _element_regions(
    line: str,
    sentinels: Sentinels,
    by_number: dict[int, PendingConflict],
    markers: Markers,
    newline: str,
    out: list[str],
    first_line: dict[int, int],
    taking: Part | None = None,
) -> None:
    """Markers on lines of their own around elements in conflict, inside the brackets of one line.

    `other = [1, <sentinel>]` becomes `other = [1,`, the three sections
    each on lines of their own, and `]`.  Sections and what follows are
    indented like the line, or like the elements where they stand one per
    line; inside brackets, indentation is free.  *taking* lays out one
    section alone, without markers: what a person gets who takes it.
    """
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    rest = line
    while (found := sentinels.find_elements(rest)) is not None and found[2] in by_number:
        start, end, number = found
        p = by_number[number]
        assert p.sections is not None
        prefix = rest[:start].removesuffix("**")
        if prefix.strip():
            out.append(prefix.rstrip() + newline)
        else:
            indent = prefix  # the elements stand one per line, at this column
        first_line[number] = len(out) + 1
        parts: tuple[Part, Part, Part] = ("ours", "base", "theirs")
        for part, section in zip(parts, p.sections, strict=True):
            if taking is None:
                out.append(markers.line(part) + newline)
            elif part != taking:
                continue
            body = section.replace("\r\n", "\n").rstrip(" \t\n")
            if body:
                out.append(indent + body.replace("\n", newline) + newline)
        if taking is None:
            out.append(markers.line("end") + newline)
        rest = rest[end:].removeprefix(",").lstrip(" \t")
        if not rest.strip():
            return
        rest = indent + rest
    out.append(rest)


def taking_elements(text: str, sentinels: Sentinels, pending: Sequence[PendingConflict], part: Part) -> str:
    """*text*, a statement printed alone, with each conflict over elements resolved to one section.

    Laid out as `render` lays out the markers, so the merge stage can check
    that taking a section gives Python where the statement stands (inside
    an f-string, a line break does not).
    """
    by_number = {p.number: p for p in pending if p.sections is not None}
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if sentinels.find_elements(line) is None:
            out.append(line)
        else:
            _element_regions(line, sentinels, by_number, DEFAULT_MARKERS, "\n", out, {}, part)
    return "".join(out)


def header_lines(skeleton: cst.FunctionDef | cst.ClassDef, indent: str, newline: str) -> list[str]:
    """A definition's header printed at its real depth.

    Printing it inside a block indented like the definition lets libcst
    indent decorators and the `def` line while raw continuation lines of a
    multi-line signature keep their own columns, which re-indenting text
    line by line would break.
    """
    stmt: cst.SimpleStatementLine | cst.BaseCompoundStatement = skeleton
    if indent:
        stmt = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[stmt], indent=indent))
    lines = cst.Module(body=[stmt], default_newline=newline).code.splitlines(keepends=True)
    # Drop the wrapper's `if _:` and the skeleton's `pass`.
    return lines[1:-1] if indent else lines[:-1]


def _header_block(out: list[str], sentinel_line: str, p: PendingConflict, newline: str, markers: Markers) -> int:
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
    sections: tuple[tuple[Part, cst.FunctionDef | cst.ClassDef], ...] = (
        ("ours", ours),
        ("base", base),
        ("theirs", theirs),
    )
    for part, version in sections:
        out.append(markers.line(part) + newline)
        out.extend(header_lines(version, indent, newline))
    out.append(markers.line("end") + newline)
    return marker_at
