"""Re-vendor consumers: carry the source into each vendored directory, keeping its local edits.

For each consumer and each file of its vendored directory:

- theirs: the source now, through the import rewrites into the consumer's
  package (`plait.transforms`: every import form, relative imports kept,
  strings and docstrings untouched);
- base:   the pristine transformed source last vendored, from the workspace
  store, by the digests in the directory's lock;
- ours:   the vendored directory now;

merged file by file by `plait.sync.merge_trees`, the core a lineage sync
uses too.  There are no patch files: a local edit is whatever the vendored
copy has that its base does not, and the 3-way merge carries it forward.
Whole files follow git's rules: new in the source → added; deleted in the
source → deleted, unless the consumer changed it (a conflict); only in the
consumer → kept.

A run is planned completely before anything is written; the files of every
consumer, their locks, the new store objects and the state change in one
all-or-nothing write.  A consumer that cannot be vendored (an import that
cannot be rewritten, a file that does not parse, a corrupt lock or store
entry, a path leaving the consumer) stops the run and nothing is written.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .. import gitops
from ..atomic import WriteBatch
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET, merge3
from ..runs import FilePlan, PlannedFiles, RunReport, check_parses, merge_trees, specific_changes
from ..store import Snapshot, digest_of
from ..transforms import ImportRewrite, rewrite_tree
from ..workspace import Consumer, Copy, Workspace
from .lock import LOCK_NAME, LocalEdit, Lock, LockedFile, read_lock

__all__ = [
    "VendorPlan",
    "VendorReport",
    "commit_message",
    "plan_consumer",
    "plait_version",
    "vendor",
]

Outcome = Literal["up-to-date", "vendored", "conflicted", "refused"]

_MARKER = "<<<<<<<"


def plait_version() -> str:
    """The version of plait that writes a lock, from the package metadata (its one source)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("plait")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "unknown"


@dataclass
class VendorPlan(PlannedFiles):
    """Everything re-vendoring one consumer would do, before any of it is done.

    It names the consumer rather than holding it, so a plan made in a worker
    process travels back to the one that writes.

    lock: the lock to write; lock_text: it as TOML; previous_text: the lock found.
    bases: the new base of each file (the transformed source), to store.
    """

    consumer: str
    source: str
    outcome: Outcome
    files: list[FilePlan] = field(default_factory=list)
    lock: Lock | None = None
    lock_text: str = ""
    previous_text: str | None = None
    previous_commit: str | None = None
    bases: dict[str, str] = field(default_factory=dict)
    reason: str = ""

    @property
    def name(self) -> str:
        return self.consumer

    @property
    def lock_changed(self) -> bool:
        return self.lock is not None and self.lock_text != self.previous_text

    @property
    def local_edits(self) -> list[LocalEdit]:
        return self.lock.local_edits if self.lock is not None else []

    @property
    def source_id(self) -> str:
        """The source as a short id for people and branch names: its commit, else a content hash."""
        if self.lock is None:
            return self.source
        if self.lock.source_commit:
            return self.lock.source_commit[:7]
        return Snapshot(self.lock.sources()).tree[:10]

    def to_json(self) -> dict[str, Any]:
        lock = self.lock
        return {
            "consumer": self.consumer,
            "source": self.source,
            "outcome": self.outcome,
            "reason": self.reason,
            "source_commit": lock.source_commit if lock is not None else None,
            "previous_commit": self.previous_commit,
            "files": [{"file": f.name, "action": f.action, "changed": f.changes_file} for f in self.files],
            "applied": [line.to_json() for line in self.applied()],
            "local_edits": [edit.to_json() for edit in self.local_edits],
            "conflicts": [c.to_json() for c in self.conflicts],
        }


@dataclass
class VendorReport(RunReport[VendorPlan]):
    """The result of a vendor run: every consumer's plan and what was written."""

    plans_key: ClassVar[str] = "consumers"


# --------------------------------------------------------------------------
# planning


def plan_consumer(ws: Workspace, consumer: Consumer, *, budget: float = DEFAULT_BUDGET) -> VendorPlan:
    """What re-vendoring *consumer* would do; nothing is written.

    Problems that refuse the consumer are returned in the plan, not raised.
    """
    try:
        return _plan(ws, consumer, budget)
    except PlaitError as exc:
        return VendorPlan(consumer.name, consumer.source, "refused", reason=str(exc))


def _plan(ws: Workspace, consumer: Consumer, budget: float) -> VendorPlan:
    name, vendor_dir = consumer.name, consumer.vendor_dir
    source = ws.copy(consumer.source)
    previous = read_lock(vendor_dir)
    if previous is not None and previous.conflicted:
        left = _markers_left(ws, consumer, previous.conflicted)
        if left:
            raise PlaitError(
                f"{name}: conflict markers are left in {', '.join(left)}; resolve them, then run"
                f" `plait vendor {name}` again"
            )

    theirs_raw = {rel: text for rel, text in ws.read_files(source).items() if consumer.selects(rel)}
    if not theirs_raw:
        raise PlaitError(f"{name}: no file of {source.name} is selected by its include and exclude globs")
    ours_raw = ws.read_files(consumer, root=vendor_dir) if vendor_dir.is_dir() else {}
    check_parses(theirs_raw, source.root, source.name)
    check_parses(ours_raw, vendor_dir, name)

    rewrite = ImportRewrite.between(source.package, consumer.package, extra=consumer.renames)
    theirs = rewrite_tree(theirs_raw, package=source.package, rewrite=rewrite, label=source.name)
    # Ours goes through the same rewrite: a no-op for a copy already in the
    # consumer's spelling, a normalisation for one copied in by hand.
    ours = rewrite_tree(ours_raw, package=consumer.package, rewrite=rewrite, label=name)
    base = ws.store.load(Snapshot(previous.bases()), what=f"the base of {name}:") if previous else {}
    for rel in {*theirs, *ours, *base}:
        ws.target(consumer, rel, root=vendor_dir)
    protected = {rel for rel in {*theirs, *ours} if consumer.is_protected(rel)}

    def labels(rel: str) -> dict[str, str]:
        return {"base": f"base of {rel}", "ours": str(vendor_dir / rel), "theirs": str(source.root / rel)}

    files = merge_trees(
        base, ours, theirs, ours_raw=ours_raw, protected=protected, labels=labels, local=name, budget=budget
    )

    sources = {rel: digest_of(text) for rel, text in theirs_raw.items()}
    lock = Lock(
        consumer=name,
        package=consumer.package,
        source=source.name,
        source_package=source.package,
        source_commit=_source_commit(source, sources, previous),
        plait_version=plait_version(),
        files=_locked_files(files, theirs, sources, protected, previous),
        local_edits=_local_edits(files, theirs, protected, budget),
        conflicted=sorted({c.file for f in files for c in f.conflicts}),
    )
    lock_path = vendor_dir / LOCK_NAME
    plan = VendorPlan(
        name,
        source.name,
        "up-to-date",
        files,
        lock,
        lock.dumps(),
        lock_path.read_text(encoding="utf-8") if lock_path.is_file() else None,
        previous.source_commit if previous is not None else None,
        {rel: text for rel, text in theirs.items() if rel not in protected},
    )
    if plan.conflicts:
        plan.outcome = "conflicted"
    elif plan.changed or plan.lock_changed:
        plan.outcome = "vendored"
    return plan


def _source_commit(source: Copy, sources: Mapping[str, str], previous: Lock | None) -> str | None:
    """The commit the lock names for *source*.

    The commit is what people compare; one that moved without the files
    moving (an unrelated commit, a shallow clone's single commit) is not
    news, so the lock keeps naming the commit it named.
    """
    unmoved = previous is not None and previous.source == source.name and previous.sources() == sources
    if unmoved and previous is not None and previous.source_commit:
        return previous.source_commit
    return gitops.source_commit(source.root)


def _markers_left(ws: Workspace, consumer: Consumer, names: Iterable[str]) -> list[str]:
    left: list[str] = []
    for rel in names:
        path = ws.target(consumer, rel, root=consumer.vendor_dir)
        if path.is_file() and any(line.startswith(_MARKER) for line in path.read_text(encoding="utf-8").splitlines()):
            left.append(rel)
    return left


def _locked_files(
    files: list[FilePlan],
    theirs: Mapping[str, str],
    sources: Mapping[str, str],
    protected: set[str],
    previous: Lock | None,
) -> dict[str, LockedFile]:
    out: dict[str, LockedFile] = {}
    for f in files:
        sha = digest_of(f.after) if f.after is not None else None
        if f.name in protected:
            # Never merged, so its base stays what it was: a later unprotected
            # merge must not mistake the source's changes for local edits.
            old = previous.files.get(f.name) if previous is not None else None
            base = old.base if old is not None else None
        else:
            base = digest_of(theirs[f.name]) if f.name in theirs else None
        locked = LockedFile(sha, base, sources.get(f.name))
        if locked != LockedFile():
            out[f.name] = locked
    return out


def _local_edits(
    files: list[FilePlan], theirs: Mapping[str, str], protected: set[str], budget: float
) -> list[LocalEdit]:
    """What the vendored copy carries that the pristine transformed source does not.

    Measured after the merge, as the result against the new base, so the
    lock and a second run list the same edits.
    """
    edits: list[LocalEdit] = []
    for f in files:
        pristine = theirs.get(f.name)
        if f.conflicts or f.after == pristine:
            continue
        if f.after is None:
            edits.append(LocalEdit(f.name, "<file>", "removed"))
        elif pristine is None:
            edits.append(LocalEdit(f.name, "<file>", "added"))
        elif f.name in protected:
            edits.append(LocalEdit(f.name, "<file>", "changed", "protected"))
        elif not f.name.endswith(".py"):
            edits.append(LocalEdit(f.name, "<file>", "changed"))
        else:
            result = merge3(pristine, f.after, pristine, budget=budget, strict=True)
            ours = [c for c in specific_changes(result.changes) if c.side == "ours" and c.kind != "dropped"]
            found = [LocalEdit(f.name, c.path, c.kind, c.statement or c.detail) for c in ours]
            edits += found or [LocalEdit(f.name, "<file>", "changed", "comments or formatting")]
    return edits


# --------------------------------------------------------------------------
# running


def _plan_in_worker(manifest: str, name: str, budget: float) -> VendorPlan:
    ws = Workspace.load(manifest)
    return plan_consumer(ws, ws.consumers[name], budget=budget)


def _plan_all(
    ws: Workspace,
    consumers: list[Consumer],
    jobs: int,
    budget: float,
    progress: Callable[[VendorPlan], None] | None,
) -> list[VendorPlan]:
    """Plan every consumer, in worker processes when there are jobs to spare.

    Merging is CPU-bound Python, so threads would take turns; each worker
    loads the workspace itself and sends its plan back.  Plans come back in
    manifest order whatever order they finish in.
    """
    done: dict[str, VendorPlan] = {}
    workers = min(jobs, len(consumers))
    if workers <= 1:
        for consumer in consumers:
            done[consumer.name] = plan = plan_consumer(ws, consumer, budget=budget)
            if progress is not None:
                progress(plan)
    else:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [pool.submit(_plan_in_worker, str(ws.manifest), c.name, budget) for c in consumers]
            for future in as_completed(futures):
                plan = future.result()
                done[plan.consumer] = plan
                if progress is not None:
                    progress(plan)
    return [done[c.name] for c in consumers]


def vendor(
    ws: Workspace,
    names: Iterable[str] | None = None,
    *,
    dry_run: bool = False,
    write_conflicts: bool = True,
    commit: bool = False,
    jobs: int = 1,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[VendorPlan], None] | None = None,
) -> VendorReport:
    """Re-vendor *names* (default: every consumer).

    dry_run: plan and report, write nothing.
    write_conflicts: False (CI) writes nothing at all when any consumer conflicts.
    commit: commit each git-backed consumer's changes on ``plait/vendor-<consumer>-<source id>``.
    jobs: how many consumers to plan at once, in worker processes.
    """
    consumers = ws.select_consumers(names)
    report = VendorReport(_plan_all(ws, consumers, jobs, budget, progress), dry_run=dry_run)
    if dry_run or report.refused or (report.conflicted and not write_conflicts):
        if report.conflicted and not write_conflicts and not dry_run:
            report.notes.append("conflicts: nothing was written (--no-write-conflicts)")
        return report
    to_write = [p for p in report.plans if p.outcome in ("vendored", "conflicted")]
    to_commit = [p for p in to_write if commit and p.outcome == "vendored" and ws.consumers[p.consumer].git]
    for plan in to_commit:
        gitops.ensure_clean(ws.consumers[plan.consumer].vendor_dir)
    if to_write:
        state = ws.store.state()
        batch = WriteBatch()
        for plan in to_write:
            _stage(ws, plan, batch)
        ws.store.stage_state(batch, state)
        ws.prune_store(batch, state)
        batch.commit()
        report.written = True
    for plan in to_commit:
        report.commits[plan.consumer] = _commit(ws, plan)
    if commit:
        for plan in to_write:
            if plan not in to_commit:
                why = "it conflicted" if plan.outcome == "conflicted" else "a directory consumer, not git-backed"
                report.notes.append(f"{plan.consumer}: not committed ({why})")
    return report


def _stage(ws: Workspace, plan: VendorPlan, batch: WriteBatch) -> None:
    assert plan.lock is not None
    consumer = ws.consumers[plan.consumer]
    for f in plan.changed:
        target = ws.target(consumer, f.name, root=consumer.vendor_dir)
        if f.after is None:
            batch.remove(target)
        else:
            batch.write(target, f.after)
    for text in plan.bases.values():
        ws.store.stage(batch, text)
    batch.write(consumer.vendor_dir / LOCK_NAME, plan.lock_text)


def _commit(ws: Workspace, plan: VendorPlan) -> str:
    consumer = ws.consumers[plan.consumer]
    repo = gitops.repo_of(consumer.vendor_dir)
    assert repo is not None
    branch = f"plait/vendor-{plan.consumer}-{plan.source_id}"
    paths = [consumer.vendor_dir / f.name for f in plan.changed] + [consumer.vendor_dir / LOCK_NAME]
    sha = gitops.commit_on_branch(repo, branch, paths, commit_message(plan))
    return f"{branch}@{sha[:7]}"


def commit_message(plan: VendorPlan) -> str:
    """A commit message that a pull request can use as is: the source commit, what
    was applied, and the local edits that were preserved."""
    assert plan.lock is not None
    lock = plan.lock
    lines = [f"plait vendor: {plan.consumer} from {plan.source}@{plan.source_id}", ""]
    if lock.source_commit:
        lines.append(f"Source: {plan.source} at commit {lock.source_commit}")
    else:
        lines.append(f"Source: {plan.source} (no commit: its files were not committed when vendored)")
    if plan.previous_commit and plan.previous_commit != lock.source_commit:
        lines.append(f"Previously vendored from commit {plan.previous_commit}")
    lines += ["", f"Applied from {plan.source}:"]
    lines += [f"  {line.file}: {line.text}" for line in plan.applied()] or ["  (nothing)"]
    lines += ["", "Preserved local edits:"]
    lines += [f"  {edit.file}: {edit.text}" for edit in plan.local_edits] or ["  (none)"]
    return "\n".join(lines) + "\n"
