"""Where every copy stands: the canonical, each lineage and each consumer, and the next command.

For a lineage, status is a sync that writes nothing: each lineage is
planned against its source as it is now, and the plan's applied lines are
the pending changes, its kept lines the lineage-only features.  A consumer
is read as `plait check` reads it (its lock, by hash, against the disk and
the source), with the local edits its lock lists: no merge is needed to
say that it is behind, edited, unlocked or conflicted.  It reads only the
workspace, the store and the locks, so it answers the same in a shallow
clone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import gitops
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET
from ..runs import FileConflict, ReportLine
from ..store import Snapshot
from ..store import State as SyncState
from ..summary import CopyStory
from ..vendoring.check import ConsumerCheck, Drift, check
from ..vendoring.lock import LocalEdit, read_lock
from ..workspace import CANONICAL, Lineage, Workspace
from .sync import plan_lineage

__all__ = ["ConsumerStatus", "LineageStatus", "Overview", "overview", "status"]

State = Literal["up-to-date", "behind", "conflicted", "never-synced", "waiting", "error"]
ConsumerState = Literal["up-to-date", "behind", "conflicted", "edited", "unlocked", "never-vendored", "error"]


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
    # What a sync would do, for people: the pending changes and own changes by member.
    story: CopyStory | None = field(default=None, repr=False, compare=False)

    @property
    def next(self) -> str:
        """The command that moves the lineage on, or "" when it is up to date."""
        return {
            "behind": f"plait sync {self.name}",
            "conflicted": f"plait sync --continue {self.name}",
            "never-synced": f"plait adopt {self.name}",
            "waiting": f"resolve {self.source} first",
        }.get(self.state, "")

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
            "next": self.next,
        }


@dataclass
class ConsumerStatus:
    """One consumer's row in `plait status`, read as `plait check` reads it.

    vendored: the source and commit its lock names (``canonical@6a9cd1e``).
    pending: how many of the source's files changed, appeared or went since.
    drift: what `check` found, each with the command that fixes it.
    """

    name: str
    source: str
    state: ConsumerState
    vendored: str = ""
    pending: int = 0
    local_edits: list[LocalEdit] = field(default_factory=list)
    conflicted_files: list[str] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    reason: str = ""
    next: str = ""
    # Where the copy's files are, to name its local edits by member (`Client.timeout`).
    vendor_dir: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "consumer": self.name,
            "source": self.source,
            "state": self.state,
            "vendored": self.vendored,
            "pending": self.pending,
            "local_edits": [edit.to_json() for edit in self.local_edits],
            "conflicted_files": self.conflicted_files,
            "drift": [d.to_json() for d in self.drift],
            "reason": self.reason,
            "next": self.next,
        }


@dataclass
class Overview:
    """The workspace at a glance: the canonical and its commit, every lineage, every consumer."""

    canonical: str
    canonical_commit: str | None
    canonical_path: str
    canonical_package: str = ""
    lineages: list[LineageStatus] = field(default_factory=list)
    consumers: list[ConsumerStatus] = field(default_factory=list)

    def exit_code(self, strict: bool) -> int:
        """2 on an error; with *strict* (``--check``), 1 when any copy is not up to date."""
        if any(r.state == "error" for r in self.lineages) or any(c.state == "error" for c in self.consumers):
            return 2
        behind = any(r.state != "up-to-date" for r in self.lineages) or any(
            c.state != "up-to-date" for c in self.consumers
        )
        return 1 if strict and behind else 0

    def next(self) -> list[str]:
        """The commands that bring the workspace up to date, in the order to run them."""
        steps: list[str] = []
        adopt = [r.name for r in self.lineages if r.state == "never-synced"]
        adopt += [c.name for c in self.consumers if c.state == "unlocked"]
        steps += [f"plait adopt {name}" for name in adopt]
        steps += [r.next for r in self.lineages if r.state in ("conflicted", "waiting")]
        behind = [r for r in self.lineages if r.state == "behind"]
        if behind:
            steps.append(
                "plait sync" if len(behind) == len(self.lineages) else f"plait sync {' '.join(r.name for r in behind)}"
            )
        changing = {r.name for r in behind}
        # An edited copy's fix is a vendor too: it records the hand edit as a local edit.
        vendor = [
            c.name
            for c in self.consumers
            if c.state in ("behind", "never-vendored", "edited") or c.name in adopt or c.source in changing
        ]
        if vendor:
            steps.append(
                "plait vendor --all" if len(vendor) == len(self.consumers) else f"plait vendor {' '.join(vendor)}"
            )
        steps += [c.next for c in self.consumers if c.state == "conflicted" and c.next]
        return steps

    def to_json(self) -> dict[str, Any]:
        return {
            "canonical": {
                "name": self.canonical,
                "package": self.canonical_package,
                "commit": self.canonical_commit,
                "path": self.canonical_path,
            },
            "lineages": [r.to_json() for r in self.lineages],
            "consumers": [c.to_json() for c in self.consumers],
            "next": self.next(),
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
        row.story = plan.story("dry")
        if plan.outcome in ("synced", "conflicted"):
            row.state = "behind"
    return row


def overview(
    ws: Workspace,
    names: list[str] | None = None,
    *,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[str, str], None] | None = None,
) -> Overview:
    """Every copy of the workspace (or those *names*), lineages in dependency order, then consumers.

    *progress* is called with each copy's name and state as it is done.
    """
    ws.store.refuse_if_interrupted()
    unknown = [n for n in names or [] if n not in ws.lineages and n not in ws.consumers]
    if unknown:
        known = ", ".join([*ws.lineages, *ws.consumers])
        raise PlaitError(f"no lineage or consumer named {unknown[0]!r} (known: {known})")
    lineages = [n for n in names or [] if n in ws.lineages]
    consumers = [n for n in names or [] if n in ws.consumers]
    everything = not names
    canonical = ws.copy(CANONICAL)
    try:
        ws.checkout(canonical)
        commit = gitops.source_commit(canonical.root)
    except PlaitError:
        commit = None
    result = Overview(CANONICAL, commit, str(canonical.root), canonical.package)
    if everything or lineages:
        result.lineages = status(
            ws, lineages or None, budget=budget, progress=(lambda r: progress(r.name, r.state)) if progress else None
        )
    if everything or consumers:
        for checked in check(ws, consumers or None):
            row = _consumer_row(ws, checked)
            result.consumers.append(row)
            if progress is not None:
                progress(row.name, row.state)
    return result


def _consumer_row(ws: Workspace, checked: ConsumerCheck) -> ConsumerStatus:
    row = ConsumerStatus(checked.consumer, checked.source, "up-to-date", drift=list(checked.drift), next=checked.fix)
    if checked.error:
        row.state, row.reason = "error", checked.error
        return row
    kinds = {d.kind for d in checked.drift}
    if "unlocked" in kinds:
        by_hand = checked.fix.startswith("plait adopt")
        row.state = "unlocked" if by_hand else "never-vendored"
        row.reason = "vendored by hand, no plait.lock" if by_hand else "never vendored"
        return row
    row.vendor_dir = ws.consumers[checked.consumer].vendor_dir
    lock = read_lock(row.vendor_dir)
    if lock is not None:
        row.vendored = (
            lock.source_short if lock.source_commit else f"{lock.source}@tree:{Snapshot(lock.sources()).tree[:10]}"
        )
        row.local_edits = list(lock.local_edits)
        row.conflicted_files = list(lock.conflicted)
    row.pending = sum(1 for d in checked.drift if d.kind == "behind")
    if "conflicted" in kinds:
        row.state, row.reason = "conflicted", f"resolve the markers in {', '.join(row.conflicted_files)}"
    elif kinds & {"edited", "missing", "extra"}:
        row.state = "edited"
        differ = sum(1 for d in checked.drift if d.kind in ("edited", "missing", "extra"))
        row.reason = f"{differ} file{'s differ' if differ != 1 else ' differs'} from the lock"
    elif "behind" in kinds:
        row.state = "behind"
    return row
