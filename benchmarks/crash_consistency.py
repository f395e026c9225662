"""Kill plait at every file mutation and prove a rerun mends the workspace (issues 14 and 23).

For `plait sync` and `plait vendor --all`, and for `sync --commit`,
`vendor --all --commit` and `vendor --all --push` (issue 23, item 11), each
on its own copy of the bundled workspace (a committed git repository), this:

1. runs the command once, uninterrupted, and records the resulting tree and
   `plait check`'s exit code;
2. runs it once more on a fresh copy with an audit hook that counts the
   file mutations it makes (opens for writing, renames, removals, mkdir,
   chmod) inside the workspace, and, for --commit and --push, every git
   command it starts there (a branch is made by git, not by plait's own
   writes): those are the kill points;
3. for every k, on a fresh copy, runs it with the hook set to SIGKILL the
   process just before its k-th mutation, then reruns the command and
   checks that the rerun exits 0, the tree equals the uninterrupted one
   (``.git`` aside), every branch (and, for --push, every branch of the
   remote) holds the uninterrupted run's tree, no temporary file is left,
   and `plait check` exits as it did after the uninterrupted run.

Random delays almost never land in the write step; Python's audit hooks
(`sys.addaudithook`) find every point exactly.

    python benchmarks/crash_consistency.py [--sample N] [--commands sync,vendor,sync-commit,...]

``--sample N`` tries N kill points spread over the range (first and last
included) instead of all of them; the test suite runs a sample.  Prints
``crash: sync a/b, vendor c/d, … kills recovered`` and exits 1 if any kill
was not recovered.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Run inside the child: count, or kill before, the k-th mutation under ROOT.
HOOK = r"""
import os, signal, sys
ROOT = os.environ["CRASH_ROOT"]
KILL_AT = int(os.environ.get("CRASH_KILL_AT", "0"))
GIT_TOO = os.environ.get("CRASH_SUBPROCESS") == "1"
COUNT_FILE = os.environ.get("CRASH_COUNT_FILE")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
seen = [0]
done = [False]

def inside(path):
    try:
        return os.fspath(path).startswith(ROOT)
    except TypeError:
        return False

def mutating(event, args):
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int) or not inside(path):
            return False
        if mode is not None:
            return any(c in mode for c in "wax+")
        return bool(flags & WRITE_FLAGS)
    if event in ("os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.truncate", "os.link",
                 "os.symlink", "shutil.rmtree"):
        return inside(args[0])
    if event == "subprocess.Popen" and GIT_TOO:
        return inside(args[2] if args[2] is not None else os.getcwd())
    return False

def hook(event, args):
    if done[0] or not mutating(event, args):
        return
    seen[0] += 1
    if seen[0] == KILL_AT:
        os.kill(os.getpid(), signal.SIGKILL)

def report():
    done[0] = True
    if COUNT_FILE:
        with open(COUNT_FILE, "w") as fh:
            fh.write(str(seen[0]))

import atexit
atexit.register(report)
sys.addaudithook(hook)
from plait.cli import main
sys.argv = ["plait", *sys.argv[1:]]
main()
"""

TEMP_SUFFIXES = (".plait-tmp", ".plait-del")


@dataclass
class Outcome:
    command: str
    points: int
    tried: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def recovered(self) -> int:
        return len(self.tried) - len({f.split(":", 1)[0] for f in self.failures})


def tree_of(root: Path) -> dict[str, str]:
    """relative path → sha256 of every file, ``.git`` and interpreter caches aside."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if ".git" in rel.parts or "__pycache__" in rel.parts or path.is_dir():
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "link"
    return out


def temps_in(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.name.endswith(TEMP_SUFFIXES) and ".git" not in p.relative_to(root).parts
    )


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CRASH_"))}
    env.update(
        PYTHONDONTWRITEBYTECODE="1",
        GIT_CONFIG_NOSYSTEM="1",
        PLAIT_LOCK_TIMEOUT="10",
        NO_COLOR="1",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    env.update(extra or {})
    return env


def plait(root: Path, args: list[str], *, hook: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    workspace = str(root / "lineages")
    if hook is None:
        argv = [sys.executable, "-m", "plait", "--workspace", workspace, *args]
        return subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=600)
    argv = [sys.executable, "-c", HOOK, "--workspace", workspace, *args]
    publishing = "--commit" in args or "--push" in args
    env = _env({"CRASH_ROOT": str(root), "CRASH_SUBPROCESS": "1" if publishing else "0", **hook})
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)


def branches(root: Path) -> dict[str, str]:
    """Each branch of the copy's repository and of its remote (if any) → the tree it holds."""
    out: dict[str, str] = {}
    for where, repo in (("local", root), ("remote", origin_of(root))):
        if not (repo / "HEAD").exists() and not (repo / ".git").exists():
            continue
        listed = subprocess.run(
            ["git", "-C", str(repo), "for-each-ref", "--format=%(refname:short) %(tree)", "refs/heads"],
            capture_output=True,
            text=True,
            env=_env(),
            check=True,
        ).stdout
        for line in listed.splitlines():
            name, tree = line.split()
            out[f"{where}:{name}"] = tree
    return out


def origin_of(root: Path) -> Path:
    return root.parent / f"{root.name}.origin.git"


def with_origin(root: Path) -> None:
    """A bare remote for *root*'s repository, holding its main branch, for --push."""
    remote = origin_of(root)
    if remote.exists():
        shutil.rmtree(remote)
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=_env())
    subprocess.run(["git", "-C", str(root), "remote", "remove", "origin"], capture_output=True, env=_env())
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(remote)], check=True, env=_env())
    subprocess.run(["git", "-C", str(root), "push", "-q", "origin", "HEAD"], check=True, env=_env())


def pristine(folder: Path) -> Path:
    """The bundled workspace copied into a committed git repository under *folder*."""
    from plait.workspace import Workspace, copy_workspace

    root = folder / "pristine"
    copy_workspace(Workspace.load(REPO / "lineages"), root)
    git = ["git", "-C", str(root), "-c", "user.name=crash", "-c", "user.email=crash@plait.invalid"]
    subprocess.run([*git, "init", "-q"], check=True, env=_env())
    # The consumer vendored by hand is onboarded first, as its maintainers would.
    adopted = plait(root, ["adopt", "mnemo"])
    if adopted.returncode != 0:
        raise SystemExit(f"adopting mnemo failed:\n{adopted.stderr}")
    subprocess.run([*git, "add", "-A"], check=True, env=_env())
    subprocess.run([*git, "commit", "-q", "-m", "the bundled workspace"], check=True, env=_env())
    return root


def fresh(template: Path, folder: Path, name: str) -> Path:
    dest = folder / name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(template, dest, symlinks=True)
    return dest


def spread(points: int, sample: int | None) -> list[int]:
    if sample is None or sample >= points:
        return list(range(1, points + 1))
    if sample <= 1:
        return [points]
    step = (points - 1) / (sample - 1)
    return sorted({round(1 + i * step) for i in range(sample)})


def run_command(name: str, args: list[str], template: Path, folder: Path, sample: int | None) -> Outcome:
    def copy(label: str) -> Path:
        root = fresh(template, folder, f"{name}-{label}")
        if "--push" in args:
            with_origin(root)
        return root

    clean = copy("clean")
    first = plait(clean, args)
    if first.returncode != 0:
        raise SystemExit(f"{name}: the uninterrupted run failed ({first.returncode}):\n{first.stderr}")
    expected_tree = tree_of(clean)
    expected_branches = branches(clean)
    expected_check = plait(clean, ["check"]).returncode

    counted = copy("count")
    count_file = folder / f"{name}.count"
    plait(counted, args, hook={"CRASH_COUNT_FILE": str(count_file)})
    points = int(count_file.read_text())
    outcome = Outcome(name, points)
    for k in spread(points, sample):
        outcome.tried.append(k)
        root = copy("kill")
        killed = plait(root, args, hook={"CRASH_KILL_AT": str(k)})
        if killed.returncode != -signal.SIGKILL:
            outcome.failures.append(f"{k}: not killed (exit {killed.returncode}): {killed.stderr.strip()[-300:]}")
            continue
        rerun = plait(root, args)
        if rerun.returncode != 0:
            outcome.failures.append(f"{k}: the rerun exited {rerun.returncode}: {rerun.stderr.strip()[-300:]}")
            continue
        left = temps_in(root)
        if left:
            outcome.failures.append(f"{k}: temporary files left: {', '.join(left)}")
        tree = tree_of(root)
        if tree != expected_tree:
            differ = sorted(set(tree) ^ set(expected_tree)) + sorted(
                p for p in set(tree) & set(expected_tree) if tree[p] != expected_tree[p]
            )
            outcome.failures.append(f"{k}: the tree differs from an uninterrupted run's in {', '.join(differ[:5])}")
        got = branches(root)
        if got != expected_branches:
            differ = sorted(k for k in set(got) | set(expected_branches) if got.get(k) != expected_branches.get(k))
            outcome.failures.append(f"{k}: the branches differ from an uninterrupted run's: {', '.join(differ[:5])}")
        checked = plait(root, ["check"]).returncode
        if checked != expected_check:
            outcome.failures.append(f"{k}: plait check exited {checked}, not {expected_check}")
    return outcome


COMMANDS = {
    "sync": ["sync"],
    "vendor": ["vendor", "--all", "--jobs", "1"],
    "sync-commit": ["sync", "--commit"],
    "vendor-commit": ["vendor", "--all", "--jobs", "1", "--commit"],
    "vendor-push": ["vendor", "--all", "--jobs", "1", "--push"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="Kill points per command (default: every one).")
    parser.add_argument("--commands", default=",".join(COMMANDS), help=f"Which commands: {', '.join(COMMANDS)}.")
    parser.add_argument("--keep", action="store_true", help="Keep the temporary directory.")
    options = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="plait-crash-"))
    outcomes: list[Outcome] = []
    try:
        template = pristine(folder)
        names = [n.strip() for n in options.commands.split(",") if n.strip()]
        if any(n.startswith("vendor") for n in names):
            # Vendor runs on a synced, committed workspace: what CI re-vendors from.
            synced = fresh(template, folder, "synced")
            assert plait(synced, ["sync"]).returncode == 0
            subprocess.run(["git", "-C", str(synced), "add", "-A"], check=True, env=_env())
            commit = ["git", "-C", str(synced), "-c", "user.name=crash", "-c", "user.email=crash@plait.invalid"]
            subprocess.run([*commit, "commit", "-q", "-m", "synced"], check=True, env=_env())
        for name in names:
            base = template if name.startswith("sync") else folder / "synced"
            outcome = run_command(name, COMMANDS[name], base, folder, options.sample)
            outcomes.append(outcome)
            for failure in outcome.failures:
                print(f"{name}: kill at mutation {failure}")
    finally:
        if options.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    summary = ", ".join(f"{o.command} {o.recovered}/{len(o.tried)}" for o in outcomes)
    points = ", ".join(f"{o.command} {o.points}" for o in outcomes)
    print(f"crash: {summary} kills recovered (mutation points: {points})")
    return 0 if all(not o.failures for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
