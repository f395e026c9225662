"""Real repositories under plait for the git-boundary tests: a workspace, a service in place, one by URL.

`under_plait` brings `real_setups.make_setup`'s repositories under plait
the way a user does, with a manifest that names svc-a in place (``../svc-a``,
read and written where it is) and svc-b by ``file://`` URL (cloned into
``.plait/clones/svc-b``), and commits what plait wrote in each repository.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import git
from real_setups import Setup, canonical_files, commit_all, make_setup

__all__ = ["plait", "stalled_server", "under_plait", "upstream_change"]


def plait(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def manifest(setup: Setup, *, svc_b: str) -> str:
    return f"""\
[canonical]
package = "corelib"
git = "../canonical"
subdir = "corelib"

[consumers.svc-a]
git = "../svc-a"
vendor_dir = "svc_a/_vendored_corelib"
package = "svc_a._vendored_corelib"

[consumers.svc-b]
git = "{svc_b}"
subdir = "src"
vendor_dir = "svc_b/_vendored_corelib"
package = "svc_b._vendored_corelib"
"""


def under_plait(root: Path) -> Setup:
    """Both services adopted and vendored, every lock and the store committed; svc-b then
    named by URL, and cloned into the cache by a first `plait check`, which passes."""
    setup = make_setup(root)
    (setup.ws / "lineages.toml").write_text(manifest(setup, svc_b="../svc-b"), encoding="utf-8")
    for args in (["adopt", "svc-a"], ["adopt", "svc-b"], ["vendor", "--all"]):
        done = plait(setup.ws, *args)
        assert done.returncode == 0, done.stdout + done.stderr
    for name in ("svc_a", "svc_b"):
        commit_all(setup.repos[name], "plait: the vendored corelib and its lock")
    (setup.ws / "lineages.toml").write_text(manifest(setup, svc_b=f"file://{setup.svc_b}"), encoding="utf-8")
    commit_all(setup.repos["ws"], "plait: the manifest and the store")
    checked = plait(setup.ws, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return setup


def upstream_change(setup: Setup) -> str:
    """A new commit of the canonical package, every consumer behind it; its sha."""
    path = setup.canonical / "corelib" / "retry.py"
    path.write_text(canonical_files(3)["retry.py"] + "\n\nLIMIT = 100\n", encoding="utf-8")
    return commit_all(setup.repos["canonical"], "corelib: a limit")


def status(repo: git.Repo) -> str:
    return str(repo.git.status("--porcelain", "--untracked-files=all"))


@contextmanager
def stalled_server() -> Iterator[int]:
    """A loopback TCP server that accepts every connection and never says a word; its port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        listener.close()
