"""The few git questions plait asks, through GitPython.

Git is optional everywhere: a workspace copied out of a repository, a
tarball or a shallow CI clone still syncs from the store.  So every helper
answers ``None`` or an empty list when there is no repository or no
history, and only `commit_on_branch` (asked for with ``--commit``) insists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import git
from git.exc import BadName, GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from .errors import PlaitError

__all__ = [
    "Revision",
    "blobs",
    "clone",
    "commit_on_branch",
    "committed",
    "ensure_clean",
    "files_at",
    "history",
    "init",
    "is_complete_clone",
    "is_shallow",
    "join_url",
    "origin_url",
    "path_history",
    "push",
    "refresh",
    "repo_of",
    "resolve",
    "shared_clone",
    "source_commit",
    "switch",
    "top_of",
    "tree_files",
    "uncommitted",
    "untracked",
    "verify_ref",
]


@dataclass(frozen=True)
class Revision:
    """One commit that touched a copy's files.

    authored / committed: the commit's two times (seconds since the epoch;
    0 when not read), which `adopt`'s date rule compares; parents: its
    parents' shas, which a walk that follows a moved package steps to.
    """

    sha: str
    summary: str
    date: str
    authored: int = 0
    committed: int = 0
    parents: tuple[str, ...] = ()

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


def shared_clone(source: Path, dest: Path) -> None:
    """*dest* as a repository with *source*'s history and HEAD, and no files yet.

    A shared clone borrows the objects (nothing is copied), and the index is
    HEAD's, so files copied in afterwards read as they differ from HEAD.
    """
    _git(None, "clone", "--quiet", "--shared", "--no-checkout", "--", str(source), str(dest), what=f"clone {source}")
    _git(dest, "reset", "--quiet", what="read HEAD into the copy's index")


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


def path_history(top: Path, path: str, rev: str = "HEAD") -> list[Revision]:
    """The commits reachable from *rev* that touched *path* (relative to the repository's
    top *top*; "" for all of it), newest first, with both their times; empty
    when there is no such revision."""
    fields = "%x1f".join(("%H", "%P", "%at", "%ct", "%cs", "%s"))
    try:
        text = _git(
            top,
            "log",
            f"--format={fields}%x1e",
            "--end-of-options",
            rev,
            "--",
            path or ".",
            what=f"read the history of {path or top}",
        )
    except PlaitError:
        return []
    out: list[Revision] = []
    for record in text.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, authored, committed, date, summary = record.split("\x1f", 5)
        out.append(Revision(sha, summary, date, int(authored), int(committed), tuple(parents.split())))
    return out


def tree_files(top: Path, rev: str, path: str = "") -> dict[str, str]:
    """The regular files under *path* (relative to *top*) at *rev*: path relative to *path* → blob sha.

    Symlinks and submodules are no file a copy holds; an unknown *path* is
    an empty dict, an unknown *rev* an error.
    """
    prefix = f"{path.rstrip('/')}/" if path else ""
    text = _git(
        top,
        "ls-tree",
        "-r",
        "-z",
        "--full-tree",
        "--end-of-options",
        rev,
        *(["--", prefix] if prefix else []),
        what=f"list the files of {rev}",
    )
    out: dict[str, str] = {}
    for entry in text.split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob" and mode in ("100644", "100755") and name.startswith(prefix):
            out[name[len(prefix) :]] = sha
    return out


def blobs(top: Path, shas: Iterable[str]) -> dict[str, bytes]:
    """The contents of the blobs *shas* of *top*'s repository, read by one ``git cat-file --batch``."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    data = _git_bytes(top, "cat-file", "--batch", stdin="\n".join(wanted) + "\n", what="read the files of a revision")
    out: dict[str, bytes] = {}
    at = 0
    for sha in wanted:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3:  # "<sha> missing": a shallow clone's or a pruned object
            at = end + 1
            continue
        size = int(header[2])
        out[sha] = data[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return out


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


def origin_url(path: Path) -> str | None:
    """The URL of the ``origin`` remote of *path*'s repository, if it has one."""
    repo = repo_of(path)
    if repo is None:
        return None
    try:
        return str(repo.remotes.origin.url)
    except (AttributeError, IndexError, ValueError):
        return None


def join_url(base: str, relative: str) -> str:
    """*relative* (``../svc-a``) resolved against the repository URL *base*, as git
    resolves a submodule's relative URL: the sibling of a ``…/ws.git`` is
    ``…/svc-a``.  Works for ``https://``, ``file://``, ``ssh://``, scp-like
    ``host:path`` and plain paths."""
    import posixpath

    if "://" in base:
        scheme, _, rest = base.partition("://")
        host, slash, path = rest.partition("/")
        joined = posixpath.normpath(posixpath.join("/" + path, relative))
        return f"{scheme}://{host}{joined if slash or joined != '/' else ''}"
    head, colon, path = base.partition(":")
    if colon and "/" not in head and len(head) > 1:  # scp-like host:path
        return f"{head}:{posixpath.normpath(posixpath.join(path, relative))}"
    return posixpath.normpath(posixpath.join(base, relative))


def _git(cwd: Path | None, *args: str, what: str, env: dict[str, str] | None = None) -> str:
    """Run git; a failure is one named error, never a traceback."""
    import os
    import subprocess

    full = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, env=full, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlaitError(f"cannot {what}: {exc}", path=str(cwd) if cwd else None) from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise PlaitError(
            f"cannot {what}: {detail[-1] if detail else f'git exited {done.returncode}'}",
            path=str(cwd) if cwd else None,
        )
    return done.stdout


def _git_bytes(cwd: Path, *args: str, stdin: str, what: str) -> bytes:
    """Run git with *stdin* and return its output as bytes (blobs are not text); a failure is one named error."""
    import os
    import subprocess

    full = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=stdin.encode(), capture_output=True, env=full, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PlaitError(f"cannot {what}: {exc}", path=str(cwd)) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PlaitError(f"cannot {what}: {detail[-1] if detail else f'git exited {done.returncode}'}", path=str(cwd))
    return done.stdout


def is_complete_clone(dest: Path) -> bool:
    """Whether *dest* holds a whole clone (a half-made one, left by a kill, does not count).

    The question is put to *dest*'s own ``.git`` (``--git-dir``): a broken
    one must not let git find the workspace's repository above it instead.
    """
    if not (dest / ".git").is_dir():
        return False
    try:
        top = _git(
            None,
            f"--git-dir={dest / '.git'}",
            "rev-parse",
            "--verify",
            "--quiet",
            "HEAD^{commit}",
            what="read the clone",
        )
    except PlaitError:
        return False
    return bool(top.strip())


def clone(url: str, dest: Path, ref: str | None) -> None:
    """Clone *url* into *dest* at *ref*, all at once: into a temporary directory beside
    it, renamed into place when complete, so a kill never leaves a half-made
    clone where the next run would trust it.  A *dest* that is not a
    complete clone (an older plait's half-made one) is replaced."""
    import shutil
    import tempfile

    dest.parent.mkdir(parents=True, exist_ok=True)
    for stale in dest.parent.glob(f".{dest.name}.partial-*"):
        shutil.rmtree(stale, ignore_errors=True)
    if dest.exists() and not is_complete_clone(dest):
        shutil.rmtree(dest)
    if dest.exists():
        return
    partial = Path(tempfile.mkdtemp(prefix=f".{dest.name}.partial-", dir=dest.parent))
    try:
        _git(
            None, "clone", "--quiet", *(["--branch", ref] if ref else []), "--", url, str(partial), what=f"clone {url}"
        )
        partial.rename(dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def refresh(dest: Path, ref: str | None) -> str | None:
    """Fetch a clone and bring its checkout to the remote's *ref* (default: its branch).

    Only a clean checkout is moved: files an earlier run wrote and nobody
    committed are left as they are, and that is said.  Returns a note, or None.
    """
    _git(dest, "fetch", "--quiet", "--prune", "origin", what=f"fetch into {dest}")
    if _git(dest, "status", "--porcelain", what="read the clone's status").strip():
        return f"{dest.name}: the clone has uncommitted changes from an earlier run; it was fetched, not moved"
    branch = ref or _git(dest, "rev-parse", "--abbrev-ref", "HEAD", what="read the clone's branch").strip()
    if branch == "HEAD":  # a detached checkout of a tag or a commit stays where it is
        return None
    remote = f"refs/remotes/origin/{branch}"
    try:
        _git(dest, "rev-parse", "--verify", "--quiet", remote, what="find the remote branch")
    except PlaitError:
        _git(dest, "checkout", "--quiet", "--detach", ref or "HEAD", what=f"check out {ref}")
        return None
    _git(dest, "checkout", "--quiet", "-B", branch, remote, what=f"check out {branch}")
    return None


def verify_ref(path: Path, ref: str) -> None:
    """Refuse a repository in place whose checkout is not *ref*.

    A copy plait reads and writes in place must be at the ref the manifest
    names: plait never switches a checkout it does not own.
    """
    repo = repo_of(path)
    if repo is None:
        raise PlaitError("not a git repository, but the manifest gives it a ref", path=str(path))
    try:
        wanted = repo.commit(ref).hexsha
    except (BadName, ValueError, GitCommandError):
        raise PlaitError(
            f"the manifest says ref = {ref!r}, which this repository does not have", path=str(path)
        ) from None
    try:
        branch = repo.active_branch.name
    except TypeError:
        branch = None
    if branch != ref and repo.head.commit.hexsha != wanted:
        here = branch or repo.head.commit.hexsha[:7]
        raise PlaitError(
            f"{here} is checked out, but the manifest says ref = {ref!r}; check out {ref} there, or drop the ref",
            path=str(path),
        )


def ensure_clean(path: Path) -> git.Repo:
    """The repository of *path*, refused unless nothing under *path* is uncommitted."""
    repo = repo_of(path)
    if repo is None:
        raise PlaitError("--commit needs a git repository", path=str(path))
    if repo.is_dirty(index=True, working_tree=True, untracked_files=True, path=_rel(repo, path)):
        raise PlaitError("uncommitted changes; commit or stash them before using --commit", path=str(path))
    return repo


def top_of(path: Path) -> Path | None:
    """The working tree of *path*'s repository."""
    repo = repo_of(path)
    return Path(repo.working_tree_dir).resolve() if repo is not None and repo.working_tree_dir else None


def untracked(paths: list[Path]) -> list[Path]:
    """Those of *paths* (files on disk) that git does not track yet."""
    out: list[Path] = []
    for path in paths:
        top = top_of(path.parent)
        if top is None:
            continue
        rel = (path.parent.resolve() / path.name).relative_to(top).as_posix()
        listed = _git(top, "ls-files", "--", rel, what="ask git what it tracks")
        if not listed.strip():
            out.append(path)
    return out


def uncommitted(path: Path) -> list[str]:
    """The files under *path* that its repository has not committed as they are (new,
    changed or deleted), relative to the repository's top; empty outside git."""
    top = top_of(path if path.is_dir() else path.parent)
    if top is None:
        return []
    rel = path.resolve().relative_to(top).as_posix()
    listed = _git(
        top, "status", "--porcelain", "-z", "--untracked-files=all", "--", rel, what="ask git what is uncommitted"
    )
    return sorted(entry[3:] for entry in listed.split("\0") if len(entry) > 3)


_IDENTITY = {
    "GIT_AUTHOR_NAME": "plait",
    "GIT_AUTHOR_EMAIL": "plait@localhost",
    "GIT_COMMITTER_NAME": "plait",
    "GIT_COMMITTER_EMAIL": "plait@localhost",
}


def commit_on_branch(top: Path, branch: str, paths: list[Path], message: str) -> str:
    """Commit *paths* (as they are in the working tree, or deleted) on a new *branch*
    whose parent is HEAD, without touching HEAD, the index or the working tree.

    Git plumbing does it (a private index, ``write-tree``, ``commit-tree``,
    ``update-ref``), so the user's checked-out branch, staged changes and
    files stay exactly as they were: the branch is there to push and review.
    A branch that already exists with the same tree is reused; one with
    other content is refused.  Returns the commit's sha.
    """
    import os
    import tempfile

    env: dict[str, str] = {}
    try:
        _git(top, "config", "user.email", what="read the committer")
    except PlaitError:
        env.update(_IDENTITY)  # CI clones often have no identity; say who made the commit
    fd, index = tempfile.mkstemp(prefix="plait-index-")
    os.close(fd)
    os.unlink(index)
    env["GIT_INDEX_FILE"] = index
    try:
        _git(top, "read-tree", "HEAD", what="read HEAD", env=env)
        for path in paths:
            rel = (path.parent.resolve() / path.name).relative_to(top).as_posix()
            if path.is_file():
                blob = _git(top, "hash-object", "-w", "--", rel, what=f"store {rel}", env=env).strip()
                mode = "100755" if os.access(path, os.X_OK) else "100644"
                _git(top, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{rel}", what=f"stage {rel}", env=env)
            else:
                _git(top, "update-index", "--force-remove", "--", rel, what=f"stage the removal of {rel}", env=env)
        tree = _git(top, "write-tree", what="write the tree", env=env).strip()
        existing = f"refs/heads/{branch}"
        try:
            old_tree = _git(
                top, "rev-parse", "--verify", "--quiet", f"{existing}^{{tree}}", what="read the branch"
            ).strip()
        except PlaitError:
            old_tree = None
        if old_tree is not None:
            if old_tree == tree:
                return _git(top, "rev-parse", existing, what="read the branch").strip()
            raise PlaitError(
                f"branch {branch} already exists with other changes; merge or delete it first", path=str(top)
            )
        sha = _git(top, "commit-tree", tree, "-p", "HEAD", "-m", message, what="commit", env=env).strip()
        _git(top, "update-ref", existing, sha, "", what=f"create branch {branch}")
        return sha
    finally:
        if os.path.exists(index):
            os.unlink(index)


def switch(top: Path, branch: str) -> None:
    """Put a clone plait owns on *branch*, whose files it already holds: HEAD and the
    index move, the working tree is left as it is (it is what was committed)."""
    _git(top, "symbolic-ref", "HEAD", f"refs/heads/{branch}", what=f"move the clone onto {branch}")
    _git(top, "reset", "--quiet", what=f"read {branch} into the clone's index")


def push(top: Path, branch: str) -> str:
    """Push *branch* to ``origin``; the URL it went to."""
    url = origin_url(top)
    if url is None:
        raise PlaitError(f"cannot push {branch}: the repository has no remote 'origin'", path=str(top))
    _git(top, "push", "--quiet", "origin", f"refs/heads/{branch}:refs/heads/{branch}", what=f"push {branch} to {url}")
    return url
