"""`--commit` and `--push`: what a run wrote, committed repository by repository on review branches.

A run writes into several repositories at once: each lineage or consumer
that lives in a repository of its own, and the workspace's repository,
which holds the store (the bases the next merge needs) and every copy that
lives beside the manifest.  `--commit` makes one commit per repository,
on a branch named after what it carries, with a message a pull request can
use as is; `--push` pushes each branch to that repository's ``origin``.

The commits are made with git plumbing (`plait.gitops.commit_on_branch`):
the user's checked-out branch, index and files are never touched, so a
service's own checkout stays exactly where its maintainers left it.  The
store's new objects are committed too: a CI job that pushed a consumer's
new lock but not the bases it names would leave the next job without its
3-way merge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

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
    """One commit `--commit` made, and where `--push` sent it."""

    names: list[str]
    repository: Path
    branch: str
    sha: str
    pushed_to: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.branch}@{self.sha[:7]}"


@dataclass
class Publication:
    """Every commit `publish` made, and what it could not commit (a copy in no repository)."""

    commits: list[Published] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def guard_clean(folders: Iterable[Path]) -> None:
    """Refuse, before anything is written, a folder with uncommitted changes: a commit
    of what the run wrote must not carry edits nobody reviewed."""
    for folder in folders:
        if folder.exists() and gitops.top_of(folder) is not None:
            gitops.ensure_clean(folder)


def publish(
    pieces: list[Piece],
    *,
    store: Path,
    store_paths: Iterable[Path],
    store_branch: str,
    store_summary: str,
    push: bool,
    clones: Path | None = None,
) -> Publication:
    """Commit every piece in its repository (and the store's changes in the workspace's),
    then push each branch when *push*.

    A repository under *clones* (the store's clone cache) is plait's own:
    its checkout moves onto the new branch, so the clone is clean for the
    next run's fetch.  Any other checkout is never moved.
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
    changed_store = [p for p in store_paths]
    if store_top is not None and changed_store:
        groups.setdefault(store_top, [])
    elif store_top is None and changed_store:
        result.notes.append("the store: not committed (the workspace is not in a git repository)")
    for top, members in groups.items():
        paths = [path for piece in members for path in piece.paths]
        if top == store_top:
            paths += changed_store
        if not paths:
            continue
        if len(members) == 1 and top != store_top:
            branch, message = members[0].branch, members[0].message
        else:
            branch = store_branch if top == store_top else members[0].branch
            message = _combined(members, store_summary if top == store_top else "")
        sha = gitops.commit_on_branch(top, branch, sorted(set(paths)), message)
        if clones is not None and top.is_relative_to(clones.resolve()):
            gitops.switch(top, branch)
        published = Published([p.name for p in members] or ["the store"], top, branch, sha)
        if push:
            published.pushed_to = gitops.push(top, branch)
        result.commits.append(published)
    return result


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
