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

import os
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from .. import contents, gitops
from ..commit import Transaction
from ..errors import PlaitError
from ..members import Edit, Texts, fold
from ..merge import DEFAULT_BUDGET, merge3
from ..publish import Piece
from ..runs import (
    FilePlan,
    PlannedFiles,
    RunReport,
    check_parses,
    merge_trees,
    specific_changes,
    unresolved_file,
    untracked_paths,
)
from ..session import branch_run, commit_run, guard_run, new_transaction, writing_run
from ..store import Snapshot, Store, digest_of
from ..summary import CopyStory, Mode, commit_text, conflict_notes, moved_into
from ..transforms import ImportRewrite, rewrite_tree
from ..workers import orphan_proof_pool
from ..workspace import Consumer, Copy, Workspace
from .lock import LOCK_NAME, CorruptLock, LocalEdit, Lock, LockedFile, read_lock

__all__ = [
    "VendorPlan",
    "VendorReport",
    "commit_message",
    "plan_consumer",
    "plait_version",
    "vendor",
]

Outcome = Literal["up-to-date", "vendored", "conflicted", "refused"]


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
    derived: the rewrites this plan derived that the store's cache lacks
      (`transforms.cache_key` → the digest of a base), to remember.
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
    derived: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.consumer

    @property
    def lock_changed(self) -> bool:
        return self.lock is not None and self.lock_text != self.previous_text

    @property
    def local_edits(self) -> list[LocalEdit]:
        return self.lock.local_edits if self.lock is not None else []

    def spelled(self, name: str, before: str, after: str) -> str:
        """*before* in *after*'s import spelling: a hand-vendored `sed` spelling that binds the
        same is not what a re-vendor changed."""
        if self.lock is None or not name.endswith(".py"):
            return before
        return align_spelling({name: before}, {name: after}, self.lock.package)[name]

    @property
    def source_id(self) -> str:
        """The source as a short id for people and branch names: its commit, else a content hash."""
        if self.lock is None:
            return self.source
        if self.lock.source_commit:
            return self.lock.source_commit[:7]
        return Snapshot(self.lock.sources()).tree[:10]

    @property
    def title(self) -> str:
        """The one line a commit or a pull request is titled with."""
        return f"plait: vendor {self.source}@{self.source_id} into {self.consumer}"

    def story(self, mode: Mode) -> CopyStory:
        """What the re-vendor does to this consumer, for people (`plait.summary`).

        Its local edits are compared with the ones the lock it replaces
        listed: an edit listed only now is new (a hand edit since the last
        run); one listed only before, in a file whose source changed since,
        is one the source has taken.
        """
        texts = {f.name: Texts(f.before, f.after) for f in self.files}
        now = [Edit(e.file, e.path, e.kind, e.detail) for e in self.local_edits]
        previous = self._previous_lock()
        before = [Edit(e.file, e.path, e.kind, e.detail) for e in previous.local_edits] if previous else []
        merged = [
            Edit(f.name, c.path, c.kind, c.detail, c.statement, c.note)
            for f in self.files
            for c in f.changes_by("ours")
            if c.side == "ours"
        ]
        moves = {(file, path): member for file, path, member in moved_into(merged)}
        before_keys, now_keys = {_edit_key(e) for e in before}, {_edit_key(e) for e in now}
        moved_to = {
            (file, dest)
            for (file, path), dest in moves.items()
            if any(e.file == file and e.path == path for e in before)
        }
        new = [e for e in now if _edit_key(e) not in before_keys and (e.file, e.path) not in moved_to]
        gone = [e for e in before if _edit_key(e) not in now_keys and (e.file, e.path) not in moves]
        # A local edit at a member in conflict is not the source's yet: the conflict line names it.
        conflicted = {(c.file, c.path) for f in self.files for c in f.conflicts}
        upstream = [
            e
            for e in gone
            if previous is not None
            and self._source_moved(previous, e.file)
            and (e.file, e.path) not in conflicted
            and self._taken_by_source(e)
        ]
        return CopyStory(
            self.consumer,
            "consumer",
            self.source,
            self.outcome,
            mode,
            was=_short(self.previous_commit, previous),
            now=_short(self.lock.source_commit, self.lock) if self.lock is not None else "",
            changed=[f.name for f in self.changed],
            added=[f.name for f in self.changed if f.before is None],
            applied=fold([line.edit for line in self.applied()], texts),
            kept=fold(now, texts),
            moved=[member for _file, _path, member in moved_into(merged)],
            upstream=fold(upstream, texts),
            new=fold(new, texts) if previous is not None else [],
            conflicts=conflict_notes(self),
            reason=self.reason,
        )

    def _taken_by_source(self, edit: Edit) -> bool:
        """Whether the source took *edit*, gone from the lock: the copy still had its own change
        of that member when the run began, and the run left the member as the copy had it.  An
        edit undone by hand is gone too, and calling it "now in canonical" would be untrue."""
        plan = next((f for f in self.files if f.name == edit.file), None)
        if plan is None or plan.before is None or plan.after is None:
            return True
        if not any(c.path == edit.path for c in plan.changes_by("ours")):
            return False  # the copy no longer had it when the run began: undone by hand, not taken
        was = Texts(plan.before).member(edit.path)
        if was is None:
            return True  # (module level or a whole file: the file's source moving is the evidence)
        return was == Texts(plan.after).member(edit.path)

    def _previous_lock(self) -> Lock | None:
        if not self.previous_text:
            return None
        try:
            return Lock.loads(self.previous_text, path=LOCK_NAME)
        except CorruptLock:
            return None

    def _source_moved(self, previous: Lock, file: str) -> bool:
        """Whether *file*'s source changed between the lock found and the lock written."""
        was, now = previous.files.get(file), self.lock.files.get(file) if self.lock is not None else None
        return was is not None and now is not None and was.base is not None and was.base != now.base

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


@dataclass
class _Run:
    """What one vendor run learns once and every consumer it plans asks again.

    Only facts that cannot change while the run holds the workspace: the
    commit each source is at.  (What is a function of content alone, a
    rewrite or a parse check, is kept by the function itself.)
    """

    commits: dict[Path, str | None] = field(default_factory=dict)

    def source_commit(self, root: Path) -> str | None:
        if root not in self.commits:
            self.commits[root] = gitops.source_commit(root)
        return self.commits[root]


class _StoreCache:
    """The store's cache of rewrites, as `rewrite_tree` asks it; what it lacked is kept for the plan."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.new: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.store.cached(key)

    def put(self, key: str, text: str) -> None:
        self.new[key] = digest_of(text)


def plan_consumer(ws: Workspace, consumer: Consumer, *, budget: float = DEFAULT_BUDGET) -> VendorPlan:
    """What re-vendoring *consumer* would do; nothing is written.

    Problems that refuse the consumer are returned in the plan, not raised.
    """
    return _plan_consumer(ws, consumer, budget, _Run())


def _plan_consumer(ws: Workspace, consumer: Consumer, budget: float, run: _Run) -> VendorPlan:
    try:
        return _plan(ws, consumer, budget, run)
    except PlaitError as exc:
        return VendorPlan(consumer.name, consumer.source, "refused", reason=str(exc))


def _plan(ws: Workspace, consumer: Consumer, budget: float, run: _Run) -> VendorPlan:
    name, vendor_dir = consumer.name, consumer.vendor_dir
    source = ws.copy(consumer.source)
    # The consumer's repository first: its lock and its files are read from it.
    ws.checkout(consumer)
    ws.refuse_sparse(consumer, root=vendor_dir)  # the lock and the local patch are there, in git only
    previous = read_lock(vendor_dir)
    if previous is not None and previous.conflicted:
        left = unresolved(ws, consumer, previous.conflicted)
        if left:
            raise PlaitError(f"{name}: {'; '.join(left)}; resolve them, then run `plait vendor {name}` again")
    # Chosen before read: a file the consumer does not vendor is never read, let alone checked.
    theirs_files = ws.read_copy(source, select=consumer.selects)
    theirs_raw = selected(consumer, theirs_files.texts, source)
    if previous is None:
        _refuse_hand_vendored(ws, consumer, source, theirs_raw)
    base = ws.store.load(Snapshot(previous.bases()), what=f"the base of {name}:") if previous else {}
    sources = {rel: digest_of(text) for rel, text in theirs_raw.items()}
    commit = _source_commit(source, sources, previous, run)
    return plan_against(
        ws,
        consumer,
        source,
        theirs_raw,
        base=base,
        commit=commit,
        previous=previous,
        budget=budget,
        theirs_executable=theirs_files.executable,
    )


def _refuse_hand_vendored(ws: Workspace, consumer: Consumer, source: Copy, theirs_raw: Mapping[str, str]) -> None:
    """Refuse to vendor over a copy made without plait whose files differ from the source.

    Without a base a merge is two-way, and conflicts wherever the copy
    differs from the source at all, even where only the source moved (10
    spurious conflicts on a real service); `plait adopt` finds the base it
    was copied from instead.  A copy whose files all equal the source's is
    vendored as it is: there is nothing to merge.
    """
    _raw, ours = vendored_files(ws, consumer)
    theirs = carry(consumer, source, theirs_raw)
    ours = align_spelling(ours, theirs, consumer.package)
    differing = sorted(rel for rel in ours if rel in theirs and ours[rel] != theirs[rel])
    if differing:
        shown = ", ".join(differing[:3]) + (", …" if len(differing) > 3 else "")
        raise PlaitError(
            f"{consumer.name} was vendored without plait (no {LOCK_NAME}) and {len(differing)} of its files differ"
            f" from {source.name} ({shown}): run `plait adopt {consumer.name}` first, to record the base it was"
            " copied from; without one a vendor could only merge two ways",
            path=str(consumer.vendor_dir),
        )


def selected(consumer: Consumer, files: Mapping[str, str], source: Copy) -> dict[str, str]:
    """The files of *source* that *consumer* vendors (its include and exclude globs)."""
    chosen = {rel: text for rel, text in files.items() if consumer.selects(rel)}
    if not chosen:
        raise PlaitError(f"{consumer.name}: no file of {source.name} is selected by its include and exclude globs")
    return chosen


def carry(
    consumer: Consumer, source: Copy, files: Mapping[str, str], *, cache: _StoreCache | None = None
) -> dict[str, str]:
    """*files* of *source* as the consumer vendors them: imports rewritten into its package."""
    rewrite = ImportRewrite.between(source.package, consumer.package, extra=consumer.renames)
    return rewrite_tree(files, package=source.package, rewrite=rewrite, label=source.name, cache=cache)


def vendored_files(ws: Workspace, consumer: Consumer) -> tuple[dict[str, str], dict[str, str]]:
    """The vendored copy as it is on disk, and the same in plait's spelling (for merging).

    Ours goes through the consumer's rewrite: a no-op for a copy already in
    the consumer's spelling, a normalisation for one copied in by hand.
    """
    source = ws.copy(consumer.source)
    ws.checkout(consumer)
    raw = ws.read_files(consumer, root=consumer.vendor_dir) if consumer.vendor_dir.is_dir() else {}
    check_parses(raw, consumer.vendor_dir, consumer.name)
    return raw, in_plait_spelling(consumer, source, raw)


def in_plait_spelling(consumer: Consumer, source: Copy, raw: Mapping[str, str]) -> dict[str, str]:
    """Files of *consumer*'s vendored directory (now, or at a commit of its history) as plait
    spells them: a no-op for a copy plait vendored, a normalisation for one copied in by hand."""
    rewrite = ImportRewrite.between(source.package, consumer.package, extra=consumer.renames)
    return rewrite_tree(raw, package=consumer.package, rewrite=rewrite, label=consumer.name)


def plan_against(
    ws: Workspace,
    consumer: Consumer,
    source: Copy,
    theirs_raw: Mapping[str, str],
    *,
    base: Mapping[str, str],
    commit: str | None,
    previous: Lock | None,
    budget: float,
    theirs_executable: Collection[str] = frozenset(),
) -> VendorPlan:
    """Re-vendoring *consumer* from *theirs_raw* (the source's selected files, as the
    source spells them) over *base* (the pristine transformed source it was
    vendored from, empty for none).  *theirs_executable* names the source's
    executable files: modes merge as git merges them (`runs.merge_modes`),
    the base's mode read from the lock.

    Adoption is the same plan with the base's own revision as theirs: the
    merge leaves the copy as it is, and the lock records the base, the
    source digests and the local edits.
    """
    name, vendor_dir = consumer.name, consumer.vendor_dir
    check_parses(dict(theirs_raw), source.root, source.name)
    ours_raw, ours = vendored_files(ws, consumer)
    cache = _StoreCache(ws.store)
    theirs = carry(consumer, source, theirs_raw, cache=cache)
    ours = align_spelling(ours, base or theirs, consumer.package)
    for rel in {*theirs, *ours, *base}:
        ws.target(consumer, rel, root=vendor_dir)
    protected = {rel for rel in {*theirs, *ours} if consumer.is_protected(rel)}

    def labels(rel: str) -> dict[str, str]:
        return {"base": f"base of {rel}", "ours": str(vendor_dir / rel), "theirs": str(source.root / rel)}

    ours_executable = ws.executables(consumer, root=vendor_dir) if vendor_dir.is_dir() else frozenset()
    base_executable = previous.base_executable() if previous is not None else frozenset()
    files = merge_trees(
        base,
        ours,
        theirs,
        ours_raw=ours_raw,
        protected=protected,
        labels=labels,
        local=name,
        budget=budget,
        modes=(base_executable, ours_executable, theirs_executable),
    )

    sources = {rel: digest_of(text) for rel, text in theirs_raw.items()}
    lock = Lock(
        consumer=name,
        package=consumer.package,
        source=source.name,
        source_package=source.package,
        source_commit=commit,
        plait_version=plait_version(),
        files=_locked_files(files, theirs, sources, protected, previous, theirs_executable),
        local_edits=_local_edits(files, theirs, protected, budget, consumer.package)
        + _mode_edits(files, theirs, protected, theirs_executable),
        conflicted=sorted({c.file for f in files for c in f.conflicts}),
    )
    lock_path = vendor_dir / LOCK_NAME
    previous_text = lock_path.read_text(encoding="utf-8") if lock_path.is_file() else None
    plan = VendorPlan(
        name,
        source.name,
        "up-to-date",
        files,
        lock,
        # A lock that says what it said is left as written (its header names the command that wrote it).
        previous_text if previous_text is not None and previous == lock else lock.dumps(),
        previous_text,
        previous.source_commit if previous is not None else None,
        {rel: text for rel, text in theirs.items() if rel not in protected},
    )
    # Remembered only for what the plan stores: an entry must name an object that exists.
    stored = {digest_of(text) for text in plan.bases.values()}
    plan.derived = {key: digest for key, digest in cache.new.items() if digest in stored}
    if plan.conflicts:
        plan.outcome = "conflicted"
    elif plan.changed or plan.lock_changed:
        plan.outcome = "vendored"
    return plan


def align_spelling(ours: Mapping[str, str], reference: Mapping[str, str], package: str) -> dict[str, str]:
    """*ours* with every import that binds what a *reference* import binds spelled as the
    reference spells it: a hand-vendored `sed` spelling is not a local edit.

    Only what is merged is aligned: a file the merge leaves as it was is
    written back byte for byte (`merge_trees` keeps ours' text when the
    merge changes nothing), so a consumer's spelling changes only in a file
    the source changed.
    """
    from ..import_spelling import align_tree_spelling

    return align_tree_spelling(ours, reference, package=package)


def _source_commit(source: Copy, sources: Mapping[str, str], previous: Lock | None, run: _Run) -> str | None:
    """The commit the lock names for *source*.

    The commit is what people compare; one that moved without the files
    moving (an unrelated commit, a shallow clone's single commit) is not
    news, so the lock keeps naming the commit it named.
    """
    unmoved = previous is not None and previous.source == source.name and previous.sources() == sources
    if unmoved and previous is not None and previous.source_commit:
        return previous.source_commit
    return run.source_commit(source.root)


def unresolved(ws: Workspace, consumer: Consumer, names: Iterable[str]) -> list[str]:
    """What is left to resolve in the conflicted files *names* of *consumer*'s vendored directory
    (`runs.unresolved_file`): a marker, or a side's version still beside a file."""
    marked: list[str] = []
    beside: list[str] = []
    for rel in names:
        for problem in unresolved_file(rel, ws.target(consumer, rel, root=consumer.vendor_dir)):
            if problem.endswith(": conflict marker left"):
                marked.append(problem.removesuffix(": conflict marker left"))
            else:
                beside.append(problem)
    return ([f"conflict markers are left in {', '.join(marked)}"] if marked else []) + beside


def _locked_files(
    files: list[FilePlan],
    theirs: Mapping[str, str],
    sources: Mapping[str, str],
    protected: set[str],
    previous: Lock | None,
    executable: Collection[str],
) -> dict[str, LockedFile]:
    out: dict[str, LockedFile] = {}
    for f in files:
        sha = digest_of(f.after) if f.after is not None else None
        if f.name in protected:
            # Never merged, so its base stays what it was: a later unprotected
            # merge must not mistake the source's changes for local edits.
            old = previous.files.get(f.name) if previous is not None else None
            base = old.base if old is not None else None
            base_x = old is not None and old.base_executable
        else:
            base = digest_of(theirs[f.name]) if f.name in theirs else None
            base_x = base is not None and f.name in executable
        locked = LockedFile(sha, base, sources.get(f.name), sha is not None and f.executable, base_x)
        if locked != LockedFile():
            out[f.name] = locked
    return out


def _local_edits(
    files: list[FilePlan], theirs: Mapping[str, str], protected: set[str], budget: float, package: str
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
        if f.name in protected and f.after is not None and pristine is not None:
            edits.append(LocalEdit(f.name, "<file>", "changed", "protected"))
        else:
            edits += file_edits(f.name, pristine, f.after, package=package, budget=budget)
    return edits


def _mode_edits(
    files: list[FilePlan], theirs: Mapping[str, str], protected: set[str], executable: Collection[str]
) -> list[LocalEdit]:
    """The vendored files whose mode is the consumer's own: executable where the source's is not, or not where it is."""
    return [
        LocalEdit(f.name, "<file>", "changed", f"mode {'100755' if f.executable else '100644'}")
        for f in files
        if f.after is not None
        and f.name in theirs
        and f.name not in protected
        and not f.conflicts
        and f.executable != (f.name in executable)
    ]


def local_edits(
    pristine: Mapping[str, str], after: Mapping[str, str], *, package: str, budget: float = DEFAULT_BUDGET
) -> list[LocalEdit]:
    """What the files *after* carry that *pristine* does not, file by file (`plait adopt` weighs
    its candidate bases by them)."""
    edits: list[LocalEdit] = []
    for name in sorted(pristine.keys() | after.keys()):
        edits += file_edits(name, pristine.get(name), after.get(name), package=package, budget=budget)
    return edits


def file_edits(name: str, pristine: str | None, after: str | None, *, package: str, budget: float) -> list[LocalEdit]:
    """What file *name* as *after* carries that it does not as *pristine*, by node path (None: no such file).

    Line endings are a property of the file, not an edit of each of its
    lines: a CRLF copy of an LF source carries only what it changed besides.
    """
    if after == pristine:
        return []
    if after is None:
        return [LocalEdit(name, "<file>", "removed")]
    if pristine is None:
        return [LocalEdit(name, "<file>", "added")]
    after, pristine = contents.plain_lines(after), contents.plain_lines(pristine)
    if after == pristine:
        return []
    if not name.endswith(".py"):
        return [LocalEdit(name, "<file>", "changed")]
    # An import spelled otherwise but binding the same is no edit.
    aligned = align_spelling({name: after}, {name: pristine}, package)[name]
    if aligned == pristine:
        return []
    result = merge3(pristine, aligned, pristine, budget=budget, strict=True)
    ours = [c for c in specific_changes(result.changes) if c.side == "ours" and c.kind != "dropped"]
    found = [LocalEdit(name, c.path, c.kind, c.statement or c.detail) for c in ours]
    return found or [LocalEdit(name, "<file>", "changed", "comments or formatting")]


# --------------------------------------------------------------------------
# running


# The workspace a worker process plans in, loaded once per run: loading it
# reads the whole manifest, so once per consumer would make a fleet's run
# grow with the square of its size.
_worker_run: tuple[str, Workspace, _Run] | None = None


def _plan_in_worker(manifest: str, name: str, budget: float, run_id: str) -> VendorPlan:
    global _worker_run
    if _worker_run is None or _worker_run[0] != run_id:
        ws = Workspace.load(manifest)
        ws.fetch = False  # the parent fetched every clone before starting the workers
        _worker_run = (run_id, ws, _Run())
    _, ws, run = _worker_run
    return _plan_consumer(ws, ws.consumers[name], budget, run)


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
    texts: dict[str, str] = {}
    workers = min(jobs, len(consumers))
    if workers > 1:
        # Clones are fetched here, once each, not by workers racing on one clone.
        for consumer in consumers:
            try:
                ws.checkout(consumer)
                ws.checkout(ws.copy(consumer.source))
            except PlaitError:
                pass  # the worker plans it again and reports the same error as that consumer's
    if workers <= 1:
        run = _Run()
        for consumer in consumers:
            done[consumer.name] = plan = _shared(_plan_consumer(ws, consumer, budget, run), texts)
            if progress is not None:
                progress(plan)
    else:
        run_id = f"{os.getpid()}-{uuid.uuid4().hex}"
        with orphan_proof_pool(workers) as pool:
            futures = [pool.submit(_plan_in_worker, str(ws.manifest), c.name, budget, run_id) for c in consumers]
            for future in as_completed(futures):
                plan = _shared(future.result(), texts)
                done[plan.consumer] = plan
                if progress is not None:
                    progress(plan)
    return [done[c.name] for c in consumers]


def _shared(plan: VendorPlan, texts: dict[str, str]) -> VendorPlan:
    """*plan* holding each of its texts once for the whole run (*texts*: every text so far).

    A run keeps every plan until it writes, and the consumers of one source
    mostly hold its very texts, so a fleet's memory stays that of a few copies.
    """

    def one(text: str) -> str:
        return texts.setdefault(text, text)

    for f in plan.files:
        f.share_texts(one)
    plan.bases = {rel: one(text) for rel, text in plan.bases.items()}
    return plan


def vendor(
    ws: Workspace,
    names: Iterable[str] | None = None,
    *,
    dry_run: bool = False,
    write_conflicts: bool = True,
    commit: bool = False,
    push: bool = False,
    jobs: int = 1,
    budget: float = DEFAULT_BUDGET,
    progress: Callable[[VendorPlan], None] | None = None,
) -> VendorReport:
    """Re-vendor *names* (default: every consumer).

    dry_run: plan and report, write nothing.
    write_conflicts: False (CI) writes nothing at all when any consumer conflicts.
    commit: commit each git-backed consumer's changes on ``plait/vendor-<consumer>-<source id>``.
    jobs: how many consumers to plan at once, in worker processes.

    A run that writes holds the workspace lock and first mends what an
    interrupted run left (`plait.session.exclusive`); a dry run only reads.
    """
    consumers = ws.select_consumers(names)
    return writing_run(
        ws,
        dry_run=dry_run,
        run=lambda dry: _vendor(
            ws,
            consumers,
            dry_run=dry,
            write_conflicts=write_conflicts,
            commit=not dry and (commit or push),
            push=not dry and push,
            jobs=jobs,
            budget=budget,
            progress=progress,
        ),
    )


def _vendor(
    ws: Workspace,
    consumers: list[Consumer],
    *,
    dry_run: bool,
    write_conflicts: bool,
    commit: bool,
    push: bool,
    jobs: int,
    budget: float,
    progress: Callable[[VendorPlan], None] | None,
) -> VendorReport:
    report = VendorReport(
        _plan_all(ws, consumers, jobs, budget, progress),
        dry_run=dry_run,
        manifest=str(ws.manifest),
        roots={c.name: str(c.vendor_dir) for c in consumers},
    )
    if dry_run or report.refused or (report.conflicted and not write_conflicts):
        if report.conflicted and not write_conflicts and not dry_run:
            report.notes.append("conflicts: nothing was written (--no-write-conflicts)")
        return report
    to_write = [p for p in report.plans if p.outcome in ("vendored", "conflicted")]
    if commit:
        return _vendor_on_branches(ws, report, to_write, push=push)
    report.notes += ws.notes
    if not to_write:
        return report
    txn = new_transaction(ws)
    for plan in to_write:
        stage_plan(ws, plan, txn)
    commit_run(ws, txn)
    report.written = True
    added = [
        ws.target(ws.consumers[p.consumer], f.name, root=ws.consumers[p.consumer].vendor_dir)
        for p in to_write
        for f in p.changed
        if f.before is None and f.after is not None
    ]
    # A first lock is new in the consumer's repository too: without it there, CI finds no lock.
    added += [ws.consumers[p.consumer].vendor_dir / LOCK_NAME for p in to_write if p.previous_text is None]
    report.untracked = untracked_paths(added)
    return report


def _vendor_on_branches(ws: Workspace, report: VendorReport, to_write: list[VendorPlan], *, push: bool) -> VendorReport:
    """`--commit`: what vendored goes on review branches, no checkout written; a conflict
    is written to its checkout as any run writes it, since a person resolves it there."""
    to_commit = [p for p in to_write if p.outcome == "vendored"]
    conflicted = [p for p in to_write if p.outcome == "conflicted"]
    guard_run(ws, [ws.consumers[p.consumer].vendor_dir for p in to_commit])
    report.notes += ws.notes
    if to_commit:
        txn = new_transaction(ws)
        for plan in to_commit:
            stage_plan(ws, plan, txn)
        _publish(ws, report, to_commit, txn, push=push)
    if conflicted:
        txn = new_transaction(ws)
        for plan in conflicted:
            stage_plan(ws, plan, txn)
            report.notes.append(f"{plan.consumer}: not committed (it conflicted; resolve, then vendor it again)")
        commit_run(ws, txn)
        report.written = True
    return report


def _publish(ws: Workspace, report: VendorReport, plans: list[VendorPlan], txn: Transaction, *, push: bool) -> None:
    pieces = []
    for plan in plans:
        consumer = ws.consumers[plan.consumer]
        paths = [consumer.vendor_dir / f.name for f in plan.changed] + [consumer.vendor_dir / LOCK_NAME]
        pieces.append(Piece(plan.consumer, consumer.vendor_dir, _branch(plan), commit_message(plan), tuple(paths)))
    branch = _branch(plans[0]) if len(plans) == 1 else "plait/vendor-" + "-".join(sorted({p.source_id for p in plans}))
    summary = f"Store: the bases the new locks name ({len(txn.objects)} object(s) added)"
    report.record(branch_run(ws, txn, pieces, store_branch=branch, store_summary=summary, push=push))


def stage_plan(ws: Workspace, plan: VendorPlan, txn: Transaction) -> None:
    assert plan.lock is not None
    consumer = ws.consumers[plan.consumer]
    for f in plan.changed:
        target = ws.target(consumer, f.name, root=consumer.vendor_dir)
        if f.after is None:
            txn.remove(target)
        else:
            txn.write(target, f.after, executable=f.executable)
    for f in plan.files:
        for name, text in f.beside.items():
            txn.write(ws.target(consumer, name, root=consumer.vendor_dir), text)
    for text in plan.bases.values():
        ws.store.stage(txn, text)
    for key, digest in plan.derived.items():
        ws.store.stage_cached(txn, key, digest)
    # The lock switches last: it says which vendored files and bases are current.
    txn.write(ws.target(consumer, LOCK_NAME, root=consumer.vendor_dir), plan.lock_text, last=True)


def _edit_key(edit: Edit) -> tuple[str, ...]:
    """What makes two local edits the same edit: a changed body is the same edit whatever
    statement the report quotes from it."""
    if edit.kind == "changed":
        return (edit.file, edit.path, edit.kind)
    return (edit.file, edit.path, edit.kind, edit.detail)


def _short(commit: str | None, previous: Lock | None) -> str:
    """The source a consumer was vendored from, as a short id: its commit, else its content."""
    if commit:
        return commit[:7]
    if previous is not None:
        return f"tree:{Snapshot(previous.sources()).tree[:10]}"
    return ""


def _branch(plan: VendorPlan) -> str:
    return f"plait/vendor-{plan.consumer}-{plan.source_id}"


def commit_message(plan: VendorPlan) -> str:
    """A commit message that a pull request can use as is: the source commit, what the
    written files change, the local edits kept, and those the source has taken."""
    assert plan.lock is not None
    lock = plan.lock
    if lock.source_commit:
        preamble = [f"Source: {plan.source} at commit {lock.source_commit}"]
    else:
        preamble = [f"Source: {plan.source} (no commit: its files were not committed when vendored)"]
    if plan.previous_commit and plan.previous_commit != lock.source_commit:
        preamble.append(f"Previously vendored from commit {plan.previous_commit}")
    return commit_text(plan.title, plan.story("written"), preamble)
