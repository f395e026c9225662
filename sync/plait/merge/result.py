"""The value a merge returns.

The sync and vendor commands report from `MergeResult.changes` (what was
`applied` from theirs and `kept` from ours), and the CLI prints conflicts by
node path, so both are structured values rather than strings.
"""

from __future__ import annotations

from ..records import as_dict, field, record
from .conflicts import Conflict

TYPE_CHECKING = False  # (typing's own is an import of typing away: git starts the merge driver once per file)
if TYPE_CHECKING:
    from typing import Any, Literal

    Side = Literal["ours", "theirs", "both"]
    # One of the two sides being merged.
    Hand = Literal["ours", "theirs"]
    # "dropped": a cosmetic edit (quotes, comments, wrapping) that gave way to
    # the other side's real change of the same code.
    ChangeKind = Literal["added", "changed", "removed", "moved", "dropped"]
    # "binary": git's binary merge, ours kept in conflict (`engine._binary_merge`).
    Strategy = Literal["identity", "line", "structured", "line-fallback", "binary"]
else:
    Side = Hand = ChangeKind = Strategy = str


def other(hand: Hand) -> Hand:
    return "theirs" if hand == "ours" else "ours"


@record(frozen=True)
class Change:
    """One thing one side contributed, as the merge saw it.

    ``detail`` names the element (``except type OSError``,
    ``branch mode == "uds"``); ``note`` says more when needed, e.g. that the
    change followed a block the other side moved.  A changed definition
    (or the module's own statements) names the first statement the side
    changed in it, in ``statement``: ``timeout = max(timeout, 1.0)`` in
    ``Config.__init__``, where "changed module-level statements" said
    nothing a maintainer could find.
    """

    side: Side
    kind: ChangeKind
    path: str
    detail: str = ""
    note: str = ""
    statement: str = ""

    @property
    def what(self) -> str:
        """The changed thing: ``Config.__init__: timeout = max(timeout, 1.0)``, ``parameter uds in Client``."""
        if self.statement:
            return f"{self.path}: {self.statement}"
        return f"{self.detail} in {self.path}" if self.detail else self.path

    def describe(self) -> str:
        text = f"{self.side} {self.kind} {self.what}"
        return f"{text} ({self.note})" if self.note else text


@record
class MergeResult:
    """The merged text and everything a caller needs to report on it."""

    text: str
    conflicts: list[Conflict] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    strategy: Strategy = "structured"
    notes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts

    def applied(self) -> list[Change]:
        """What the incoming side (theirs) brought in."""
        return [c for c in self.changes if c.side in ("theirs", "both")]

    def kept(self) -> list[Change]:
        """What the local side (ours) had that survived the merge."""
        return [c for c in self.changes if c.side in ("ours", "both")]

    def to_json(self, *, include_text: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "clean": self.clean,
            "strategy": self.strategy,
            "conflicts": [as_dict(c) for c in self.conflicts],
            "changes": [as_dict(c) | {"summary": c.describe()} for c in self.changes],
            "notes": list(self.notes),
        }
        if include_text:
            data["text"] = self.text
        return data
