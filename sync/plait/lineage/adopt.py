"""Record a first base for a copy plait never synced or vendored: a lineage or a consumer.

An existing fork, or a service that vendored the client by hand with `cp`
and `sed`, has no record of where it started, and without a base a merge
could only overwrite or guess: a first vendor from an empty base conflicts
wherever the copy differs from the source at all, even where only the
source moved.  ``adopt`` records one: given (``--base REF`` or ``--base
PATH``), or found in the histories of the source and of the copy
(`plait.lineage.history`: a sync point in the copy's own history, else the
closest revision by content that is not dated after the copy, weighed by
the direction of its differences).  The choice, why, and the runner-up are
reported, and a choice too close to call is put to a person.

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

from .. import contents, gitops
from ..commit import Transaction
from ..errors import PlaitError
from ..merge import DEFAULT_BUDGET
from ..paths import LOCK_NAME
from ..publish import Piece
from ..session import branch_run, commit_run, guard_run, new_transaction, writing_run
from ..store import Snapshot, SyncRecord, digest_of
from ..vendoring.lock import LocalEdit, read_lock
from ..workspace import Consumer, Copy, Lineage, Workspace, excluded, read_tree
from .history import (
    Ambiguity,
    AmbiguousBase,
    Candidate,
    CopyHistory,
    Finding,
    SourceHistory,
    find_base,
    package_at,
    package_segments,
    relative_path,
)

__all__ = ["AdoptResult", "Ambiguity", "AmbiguousBase", "Candidate", "adopt"]

How = Literal["path", "revision", "inferred"]
Kind = Literal["lineage", "consumer"]
Chooser = Callable[[Ambiguity], Candidate | None]


@dataclass
class AdoptResult:
    """The base recorded for a copy and how it was chosen.

    base: the source's files as they were at the base (digests of the
      source's own spelling), with the commit when one was chosen.
    local_edits: what the copy has that the base does not (for a consumer,
      as its lock records them).
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
    finding: Finding | None = None
    copy_label: str = ""
    # With --commit: each branch made (as `RunReport.published` lists them).
    published: list[dict[str, Any]] = field(default_factory=list)

    def why(self) -> str:
        """Why this base: given, a sync point of the copy's history, or content (and direction)."""
        if self.how == "path":
            return "given as a directory (--base PATH)"
        if self.how == "revision":
            return f"given as a revision (--base {self.base.short})"
        found = self.finding
        assert found is not None and self.chosen is not None
        edits = f"{len(self.local_edits)} local edit{'s' if len(self.local_edits) != 1 else ''}"
        if found.how == "sync point" and found.sync is not None:
            return f"sync point: {found.sync.describe(self.copy_label or self.name, self.chosen)}"
        of = f"of {found.compared} revision{'s' if found.compared != 1 else ''} of {self.source}"
        if found.how == "chosen":
            return f"chosen by you between the two closest {of}: {edits}"
        return f"closest by content {of}: {edits}"

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
            "reason": self.finding.how if self.finding is not None else self.how,
            "sync_point": (
                self.finding.sync.commit.sha
                if self.finding is not None and self.finding.sync is not None and self.finding.sync.commit
                else None
            ),
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
    max_revisions: int | None = None,
    choose: Chooser | None = None,
    budget: float = DEFAULT_BUDGET,
    commit: bool = False,
    push: bool = False,
) -> AdoptResult:
    """Record the base of lineage or consumer *name*: *base* is a directory or a revision
    of its source; without it the revision found in the histories (see
    `plait.lineage.history`).  *max_revisions* bounds the walk (the newest
    that many; none by default); *choose* is asked when two revisions are too
    close to tell apart, and without it that is an `AmbiguousBase` error.

    commit: write nothing to any checkout; commit what adopt writes (the
      consumer's lock in its repository, the store in the workspace's) on
      ``plait/adopt-<name>`` branches instead; push: then push them.
    """
    publish = Publishing(commit or push, push)
    return writing_run(
        ws,
        dry_run=dry_run,
        run=lambda dry: _adopt(
            ws,
            name,
            base,
            force=force,
            dry_run=dry,
            max_revisions=max_revisions,
            choose=choose,
            budget=budget,
            publish=publish,
        ),
    )


@dataclass(frozen=True)
class _Walked:
    """What choosing a base needs to know of the copy, whichever kind it is."""

    name: str
    kind: Kind
    source: Copy
    ours: Mapping[str, str]
    carried: Callable[[Mapping[str, str]], dict[str, str]]
    history: CopyHistory
    name_of: Callable[[str], str]
    select: Callable[[str], bool]


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
    max_revisions: int | None,
    choose: Chooser | None,
    budget: float,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    if name in ws.consumers:
        return _adopt_consumer(
            ws,
            ws.consumers[name],
            base,
            force=force,
            dry_run=dry_run,
            max_revisions=max_revisions,
            choose=choose,
            budget=budget,
            publish=publish,
        )
    if name not in ws.lineages:
        known = ", ".join([*ws.lineages, *ws.consumers]) or "none"
        raise PlaitError(f"no lineage or consumer named {name!r} (known: {known})", path=str(ws.manifest))
    return _adopt_lineage(
        ws,
        ws.lineages[name],
        base,
        force=force,
        dry_run=dry_run,
        max_revisions=max_revisions,
        choose=choose,
        budget=budget,
        publish=publish,
    )


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
    max_revisions: int | None,
    choose: Chooser | None,
    budget: float,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    from ..vendoring.vendor import align_spelling, local_edits

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

    walked = _Walked(
        name,
        "lineage",
        source,
        ours,
        carried,
        _copy_history(
            name,
            ours,
            ours,
            lineage.root,
            lineage.exclude,
            normalise=dict,
            align=lambda mine, theirs: align_spelling(mine, theirs, lineage.package),
            edits=lambda pristine, after: local_edits(pristine, after, package=lineage.package, budget=budget),
        ),
        name_of=lambda rel: lineage.files.get(rel, rel),
        select=lambda rel: True,
    )
    files, result = _choose_base(ws, walked, base, max_revisions, choose)
    # Check the base can be carried into the lineage now, not at the first sync.
    result.local_edits = local_edits(carried(files), ours, package=lineage.package, budget=budget)

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
    max_revisions: int | None,
    choose: Chooser | None,
    budget: float,
    publish: Publishing = Publishing(),
) -> AdoptResult:
    from ..vendoring.vendor import (
        align_spelling,
        carry,
        in_plait_spelling,
        local_edits,
        plan_against,
        selected,
        stage_plan,
        vendored_files,
    )

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
    raw_files, ours = vendored_files(ws, consumer)
    if not ours:
        raise PlaitError(
            f"{name}: nothing is vendored in {consumer.vendor_rel} yet; run `plait vendor {name}` instead",
            path=str(consumer.vendor_dir),
        )

    def carried(files: Mapping[str, str]) -> dict[str, str]:
        return carry(consumer, source, {rel: text for rel, text in files.items() if consumer.selects(rel)})

    walked = _Walked(
        name,
        "consumer",
        source,
        ours,
        carried,
        _copy_history(
            name,
            ours,
            raw_files,
            consumer.vendor_dir,
            consumer.exclude,
            normalise=lambda raw: in_plait_spelling(consumer, source, raw),
            align=lambda mine, theirs: align_spelling(mine, theirs, consumer.package),
            edits=lambda pristine, after: local_edits(pristine, after, package=consumer.package, budget=budget),
        ),
        name_of=lambda rel: rel,
        select=consumer.selects,
    )
    files, result = _choose_base(ws, walked, base, max_revisions, choose)
    raw = selected(consumer, files, source)
    pristine = carried(raw)
    plan = plan_against(
        ws, consumer, source, raw, base=pristine, commit=result.base.commit, previous=None, budget=budget
    )
    if plan.outcome == "refused":  # pragma: no cover - plan_against raises instead
        raise PlaitError(plan.reason)
    assert plan.lock is not None
    plan.lock.written_by = "plait adopt"
    plan.lock_text = plan.lock.dumps()
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


def _copy_history(
    name: str,
    ours: Mapping[str, str],
    raw: Mapping[str, str],
    directory: Path,
    exclude: tuple[str, ...],
    *,
    normalise: Callable[[Mapping[str, str]], dict[str, str]],
    align: Callable[[Mapping[str, str], Mapping[str, str]], dict[str, str]],
    edits: Callable[[Mapping[str, str], Mapping[str, str]], list[LocalEdit]],
) -> CopyHistory:
    top = gitops.top_of(directory)
    return CopyHistory(
        name,
        ours,
        top,
        relative_path(top, directory) if top is not None else "",
        keep=lambda rel: not excluded(rel, exclude),
        normalise=normalise,
        align=align,
        edits=edits,
        raw=raw,
    )


def _choose_base(
    ws: Workspace, walked: _Walked, base: str | None, max_revisions: int | None, choose: Chooser | None
) -> tuple[dict[str, str], AdoptResult]:
    """The source's files at the base, and how they were chosen."""
    source = walked.source
    ws.checkout(source)
    top = gitops.top_of(source.root)
    if base is not None and Path(base).exists():
        files = read_tree(Path(base), source.exclude)
        if not files:
            raise PlaitError("no files in the given base", path=base)
        result = AdoptResult(walked.name, walked.kind, source.name, "path", Snapshot({}, None))
    elif base is not None:
        if top is None:
            raise PlaitError("not in a git repository, so a revision means nothing here", path=str(source.root))
        sha = gitops.resolve(source.root, base)
        files = _files_at(source, top, sha)
        if not files:
            raise PlaitError(f"{source.name} has no files at {base}", path=str(source.root))
        result = AdoptResult(walked.name, walked.kind, source.name, "revision", Snapshot({}, sha))
    else:
        if top is None:
            raise PlaitError(
                f"no git history for {source.name}; pass --base PATH (the source as {walked.name} started from it)",
                path=str(source.root),
            )
        files, result = _infer(walked, top, max_revisions, choose)
    return {rel: text for rel, text in files.items() if not excluded(rel, source.exclude)}, result


def _files_at(source: Copy, top: Path, sha: str) -> dict[str, str]:
    """The source's package at revision *sha*, wherever it lived then (it may have moved since)."""
    path = relative_path(top, source.root)
    known = [segment.path for segment in package_segments(top, path)]
    _where, blobs = package_at(top, path, sha, known)
    out: dict[str, str] = {}
    texts = gitops.blobs(top, blobs.values())
    for rel, blob in blobs.items():
        if blob in texts:  # (not in a shallow clone: plait neither merges nor compares it)
            out[rel] = contents.decode(texts[blob])
    return out


def _infer(
    walked: _Walked, top: Path, max_revisions: int | None, choose: Chooser | None
) -> tuple[dict[str, str], AdoptResult]:
    source = walked.source
    history = SourceHistory(
        source.name,
        top,
        relative_path(top, source.root),
        select=lambda rel: not excluded(rel, source.exclude) and walked.select(rel),
        carry=walked.carried,
        name_of=walked.name_of,
    )
    found = find_base(history, walked.history, max_revisions=max_revisions, choose=choose)
    result = AdoptResult(
        walked.name,
        walked.kind,
        source.name,
        "inferred",
        Snapshot({}, found.chosen.revision.sha),
        chosen=found.chosen,
        runner_up=found.runner_up,
        candidates=found.compared,
        notes=list(found.notes),
        finding=found,
        copy_label=walked.name,
    )
    repo = gitops.repo_of(source.root)
    if repo is not None and gitops.is_shallow(repo):
        # A CI clone with --depth 1 has one revision to offer; say so rather
        # than present it as the closest of many.
        result.notes.append(
            f"{source.name} is in a shallow clone: only {found.compared} revision(s) were compared;"
            " run `git fetch --unshallow` or pass --base"
        )
    return found.files, result
