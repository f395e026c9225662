"""Where each lineage stands: its source, its base, what is pending, what it carries.

Status is a sync that writes nothing: each lineage is planned against its
source as it is now, and the plan's applied lines are the pending changes,
its kept lines the lineage-only features.  It reads only the workspace and
the store, so it answers the same in a shallow clone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..merge import DEFAULT_BUDGET
from ..runs import FileConflict, ReportLine
from ..store import State as SyncState
from ..workspace import Lineage, Workspace
from .sync import plan_lineage

__all__ = ["LineageStatus", "status"]

State = Literal["up-to-date", "behind", "conflicted", "never-synced", "waiting", "error"]


@dataclass
class LineageStatus:
    """One lineage's row in `plait status`.

    source_now: the source's current state (commit, else content tree id).
    base: the source state last synced from.
    """

    name: str
    source: str
    state: State
    source_now: str = ""
    base: str = ""
    pending: list[ReportLine] = field(default_factory=list)
    kept: list[ReportLine] = field(default_factory=list)
    conflicts: list[FileConflict] = field(default_factory=list)
    conflicted_files: list[str] = field(default_factory=list)
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "lineage": self.name,
            "source": self.source,
            "state": self.state,
            "source_now": self.source_now,
            "base": self.base,
            "pending": [line.to_json() for line in self.pending],
            "kept": [line.to_json() for line in self.kept],
            "conflicts": [c.to_json() for c in self.conflicts],
            "conflicted_files": self.conflicted_files,
            "reason": self.reason,
        }


def status(
    ws: Workspace,
    names: list[str] | None = None,
    *,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[LineageStatus], None] | None = None,
) -> list[LineageStatus]:
    """The status of *names* (default every lineage), in dependency order.

    *progress* is called with each row as it is done (a multi-lineage run
    takes a merge per file).
    """
    ws.store.refuse_if_interrupted()
    state = ws.store.state()
    rows: list[LineageStatus] = []
    for lineage in ws.sync_order(names):
        row = _row(ws, lineage, state, budget)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def _row(ws: Workspace, lineage: Lineage, state: SyncState, budget: float) -> LineageStatus:
    record = state.record(lineage.name)
    row = LineageStatus(lineage.name, lineage.syncs_from, "up-to-date")
    if record is None:
        row.state = "never-synced"
        row.reason = f"no recorded base: run `plait adopt {lineage.name}`"
        return row
    row.base = f"{record.source}@{record.base.short}"
    if record.conflicted:
        row.state = "conflicted"
        row.conflicted_files = list(record.conflicted_files)
        row.reason = f"resolve, then `plait sync --continue {lineage.name}` (or --abort)"
        return row
    plan = plan_lineage(ws, lineage, state, budget=budget)
    if plan.new_base is not None:
        row.source_now = f"{plan.source.name}@{plan.new_base.short}"
    if plan.outcome == "refused":
        row.state, row.reason = "error", plan.reason
    elif plan.outcome == "skipped":
        row.state, row.reason = "waiting", plan.reason
    else:
        row.pending, row.kept, row.conflicts = plan.applied(), plan.kept(), plan.conflicts
        if plan.outcome in ("synced", "conflicted"):
            row.state = "behind"
    return row
