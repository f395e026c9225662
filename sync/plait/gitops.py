"""The one place plait runs git: every git command goes through `_run` here.

Git is optional everywhere: a workspace copied out of a repository, a
tarball or a shallow CI clone still syncs from the store.  So every helper
answers ``None`` or an empty list when there is no repository or no
history, and only `commit_on_branch` (asked for with ``--commit``) insists.

Whatever git plait runs, it runs the same way, because a manifest, a lock
and a cached clone are data from other repositories, and the environment
plait was started in may be a git hook's:

- **A clean environment.**  No inherited ``GIT_*`` variable reaches git
  except the few that only say who the user is and how they log in
  (`_KEPT`): a hook's ``GIT_DIR``, ``GIT_INDEX_FILE`` or ``GIT_WORK_TREE``
  would point every command at another repository or index, and
  ``GIT_CONFIG_*`` would inject configuration.
- **Pinned protocols.**  Only ``file``, ``https``, ``ssh`` and ``git``
  (`PROTOCOLS`), whatever the user's configuration or environment allows:
  ``ext::`` runs a command, and a manifest's URL must never do that.
- **The clone cache's own config never runs.**  In ``.plait/clones/<name>``
  (plait's own clones) hooks, fsmonitor, ssh commands and credential
  helpers are switched off, the system config is not read, and a clone
  whose config holds anything plait does not write there is refused.
- **User values after ``--end-of-options``** (or in ``--opt=value`` form),
  so a ref or a path can never become an option.
- **Death with plait**: git is asked to die with its parent
  (``PR_SET_PDEATHSIG``), so a killed plait leaves no clone running.
- **Network git is bounded by progress**: it is stopped when it has said
  nothing for ``$PLAIT_GIT_TIMEOUT`` seconds (default 120), and curl's
  low-speed limit applies, instead of one fixed bound on the whole clone.
- **Whole error messages**: a failure names the command, the repository
  and everything git said, trimmed.

GitPython is not used here: it reads ``GIT_DIR``, ``GIT_WORK_TREE`` and
``GIT_COMMON_DIR`` from the process environment when it opens a
repository, and copies the whole environment into every command it runs,
so it cannot be given a clean one.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from . import contents
from .errors import PlaitError
from .records import record as _record

TYPE_CHECKING = False  # (typing's own is an import of typing away: the merge driver runs git merge-file)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "export_history",
    "import_history",
    "ENV_TIMEOUT",
    "PROTOCOLS",
    "GitFailed",
    "Repository",
    "Revision",
    "blobs",
    "check_attr",
    "check_clone_config",
    "clone",
    "commit_on_branch",
    "committed",
    "config_get",
    "config_set",
    "ensure_clean",
    "environment",
    "files_at",
    "hash_files",
    "head_blobs",
    "history",
    "init",
    "is_ancestor",
    "is_complete_clone",
    "is_shallow",
    "join_url",
    "listed_files",
    "merge_file",
    "origin_url",
    "path_history",
    "push",
    "refresh",
    "repo_of",
    "resolve",
    "shared_clone",
    "source_commit",
    "top_of",
    "tree_files",
    "uncommitted",
    "untracked",
    "url_protocol",
    "verify_ref",
]

# The protocols a manifest's URL may use; `ext` (which runs a command) and
# anything else never run.
PROTOCOLS = ("file", "https", "ssh", "git")

# Inherited variables that say who the user is and how they log in, and
# nothing about which repository, index or configuration git uses.
_KEPT = frozenset(
    {
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSH_VARIANT",
        "GIT_ASKPASS",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
    }
)

ENV_TIMEOUT = "PLAIT_GIT_TIMEOUT"
_DEFAULT_STALL = 120.0
# A local command has no network to wait for: this only bounds a pathological one.
_LOCAL_BOUND = 600.0
_LOW_SPEED_BYTES = 1000

# Switched off in plait's own clones, whose config anyone with the cache could have edited.
# (The user's own ssh command and credential helpers, from their global config
# or environment, still apply: a private repository must stay reachable.  The
# clone's own config cannot name any: `check_clone_config` refuses it.)
_CACHE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "uploadpack.packObjectsHook=",
)

# What `git clone` writes into a clone's config, and all plait accepts there.
_CACHE_CONFIG_KEYS = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)"
    r"|remote\.origin\.(url|fetch)"
    r"|branch\.[^\n]+\.(remote|merge)"
    r"|extensions\.objectformat"
    r"|user\.(name|email)"
)

_PR_SET_PDEATHSIG = 1


class GitFailed(PlaitError):
    """A git command exited non-zero, or could not be run, or stalled."""


@_record(frozen=True)
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


@_record(frozen=True)
class Repository:
    """A git repository found on disk: its working tree and its git directory."""

    top: Path
    git_dir: Path

    @property
    def working_tree_dir(self) -> str:
        return str(self.top)


# --------------------------------------------------------------------------
# running git


def _timeout() -> float:
    raw = os.environ.get(ENV_TIMEOUT)
    if raw is None or raw == "":
        return _DEFAULT_STALL
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 and value != float("inf")):
        raise PlaitError(f"${ENV_TIMEOUT} must be a finite number of seconds above 0, not {raw!r}")
    return value


def _in_clone_cache(path: Path | None) -> bool:
    if path is None:
        return False
    parts = Path(os.path.abspath(path)).parts
    return any(parts[i] == ".plait" and parts[i + 1] == "clones" for i in range(len(parts) - 2))


def environment(*, cache: bool = False) -> dict[str, str]:
    """The environment git runs in: the user's, less every ``GIT_*`` variable not in `_KEPT`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_ALLOW_PROTOCOL"] = ":".join(PROTOCOLS)
    env["GIT_PROTOCOL_FROM_USER"] = "0"
    if cache:
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    return env


def _config_args(*, cache: bool, network: bool, stall: float) -> list[str]:
    pairs = ["protocol.allow=never", *(f"protocol.{p}.allow=always" for p in PROTOCOLS)]
    if network:
        pairs += [f"http.lowSpeedLimit={_LOW_SPEED_BYTES}", f"http.lowSpeedTime={max(1, int(stall))}"]
    if cache:
        pairs += list(_CACHE_CONFIG)
    return [arg for pair in pairs for arg in ("-c", pair)]


_libc_prctl: Any = None


def _die_with_parent_hook() -> Callable[[], None] | None:
    """A preexec function that makes the child die with plait (Linux), or None."""
    global _libc_prctl
    if not sys.platform.startswith("linux"):
        return None
    if _libc_prctl is None:
        try:
            import ctypes

            _libc_prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return None
    prctl, parent = _libc_prctl, os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # plait died between the fork and the prctl
            os._exit(1)

    return hook


# Runs one network git command so that git and every helper it starts die with
# plait: the kernel sends this guard SIGTERM when plait dies (PR_SET_PDEATHSIG),
# and the guard then kills git's process group.  argv: plait's pid, then git's argv.
_GUARD = """
import ctypes, os, signal, subprocess, sys
child = None
def end(*_):
    if child is not None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
    os._exit(143)
signal.signal(signal.SIGTERM, end)
try:
    ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
child = subprocess.Popen(sys.argv[2:], process_group=0)
code = child.wait()
sys.exit(code if code >= 0 else 128 - code)
"""

_URL_SECRET = re.compile(r"(://)[^/@\s]+@")


def _redact(text: str) -> str:
    """*text* with the credentials of any URL in it hidden."""
    return _URL_SECRET.sub(r"\1***@", text)


def _shown(args: Sequence[str]) -> str:
    """The command as a user would type it (no -c pins), credentials in URLs hidden."""
    import shlex

    return "git " + " ".join(shlex.quote(_redact(a)) for a in args)


_PROGRESS = re.compile(r"^(remote: )?[A-Z][a-z]+( [a-z]+)*: +\d+% \(|^(remote: )?(Enumerating|Counting) objects: \d")


def _message(stderr: bytes, stdout: bytes) -> str:
    """Everything git said, trimmed: progress meters dropped, one line."""
    text = (stderr or stdout).decode("utf-8", errors="replace")
    lines = [line.strip() for line in re.split(r"[\r\n]+", text)]
    kept = [line for line in lines if line and not _PROGRESS.search(line)]
    said = "; ".join(dict.fromkeys(kept))
    return said if len(said) <= 2000 else said[:2000] + " …"


@_record(frozen=True)
class _Done:
    code: int
    out: bytes
    err: bytes


def _run(
    cwd: Path | None,
    args: Sequence[str],
    *,
    what: str,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    network: bool = False,
    cache: bool | None = None,
    check: bool = True,
) -> _Done:
    """Run ``git args`` in *cwd*, the way every git command of plait runs (see the module)."""
    in_cache = _in_clone_cache(cwd) if cache is None else cache
    stall = _timeout()
    full_env = {**environment(cache=in_cache), **(env or {})}
    argv = ["git", *_config_args(cache=in_cache, network=network, stall=stall), *args]
    if network and sys.platform.startswith("linux"):
        # Network git starts helpers of its own (git-remote-https, ssh), which a
        # death signal on git alone would leave behind: the guard runs git in a
        # process group of its own and ends the whole group when plait dies.
        argv = [sys.executable, "-S", "-c", _GUARD, str(os.getpid()), *argv]
    where = f" in {cwd}" if cwd is not None else ""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent_hook(),
        )
    except OSError as exc:
        raise GitFailed(f"cannot {what}: {_shown(args)}{where} could not start: {exc.strerror or exc}") from None
    out, err, stalled = _communicate(proc, input, stall if network else max(stall, _LOCAL_BOUND), network=network)
    if stalled:
        said = "no progress" if network else "not done"
        raise GitFailed(
            f"cannot {what}: {_shown(args)}{where} stopped after {stall if network else _LOCAL_BOUND:g} s"
            f" with {said} (set ${ENV_TIMEOUT} to wait longer)",
            path=str(cwd) if cwd else None,
        )
    done = _Done(proc.returncode, out, err)
    if check and done.code != 0:
        raise GitFailed(
            f"cannot {what}: {_shown(args)}{where} exited {done.code}: {_message(err, out) or 'git said nothing'}",
            path=str(cwd) if cwd else None,
        )
    return done


def _communicate(
    proc: subprocess.Popen[bytes], input: bytes | None, bound: float, *, network: bool
) -> tuple[bytes, bytes, bool]:
    """Read everything git writes; stop it when it is silent for *bound* seconds
    (network: any byte on stderr is progress) or, locally, runs past *bound*."""
    if not network:
        try:
            out, err = proc.communicate(input, timeout=bound)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return b"", b"", True
        return out, err, False
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}
    last = [time.monotonic()]

    def pump(name: str, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        while True:
            data = read(65536)
            if not data:
                return
            chunks[name].append(data)
            last[0] = time.monotonic()

    readers = [
        threading.Thread(target=pump, args=("out", proc.stdout), daemon=True),
        threading.Thread(target=pump, args=("err", proc.stderr), daemon=True),
    ]
    for reader in readers:
        reader.start()
    if input is not None and proc.stdin is not None:
        try:
            proc.stdin.write(input)
        except BrokenPipeError:
            pass
        finally:
            proc.stdin.close()
    stalled = False
    while True:
        try:
            proc.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() - last[0] > bound:
                proc.terminate()  # the guard ends git's whole process group on SIGTERM
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                stalled = True
                break
    for reader in readers:
        reader.join(timeout=5)
    return b"".join(chunks["out"]), b"".join(chunks["err"]), stalled


def _git(
    cwd: Path | None,
    *args: str,
    what: str,
    env: dict[str, str] | None = None,
    network: bool = False,
    cache: bool | None = None,
) -> str:
    """Run git and return what it printed (text); a failure is one named error."""
    return _run(cwd, args, what=what, env=env, network=network, cache=cache).out.decode("utf-8", errors="replace")


def _quiet(cwd: Path | None, *args: str) -> str | None:
    """What git printed, or None when it failed (a question with "no" as an answer)."""
    try:
        done = _run(cwd, args, what="ask git", check=False)
    except PlaitError:
        return None
    return done.out.decode("utf-8", errors="replace") if done.code == 0 else None


def url_protocol(url: str) -> str:
    """The transport git would use for *url*: ``file``, ``https``, ``ssh``, ``git``, ``ext``…"""
    if "::" in url.split("/", 1)[0]:
        return url.split("::", 1)[0].lower()  # a remote helper: ext::, fd::, …
    if "://" in url:
        scheme = url.split("://", 1)[0].lower()
        return {"git+ssh": "ssh", "ssh+git": "ssh"}.get(scheme, scheme)
    head, colon, _rest = url.partition(":")
    if colon and "/" not in head and len(head) > 1:
        return "ssh"  # scp-like host:path
    return "file"


# --------------------------------------------------------------------------
# repositories


def _existing(path: Path) -> Path:
    here = Path(os.path.abspath(path))
    while not here.is_dir() and here != here.parent:
        here = here.parent
    return here


# Directories already found in a repository: one run asks for the same few
# many times.  Only found ones are kept: a directory may become a
# repository (init, a clone), and a removed repository is asked again.
_FOUND: dict[Path, Repository] = {}


def repo_of(path: Path) -> Repository | None:
    """The git repository *path* is in, or None."""
    here = _existing(path)
    known = _FOUND.get(here)
    if known is not None and known.git_dir.is_dir():
        return known
    said = _quiet(here, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    if said is None:
        return None
    lines = said.splitlines()
    if len(lines) != 2 or not lines[0]:
        return None  # a bare repository, or a .git directory itself: no working tree
    found = _FOUND[here] = Repository(Path(lines[0]).resolve(), Path(lines[1]))
    return found


def top_of(path: Path) -> Path | None:
    """The working tree of *path*'s repository."""
    repo = repo_of(path)
    return repo.top if repo is not None else None


def _rel(top: Path, path: Path) -> str:
    rel = (path.parent.resolve() / path.name).relative_to(top).as_posix()
    return "" if rel == "." else rel


def _has_head(top: Path) -> bool:
    return _quiet(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") is not None


def is_shallow(repo: Repository) -> bool:
    return (repo.git_dir / "shallow").exists()


def init(path: Path) -> Repository:
    """An empty repository at *path* (a workspace copy that must be one)."""
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "--quiet", what="git init")
    repo = repo_of(path)
    assert repo is not None
    return repo


def shared_clone(source: Path, dest: Path) -> None:
    """*dest* as a repository with *source*'s history and HEAD, and no files yet.

    A shared clone borrows the objects (nothing is copied), and the index is
    HEAD's, so files copied in afterwards read as they differ from HEAD.
    """
    _git(None, "clone", "--quiet", "--shared", "--no-checkout", "--", str(source), str(dest), what=f"clone {source}")
    _git(dest, "reset", "--quiet", what="read HEAD into the copy's index")


def export_history(top: Path, paths: Sequence[str]) -> bytes:
    """HEAD's history of *paths* in the repository at *top*, and nothing else of it, as a
    fast-export stream: what a built plait ships so that `plait demo` has the history its
    adopt step walks where no checkout is (`import_history` makes a repository of it)."""
    return _run(top, ["fast-export", "HEAD", "--", *paths], what="export the demo's history").out


def import_history(dest: Path, stream: bytes) -> None:
    """A repository at *dest* holding the history of an `export_history` stream, checked out."""
    init(dest)
    _run(dest, ["fast-import", "--quiet"], input=stream, what="import the demo's history")
    if _quiet(dest, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") is None:
        # A stream exported from a branch names the branch (from a detached HEAD, HEAD itself).
        heads = _git(dest, "for-each-ref", "--format=%(refname)", "refs/heads/", what="list the imported branch")
        _git(dest, "symbolic-ref", "HEAD", heads.split()[0], what="point HEAD at the imported branch")
    _git(dest, "reset", "--quiet", "--hard", what="check out the imported history")


# --------------------------------------------------------------------------
# reading history


def source_commit(path: Path) -> str | None:
    """The last commit that touched *path*, when git can vouch for its files.

    Only when nothing under *path* differs from HEAD (no edits, no untracked
    files): a commit recorded for content it does not hold would be a lie the
    next `adopt` or review trusts.  The last commit *touching* the path, not
    HEAD, so unrelated commits do not make a source look new.
    """
    top = top_of(path)
    if top is None or not _has_head(top):
        return None
    rel = _rel(top, path) or "."
    status = _quiet(top, "status", "--porcelain", "-z", "--untracked-files=all", "--end-of-options", "--", rel)
    if status is None or status:
        return None
    last = _quiet(top, "rev-list", "--max-count=1", "--end-of-options", "HEAD", "--", rel)
    return last.strip() or None if last is not None else None


def history(path: Path, *, limit: int = 200) -> list[Revision]:
    """Commits that touched anything under *path*, newest first (empty without git)."""
    top = top_of(path)
    if top is None or not _has_head(top):
        return []
    rel = _rel(top, path) or "."
    said = _quiet(top, "log", f"--max-count={limit}", "--format=%H%x00%cs%x00%s", "--end-of-options", "HEAD", "--", rel)
    out: list[Revision] = []
    for line in (said or "").splitlines():
        sha, _, rest = line.partition("\0")
        date, _, summary = rest.partition("\0")
        out.append(Revision(sha, summary, date))
    return out


def _commit_of(top: Path, rev: str) -> str | None:
    said = _quiet(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    return said.strip() if said else None


def _revision(path: Path, rev: str) -> tuple[Path, str]:
    """The top of *path*'s repository and the full sha of *rev* there; named errors otherwise."""
    top = top_of(path)
    if top is None:
        raise PlaitError("not in a git repository, so a revision means nothing here", path=str(path))
    sha = _commit_of(top, rev)
    if sha is None:
        raise PlaitError(f"no revision {rev!r} in {top}", path=str(path))
    return top, sha


def resolve(path: Path, rev: str) -> str:
    """The full sha of *rev* in *path*'s repository."""
    return _revision(path, rev)[1]


def _tree_entries(top: Path, rev: str, rel: str) -> list[tuple[str, str, str]]:
    """(mode, blob sha, path) of every file under *rel* at *rev* ("" for the whole tree).

    No ``--`` before the path: after ``--end-of-options`` ls-tree reads every
    argument past the tree as a path, ``--`` too, so a lone ``--`` listed
    nothing (a copy at its repository's top had no files).
    """
    said = _git(
        top,
        "ls-tree",
        "-r",
        "-z",
        "--full-tree",
        "--end-of-options",
        rev,
        *([rel] if rel else []),
        what=f"list the files of {rev}",
    )
    out = []
    for record in filter(None, said.split("\0")):
        meta, _, name = record.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob":
            out.append((mode, sha, name))
    return out


def _blobs(top: Path, shas: Sequence[str]) -> list[bytes]:
    """The contents of *shas*, in their order (every one must exist)."""
    found = blobs(top, shas)
    missing = [sha for sha in shas if sha not in found]
    if missing:
        raise PlaitError(f"git has no object {missing[0]} (a shallow clone?)", path=str(top))
    return [found[sha] for sha in shas]


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
    out: dict[str, str] = {}
    for mode, sha, name in _tree_entries(top, rev, prefix):
        if mode in ("100644", "100755") and name.startswith(prefix):
            out[name[len(prefix) :]] = sha
    return out


def blobs(top: Path, shas: Iterable[str]) -> dict[str, bytes]:
    """The contents of the blobs *shas* of *top*'s repository, read by one ``git cat-file --batch``."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    data = _run(
        top,
        ["cat-file", "--batch"],
        what="read the files of a revision",
        input="".join(f"{s}\n" for s in wanted).encode(),
    ).out
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
    top, sha = _revision(path, rev)
    rel = _rel(top, path)
    entries = [(mode, blob, name) for mode, blob, name in _tree_entries(top, sha, rel) if mode != "120000"]
    out: dict[str, str] = {}
    for (_mode, _blob, name), data in zip(entries, _blobs(top, [e[1] for e in entries]), strict=True):
        out[name[len(rel) + 1 :] if rel else name] = contents.decode(data)  # any file, byte for byte
    return out


def committed(path: Path, rev: str = "HEAD") -> bytes | None:
    """The bytes of file *path* as committed at *rev* in its repository; None when
    it is in no repository, or not in that commit."""
    top = top_of(path.parent)
    if top is None:
        return None
    try:
        rel = _rel(top, path)
    except ValueError:
        return None
    if not rel or rev.startswith("-"):
        return None
    try:
        done = _run(top, ["cat-file", "blob", f"{rev}:{rel}"], what="read a committed file", check=False)
    except PlaitError:
        return None
    return done.out if done.code == 0 else None


def _modes(top: Path, rev: str, rels: Sequence[str]) -> dict[str, str]:
    """The file mode of each of *rels* at *rev* (those it has)."""
    if not rels:
        return {}
    said = _git(top, "ls-tree", "-z", "--full-tree", "--end-of-options", rev, *rels, what="read modes")
    out: dict[str, str] = {}
    for record in filter(None, said.split("\0")):
        meta, _, name = record.partition("\t")
        out[name] = meta.split()[0]
    return out


def head_blobs(top: Path, rels: Sequence[str]) -> dict[str, str] | None:
    """The blob sha of each of *rels* at HEAD (those it has); None when git cannot say."""
    if not rels:
        return {}
    said = _quiet(top, "ls-tree", "-z", "--full-tree", "--end-of-options", "HEAD", *rels)
    if said is None:
        return None
    out: dict[str, str] = {}
    for record in filter(None, said.split("\0")):
        meta, _, name = record.partition("\t")
        out[name] = meta.split()[2]
    return out


def hash_files(top: Path, rels: Sequence[str]) -> list[str] | None:
    """The blob sha git would give each file of *rels* (in *top*); None when git cannot say."""
    said = _quiet(top, "hash-object", "--end-of-options", *rels)
    return said.split() if said is not None else None


def is_ancestor(top: Path, ancestor: str, descendant: str) -> bool:
    """Whether commit *ancestor* is an ancestor of *descendant* (False when git cannot say)."""
    try:
        done = _run(
            top, ["merge-base", "--is-ancestor", "--end-of-options", ancestor, descendant], what="ask git", check=False
        )
    except PlaitError:
        return False
    return done.code == 0


def origin_url(path: Path) -> str | None:
    """The URL of the ``origin`` remote of *path*'s repository, if it has one."""
    said = _quiet(_existing(path), "config", "--get", "remote.origin.url")
    return said.strip() or None if said is not None else None


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


def config_get(top: Path, key: str) -> str | None:
    """*key* from the repository's own (local) config, or None."""
    said = _quiet(top, "config", "--local", "--get", "--end-of-options", key)
    return said.rstrip("\n") if said is not None else None


def config_set(top: Path, key: str, value: str) -> None:
    """Set *key* in the repository's own config; git quotes the value as its syntax needs."""
    _git(top, "config", "--local", "--replace-all", "--end-of-options", key, value, what=f"set {key}")


def check_attr(top: Path, attribute: str, rels: Sequence[str], *, isolated: bool = False) -> dict[str, str]:
    """The value git gives *attribute* for each of *rels* (``unspecified``, ``set``, a value).

    isolated: only the repository's own ``.gitattributes`` count (not the
    user's or the system's attributes file).
    """
    if not rels:
        return {}
    pin = ["-c", "core.attributesFile=/dev/null"] if isolated else []
    said = _run(
        top,
        [*pin, "check-attr", "-z", "--stdin", attribute],
        what=f"ask git which files .gitattributes gives {attribute}",
        env={"GIT_ATTR_NOSYSTEM": "1"} if isolated else None,
        input="".join(f"{r}\0" for r in rels).encode(),
    ).out.decode("utf-8", errors="replace")
    fields = said.split("\0")
    return {fields[i]: fields[i + 2] for i in range(0, len(fields) - 2, 3)}


def listed_files(top: Path) -> list[str]:
    """Every file of *top*'s working tree git knows or would add (tracked, and untracked not ignored)."""
    said = _git(top, "ls-files", "-z", "--cached", "--others", "--exclude-standard", what="list the files")
    return sorted(set(filter(None, said.split("\0"))))


def sparse_paths(path: Path) -> list[str]:
    """The files under *path* that git tracks but keeps out of the working tree (the
    skip-worktree bit a sparse checkout sets), relative to *path*, sorted; empty outside git.

    Such a file is committed yet absent from the disk: a reader of the disk
    alone would take it for deleted, or a vendored directory for never vendored.
    """
    top = top_of(path)
    if top is None:
        return []
    try:
        rel = _rel(top, path)
    except ValueError:
        return []
    said = _quiet(top, "ls-files", "-z", "-t", "--full-name", "--end-of-options", "--", rel or ".")
    prefix = f"{rel}/" if rel else ""
    out: list[str] = []
    for entry in filter(None, (said or "").split("\0")):
        tag, _, name = entry.partition(" ")
        if tag == "S" and name.startswith(prefix) and not os.path.lexists(top / name):
            out.append(name[len(prefix) :])
    return sorted(out)


def committed_with_lf(files: Mapping[Path, bytes]) -> set[Path]:
    """Those of *files* (a working-tree path → its bytes, each holding a CRLF) that git
    would commit with LF endings: ``core.autocrlf``, or a ``.gitattributes`` text/eol rule.

    git itself is asked (``hash-object --stdin-paths`` applies the checkout's
    conversion for each path), and its blob compared with the LF form's, so
    every rule git has (``text=auto``, its safe-CRLF guard, ``-text``) is its own.
    """
    import hashlib

    by_top: dict[Path, list[tuple[str, Path]]] = {}
    for path in files:
        top = top_of(path.parent)
        if top is not None:
            by_top.setdefault(top, []).append((_rel(top, path), path))
    out: set[Path] = set()
    for top, entries in by_top.items():
        try:
            done = _run(
                top,
                ["hash-object", "--stdin-paths"],
                what="ask git how it would commit CRLF files",
                input="".join(f"{rel}\n" for rel, _ in entries).encode(),
                check=False,
            )
        except PlaitError:
            continue
        shas = done.out.decode().split() if done.code == 0 else []
        if len(shas) != len(entries):
            continue  # git cannot say (a path with a newline): the bytes as they are
        for (_rel_path, path), sha in zip(entries, shas, strict=True):
            lf = files[path].replace(b"\r\n", b"\n")
            if hashlib.sha1(b"blob %d\0" % len(lf) + lf).hexdigest() == sha:
                out.add(path)
    return out


def merge_file(args: Sequence[str], *, timeout: float | None) -> tuple[int, bytes, bytes]:
    """``git merge-file args`` (files only, no repository): its exit code, stdout and stderr.

    Raises `subprocess.TimeoutExpired` past *timeout*: the merge engine
    turns that into its own last resort.
    """
    argv = ["git", "merge-file", *args]
    proc = subprocess.Popen(
        argv,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_die_with_parent_hook(),
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, out, err


# --------------------------------------------------------------------------
# the clone cache


def check_clone_config(dest: Path) -> None:
    """Refuse a cached clone whose own config holds what `git clone` never writes there.

    The file is read by git with includes off, so nothing in it runs; any
    key outside `_CACHE_CONFIG_KEYS` (a hook path, an fsmonitor, a filter,
    an include) means someone edited plait's clone, and it is not used.
    """
    config = dest / ".git" / "config"
    if not config.is_file() or config.is_symlink():
        raise PlaitError(
            "the clone has no config file of its own; remove the clone and plait clones it again", path=str(dest)
        )
    said = _git(
        None,
        "config",
        "--file",
        str(config),
        "--no-includes",
        "--list",
        "-z",
        what="read the clone's config",
        env={"GIT_CONFIG_NOSYSTEM": "1"},
    )
    keys = sorted({entry.split("\n", 1)[0] for entry in said.split("\0") if entry})
    foreign = [key for key in keys if not _CACHE_CONFIG_KEYS.fullmatch(key)]
    if foreign:
        raise PlaitError(
            f"the cached clone's config sets {', '.join(foreign)}, which plait never writes there and will not run;"
            f" remove the clone (rm -rf {dest}) and plait clones it again",
            path=str(dest),
        )


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
            cache=True,
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
        args = ["clone", "--progress", *([f"--branch={ref}"] if ref else []), "--", url, str(partial)]
        _run(None, args, what=f"clone {_redact(url)}", network=True, cache=True)
        partial.rename(dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _default_branch(dest: Path) -> str | None:
    said = _quiet(dest, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    prefix = "refs/remotes/origin/"
    if said and said.strip().startswith(prefix):
        return said.strip()[len(prefix) :]
    current = _quiet(dest, "symbolic-ref", "--quiet", "--short", "HEAD")
    return current.strip() if current else None


def _would_lose(dest: Path, branch: str | None) -> list[str]:
    """Commits that moving the clone would leave on no branch and no remote: the user's."""
    lost: list[str] = []
    if branch is not None and _quiet(dest, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"):
        # Commits of the branch that no remote, tag or other local branch holds.
        said = _quiet(
            dest,
            "rev-list",
            "--max-count=5",
            "--oneline",
            f"refs/heads/{branch}",
            "--not",
            "--remotes",
            "--tags",
            f"--exclude={branch}",
            "--branches",
        )

        lost += (said or "").splitlines()
    detached = _quiet(dest, "symbolic-ref", "--quiet", "HEAD") is None
    if detached:
        said = _quiet(
            dest, "rev-list", "--max-count=5", "--oneline", "HEAD", "--not", "--branches", "--remotes", "--tags"
        )
        lost += (said or "").splitlines()
    return list(dict.fromkeys(lost))


def refresh(dest: Path, ref: str | None) -> str | None:
    """Fetch a clone and bring its checkout to the remote's *ref* (default: the remote's
    default branch, never a branch plait once made there).

    Only a clean checkout is moved: files an earlier run wrote and nobody
    committed are left as they are, and that is said.  A commit made in the
    clone that moving it would lose is refused, named: plait never resets
    away what a person committed.  Returns a note, or None.
    """
    check_clone_config(dest)
    _run(
        dest, ["fetch", "--progress", "--prune", "--end-of-options", "origin"], what=f"fetch into {dest}", network=True
    )
    if _git(dest, "status", "--porcelain", what="read the clone's status").strip():
        return f"{dest.name}: the clone has uncommitted changes from an earlier run; it was fetched, not moved"
    branch = ref or _default_branch(dest)
    remote = f"refs/remotes/origin/{branch}" if branch else None
    if remote is not None and _quiet(dest, "rev-parse", "--verify", "--quiet", "--end-of-options", remote) is None:
        remote = None
    lost = _would_lose(dest, branch if remote is not None else None)
    if lost:
        raise PlaitError(
            f"the cached clone has commit(s) that are on no remote ({'; '.join(lost)}), and bringing it to"
            f" {ref or 'the remote'} would lose them: push them to the copy's repository, or keep them on a"
            f" branch of your own (git -C {dest} branch <name>), and run again",
            path=str(dest),
        )
    if remote is None:
        if ref is None:
            return None  # a detached checkout of a tag or a commit stays where it is
        sha = _commit_of(dest, ref)
        if sha is None:
            raise PlaitError(f"the manifest says ref = {ref!r}, which the clone does not have", path=str(dest))
        _git(dest, "checkout", "--quiet", "--detach", sha, what=f"check out {ref}")
        return None
    assert branch is not None
    _git(dest, "checkout", "--quiet", "-B", branch, remote, what=f"check out {branch}")
    return None


def verify_ref(path: Path, ref: str) -> None:
    """Refuse a repository in place whose checkout is not *ref*.

    A copy plait reads and writes in place must be at the ref the manifest
    names: plait never switches a checkout it does not own.
    """
    top = top_of(path)
    if top is None:
        raise PlaitError("not a git repository, but the manifest gives it a ref", path=str(path))
    wanted = _commit_of(top, ref)
    if wanted is None:
        raise PlaitError(f"the manifest says ref = {ref!r}, which this repository does not have", path=str(path))
    said = _quiet(top, "symbolic-ref", "--quiet", "--short", "HEAD")
    branch = said.strip() if said else None
    head = _commit_of(top, "HEAD") or ""
    if branch != ref and head != wanted:
        here = branch or head[:7]
        raise PlaitError(
            f"{here} is checked out, but the manifest says ref = {ref!r}; check out {ref} there, or drop the ref",
            path=str(path),
        )


# --------------------------------------------------------------------------
# --commit and --push


def ensure_clean(path: Path, *, untracked_ok: Iterable[str] = ()) -> Path:
    """The top of *path*'s repository, refused unless nothing under *path* is uncommitted.

    *untracked_ok*: top-relative prefixes under which an untracked file is
    plait's own leftover, not the user's change.  plait's temporary files
    (``.*.plait-tmp``) never count either: the next run sweeps them.
    """
    top = top_of(path)
    if top is None:
        raise PlaitError("--commit needs a git repository", path=str(path))
    rel = _rel(top, path) or "."
    said = _git(
        top,
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--end-of-options",
        "--",
        rel,
        what="read the status",
    )
    prefixes = tuple(untracked_ok)
    dirty: list[str] = []
    for entry in said.split("\0"):
        if len(entry) <= 3:
            continue
        state, name = entry[:2], entry[3:]
        if _plait_temp(name) or (state == "??" and prefixes and name.startswith(prefixes)):
            continue
        dirty.append(name)
    if dirty:
        shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        raise PlaitError(f"uncommitted changes ({shown}); commit or stash them before using --commit", path=str(path))
    return top


def _plait_temp(name: str) -> bool:
    from .commit import TEMP_SUFFIXES

    base = name.rsplit("/", 1)[-1]
    return base.startswith(".") and base.endswith(TEMP_SUFFIXES)


def untracked(paths: list[Path]) -> list[Path]:
    """Those of *paths* (files on disk) that git does not track yet."""
    by_top: dict[Path, list[tuple[str, Path]]] = {}
    for path in paths:
        top = top_of(path.parent)
        if top is not None:
            by_top.setdefault(top, []).append((_rel(top, path), path))
    out: list[Path] = []
    for top, entries in by_top.items():
        listed = _git(
            top,
            "ls-files",
            "-z",
            "--full-name",
            "--end-of-options",
            "--",
            *(rel for rel, _ in entries),
            what="ask git what it tracks",
        )
        tracked = set(filter(None, listed.split("\0")))
        out += [path for rel, path in entries if rel not in tracked]
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


def commit_on_branch(
    top: Path,
    branch: str,
    files: Mapping[str, bytes | None],
    message: str,
    *,
    executable: Mapping[str, bool] | None = None,
) -> str:
    """Commit *files* (top-relative path → content, or None to remove) on a new
    *branch* whose parent is HEAD, without touching HEAD, the index or the
    working tree.  A file *executable* names is committed as 100755 (True) or
    100644 (False); any other keeps its mode at HEAD (a new one: 100644).

    Git plumbing does it (blobs from memory, a private index, ``write-tree``,
    ``commit-tree``, ``update-ref``), so the checkout, its staged changes
    and its files stay exactly as they were, and the branch fast-forwards
    from HEAD.  The ref update is the switch point: a kill before it leaves
    only unreachable objects, which git collects.  A branch that already
    exists with the same tree on the same parent is reused (a rerun after a
    kill); one with other content is refused.  Returns the commit's sha.
    """
    import tempfile

    env: dict[str, str] = {}
    if _quiet(top, "config", "--get", "user.email") is None and not os.environ.get("GIT_COMMITTER_EMAIL"):
        env.update(_IDENTITY)  # CI clones often have no identity; say who made the commit
    head = _commit_of(top, "HEAD")
    if head is None:
        raise PlaitError("--commit needs a repository with a first commit (HEAD)", path=str(top))
    fd, index = tempfile.mkstemp(prefix="plait-index-")
    os.close(fd)
    os.unlink(index)
    private = {**env, "GIT_INDEX_FILE": index}
    try:
        _git(top, "read-tree", head, what="read HEAD", env=private)
        modes = _modes(top, head, list(files))
        lines: list[str] = []
        for rel, data in sorted(files.items()):
            if data is None:
                lines.append(f"0 {'0' * len(head)}\t{rel}")
                continue
            blob = _run(top, ["hash-object", "-w", "--stdin"], what=f"store {rel}", input=data).out.decode().strip()
            mode = modes.get(rel, "100644")
            if executable is not None and rel in executable:
                mode = "100755" if executable[rel] else "100644"
            lines.append(f"{mode} {blob}\t{rel}")
        if lines:
            _run(
                top,
                ["update-index", "-z", "--index-info"],
                what="stage the changes",
                env=private,
                input="".join(f"{line}\0" for line in lines).encode(),
            )
        tree = _git(top, "write-tree", what="write the tree", env=private).strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)
    existing = f"refs/heads/{branch}"
    old = _commit_of(top, existing)
    if old is not None:
        same_tree = _quiet(top, "rev-parse", "--verify", "--quiet", f"{old}^{{tree}}")
        parent = _quiet(top, "rev-parse", "--verify", "--quiet", f"{old}^")
        if same_tree is not None and same_tree.strip() == tree and parent is not None and parent.strip() == head:
            return old
        raise PlaitError(f"branch {branch} already exists with other changes; merge or delete it first", path=str(top))
    done = _run(top, ["commit-tree", tree, "-p", head, "-F", "-"], what="commit", env=env, input=message.encode())
    sha = done.out.decode().strip()
    _git(top, "update-ref", "--end-of-options", existing, sha, "", what=f"create branch {branch}")
    return sha


def push(top: Path, branch: str) -> str:
    """Push *branch* to ``origin``; the URL it went to."""
    url = origin_url(top)
    if url is None:
        raise PlaitError(f"cannot push {branch}: the repository has no remote 'origin'", path=str(top))
    _run(
        top,
        ["push", "--progress", "--end-of-options", "origin", f"refs/heads/{branch}:refs/heads/{branch}"],
        what=f"push {branch} to {_redact(url)}",
        network=True,
    )
    return url
