"""`--commit` and `--push`: what a run would write, committed repository by repository on review branches.

A run writes into several repositories at once: each lineage or consumer
that lives in a repository of its own, and the workspace's repository,
which holds the store (the bases the next merge needs) and every copy that
lives beside the manifest.  `--commit` makes one commit per repository,
on a branch named after what it carries, with a message a pull request can
use as is; `--push` pushes each branch to that repository's ``origin``.

With `--commit` nothing is written to any working tree: the run's files
(copies, locks, the sync state, the store's new objects) go from memory
into git's object database, and onto the branch by plumbing
(`plait.gitops.commit_on_branch`).  Every checkout, its index and its
files stay exactly as they were, so each branch fast-forwards from the
checkout's HEAD, and a kill at any point leaves the old workspace: the
branch's ref update is the switch, and a rerun makes the same tree and
reuses a branch that already has it.  The store's new objects are
committed too: a CI job that pushed a consumer's new lock but not the
bases it names would leave the next job without its 3-way merge.  The
clone cache (``.plait/clones``) is never part of the store's commit: its
clones are other repositories, committed in their own.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import gitops

__all__ = ["Piece", "Publication", "Published", "guard_clean", "publish"]


@dataclass(frozen=True)
class Piece:
    """What one copy of a run wrote, and how it would be committed on its own.

    folder: the copy's directory (a lineage's root, a consumer's vendored
      directory): it must have no uncommitted change before the run.
    """

    name: str
    folder: Path
    branch: str
    message: str
    paths: tuple[Path, ...]


@dataclass
class Published:
    """One commit `--commit` made, and where `--push` sent it.

    cached: the repository is plait's clone of a copy given by URL, where
      nobody checks anything out: the branch reaches people by `--push`.
    """

    names: list[str]
    repository: Path
    branch: str
    sha: str
    pushed_to: str | None = None
    cached: bool = False

    @property
    def ref(self) -> str:
        return f"{self.branch}@{self.sha[:7]}"

    @property
    def merge(self) -> str | None:
        """The command that takes the branch into the checkout (None in plait's clone cache)."""
        if self.cached:
            return None
        return f"git -C {shlex.quote(str(self.repository))} merge --ff-only {shlex.quote(self.branch)}"

    def to_json(self) -> dict[str, Any]:
        # For CI: each branch, where it lives and where it went, to open a pull request from;
        # and how it reaches the checkout (None for plait's own clone: it goes by --push).
        return {
            "copies": list(self.names),
            "repository": str(self.repository),
            "branch": self.branch,
            "commit": self.sha,
            "pushed_to": self.pushed_to,
            "merge": self.merge,
        }


@dataclass
class Publication:
    """Every commit `publish` made (the store's first: merge it first), and what it could not commit."""

    commits: list[Published] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> list[dict[str, Any]]:
        return [commit.to_json() for commit in self.commits]


def guard_clean(folders: Iterable[Path], *, untracked_ok: Iterable[Path] = ()) -> None:
    """Refuse, before anything is committed, a folder with uncommitted changes: the run
    plans from the files on disk, and a branch made from HEAD plus that plan
    would carry edits nobody committed.

    *untracked_ok*: directories whose untracked files are plait's own
    leftovers (store objects a killed run wrote), not the user's changes.
    """
    skipped = [p.resolve() for p in untracked_ok]
    for folder in folders:
        if folder.exists() and (top := gitops.top_of(folder)) is not None:
            prefixes = [p.relative_to(top).as_posix() + "/" for p in skipped if p.is_relative_to(top)]
            gitops.ensure_clean(folder, untracked_ok=prefixes)


def publish(
    pieces: list[Piece],
    *,
    changes: Mapping[Path, bytes | None],
    store: Path,
    store_branch: str,
    store_summary: str,
    push: bool,
    clones: Path | None = None,
    executable: Mapping[Path, bool] | None = None,
) -> Publication:
    """Commit every piece in its repository, and the store's *changes* in the workspace's,
    then push each branch when *push*.

    changes: every file the run would write (its content) or remove (None),
      by absolute path; nothing of it is on disk.  The workspace's part is
      what no piece claims (the store, the manifest), never under *clones*.
    executable: written files whose execute bit the run sets or clears (the
      others keep the mode HEAD gives them, a new one 100644).
    """
    result = Publication()
    groups: dict[Path, list[Piece]] = {}
    for piece in pieces:
        top = gitops.top_of(piece.folder)
        if top is None:
            result.notes.append(f"{piece.name}: not committed (not in a git repository)")
            continue
        groups.setdefault(top, []).append(piece)
    store_top = gitops.top_of(store)
    cache = clones.resolve() if clones is not None else None
    claimed = {path for piece in pieces for path in piece.paths}
    # What no piece claims (the store, and the manifest an adopt edits) is the
    # workspace's; the clone cache never is: its clones are other repositories.
    store_paths = [
        path
        for path in changes
        if path not in claimed
        and not (clones is not None and path.is_relative_to(clones))
        and (path.is_relative_to(store) or (store_top is not None and _inside(path, store_top)))
    ]
    if store_top is not None and store_paths:
        groups = {store_top: groups.pop(store_top, []), **groups}  # the store's commit first: it is merged first
    elif store_top is None and store_paths:
        result.notes.append("the store: not committed (the workspace is not in a git repository)")
    for top, members in groups.items():
        paths = [path for piece in members for path in piece.paths]
        if top == store_top:
            paths += store_paths
        files = {_rel(top, path): changes[path] for path in sorted(set(paths)) if path in changes}
        if not files:
            continue
        modes = {
            rel: x for path, x in (executable or {}).items() if _inside(path, top) and (rel := _rel(top, path)) in files
        }
        if len(members) == 1 and top != store_top:
            branch, message = members[0].branch, members[0].message
        else:
            branch = store_branch if top == store_top else members[0].branch
            message = _combined(members, store_summary if top == store_top else "")
        sha = gitops.commit_on_branch(top, branch, files, message, executable=modes)
        cached = cache is not None and top.is_relative_to(cache)
        published = Published([p.name for p in members] or ["the store"], top, branch, sha, cached=cached)
        if push:
            published.pushed_to = gitops.push(top, branch)
        result.commits.append(published)
    return result


def _inside(path: Path, top: Path) -> bool:
    return (path.parent.resolve() / path.name).is_relative_to(top)


def _rel(top: Path, path: Path) -> str:
    return (path.parent.resolve() / path.name).relative_to(top).as_posix()


def _combined(members: list[Piece], store_summary: str) -> str:
    if len(members) == 1 and not store_summary:
        return members[0].message
    names = ", ".join(p.name for p in members) or "the store"
    head = members[0].message.splitlines()[0].split(":", 1)[0] if members else "plait"
    lines = [f"{head}: {names}", ""]
    for piece in members:
        lines += [piece.message.rstrip("\n"), ""]
    if store_summary:
        lines.append(store_summary)
    return "\n".join(lines).rstrip("\n") + "\n"
