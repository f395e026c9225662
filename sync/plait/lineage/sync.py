"""Carry a source's changes into each lineage, file by file, and remember the new base.

For each lineage, in dependency order, and each file its source maps to it:

- base:   the source as last synced (from the store),
- ours:   the lineage now,
- theirs: the source now,

all three brought into the lineage's namespace by its transforms, then merged
by `plait.merge.merge3`.  Whole files follow git's rules: new in the source →
added; deleted in the source → deleted, unless the lineage changed it (a
conflict); only in the lineage → kept.

A run is planned completely before anything is written.  A lineage that
cannot be synced (a file that does not parse, a corrupt store entry, a path
escaping the workspace) stops the whole run and nothing is written.  A
conflict is written with markers, like ``git merge``, and the lineage waits
for ``--continue`` (or ``--abort``); what syncs from it waits too.  All the
files of a run, the store objects and the state change in one all-or-nothing
write.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from .. import contents, gitops
from ..commit import Transaction
from ..errors import PlaitError
from ..members import Texts, fold
from ..merge import DEFAULT_BUDGET
from ..publish import Piece
from ..runs import (
    FilePlan,
    PlannedFiles,
    ReportLine,
    RunReport,
    check_parses,
    kept_line,
    marker_line,
    merge_trees,
    sides_left,
    snapshot_json,
    untracked_paths,
)
from ..session import branch_run, commit_run, exclusive, guard_run, new_transaction, writing_run
from ..store import Snapshot, State, SyncRecord, digest_of
from ..summary import CopyStory, Mode, commit_text, conflict_notes, moved_into
from ..transforms import rewrite_tree
from ..workspace import Copy, Files, Lineage, Workspace

__all__ = [
    "LineagePlan",
    "Resolution",
    "SyncReport",
    "abort_sync",
    "commit_message",
    "continue_sync",
    "plan_lineage",
    "sync",
]

Outcome = Literal["up-to-date", "synced", "conflicted", "skipped", "refused"]


@dataclass
class LineagePlan(PlannedFiles):
    """Everything one lineage's sync would do, before any of it is done."""

    lineage: Lineage
    source: Copy
    outcome: Outcome
    files: list[FilePlan] = field(default_factory=list)
    base: Snapshot | None = None
    new_base: Snapshot | None = None
    theirs: dict[str, str] = field(default_factory=dict)
    reason: str = ""
    # The source's executable files (its names), recorded with the new base.
    theirs_executable: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return self.lineage.name

    @property
    def moves_base(self) -> bool:
        """Whether the source's content moved since the base.  A commit that moved
        without the files (an unrelated commit, a shallow clone) is not a change."""
        return self.new_base is not None and self.base is not None and self.new_base.files != self.base.files

    def kept(self) -> list[ReportLine]:
        """What the lineage has on its own and kept: node paths and whole files.

        A change both sides made is not the lineage's own any more: the
        source has it too (`upstreamed`).
        """
        lines: list[ReportLine] = []
        for f in self.files:
            if f.action == "kept":
                what = "deleted file" if f.after is None else "file"
                kind = "removed" if f.after is None else "added"
                lines.append(ReportLine(f.name, f"kept: {what} {f.name}", "", kind, f"{what} {f.name}"))
            lines += [kept_line(f.name, c) for c in f.changes_by("ours") if c.side == "ours"]
        return lines

    def upstreamed(self) -> list[ReportLine]:
        """The lineage's own changes that its source has now made too: no longer the lineage's."""
        return [
            kept_line(f.name, c)
            for f in self.files
            for c in f.changes_by("ours")
            if c.side == "both" and c.kind != "dropped"
        ]

    @property
    def title(self) -> str:
        """The one line a commit or a pull request is titled with."""
        at = f"@{self.new_base.short}" if self.new_base is not None else ""
        return f"plait: sync {self.source.name}{at} into {self.name}"

    def story(self, mode: Mode) -> CopyStory:
        """What the sync does to this lineage, for people (`plait.summary`)."""
        texts = {f.name: Texts(f.before, f.after) for f in self.files}
        kept = [line.edit for line in self.kept()]
        return CopyStory(
            self.name,
            "lineage",
            self.source.name,
            self.outcome,
            mode,
            was=self.base.short if self.base is not None else "",
            now=self.new_base.short if self.new_base is not None else "",
            changed=[f.name for f in self.changed],
            added=[f.name for f in self.changed if f.before is None],
            applied=fold([line.edit for line in self.applied()], texts),
            kept=fold(kept, texts),
            moved=[member for _file, _path, member in moved_into(kept)],
            upstream=fold([line.edit for line in self.upstreamed()], texts),
            conflicts=conflict_notes(self),
            reason=self.reason,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "lineage": self.name,
            "source": self.source.name,
            "outcome": self.outcome,
            "reason": self.reason,
            "base": snapshot_json(self.base),
            "new_base": snapshot_json(self.new_base),
            "files": [
                {"file": f.name, "source_file": f.source_name, "action": f.action, "changed": f.changes_file}
                for f in self.files
            ],
            "applied": [line.to_json() for line in self.applied()],
            "kept": [line.to_json() for line in self.kept()],
            "conflicts": [c.to_json() for c in self.conflicts],
        }


@dataclass
class SyncReport(RunReport[LineagePlan]):
    """The result of a sync run: every lineage's plan and what was written."""

    plans_key: ClassVar[str] = "lineages"


# --------------------------------------------------------------------------
# planning


def plan_lineage(
    ws: Workspace,
    lineage: Lineage,
    state: State,
    *,
    overlay: Mapping[str, Files] | None = None,
    budget: float = DEFAULT_BUDGET,
) -> LineagePlan:
    """What syncing *lineage* from its source would do; nothing is written.

    *overlay* holds the planned files of lineages synced earlier in the same
    run (their texts and modes), so a lineage syncs from what its source is
    about to become.
    Problems that refuse the lineage are returned in the plan, not raised.
    """
    source = ws.copy(lineage.syncs_from)
    try:
        return _plan(ws, lineage, source, state, overlay or {}, budget)
    except PlaitError as exc:
        return LineagePlan(lineage, source, "refused", reason=str(exc))


def _plan(
    ws: Workspace,
    lineage: Lineage,
    source: Copy,
    state: State,
    overlay: Mapping[str, Files],
    budget: float,
) -> LineagePlan:
    record = state.record(lineage.name)
    if record is None:
        raise PlaitError(f"{lineage.name} has no recorded base; run `plait adopt {lineage.name}` first")
    if record.conflicted:
        raise PlaitError(
            f"{lineage.name} has a sync in progress; resolve it and run `plait sync --continue {lineage.name}`,"
            f" or `plait sync --abort {lineage.name}`"
        )
    if record.source != source.name:
        raise PlaitError(
            f"{lineage.name}'s base was recorded from {record.source}, but it now syncs from {source.name};"
            f" record a new base with `plait adopt {lineage.name} --force`"
        )
    source_record = state.record(source.name)
    if source_record is not None and source_record.conflicted:
        return LineagePlan(lineage, source, "skipped", reason=f"its source {source.name} has an unresolved conflict")

    if source.name in overlay:
        theirs_files, commit = overlay[source.name], None
    else:
        theirs_files, commit = ws.read_copy(source), gitops.source_commit(source.root)
    theirs_raw = dict(theirs_files.texts)
    base_raw = ws.store.load(record.base, what=f"the base of {lineage.name}:")
    ours_files = ws.read_copy(lineage)
    ours = ours_files.texts
    check_parses(ours, lineage.root, lineage.name)
    check_parses(theirs_raw, source.root, source.name)

    rewrite = lineage.rewrite_from(source)
    base_t = rewrite_tree(base_raw, package=source.package, rewrite=rewrite, label=f"base of {lineage.name}")
    theirs_t = rewrite_tree(theirs_raw, package=source.package, rewrite=rewrite, label=source.name)
    # Ours goes through the same transforms: a no-op for a lineage already in
    # its own spelling, and a normalisation when it is not.
    ours_t = rewrite_tree(ours, package=lineage.package, rewrite=rewrite, label=lineage.name)
    sources = {lineage.lineage_name(src): src for src in (*base_raw, *theirs_raw)}
    for name in sources:
        ws.target(lineage, name)

    def labels(name: str) -> dict[str, str]:
        src = sources.get(name, name)
        return {"base": f"base of {src}", "ours": str(lineage.root / name), "theirs": str(source.root / src)}

    files = merge_trees(
        {lineage.lineage_name(src): text for src, text in base_t.items()},
        ours_t,
        {lineage.lineage_name(src): text for src, text in theirs_t.items()},
        ours_raw=ours,
        sources=sources,
        labels=labels,
        budget=budget,
        modes=(
            {lineage.lineage_name(src) for src in record.base.executable},
            ours_files.executable,
            {lineage.lineage_name(src) for src in theirs_files.executable},
        ),
    )
    new_base = Snapshot({src: digest_of(text) for src, text in theirs_raw.items()}, commit, theirs_files.executable)
    plan = LineagePlan(
        lineage, source, "up-to-date", files, record.base, new_base, theirs_raw, theirs_executable=new_base.executable
    )
    if plan.conflicts:
        plan.outcome = "conflicted"
    elif plan.changed or plan.moves_base:
        plan.outcome = "synced"
    return plan


# --------------------------------------------------------------------------
# running


def sync(
    ws: Workspace,
    names: Iterable[str] | None = None,
    *,
    dry_run: bool = False,
    write_conflicts: bool = True,
    commit: bool = False,
    push: bool = False,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[LineagePlan], None] | None = None,
) -> SyncReport:
    """Sync *names* (default: every lineage) in dependency order.

    dry_run: plan and report, write nothing.
    write_conflicts: False (CI) writes nothing at all when any lineage conflicts.
    commit: commit what the run wrote, in each repository it wrote to, on ``plait/sync-<source id>``
      (plumbing: no checkout is switched); push: then push each branch to its ``origin``.

    A run that writes holds the workspace lock and first mends what an
    interrupted run left (`plait.session.exclusive`); a dry run only reads.
    """
    return writing_run(
        ws,
        dry_run=dry_run,
        run=lambda dry: _sync(
            ws,
            names,
            dry_run=dry,
            write_conflicts=write_conflicts,
            commit=not dry and (commit or push),
            push=not dry and push,
            budget=budget,
            progress=progress,
        ),
    )


def _sync(
    ws: Workspace,
    names: Iterable[str] | None,
    *,
    dry_run: bool,
    write_conflicts: bool,
    commit: bool,
    push: bool,
    budget: float,
    progress: Callable[[LineagePlan], None] | None,
) -> SyncReport:
    state = ws.store.state()
    plans: list[LineagePlan] = []
    overlay: dict[str, Files] = {}
    waiting: set[str] = set()
    for lineage in ws.sync_order(names):
        if lineage.syncs_from in waiting:
            plan = LineagePlan(
                lineage,
                ws.copy(lineage.syncs_from),
                "skipped",
                reason=f"its source {lineage.syncs_from} did not sync cleanly",
            )
        else:
            plan = plan_lineage(ws, lineage, state, overlay=overlay, budget=budget)
        if plan.outcome in ("up-to-date", "synced"):
            overlay[lineage.name] = Files(
                {f.name: f.after for f in plan.files if f.after is not None},
                frozenset(f.name for f in plan.files if f.after is not None and f.executable),
            )
        else:
            waiting.add(lineage.name)
        plans.append(plan)
        if progress is not None:
            progress(plan)
    report = SyncReport(
        plans, dry_run=dry_run, manifest=str(ws.manifest), roots={p.name: str(p.lineage.root) for p in plans}
    )
    if dry_run or report.refused or (report.conflicted and not write_conflicts):
        if report.conflicted and not write_conflicts and not dry_run:
            report.notes.append("conflicts: nothing was written (--no-write-conflicts)")
        return report
    if commit and report.conflicted:
        # The sync state is one file: a branch cannot hold the clean lineages'
        # records while the checkout holds the conflicted ones' resolution.
        names = ", ".join(p.name for p in report.conflicted)
        report.notes.append(
            f"not committed: {names} conflicted; resolve, `plait sync --continue`, then commit what was written"
        )
        commit = False
    to_commit = [p for p in plans if commit and p.outcome == "synced" and p.changed]
    if commit:
        guard_run(ws, [p.lineage.root for p in to_commit])
    txn = new_transaction(ws)
    for plan in plans:
        if plan.outcome in ("synced", "conflicted"):
            _stage_plan(ws, state, plan, txn)
    report.notes += ws.notes
    if txn:
        ws.store.stage_state(txn, state)
        if commit:
            _publish(ws, report, to_commit, txn, push=push)
            return report
        commit_run(ws, txn)
        report.written = True
        report.untracked = untracked_paths([t for p in plans for t in _added(ws, p)])
    return report


def _added(ws: Workspace, plan: LineagePlan) -> list[Path]:
    return [ws.target(plan.lineage, f.name) for f in plan.changed if f.before is None and f.after is not None]


def _publish(ws: Workspace, report: SyncReport, plans: list[LineagePlan], txn: Transaction, *, push: bool) -> None:
    pieces = [
        Piece(
            p.name,
            p.lineage.root,
            _branch(p),
            commit_message(p),
            tuple(ws.target(p.lineage, f.name) for f in p.changed),
        )
        for p in plans
    ]
    for plan in report.plans:
        if plan.outcome == "conflicted":
            report.notes.append(f"{plan.name}: not committed (it conflicted; resolve, then `plait sync --continue`)")
    ids = "-".join(sorted({_source_id(p) for p in plans})) or "state"
    summary = f"Store: the new bases ({len(txn.objects)} object(s) added) and state.toml"
    report.record(branch_run(ws, txn, pieces, store_branch=f"plait/sync-{ids}", store_summary=summary, push=push))


def _stage_plan(ws: Workspace, state: State, plan: LineagePlan, txn: Transaction) -> None:
    assert plan.new_base is not None and plan.base is not None
    for f in plan.changed:
        target = ws.target(plan.lineage, f.name)
        if f.after is None:
            txn.remove(target)
        else:
            txn.write(target, f.after, executable=f.executable)
    beside = [name for f in plan.files for name in f.beside]
    for f in plan.files:
        for name, text in f.beside.items():
            txn.write(ws.target(plan.lineage, name), text)
    new_base = ws.store.snapshot(txn, plan.theirs, plan.new_base.commit, plan.theirs_executable)
    if plan.outcome == "conflicted":
        before = {f.name: (ws.store.stage(txn, f.before) if f.before is not None else None) for f in plan.changed}
        # (--abort removes the sides written beside a file: they were not there before.)
        before.update(dict.fromkeys(beside))
        conflicted = sorted({c.file for c in plan.conflicts})
        executable = [f.name for f in plan.changed if f.before is not None and f.was_executable]
        record = SyncRecord(plan.source.name, plan.base, new_base, before, conflicted, executable)
    else:
        record = SyncRecord(plan.source.name, new_base)
    state.set_record(plan.name, record)


def _source_id(plan: LineagePlan) -> str:
    assert plan.new_base is not None
    return plan.new_base.commit[:7] if plan.new_base.commit else plan.new_base.tree[:10]


def _branch(plan: LineagePlan) -> str:
    return f"plait/sync-{_source_id(plan)}"


def commit_message(plan: LineagePlan) -> str:
    """A commit message that a pull request can use as is: what the written files change,
    what the lineage keeps, and what its source has taken of its own changes."""
    return commit_text(plan.title, plan.story("written"))


# --------------------------------------------------------------------------
# ending a conflicted sync


@dataclass
class Resolution:
    """The result of ``--continue`` or ``--abort`` for one lineage."""

    lineage: str
    done: bool
    problems: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"lineage": self.lineage, "done": self.done, "problems": self.problems, "restored": self.restored}


def _conflicted(ws: Workspace, state: State, names: Iterable[str] | None) -> list[tuple[Lineage, SyncRecord]]:
    chosen = list(names) if names else [n for n in state.names() if n in ws.lineages]
    out: list[tuple[Lineage, SyncRecord]] = []
    for name in chosen:
        lineage = ws.lineage(name)
        record = state.record(name)
        if record is None or not record.conflicted:
            if names:
                raise PlaitError(f"{name} has no sync in progress")
            continue
        out.append((lineage, record))
    if not out:
        raise PlaitError("no sync in progress")
    return out


def _unresolved(ws: Workspace, lineage: Lineage, conflicted: Iterable[str]) -> list[str]:
    problems: list[str] = []
    for rel in conflicted:
        problems += sides_left(rel, ws.target(lineage, rel))
    for rel, text in sorted(ws.read_files(lineage).items()):
        line = marker_line(text) if not contents.is_binary(text) else None
        if line is not None:
            problems.append(f"{rel}:{line}: conflict marker left")
        if rel.endswith(".py"):
            try:
                ast.parse(contents.encode(text))
            except (SyntaxError, ValueError) as exc:
                problems.append(f"{rel}:{getattr(exc, 'lineno', '?')}: does not parse")
    return problems


def continue_sync(ws: Workspace, names: Iterable[str] | None = None) -> list[Resolution]:
    """Record the pending base of each conflicted lineage whose files are resolved.

    A lineage with a marker left or a file that does not parse stays
    conflicted, with the places named.
    """
    with exclusive(ws):
        return _continue(ws, names)


def _continue(ws: Workspace, names: Iterable[str] | None) -> list[Resolution]:
    state = ws.store.state()
    results: list[Resolution] = []
    txn = new_transaction(ws)
    for lineage, record in _conflicted(ws, state, names):
        problems = _unresolved(ws, lineage, record.conflicted_files)
        if problems:
            results.append(Resolution(lineage.name, False, problems))
            continue
        assert record.pending is not None
        state.set_record(lineage.name, SyncRecord(record.source, record.pending))
        results.append(Resolution(lineage.name, True))
    if any(r.done for r in results):
        ws.store.stage_state(txn, state)
        commit_run(ws, txn)
    return results


def abort_sync(ws: Workspace, names: Iterable[str] | None = None) -> list[Resolution]:
    """Put back every file a conflicted sync touched, and forget the pending base."""
    with exclusive(ws):
        return _abort(ws, names)


def _abort(ws: Workspace, names: Iterable[str] | None) -> list[Resolution]:
    state = ws.store.state()
    results: list[Resolution] = []
    txn = new_transaction(ws)
    for lineage, record in _conflicted(ws, state, names):
        restored: list[str] = []
        for rel, digest in sorted(record.before.items()):
            target = ws.target(lineage, rel)
            if digest is None:
                txn.remove(target)
            else:
                data = ws.store.read(digest, what=f"{lineage.name} {rel} before the sync")
                known = record.before_executable
                txn.write(target, data, executable=None if known is None else rel in known)
            restored.append(rel)
        state.set_record(lineage.name, SyncRecord(record.source, record.base))
        results.append(Resolution(lineage.name, True, restored=restored))
    ws.store.stage_state(txn, state)
    commit_run(ws, txn)
    return results
