"""Record a first base for a lineage that was never synced by plait.

An existing fork has no record of where it started, and without a base a
sync could only overwrite or guess.  ``adopt`` records one: given
(``--base REF`` or ``--base PATH``), or inferred by walking the git history
of the source's files and picking the revision closest to the lineage's
copy, with the distance that decided it and the runner-up printed, so a
maintainer can check the choice before trusting it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import gitops
from ..commit import commit_run, exclusive, new_transaction, refuse_if_interrupted
from ..errors import PlaitError
from ..store import Snapshot, SyncRecord
from ..workspace import Copy, Lineage, Workspace, excluded, read_tree
from .diff import distance

__all__ = ["AdoptResult", "Candidate", "adopt"]

How = Literal["path", "revision", "inferred"]


@dataclass(frozen=True)
class Candidate:
    """A revision of the source, and how far the lineage is from it."""

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
    """The base recorded for a lineage and how it was chosen."""

    lineage: str
    source: str
    how: How
    base: Snapshot
    chosen: Candidate | None = None
    runner_up: Candidate | None = None
    candidates: int = 0
    notes: list[str] = field(default_factory=list)

    def why(self) -> str:
        if self.how == "path":
            return "given as a directory (--base PATH)"
        if self.how == "revision":
            return f"given as a revision (--base {self.base.short})"
        assert self.chosen is not None
        return f"closest of {self.candidates} revisions of {self.source}: {self.chosen.describe()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "lineage": self.lineage,
            "source": self.source,
            "how": self.how,
            "base": {"commit": self.base.commit, "tree": self.base.tree, "files": dict(self.base.files)},
            "chosen": self.chosen.to_json() if self.chosen else None,
            "runner_up": self.runner_up.to_json() if self.runner_up else None,
            "candidates": self.candidates,
            "why": self.why(),
            "notes": self.notes,
        }


def adopt(
    ws: Workspace,
    name: str,
    base: str | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
    limit: int = 200,
) -> AdoptResult:
    """Record the base of lineage *name*: *base* is a directory or a revision of
    the source; without it the closest revision of the source's history."""
    if dry_run:
        refuse_if_interrupted(ws)
        return _adopt(ws, name, base, force=force, dry_run=True, limit=limit)
    with exclusive(ws) as recovery:
        result = _adopt(ws, name, base, force=force, dry_run=False, limit=limit)
        result.notes[:0] = recovery.notes()
        return result


def _adopt(ws: Workspace, name: str, base: str | None, *, force: bool, dry_run: bool, limit: int) -> AdoptResult:
    lineage = ws.lineage(name)
    source = ws.copy(lineage.syncs_from)
    state = ws.store.state()
    existing = state.record(name)
    if existing is not None and not force:
        raise PlaitError(f"{name} already has a base ({existing.base.short}); pass --force to replace it")
    if existing is not None and existing.conflicted:
        raise PlaitError(f"{name} has a sync in progress; finish it with --continue or --abort first")

    result: AdoptResult
    if base is not None and Path(base).exists():
        files = read_tree(Path(base), source.exclude)
        if not files:
            raise PlaitError("no files in the given base", path=base)
        result = AdoptResult(name, source.name, "path", Snapshot({}, None))
    elif base is not None:
        sha = gitops.resolve(source.root, base)
        files = gitops.files_at(source.root, sha)
        if not files:
            raise PlaitError(f"{source.name} has no files at {base}", path=str(source.root))
        result = AdoptResult(name, source.name, "revision", Snapshot({}, sha))
    else:
        files, result = _infer(ws, lineage, source, limit)
    files = {rel: text for rel, text in files.items() if not excluded(rel, source.exclude)}
    # Check the base can be carried into the lineage now, not at the first sync.
    lineage.carry(files, source)

    txn = new_transaction(ws)
    result.base = ws.store.snapshot(txn, files, result.base.commit)
    state.set_record(name, SyncRecord(source.name, result.base))
    if ws.remove_key("lineages", name, "base"):
        # The hand-kept base the manifest used to name is now in the store.
        result.notes.append(f"removed the hand-kept 'base' key of [lineages.{name}] from the manifest")
        ws.stage_manifest(txn)
    if not dry_run:
        ws.store.stage_state(txn, state)
        commit_run(ws, txn)
    return result


def _infer(ws: Workspace, lineage: Lineage, source: Copy, limit: int) -> tuple[dict[str, str], AdoptResult]:
    revisions = gitops.history(source.root, limit=limit)
    if not revisions:
        raise PlaitError(
            f"no git history for {source.name}; pass --base PATH (the source as the lineage forked it)",
            path=str(source.root),
        )
    ours = ws.read_files(lineage)
    carried: list[tuple[int, gitops.Revision, dict[str, str], dict[str, str]]] = []
    for age, revision in enumerate(revisions):
        files = gitops.files_at(source.root, revision.sha)
        if files:
            carried.append((age, revision, files, lineage.carry(files, source)))
    # A file the source had at any revision counts for every candidate (a
    # candidate without it is that much further away); files only the
    # lineage ever had cost every candidate the same, so they are left out.
    names = {name for *_, theirs in carried for name in theirs}
    ours = {k: v for k, v in ours.items() if k in names}
    scored: list[tuple[tuple[int, int, int], Candidate, dict[str, str]]] = []
    for age, revision, files, theirs in carried:
        members, lines = distance(theirs, ours)
        candidate = Candidate(revision, members, lines)
        # Ties go to the newer revision: fewer changes left to merge.
        scored.append(((members, lines, age), candidate, files))
    if not scored:
        raise PlaitError(f"{source.name} has no files in its history", path=str(source.root))
    scored.sort(key=lambda item: item[0])
    _, chosen, files = scored[0]
    runner_up = scored[1][1] if len(scored) > 1 else None
    result = AdoptResult(
        lineage.name,
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
