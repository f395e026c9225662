"""Conflicts: the record a caller reads, and the sentinels that carry one through the pipeline.

A conflict found deep inside the merge cannot write git markers itself:
markers go at column 0 around text printed at its real indentation, which
only exists once the module is printed.  So the merge stage leaves sentinel
statements (or a sentinel comment on a definition's header line) in the tree,
and the render stage turns them into markers.  Both sides of that hand-off
read the format from this one module.
"""

from __future__ import annotations

from ..records import record

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from typing import Literal

    import libcst as cst

    DefinitionNode = cst.FunctionDef | cst.ClassDef

# The kinds of conflict (`ConflictKind` spells them for the type checker; a test holds the two equal).
CONFLICT_KINDS: tuple[str, ...] = (
    # Both sides changed one node in ways that do not combine.
    "modify/modify",
    # One side deleted what the other changed (a real change, not a cosmetic one).
    "delete/modify",
    # Both sides added one name with different contents, or the result binds a name twice.
    "add/add",
    # Both sides moved one block to different places.
    "move/move",
    # The merged code would use a name that one side removed or renamed.
    "semantic",
    # Both sides inserted statements at one point and one reads what the other assigns.
    "order",
    # The ledger found an addition the result lacks, or put in the wrong place.
    "lost",
    "misplaced",
    # Merging a node gave code that does not parse.
    "invalid-result",
    # git merge-file's own conflict, in a line merge.
    "text",
    # Both sides changed a binary file: no line merge, no markers; ours is kept.
    "binary",
    # The structured merge ran out of time, or failed inside plait.
    "budget",
    "internal",
)

if TYPE_CHECKING:
    ConflictKind = Literal[
        "modify/modify",
        "delete/modify",
        "add/add",
        "move/move",
        "semantic",
        "order",
        "lost",
        "misplaced",
        "invalid-result",
        "text",
        "binary",
        "budget",
        "internal",
    ]
    Part = Literal["ours", "base", "theirs", "end"]
    # What a sentinel line can mark: a part of a conflict region, or ours'
    # header line in a conflict confined to a definition's header.
    Mark = Literal["ours", "base", "theirs", "end", "header"]
else:
    ConflictKind = Part = Mark = str
_MARKS: dict[str, Mark] = {"ours": "ours", "base": "base", "theirs": "theirs", "end": "end", "header": "header"}


@record(frozen=True)
class Conflict:
    """A place where the two sides disagree and plait will not pick one.

    path: the node path, e.g. ``EmbeddingClient.embed_with_outcome``
      (``<module>`` for top-level statements).
    kind: one of `ConflictKind`.
    reason: one human sentence, e.g. ``both sides changed the except clause``.
    line: 1-based line of the conflict marker in the output, when there is one.
    ours, theirs: each side's own spelling of what conflicts, short, when the
      conflict has one per side (a name both bind: ``from pip._vendor import
      chardet`` and ``chardet = _resolve_char_detection()``); empty otherwise.
    """

    path: str
    kind: ConflictKind
    reason: str
    line: int | None = None
    ours: str = ""
    theirs: str = ""

    def describe(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{self.path}: {self.reason}{where}"


@record(frozen=True)
class Markers:
    """The marker lines git writes, with git's knobs: marker size and labels.

    A merge driver is told the size (`%L`) and may be given labels; the line
    merge passes both to `git merge-file` and the structured render uses the
    same lines, so a file never mixes two marker styles.
    """

    size: int = 7
    ours: str = "ours"
    base: str = "base"
    theirs: str = "theirs"

    def line(self, part: Part) -> str:
        if part == "ours":
            return f"{'<' * self.size} {self.ours}".rstrip()
        if part == "base":
            return f"{'|' * self.size} {self.base}".rstrip()
        if part == "theirs":
            return "=" * self.size
        return f"{'>' * self.size} {self.theirs}".rstrip()


DEFAULT_MARKERS = Markers()


class MergeConflict(Exception):
    """Raised inside a statement; the statement becomes a conflict region."""

    def __init__(self, kind: ConflictKind, what: str | None = None, deleter: str | None = None, why: str = "") -> None:
        super().__init__(kind)
        self.kind: ConflictKind = kind
        self.what = what
        self.deleter = deleter
        self.why = why

    def reason(self, fallback: str) -> str:
        said = self._reason(fallback)
        return f"{said} ({self.why})" if self.why else said

    def _reason(self, fallback: str) -> str:
        what = self.what or fallback
        if self.kind == "delete/modify" and self.deleter:
            other = "theirs" if self.deleter == "ours" else "ours"
            return f"{self.deleter} deleted {what} that {other} changed"
        if self.kind == "add/add":
            return f"both sides added {what} with different contents"
        if self.kind == "invalid-result":
            return f"merging {what} gave invalid Python"
        return f"both sides changed {what}"


@record(frozen=True)
class PendingConflict:
    """A conflict left in the merged tree, waiting for the render stage."""

    number: int
    path: str
    kind: ConflictKind
    reason: str
    # For a conflict confined to a def/class header: ours', base's and
    # theirs' definitions with their bodies cut to `pass` (see render).
    headers: tuple[DefinitionNode, DefinitionNode, DefinitionNode] | None = None
    # For a conflict over some elements of a bracketed collection: ours',
    # base's and theirs' elements as printed in place, separators included.
    sections: tuple[str, str, str] | None = None
    # Ours' and theirs' short values, for `Conflict.ours` and `Conflict.theirs`.
    values: tuple[str, str] = ("", "")


class Sentinels:
    """Names no input contains, for one merge: ``__plait_<tag>_<n>_<part>__``.

    The tag is derived from the inputs, so the output is deterministic.
    """

    def __init__(self, base: str, ours: str, theirs: str) -> None:
        # Imported here: only the structured path needs sentinels, and a
        # merge driver settled by the fast path should not load OpenSSL.
        import hashlib

        seed = hashlib.sha256("\0".join((base, ours, theirs)).encode()).hexdigest()
        for i in range(len(seed) - 10):
            tag = seed[i : i + 10]
            if not any(f"__plait_{tag}" in s for s in (base, ours, theirs)):
                self.prefix = f"__plait_{tag}_"
                return
        raise RuntimeError("no free sentinel tag")  # pragma: no cover - 2^40 collisions

    def name(self, number: int, part: str) -> str:
        return f"{self.prefix}{number}_{part}__"

    def statement(self, number: int, part: Part) -> cst.SimpleStatementLine:
        import libcst as cst

        return cst.SimpleStatementLine(body=[cst.Expr(cst.Name(self.name(number, part)))])

    def header_comment(self, number: int) -> str:
        """The comment that marks the colon line of ours' header in a header-only conflict."""
        return f"# {self.name(number, 'header')}"

    def find_elements(self, text: str) -> tuple[int, int, int] | None:
        """(start, end, number) of the first sentinel in *text* that stands for elements in conflict."""
        at = text.find(self.prefix)
        while at >= 0:
            number, _, rest = text[at + len(self.prefix) :].partition("_")
            if number.isdigit() and rest.startswith("elements__"):
                end = at + len(self.prefix) + len(number) + 1 + len("elements__")
                return at, end, int(number)
            at = text.find(self.prefix, at + 1)
        return None

    def read(self, line: str) -> tuple[int, Mark] | None:
        """(number, part) when *line* is a sentinel statement or carries a header comment."""
        stripped = line.strip()
        at = stripped.find(self.prefix)
        if at < 0 or not stripped.endswith("__"):
            return None
        if at > 0 and not stripped[:at].endswith("# "):
            return None
        number, _, name = stripped[at + len(self.prefix) : -2].partition("_")
        part = _MARKS.get(name)
        if not number.isdigit() or part is None:
            return None
        if (part == "header") != (at > 0):
            return None
        return int(number), part
