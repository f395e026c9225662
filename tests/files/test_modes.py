"""The executable bit through vendor, sync, `--commit` and check (issue 30).

A new file was staged 0644, so a script executable in the source arrived
non-executable, with no message.  Modes are carried as git carries them:
the source's mode on a new file, a mode change upstream carried into the
copy, a consumer's own mode change kept (three ways on the bit), the lock
recording each mode (format 2) so that `plait check` notices a lost bit.
"""

from __future__ import annotations

import os
import tomllib

from conftest import git

SCRIPT = "#!/bin/sh\necho hello\n"


def _x(path) -> bool:
    return os.access(path, os.X_OK)


def test_a_new_executable_file_arrives_executable_and_check_notices_a_lost_bit(make_workspace) -> None:
    ws = make_workspace({"errors.py": "X = 1\n"})
    ws.write(ws.canonical / "tools" / "run.sh", SCRIPT, executable=True)
    ws.commit("upstream adds a script")
    done = ws.ok("vendor", "svc", "--verbose")
    assert "+ file tools/run.sh (executable, 100755)" in done.stdout, done.stdout
    assert _x(ws.vendored / "tools" / "run.sh")
    lock = tomllib.loads((ws.vendored / "plait.lock").read_text())
    assert lock["lock"] == 2
    assert lock["files"]["tools/run.sh"]["mode"] == "100755"
    assert "mode" not in lock["files"]["errors.py"]
    ws.ok("check")

    (ws.vendored / "tools" / "run.sh").chmod(0o644)
    drift = ws.ok("check", code=1)
    assert "tools/run.sh" in drift.stdout and "not executable" in drift.stdout, drift.stdout


def test_a_mode_change_upstream_is_carried_in_and_a_consumers_own_is_kept(make_workspace) -> None:
    ws = make_workspace({"a.sh": SCRIPT, "b.sh": SCRIPT})
    assert not _x(ws.vendored / "a.sh") and not _x(ws.vendored / "b.sh")
    (ws.canonical / "a.sh").chmod(0o755)  # upstream makes a.sh executable
    (ws.vendored / "b.sh").chmod(0o755)  # the consumer makes b.sh executable
    ws.write(ws.canonical / "b.sh", SCRIPT + "echo again\n")  # and upstream edits b.sh
    ws.commit("modes")
    done = ws.ok("vendor", "svc", "--verbose")
    assert "~ file a.sh: mode 100644 → 100755" in done.stdout, done.stdout
    assert _x(ws.vendored / "a.sh")
    assert _x(ws.vendored / "b.sh") and (ws.vendored / "b.sh").read_text() == SCRIPT + "echo again\n"
    # The consumer's own mode is a local edit, listed as one.
    edits = tomllib.loads((ws.vendored / "plait.lock").read_text()).get("local_edits", [])
    assert [(e["file"], e.get("detail")) for e in edits] == [("b.sh", "mode 100755")]
    ws.ok("check")
    ws.commit("vendored")
    # A second run changes nothing: the modes are recorded.
    again = ws.ok("vendor", "svc")
    assert "no file changes" in again.stdout or "up to date" in again.stdout, again.stdout


def test_a_lineage_sync_carries_the_executable_bit(make_workspace) -> None:
    ws = make_workspace({"errors.py": "X = 1\n"}, lineage=True)
    ws.write(ws.canonical / "run.sh", SCRIPT, executable=True)
    ws.commit("upstream adds a script")
    ws.ok("sync", "fork")
    assert _x(ws.fork / "run.sh")
    ws.commit("synced")
    (ws.canonical / "run.sh").chmod(0o644)
    ws.commit("upstream: not executable after all")
    ws.ok("sync", "fork")
    assert not _x(ws.fork / "run.sh")


def test_vendor_commit_commits_the_mode(make_workspace) -> None:
    ws = make_workspace({"errors.py": "X = 1\n"})
    ws.write(ws.canonical / "run.sh", SCRIPT, executable=True)
    ws.commit("upstream adds a script")
    ws.ok("vendor", "svc", "--commit")
    branch = next(b.strip(" *") for b in git(ws.root, "branch", "--list", "plait/*").splitlines())
    listed = git(ws.root, "ls-tree", "-r", branch, "--", "consumers/svc/svc/_vendor/corelib/run.sh")
    assert listed.startswith("100755 "), listed


def test_sync_abort_gives_a_file_its_mode_back(make_workspace) -> None:
    ws = make_workspace({"run.sh": SCRIPT, "data.txt": "a\nb\n"}, lineage=True)
    (ws.canonical / "run.sh").chmod(0o755)
    ws.write(ws.canonical / "data.txt", "a (upstream)\nb\n")
    ws.write(ws.fork / "data.txt", "a (fork)\nb\n")
    ws.commit("upstream: run.sh executable, and a conflicting edit")
    ws.ok("sync", "fork", code=1)
    assert _x(ws.fork / "run.sh")
    ws.ok("sync", "--abort", "fork")
    assert not _x(ws.fork / "run.sh")
    assert (ws.fork / "data.txt").read_text() == "a (fork)\nb\n"
