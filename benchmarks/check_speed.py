"""How fast `plait check` is, next to the floor of hashing the same files.

It generates a workspace of 50 consumers, each vendoring a 10-file package
(the canonical client's modules plus two more), vendors them all with
`plait.vendoring.vendor.vendor`, then runs, interleaved:

* ``plait check`` as CI and a pre-commit hook run it: the whole command,
  process start included;
* ``sha256sum`` of the same 500 vendored files: the floor, one process;
* ``python -c pass`` with the same interpreter: what any Python command pays
  before doing anything (shown for information).

Each is measured in CPU time (user + system of the process, from
``resource.getrusage(RUSAGE_CHILDREN)``), the verdict's measure, since
other work on a shared machine skews it least, and in wall time. Where
plait's bytecode is not cached (PYTHONDONTWRITEBYTECODE set and nothing
compiled), every start compiles plait's own modules again; ``plait check``
is then also run with its bytecode cached (a pycache prefix in a temporary
directory), as an installed plait starts, and that is the row the verdict
reads.

Run: ``python benchmarks/check_speed.py [--consumers 50] [--repeat 15]``.
Not a test: it prints a table with PASS/MISS per goal and always exits 0.
Goals: at most 0.5 s wall, and at most 3x the sha256sum floor (CPU).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fleet import write_fleet

from plait.vendoring.vendor import vendor
from plait.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
CANONICAL = REPO / "client" / "embedding_client"
FILES_PER_CONSUMER = 10
GOAL_SECONDS = 0.5
GOAL_RATIO = 3.0


def build(root: Path, consumers: int) -> list[Path]:
    """A workspace with a 10-file canonical package and *consumers* consumers, vendored; the vendored files."""
    package = write_fleet(root, consumers, CANONICAL)
    extra = FILES_PER_CONSUMER - sum(1 for p in package.iterdir() if p.is_file())
    for n in range(extra):
        body = "".join(f"def helper_{n}_{i}(value):\n    return value * {i}\n\n\n" for i in range(40))
        (package / f"extra_{n}.py").write_text(
            f'"""Generated module {n}."""\n\nfrom .cache import TTLCache\n\n\n{body}'
        )
    report = vendor(Workspace.load(root), jobs=os.cpu_count() or 1)
    assert report.exit_code == 0, report.notes
    files = sorted(p for p in (root / "consumers").rglob("*") if p.is_file() and "_vendor/embedding_client" in str(p))
    return [p for p in files if p.name != "plait.lock"]


def timed(argv: list[str], cwd: Path, env: dict[str, str] | None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of *argv* (CPU: user + system of it and what it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bytecode_cached() -> bool:
    """Whether plait's own modules start from cached bytecode here (see merge_scaling.py)."""
    import plait.vendoring.check

    return os.path.exists(importlib.util.cache_from_source(plait.vendoring.check.__file__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--consumers", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    plait = Path(sys.executable).parent / "plait"
    if not plait.exists():
        raise SystemExit(f"no plait console script beside {sys.executable}; pip install -e ./client -e . first")
    sha256sum = shutil.which("sha256sum")
    if sha256sum is None:
        raise SystemExit("sha256sum is not on PATH")
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")

    with tempfile.TemporaryDirectory(prefix="plait-check-speed-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        started = time.perf_counter()
        files = build(root, args.consumers)
        print(
            f"{args.consumers} consumers x {FILES_PER_CONSUMER} files = {len(files)} vendored files "
            f"({sum(p.stat().st_size for p in files) / 1e6:.1f} MB), vendored in {time.perf_counter() - started:.1f} s"
        )
        check = [str(plait), "--workspace", str(root), "check"]
        commands: dict[str, tuple[list[str], dict[str, str] | None]] = {"plait check": (check, None)}
        if not bytecode_cached():
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            commands["plait check (bytecode cached)"] = (check, {**env, "PYTHONPYCACHEPREFIX": f"{tmp}/pycache"})
        commands["sha256sum (floor)"] = ([sha256sum, *map(str, files)], None)
        commands["python -c pass"] = ([sys.executable, "-c", "pass"], None)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for argv, env in commands.values():
            timed(argv, root, env)  # warm the page cache, the interpreter's imports and the bytecode
        for _ in range(args.repeat):
            for name, (argv, env) in commands.items():
                samples[name].append(timed(argv, root, env))

    wall = {name: statistics.median(w for w, _ in values) for name, values in samples.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in samples.items()}
    print(f"\n{'command':<31} {'CPU':>9} {'wall':>9}")
    for name in samples:
        print(f"{name:<31} {cpu[name] * 1000:>7.1f}ms {wall[name] * 1000:>7.1f}ms")
    judged = "plait check (bytecode cached)" if "plait check (bytecode cached)" in cpu else "plait check"
    floor = cpu["sha256sum (floor)"]
    ratio = cpu[judged] / floor
    print(f"\n{judged}, wall: {wall[judged]:.3f} s (goal <= {GOAL_SECONDS} s)", end=" ")
    print("PASS" if wall[judged] <= GOAL_SECONDS else "MISS")
    print(f"{judged} / sha256sum, CPU: {ratio:.2f}x (goal <= {GOAL_RATIO}x)", end=" ")
    print("PASS" if ratio <= GOAL_RATIO else "MISS")
    print(f"python -c pass / sha256sum, CPU: {cpu['python -c pass'] / floor:.2f}x (the interpreter alone)")
    print(f"plait check beyond interpreter start, CPU: {(cpu[judged] - cpu['python -c pass']) * 1000:.1f} ms")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
