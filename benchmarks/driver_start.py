"""`plait merge` as git's merge driver: its start-up against a bare interpreter, and real merges file by file.

git starts the driver once per file both sides changed, so a merge of 40
Python files pays its start 40 times.  One run measures, side by side:

1. **start-up**: a whole ``plait merge %O %A %B -L 7 -P client.py`` process on
   a 100-line module with a one-line change on each side (git's line merge
   settles it; the audits still parse and check it), interleaved with a bare
   ``python -c pass`` of the same interpreter.  Goal: the median at most
   2.5x the bare interpreter's.
2. **real merges**: every Python file that both parents of a merge commit
   changed since their merge base, in the merge commits of a git history
   (by default this repository's own: the integration merges of its
   branches; ``--repo`` takes another clone), up to 40 merge commits, each
   file merged by one ``plait merge`` process as git runs it, one after
   another.  Goal: a median of at most 0.25 s per file.

Both with plait's bytecode cached, as an installed plait runs (where
``PYTHONDONTWRITEBYTECODE`` is set, a pycache prefix in a temporary
directory stands in).  Times are wall clock; CPU time (user + system of the
child) is printed beside them, which a loaded machine skews less.

Run: ``python benchmarks/driver_start.py [--repeat 31] [--repo PATH] [--merges 40]``.
Not a test: it prints PASS/MISS per goal and exits 0.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STARTUP_GOAL = 2.5
MEDIAN_GOAL = 0.25


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True).stdout


def _blob(repo: Path, commit: str, path: str) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True)
    return proc.stdout if proc.returncode == 0 else b""


def corpus(repo: Path, merges: int, into: Path) -> list[tuple[str, Path, Path, Path]]:
    """(label, base, ours, theirs) for every .py file both parents changed, in up to *merges* merge commits."""
    cases: list[tuple[str, Path, Path, Path]] = []
    used = 0
    for line in _git(repo, "rev-list", "--merges", "--parents", "HEAD").splitlines():
        merge, *parents = line.split()
        if len(parents) != 2:
            continue
        try:
            base = _git(repo, "merge-base", *parents).strip()
        except subprocess.CalledProcessError:
            continue
        changed = [set(_git(repo, "diff", "--name-only", base, p, "--", "*.py").split()) for p in parents]
        both = sorted(changed[0] & changed[1])
        files = []
        for path in both:
            sides = [_blob(repo, commit, path) for commit in (base, *parents)]
            if sides[1] != sides[2] and sides[1] and sides[2]:
                files.append((path, sides))
        if not files:
            continue
        used += 1
        for n, (path, sides) in enumerate(files):
            folder = into / f"{merge[:10]}-{n}"
            folder.mkdir(parents=True)
            names = []
            for side, data in zip(("base", "ours", "theirs"), sides, strict=True):
                (folder / f"{side}.py").write_bytes(data)
                names.append(folder / f"{side}.py")
            cases.append((f"{merge[:10]} {path}", names[0], names[1], names[2]))
        if used >= merges:
            break
    return cases


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return wall, cpu, proc.returncode


def _plait() -> list[str]:
    """How git's driver line starts plait: the console script beside this interpreter, else `-m plait`."""
    script = Path(sys.executable).with_name("plait")
    return [str(script)] if script.exists() else [sys.executable, "-m", "plait"]


def _driver(base: Path, ours: Path, theirs: Path, path: str) -> list[str]:
    return [*_plait(), "merge", str(base), str(ours), str(theirs), "-L", "7", "-P", path]


def _module(lines: int) -> str:
    body = [f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(lines // 4)]
    return '"""A module."""\n\n\n' + "".join(body)


def startup(tmp: Path, env: dict[str, str], repeat: int) -> float:
    base = _module(100)
    ours = base.replace("return x + 1\n", "return x + 1  # ours\n", 1)
    theirs = base.replace(f"return x + {100 // 4 - 1}\n", f"return x + {100 // 4 - 1}  # theirs\n", 1)
    files = {name: tmp / f"start-{name}.py" for name in ("base", "ours", "theirs", "merged")}
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        files[name].write_text(text, encoding="utf-8")
    driver = _driver(files["base"], files["merged"], files["theirs"], "client.py")
    bare = [sys.executable, "-c", "pass"]
    samples: dict[str, list[tuple[float, float]]] = {"plait merge": [], "python -c pass": []}
    for r in range(repeat + 2):
        order = [("plait merge", driver), ("python -c pass", bare)]
        for name, argv in order if r % 2 else order[::-1]:
            if name == "plait merge":
                shutil.copyfile(files["ours"], files["merged"])
            wall, cpu, code = _timed(argv, env)
            if name == "plait merge" and code != 0:
                raise RuntimeError("the start-up merge conflicted")
            if r >= 2:  # two warm-up rounds: the bytecode is cached after them
                samples[name].append((wall, cpu))
    med = {n: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for n, s in samples.items()}
    ratio = med["plait merge"][0] / med["python -c pass"][0]
    cpu_ratio = med["plait merge"][1] / med["python -c pass"][1]
    print(f"start-up, median of {repeat} interleaved: {' '.join(_plait())} merge %O %A %B -L 7 -P client.py")
    for name, (wall, cpu) in med.items():
        print(f"  {name:<15} {wall * 1000:7.1f} ms wall  {cpu * 1000:7.1f} ms CPU")
    verdict = "PASS" if ratio <= STARTUP_GOAL else "MISS"
    print(f"  ratio {ratio:.2f}x wall ({cpu_ratio:.2f}x CPU)  goal <= {STARTUP_GOAL:g}x  {verdict}")
    print()
    return ratio


def real_merges(tmp: Path, env: dict[str, str], repo: Path, merges: int) -> float | None:
    cases = corpus(repo, merges, tmp / "corpus")
    if not cases:
        print(f"real merges: {repo} has no merge commit whose parents both changed a Python file")
        return None
    commits = len({label.split()[0] for label, *_ in cases})
    walls: list[float] = []
    cpus: list[float] = []
    conflicted = 0
    scratch = tmp / "merged.py"
    for _label, base, ours, theirs in cases[:1]:  # warm-up, untimed: caches bytecode
        shutil.copyfile(ours, scratch)
        _timed(_driver(base, scratch, theirs, "x.py"), env)
    for label, base, ours, theirs in cases:
        shutil.copyfile(ours, scratch)
        wall, cpu, code = _timed(_driver(base, scratch, theirs, label.split(" ", 1)[1]), env)
        walls.append(wall)
        cpus.append(cpu)
        conflicted += code == 1
    ordered = sorted(walls)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    median = statistics.median(walls)
    print(
        f"real merges: {len(cases)} Python files both sides changed, in {commits} merge commits of {repo}"
        f" ({conflicted} with conflicts left), one plait merge process each, one after another"
    )
    print(
        f"  per file: median {median:.3f} s wall ({statistics.median(cpus):.3f} s CPU),"
        f" p90 {p90:.3f} s, slowest {ordered[-1]:.3f} s, total {sum(walls):.1f} s"
    )
    verdict = "PASS" if median <= MEDIAN_GOAL else "MISS"
    print(f"  goal: median <= {MEDIAN_GOAL:g} s  {verdict}")
    print()
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=31, help="start-up processes of each kind")
    parser.add_argument("--repo", type=Path, default=REPO, help="the git history whose merge commits are replayed")
    parser.add_argument("--merges", type=int, default=40, help="merge commits replayed at most")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plait-driver-bench-") as folder:
        tmp = Path(folder)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        load = os.getloadavg()[0]
        print(f"plait merge as git's driver, Python {sys.version.split()[0]}, load average {load:.1f}")
        print()
        startup(tmp, env, args.repeat)
        real_merges(tmp, env, args.repo.resolve(), args.merges)


if __name__ == "__main__":
    main()
