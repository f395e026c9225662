"""One copy's part of a run, said the way a person reads it: what changed, what was kept, what needs a person.

A sync or a vendor plans every file of every copy.  A `CopyStory` reads
one copy's plan and keeps only what a reader acts on: where the copy's
source moved from and to; which files the run writes and what they change
(measured on the written files, `runs.applied_lines`); what the copy keeps
of its own; which of its own edits the source has taken since (no longer
the copy's, and no longer worth a line each); which local edits are new
since the last run; and each conflict by the member it is about, with
ours and theirs.  Members are named and folded by `plait.members`.

The command line renders a story as a summary, as member detail or as
markdown; a `--commit` message is its plain text, so the commit says what
its diff shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .members import FILE, Edit, Member, binding_of, listing

if TYPE_CHECKING:
    from .runs import PlannedFiles

__all__ = [
    "ConflictNote",
    "count",
    "CopyStory",
    "Mode",
    "commit_text",
    "conflict_note",
    "conflict_notes",
    "detail_lines",
    "moved_into",
    "summary_lines",
]

# How the run ended for the copies' files: a dry run, written, or held back
# (nothing written: --no-write-conflicts, or another copy was refused).
Mode = Literal["dry", "written", "held"]

_LABELS = {
    "modify/modify": "both changed",
    "delete/modify": "deleted and changed",
    "add/add": "both added",
    "move/move": "both moved",
    "text": "content",
    "invalid-result": "invalid result",
}

# Per-file lines for at most this many files; more fold into one line of counts.
_FILES_SHOWN = 3
# Members named on a kept line; the detail (--verbose) names every one.
_KEPT_SHOWN = 4


@dataclass(frozen=True)
class ConflictNote:
    """A conflict as git says one: the kind, the member, where, ours and theirs.

    ``CONFLICT (both changed): DEFAULT_TIMEOUT_SECS in …/embedding_client.py:27 (ours 10, theirs 15)``
    """

    file: str
    member: str
    kind: str
    reason: str
    line: int | None = None
    ours: str = ""
    theirs: str = ""

    @property
    def label(self) -> str:
        return _LABELS.get(self.kind, self.kind)

    def text(self, path: str) -> str:
        """The line, with *path* the file as the reader would open it."""
        where = f"{path}:{self.line}" if self.line else path
        if self.member == FILE:
            return f"CONFLICT ({self.label}): {where}: {self.reason}"
        if self.ours or self.theirs:
            return f"CONFLICT ({self.label}): {self.member} in {where} (ours {self.ours}, theirs {self.theirs})"
        return f"CONFLICT ({self.label}): {self.member} in {where}: {self.reason}"


def _region(lines: list[str], line: int) -> tuple[int, list[str], list[str]] | None:
    """The conflict region whose ``<<<<<<<`` is at or after *line*: its index, ours and theirs."""
    start = next((i for i in range(max(line - 1, 0), len(lines)) if lines[i].startswith("<<<<<<<")), None)
    if start is None:
        return None
    ours: list[str] = []
    theirs: list[str] = []
    part = ours
    for text in lines[start + 1 :]:
        if text.startswith(">>>>>>>"):
            return start, ours, theirs
        if text.startswith("|||||||"):
            part = []
        elif text.startswith("======="):
            part = theirs
        else:
            part.append(text)
    return None


def _value(section: list[str]) -> str:
    """A side of a conflict in a few words: an assignment's value, one line, or its size."""
    if not section:
        return "deleted"
    if len(section) > 1:
        return f"{len(section)} lines"
    text = section[0].strip().removesuffix(",")
    try:
        import libcst as cst

        small = cst.parse_statement(text + "\n")
        if isinstance(small, cst.SimpleStatementLine) and isinstance(small.body[0], cst.Assign | cst.AnnAssign):
            value = small.body[0].value
            if value is not None:
                return cst.Module([]).code_for_node(value)
    except Exception:  # noqa: BLE001 - not a statement of its own (an element in brackets): as written
        pass
    return text


def _ours_side(lines: list[str], start: int) -> tuple[str, int]:
    """The file as ours has it (every conflict region cut to its ours section), and the line
    the region at *start* begins on in it."""
    kept: list[str] = []
    at = 0
    inside: str | None = None
    for i, text in enumerate(lines):
        if i == start:
            at = len(kept) + 1
        if text.startswith("<<<<<<<"):
            inside = "ours"
        elif inside and text.startswith("|||||||"):
            inside = "base"
        elif inside and text.startswith("======="):
            inside = "theirs"
        elif inside and text.startswith(">>>>>>>"):
            inside = None
        elif inside in (None, "ours"):
            kept.append(text)
    return "\n".join(kept) + "\n", at


def _member_at(lines: list[str], start: int) -> str | None:
    """The member a conflict region is in, read from ours' side of the file: the innermost
    function, or a class's or the module's binding (``Client.timeout``, ``DEFAULT_TIMEOUT_SECS``)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    text, at = _ours_side(lines, start)
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except Exception:  # noqa: BLE001 - ours' side does not parse on its own: the merge's path stands
        return None
    positions = wrapper.resolve(PositionProvider)

    def inside(node: cst.CSTNode) -> bool:
        where = positions[node]
        return where.start.line <= at <= where.end.line

    scope: list[str] = []
    body: Sequence[cst.CSTNode] = wrapper.module.body
    while True:
        found = next((stmt for stmt in body if inside(stmt)), None)
        if found is None:
            break
        if isinstance(found, cst.FunctionDef):
            return ".".join([*scope, found.name.value])
        if isinstance(found, cst.ClassDef):
            scope.append(found.name.value)
            block = found.body
            body = block.body if isinstance(block, cst.IndentedBlock) else []
            continue
        binding = binding_of(found, first=False)
        return ".".join([*scope, binding]) if binding else (".".join(scope) or None)
    return ".".join(scope) or None


def conflict_note(
    file: str,
    path: str,
    kind: str,
    reason: str,
    line: int | None,
    after: str | None,
    ours: str = "",
    theirs: str = "",
) -> ConflictNote:
    """A conflict by the member it is about, with ours and theirs read from the written text's markers.

    The merge names a module-level conflict ``<module>`` and may quote the
    base's value in its reason; a person wants the binding
    (``DEFAULT_TIMEOUT_SECS``) and both values.  The merge's own short
    spelling of each side (*ours*, *theirs*) stands where a side's section
    is too long to say in a few words.
    """
    if path == FILE or not line or after is None:
        return ConflictNote(file, FILE if path == FILE else path, kind, reason, line, ours, theirs)
    lines = after.splitlines()
    region = _region(lines, line)
    if region is None:
        return ConflictNote(file, path, kind, reason, line, ours, theirs)
    start, ours_lines, theirs_lines = region
    member = _member_at(lines, start) or path
    said = [_value(ours_lines), _value(theirs_lines)]
    if any(value.endswith(" lines") for value in said) and ours and theirs:
        said = [ours, theirs]
    return ConflictNote(file, member, kind, reason, start + 1, said[0], said[1])


def conflict_notes(plan: PlannedFiles) -> list[ConflictNote]:
    """Every conflict of a plan, read from the text it writes (`conflict_note`)."""
    after = {f.name: f.after for f in plan.files}
    return [
        conflict_note(c.file, c.path, c.kind, c.reason, c.line, after.get(c.file), c.ours, c.theirs)
        for c in plan.conflicts
    ]


def moved_into(changes: Iterable[Edit]) -> list[tuple[str, str, str]]:
    """(file, path, member) of each edit that moved, with its enclosing block, into that member."""
    prefix = "moved with the enclosing block into "
    return [(e.file, e.path, e.note.removeprefix(prefix)) for e in changes if e.note.startswith(prefix)]


@dataclass
class CopyStory:
    """What a run does to one copy, for people.

    was / now: the source as the copy had it and as the run brings it
      (a short commit, or ``tree:`` and a content hash; ``""`` for none).
    changed / added: the files the run writes, and those of them that are new.
    applied: what the written files change, folded by member.
    kept: what the copy keeps of its own (a lineage's own changes, a
      consumer's local edits), folded; ``moved`` names where some moved to.
    upstream: the copy's former own changes that its source has taken.
    new: local edits recorded for the first time by this run.
    """

    name: str
    kind: Literal["lineage", "consumer"]
    source: str
    outcome: str
    mode: Mode = "written"
    was: str = ""
    now: str = ""
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    applied: list[Member] = field(default_factory=list)
    kept: list[Member] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    upstream: list[Member] = field(default_factory=list)
    new: list[Member] = field(default_factory=list)
    conflicts: list[ConflictNote] = field(default_factory=list)
    reason: str = ""

    @property
    def own(self) -> str:
        """What the copy's own changes are called."""
        return "local edit" if self.kind == "consumer" else "own change"

    @property
    def would(self) -> bool:
        return self.mode != "written"

    @property
    def quiet(self) -> bool:
        """Nothing to say but that it is up to date."""
        return self.outcome == "up-to-date" and not self.changed and not self.conflicts


def count(members: Sequence[Member]) -> int:
    return sum(len(m.edits) for m in members)


def _files(members: Sequence[Member]) -> list[str]:
    return list(dict.fromkeys(m.file for m in members))


def _n(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    plural = word[:-1] + "ies" if word.endswith("y") and not word.endswith("ey") else word + "s"
    return f"{count} {plural}"


def _header(story: CopyStory) -> str:
    if story.outcome == "refused":
        return f"{story.name}: {'would be refused' if story.mode == 'dry' else 'refused'} (the error says why)"
    if story.outcome == "skipped":
        return f"{story.name}: skipped: {story.reason}"
    at = f"{story.source}@{story.now}" if story.now else story.source
    if story.quiet:
        kept = count(story.kept)
        return f"{story.name}: up to date with {at}" + (f" ({_n(kept, story.own)} kept)" if kept else "")
    moved = f"{story.source} {story.was} → {story.now}" if story.was else f"{story.source} → {story.now or '(new)'}"
    verb = "would change" if story.would else "changed"
    files = f"{_n(len(story.changed), 'file')} {verb}" if story.changed else "no file changes"
    return f"{story.name}  {moved}   {files}, {_n(len(story.conflicts), 'conflict')}"


def _applied_rows(story: CopyStory) -> list[tuple[str, str]]:
    label = "would apply" if story.would else "applied"
    by_file: dict[str, list[Member]] = {}
    for member in story.applied:
        by_file.setdefault(member.file, []).append(member)
    if not by_file:
        return []
    if len(by_file) <= _FILES_SHOWN:
        width = max(len(name) for name in by_file)
        rows = [
            (label if i == 0 else "", f"{name.ljust(width)}  {listing(ms)}")
            for i, (name, ms) in enumerate(by_file.items())
        ]
        return rows
    counts = ", ".join(
        f"{name} (new)" if name in story.added else f"{name} ({count(ms)})" for name, ms in by_file.items()
    )
    return [(label, f"{_n(count(story.applied), 'change')} in {len(by_file)} files: {counts}")]


def _kept_row(story: CopyStory) -> tuple[str, str] | None:
    total = count(story.kept)
    if not total and not story.new:
        return None
    files = _files(story.kept)
    where = f"in {files[0]}" if len(files) == 1 else f"in {len(files)} files"
    text = f"{_n(total, story.own)} {where}"
    if story.moved:
        targets = ", ".join(dict.fromkeys(t.rsplit(".", 1)[-1] for t in story.moved))
        text += f" ({len(story.moved)} moved into {targets})"
    if story.new:
        text += f", {count(story.new)} new: " + ", ".join(f"{m.file} {m.name}" for m in story.new)
    else:
        text += ": " + listing(story.kept, _KEPT_SHOWN)
    return ("would keep" if story.would else "kept", text)


def summary_lines(story: CopyStory, *, wrote: str = "") -> list[str]:
    """The copy's summary: a header with counts, then what was applied, kept and taken upstream.

    *wrote* is the line's text saying where the files went (the caller knows
    the paths and repositories); empty for none.
    """
    lines = [_header(story)]
    if story.quiet or story.outcome in ("refused", "skipped"):
        return lines
    rows = _applied_rows(story)
    kept = _kept_row(story)
    if kept is not None:
        rows.append(kept)
    upstream = count(story.upstream)
    if upstream:
        rows.append(
            (
                "upstream",
                f"{_n(upstream, 'former ' + story.own)} {'is' if upstream == 1 else 'are'} now in {story.source}",
            )
        )
    if wrote:
        rows.append(("would write" if story.mode == "dry" else "wrote", wrote))
    width = max((len(label) for label, _ in rows), default=0)
    lines += [f"  {label.ljust(width)}  {text}".rstrip() for label, text in rows]
    return lines


def detail_lines(story: CopyStory, *, only: str = "") -> list[str]:
    """Every member, one line each: ``<copy>  <file>  <what>  <member and what changed in it>``.

    *only* (``applied``, ``kept``, ``new``, ``upstream``) keeps one section.
    """
    out: list[str] = []
    would = story.would
    sections = (
        ("applied", "would apply" if would else "applied", story.applied),
        ("kept", "would keep" if would else "kept", story.kept),
        ("new", "new", story.new),
        ("upstream", "upstream", story.upstream),
    )
    for key, label, members in sections:
        if not only or key == only:
            out += [f"{story.name}  {m.file}  {label}  {m.detail}" for m in members]
    return out


def commit_text(title: str, story: CopyStory, preamble: Sequence[str] = ()) -> str:
    """A commit message a pull request can use as is: the title, the summary, then every member."""
    lines = [title, ""]
    if preamble:
        lines += [*preamble, ""]
    lines += summary_lines(story)
    sections = (
        ("Applied (what the written files change):", story.applied),
        (f"{story.own.capitalize()}s kept:", story.kept),
        (f"New {story.own}s:", story.new),
        (f"Now in {story.source} (no longer {story.own}s):", story.upstream),
    )
    for heading, members in sections:
        if members:
            lines += ["", heading, *(f"  {m.file}: {m.detail}" for m in members)]
    return "\n".join(lines) + "\n"
