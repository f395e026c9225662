"""Record a first base for a copy plait never synced or vendored: a lineage or a consumer.

An existing fork, or a service that vendored the client by hand with `cp`
and `sed`, has no record of where it started, and without a base a merge
could only overwrite or guess: a first vendor from an empty base conflicts
wherever the copy differs from the source at all, even where only the
source moved.  ``adopt`` records one: given (``--base REF`` or ``--base
PATH``), or inferred by walking the git history of the source's files,
carrying each revision through the copy's transforms (the lineage's, or
the consumer's import rewrite and file selection), and picking the one
closest to the copy.  The choice, the distance that decided it and the
runner-up are printed, so a maintainer can check it before trusting it.

For a lineage the base goes into the sync state; for a consumer into the
vendored directory's lock, with the store objects it names, so that the
next `plait vendor` is a true 3-way merge.  What the copy has that the
chosen revision does not is listed as its local edits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import gitops
from ..commit import Transaction
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET
from ..paths import LOCK_NAME
from ..publish import Piece
from ..session import branch_run, commit_run, guard_run, new_transaction, writing_run
from ..store import Snapshot, SyncRecord, digest_of
from ..vendoring.lock import LocalEdit, read_lock
from ..workspace import Consumer, Copy, Lineage, Workspace, excluded, read_tree
from .diff import distance

__all__ = ["AdoptResult", "Candidate", "adopt"]

How = Literal["path", "revision", "inferred"]
Kind = Literal["lineage", "consumer"]


@dataclass(frozen=True)
class Candidate:
    """A revision of the source, and how far the copy is from it."""

    revision: gitops.Revision
    members: int
    lines: int

    def describe(self) -> str:
        r = self.revision
        return f"{r.short} ({r.date}, {r.summary!r}): {self.members} differing members, {self.lines} differing lines"

    def to_json(self) -> dict[str, Any]:
        r = self.revision
        return {"commit": r.sha, "date": r.date, "summary": r.summary, "members": self.members, "lines": self.lines}


@dataclass
class AdoptResult:
    """The base recorded for a copy and how it was chosen.

    base: the source's files as they were at the base (digests of the
      source's own spelling), with the commit when one was chosen.
    local_edits: for a consumer, what its copy has that the base does not.
    """

    name: str
    kind: Kind
    source: str
    how: How
    base: Snapshot
    chosen: Candidate | None = None
    runner_up: Candidate | None = None
    candidates: int = 0
    local_edits: list[LocalEdit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # With --commit: each branch made (as `RunReport.published` lists them).
    published: list[dict[str, Any]] = field(default_factory=list)

    def why(self) -> str:
        if self.how == "path":
            return "given as a directory (--base PATH)"
        if self.how == "revision":
            return f"given as a revision (--base {self.base.short})"
        assert self.chosen is not None
        return f"closest of {self.candidates} revisions of {self.source}: {self.chosen.describe()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "source": self.source,
            "how": self.how,
            "base": {"commit": self.base.commit, "tree": self.base.tree, "files": dict(self.base.files)},
            "chosen": self.chosen.to_json() if self.chosen else None,
            "runner_up": self.runner_up.to_json() if self.runner_up else None,
            "candidates": self.candidates,
            "why": self.why(),
            "local_edits": [edit.to_json() for edit in self.local_edits],
            "notes": self.notes,
            "commits": self.published,
        }


def adopt(
    ws: Workspace,
    name: str,
    base: str | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
    limit: int = 200,
    budget: float = DEFAULT_BUDGET,
    commit: bool = False,
    push: bool = False,
) -> AdoptResult:
    """Record the base of lineage or consumer *name*: *base* is a directory or a revision
    of its source; without it the closest revision of the source's history.

    commit: write nothing to any checkout; commit what adopt writes (the
      consumer's lock in its repository, the store in the workspace's) on
      ``plait/adopt-<name>`` branches instead; push: then push them.
    """
    publish = Publishing(commit or push, push)
    return writing_run(
        ws,
        dry_run=dry_run,
        run=lambda dry: _adopt(ws, name, base, force=force, dry_run=dry, limit=limit, budget=budget, publish=publish),
    )


@dataclass(frozen=True)
class Publishing:
    """Whether adopt commits on branches instead of writing checkouts, and pushes them."""

    commit: bool = False
    push: bool = False


def _adopt(
    ws: Workspace,
    name: str,
    base: str | None,
    *,
    force: bool,
    dry_run: bool,
    limit: int,
    budget: float,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    if name in ws.consumers:
        return _adopt_consumer(
            ws, ws.consumers[name], base, force=force, dry_run=dry_run, limit=limit, budget=budget, publish=publish
        )
    if name not in ws.lineages:
        known = ", ".join([*ws.lineages, *ws.consumers]) or "none"
        raise PlaitError(f"no lineage or consumer named {name!r} (known: {known})", path=str(ws.manifest))
    return _adopt_lineage(ws, ws.lineages[name], base, force=force, dry_run=dry_run, limit=limit, publish=publish)


def _write(ws: Workspace, result: AdoptResult, txn: Transaction, pieces: list[Piece], publish: Publishing) -> None:
    """Commit what adopt staged: to the checkouts, or (--commit) on review branches only."""
    if not publish.commit:
        commit_run(ws, txn)
        return
    branch = f"plait/adopt-{result.name}-{result.base.short}"
    summary = f"Store: the base of {result.name} ({len(txn.objects)} object(s) added)"
    published = branch_run(ws, txn, pieces, store_branch=branch, store_summary=summary, push=publish.push)
    result.published = published.to_json()
    result.notes += published.notes


# --------------------------------------------------------------------------
# lineages


def _adopt_lineage(
    ws: Workspace,
    lineage: Lineage,
    base: str | None,
    *,
    force: bool,
    dry_run: bool,
    limit: int,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    name = lineage.name
    source = ws.copy(lineage.syncs_from)
    state = ws.store.state()
    existing = state.record(name)
    if existing is not None and existing.conflicted:
        raise PlaitError(f"{name} has a sync in progress; finish it with --continue or --abort first")
    if existing is not None and not force:
        raise PlaitError(f"{name} already has a base ({existing.base.short}); pass --force to replace it")

    ours = ws.read_files(lineage)

    def carried(files: Mapping[str, str]) -> dict[str, str]:
        return lineage.carry(files, source)

    files, result = _choose_base(ws, name, "lineage", source, base, ours, carried, limit, lineage.package)
    # Check the base can be carried into the lineage now, not at the first sync.
    carried(files)

    txn = new_transaction(ws)
    result.base = ws.store.snapshot(txn, files, result.base.commit)
    state.set_record(name, SyncRecord(source.name, result.base))
    if ws.remove_key("lineages", name, "base"):
        # The hand-kept base the manifest used to name is now in the store.
        result.notes.append(f"removed the hand-kept 'base' key of [lineages.{name}] from the manifest")
        ws.stage_manifest(txn)
    if not dry_run:
        if publish.commit:
            guard_run(ws, [])
        ws.store.stage_state(txn, state)
        _write(ws, result, txn, [], publish)
    return result


# --------------------------------------------------------------------------
# consumers


def _adopt_consumer(
    ws: Workspace,
    consumer: Consumer,
    base: str | None,
    *,
    force: bool,
    dry_run: bool,
    limit: int,
    budget: float,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    from ..vendoring.vendor import carry, plan_against, selected, stage_plan, vendored_files

    name = consumer.name
    source = ws.copy(consumer.source)
    ws.checkout(consumer)
    existing = read_lock(consumer.vendor_dir)
    if existing is not None and existing.conflicted:
        raise PlaitError(f"{name} has a vendor conflict waiting; resolve it and run `plait vendor {name}` first")
    if existing is not None and not force:
        raise PlaitError(
            f"{name} was already vendored by plait (from {existing.source_short}); pass --force to record a new base"
        )
    _raw, ours = vendored_files(ws, consumer)
    if not ours:
        raise PlaitError(
            f"{name}: nothing is vendored in {consumer.vendor_rel} yet; run `plait vendor {name}` instead",
            path=str(consumer.vendor_dir),
        )

    def carried(files: Mapping[str, str]) -> dict[str, str]:
        return carry(consumer, source, {rel: text for rel, text in files.items() if consumer.selects(rel)})

    files, result = _choose_base(ws, name, "consumer", source, base, ours, carried, limit, consumer.package)
    raw = selected(consumer, files, source)
    pristine = carried(raw)
    plan = plan_against(
        ws, consumer, source, raw, base=pristine, commit=result.base.commit, previous=None, budget=budget
    )
    if plan.outcome == "refused":  # pragma: no cover - plan_against raises instead
        raise PlaitError(plan.reason)
    assert plan.lock is not None
    result.base = Snapshot({rel: digest_of(text) for rel, text in raw.items()}, result.base.commit)
    result.local_edits = list(plan.local_edits)
    if not dry_run:
        if publish.commit:
            guard_run(ws, [consumer.vendor_dir])
        txn = new_transaction(ws)
        stage_plan(ws, plan, txn)
        paths = tuple(consumer.vendor_dir / f.name for f in plan.changed) + (consumer.vendor_dir / LOCK_NAME,)
        message = (
            f"plait adopt: {name} from {result.source}@{result.base.short}\n\nThe base {name}'s copy started from.\n"
        )
        branch = f"plait/adopt-{name}-{result.base.short}"
        _write(ws, result, txn, [Piece(name, consumer.vendor_dir, branch, message, paths)], publish)
    return result


# --------------------------------------------------------------------------
# choosing the base


def _choose_base(
    ws: Workspace,
    name: str,
    kind: Kind,
    source: Copy,
    base: str | None,
    ours: Mapping[str, str],
    carried: Callable[[Mapping[str, str]], dict[str, str]],
    limit: int,
    package: str,
) -> tuple[dict[str, str], AdoptResult]:
    """The source's files at the base, and how they were chosen."""
    ws.checkout(source)
    if base is not None and Path(base).exists():
        files = read_tree(Path(base), source.exclude)
        if not files:
            raise PlaitError("no files in the given base", path=base)
        result = AdoptResult(name, kind, source.name, "path", Snapshot({}, None))
    elif base is not None:
        sha = gitops.resolve(source.root, base)
        files = gitops.files_at(source.root, sha)
        if not files:
            raise PlaitError(f"{source.name} has no files at {base}", path=str(source.root))
        result = AdoptResult(name, kind, source.name, "revision", Snapshot({}, sha))
    else:
        files, result = _infer(name, kind, source, ours, carried, limit, package)
    return {rel: text for rel, text in files.items() if not excluded(rel, source.exclude)}, result


def _infer(
    name: str,
    kind: Kind,
    source: Copy,
    ours: Mapping[str, str],
    carried: Callable[[Mapping[str, str]], dict[str, str]],
    limit: int,
    package: str,
) -> tuple[dict[str, str], AdoptResult]:
    from ..vendoring.vendor import align_spelling

    revisions = gitops.history(source.root, limit=limit)
    if not revisions:
        raise PlaitError(
            f"no git history for {source.name}; pass --base PATH (the source as {name} started from it)",
            path=str(source.root),
        )
    candidates: list[tuple[int, gitops.Revision, dict[str, str], dict[str, str]]] = []
    for age, revision in enumerate(revisions):
        files = gitops.files_at(source.root, revision.sha)
        if files:
            candidates.append((age, revision, files, carried(files)))
    # A file the source had at any revision counts for every candidate (a
    # candidate without it is that much further away); files only the copy
    # ever had cost every candidate the same, so they are left out.
    names = {rel for *_, theirs in candidates for rel in theirs}
    mine = {k: v for k, v in ours.items() if k in names}
    scored: list[tuple[tuple[int, int, int], Candidate, dict[str, str]]] = []
    for age, revision, files, theirs in candidates:
        # A hand-vendored copy spells its imports its own way; the same
        # binding spelled otherwise is no distance.
        members, lines = distance(theirs, align_spelling(mine, theirs, package))
        # Ties go to the newer revision: fewer changes left to merge.
        scored.append(((members, lines, age), Candidate(revision, members, lines), files))
    if not scored:
        raise PlaitError(f"{source.name} has no files in its history", path=str(source.root))
    scored.sort(key=lambda item: item[0])
    _, chosen, files = scored[0]
    runner_up = scored[1][1] if len(scored) > 1 else None
    result = AdoptResult(
        name,
        kind,
        source.name,
        "inferred",
        Snapshot({}, chosen.revision.sha),
        chosen=chosen,
        runner_up=runner_up,
        candidates=len(scored),
    )
    repo = gitops.repo_of(source.root)
    if repo is not None and gitops.is_shallow(repo):
        # A CI clone with --depth 1 has one revision to offer; say so rather
        # than present it as the closest of many.
        result.notes.append(
            f"{source.name} is in a shallow clone: only {len(scored)} revision(s) were compared;"
            " run `git fetch --unshallow` or pass --base"
        )
    return files, result
