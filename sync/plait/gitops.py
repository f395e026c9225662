"""The few git questions plait asks, through GitPython.

Git is optional everywhere: a workspace copied out of a repository, a
tarball or a shallow CI clone still syncs from the store.  So every helper
answers ``None`` or an empty list when there is no repository or no
history, and only `commit_on_branch` (asked for with ``--commit``) insists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git
from git.exc import BadName, GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from .errors import PlaitError

__all__ = [
    "Revision",
    "clone",
    "commit_on_branch",
    "committed",
    "ensure_clean",
    "files_at",
    "history",
    "init",
    "is_shallow",
    "repo_of",
    "resolve",
    "source_commit",
]


@dataclass(frozen=True)
class Revision:
    """One commit that touched a copy's files."""

    sha: str
    summary: str
    date: str

    @property
    def short(self) -> str:
        return self.sha[:7]


def repo_of(path: Path) -> git.Repo | None:
    """The git repository *path* is in, or None."""
    try:
        return git.Repo(path, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        return None


def _rel(repo: git.Repo, path: Path) -> str:
    top = Path(repo.working_tree_dir or ".").resolve()
    return path.resolve().relative_to(top).as_posix()


def source_commit(path: Path) -> str | None:
    """The last commit that touched *path*, when git can vouch for its files.

    Only when nothing under *path* differs from HEAD (no edits, no untracked
    files): a commit recorded for content it does not hold would be a lie the
    next `adopt` or review trusts.  The last commit *touching* the path, not
    HEAD, so unrelated commits do not make a source look new.
    """
    repo = repo_of(path)
    if repo is None or not repo.head.is_valid():
        return None
    rel = _rel(repo, path)
    try:
        if repo.is_dirty(index=True, working_tree=True, untracked_files=True, path=rel):
            return None
        last = next(repo.iter_commits(paths=rel or ".", max_count=1), None)
    except GitCommandError:
        return None
    return last.hexsha if last is not None else None


def init(path: Path) -> git.Repo:
    """An empty repository at *path* (a workspace copy that must be one)."""
    try:
        return git.Repo.init(path)
    except GitCommandError as exc:
        raise PlaitError(f"git init failed: {exc.stderr.strip() or exc}", path=str(path)) from None


def is_shallow(repo: git.Repo) -> bool:
    return (Path(repo.git_dir) / "shallow").exists()


def history(path: Path, *, limit: int = 200) -> list[Revision]:
    """Commits that touched anything under *path*, newest first (empty without git)."""
    repo = repo_of(path)
    if repo is None or not repo.head.is_valid():
        return []
    rel = _rel(repo, path)
    return [
        Revision(c.hexsha, str(c.summary), c.committed_datetime.date().isoformat())
        for c in repo.iter_commits(paths=rel or ".", max_count=limit)
    ]


def files_at(path: Path, rev: str) -> dict[str, str]:
    """The text files under *path* as of revision *rev* (relative path → text)."""
    repo = repo_of(path)
    if repo is None:
        raise PlaitError("not in a git repository, so a revision means nothing here", path=str(path))
    rel = _rel(repo, path)
    try:
        commit = repo.commit(rev)
    except (BadName, ValueError, GitCommandError):
        raise PlaitError(f"no revision {rev!r} in {repo.working_tree_dir}", path=str(path)) from None
    try:
        tree = commit.tree / rel if rel not in ("", ".") else commit.tree
    except KeyError:
        return {}
    out: dict[str, str] = {}
    for blob in tree.traverse():
        if not isinstance(blob, git.Blob):
            continue
        name = Path(blob.path).relative_to(rel).as_posix() if rel not in ("", ".") else str(blob.path)
        try:
            out[name] = blob.data_stream.read().decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text: plait neither merges nor compares it
    return out


def committed(path: Path, rev: str = "HEAD") -> bytes | None:
    """The bytes of file *path* as committed at *rev* in its repository; None when
    it is in no repository, or not in that commit."""
    repo = repo_of(path.parent)
    if repo is None or not repo.head.is_valid():
        return None
    try:
        rel = _rel(repo, path.parent) + "/" + path.name
        blob = repo.commit(rev).tree / rel.lstrip("./")
    except (KeyError, ValueError, BadName, GitCommandError):
        return None
    if not isinstance(blob, git.Blob):
        return None
    data: bytes = blob.data_stream.read()
    return data


def resolve(path: Path, rev: str) -> str:
    """The full sha of *rev* in *path*'s repository."""
    repo = repo_of(path)
    if repo is None:
        raise PlaitError("not in a git repository", path=str(path))
    try:
        return repo.commit(rev).hexsha
    except (BadName, ValueError, GitCommandError):
        raise PlaitError(f"no revision {rev!r}", path=str(path)) from None


def clone(url: str, dest: Path, ref: str | None) -> None:
    """Clone *url* into *dest* (at *ref*) unless it is already there."""
    if (dest / ".git").exists():
        return
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        git.Repo.clone_from(url, dest, multi_options=["--branch", ref] if ref else None)
    except GitCommandError as exc:
        raise PlaitError(f"cannot clone {url}: {exc.stderr.strip() or exc}", path=str(dest)) from None


def ensure_clean(path: Path) -> git.Repo:
    """The repository of *path*, refused unless nothing under *path* is uncommitted."""
    repo = repo_of(path)
    if repo is None:
        raise PlaitError("--commit needs a git repository", path=str(path))
    if repo.is_dirty(index=True, working_tree=True, untracked_files=True, path=_rel(repo, path)):
        raise PlaitError("uncommitted changes; commit or stash them before using --commit", path=str(path))
    return repo


def commit_on_branch(repo: git.Repo, branch: str, paths: list[Path], message: str) -> str:
    """Commit *paths* (as written in the working tree) on a new *branch* from HEAD.

    The branch starts at the current HEAD and carries the working tree's
    changes over, so the caller writes first and commits after.  Returns the
    new commit's sha.
    """
    if branch in repo.heads:
        raise PlaitError(f"branch {branch} already exists; merge or delete it first", path=str(repo.working_tree_dir))
    top = Path(repo.working_tree_dir or ".").resolve()
    rels = [(p.parent.resolve() / p.name).relative_to(top).as_posix() for p in paths]
    try:
        repo.git.checkout("-b", branch)
        repo.git.add("-A", "--", *rels)
        repo.git.commit("-m", message, "--no-verify")
    except GitCommandError as exc:
        raise PlaitError(f"git failed: {exc.stderr.strip() or exc}", path=str(repo.working_tree_dir)) from None
    return repo.head.commit.hexsha
