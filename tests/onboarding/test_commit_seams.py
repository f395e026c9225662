"""`--commit` leaves every checkout exactly as it found it (issue 22, the seams; issue 23, items 2 and 4).

A workspace repository and two service repositories at once: svc-a used in
place (``../svc-a``), svc-b by ``file://`` URL, so in plait's clone cache.
With `--commit` nothing is written to any working tree or index: each
repository gets a branch that fast-forwards from its HEAD, the workspace's
branch holds the store and never the clone cache, and the cached clone
stays on the service's own branch.
"""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest
from git_setups import manifest, plait, status, under_plait, upstream_change
from real_setups import make_setup

from plait.paths import LOCK_NAME

pytestmark = pytest.mark.slow  # whole runs with --commit


def _heads(repo: git.Repo) -> tuple[str, str]:
    return repo.active_branch.name, repo.head.commit.hexsha


def test_vendor_commit_writes_no_checkout_and_each_branch_fast_forwards(tmp_path: Path) -> None:
    setup = under_plait(tmp_path)
    upstream = upstream_change(setup)
    ws, svc_a = setup.repos["ws"], setup.repos["svc_a"]
    assert plait(setup.ws, "check").returncode == 1, "both services are behind"
    clone = git.Repo(setup.ws / ".plait" / "clones" / "svc-b")
    before = {name: _heads(r) for name, r in (("ws", ws), ("svc_a", svc_a), ("clone", clone))}

    done = plait(setup.ws, "vendor", "--all", "--commit", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    # Every checkout as it was: same branch, same HEAD, nothing modified, staged or untracked.
    for name, repo in (("ws", ws), ("svc_a", svc_a), ("clone", clone)):
        assert _heads(repo) == before[name], name
        assert status(repo) == "", (name, status(repo))
    branch_a = f"plait/vendor-svc-a-{upstream[:7]}"
    branch_b = f"plait/vendor-svc-b-{upstream[:7]}"
    store_branch = f"plait/vendor-{upstream[:7]}"
    assert branch_b in clone.heads and clone.active_branch.name == "main", "the clone stays on the service's branch"
    # The workspace's branch holds the store, and nothing of the clone cache or of a service.
    files = ws.git.diff("--name-only", "HEAD", store_branch).splitlines()
    assert files and all(f.startswith(".plait/objects/") for f in files), files
    assert not any("clones" in f for f in ws.git.ls_tree("-r", "--name-only", store_branch).splitlines())
    assert LOCK_NAME in svc_a.git.ls_tree("-r", "--name-only", branch_a)
    # The store's branch is merged first (the new locks name its bases), then each service's.
    steps = "\n".join(json.loads(done.stdout)["next"])
    assert steps.index(store_branch) < steps.index(branch_a), steps
    ws.git.merge("--ff-only", store_branch)
    svc_a.git.merge("--ff-only", branch_a)
    assert status(ws) == "" and status(svc_a) == ""
    checked = plait(setup.ws, "check", "svc-a")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_rerun_of_vendor_commit_reuses_its_branches(tmp_path: Path) -> None:
    setup = under_plait(tmp_path)
    upstream_change(setup)
    first = plait(setup.ws, "vendor", "svc-a", "--commit", "--json")
    again = plait(setup.ws, "vendor", "svc-a", "--commit", "--json")
    assert first.returncode == 0 and again.returncode == 0, again.stdout + again.stderr
    assert json.loads(first.stdout)["commits"] == json.loads(again.stdout)["commits"]


def test_adopt_commit_commits_the_lock_in_the_service_and_the_store_in_the_workspace(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    (setup.ws / "lineages.toml").write_text(manifest(setup, svc_b="../svc-b"), encoding="utf-8")
    ws, svc_a = setup.repos["ws"], setup.repos["svc_a"]
    ws.git.add("-A")
    ws.index.commit("the manifest")
    before = _heads(svc_a), _heads(ws)

    done = plait(setup.ws, "adopt", "svc-a", "--commit", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    assert (_heads(svc_a), _heads(ws)) == before
    assert status(svc_a) == "" and status(ws) == "", (status(svc_a), status(ws))
    assert not (setup.svc_a / "svc_a" / "_vendored_corelib" / LOCK_NAME).exists(), "written on the branch only"

    commits = json.loads(done.stdout)["commits"]
    assert [Path(c["repository"]) for c in commits] == [setup.ws.resolve(), setup.svc_a.resolve()]
    for commit in commits:
        git.Repo(commit["repository"]).git.merge("--ff-only", commit["branch"])
    assert (setup.svc_a / "svc_a" / "_vendored_corelib" / LOCK_NAME).is_file()
    # The lock and its bases are found: the copy is merely behind its source, which vendor brings in.
    checked = plait(setup.ws, "check", "svc-a")
    assert checked.returncode == 1 and "behind" in checked.stdout and "unlocked" not in checked.stdout
    vendored = plait(setup.ws, "vendor", "svc-a")
    assert vendored.returncode == 0 and "CONFLICT" not in vendored.stdout + vendored.stderr, vendored.stdout


def test_vendor_commit_after_a_killed_run_left_an_object_finishes(tmp_path: Path) -> None:
    """A run killed after storing an object, before its switch, left the object untracked:
    plait's own leftover, which the clean check of --commit passes over (issue 23, item 11)."""
    setup = under_plait(tmp_path)
    upstream = upstream_change(setup)
    folder = setup.ws / ".plait" / "objects" / "ab"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("c" * 62)).write_bytes(b"what a killed run stored\n")
    (setup.ws / "svc-a-scratch.txt").write_text("outside every folder the run reads\n")

    done = plait(setup.ws, "vendor", "--all", "--commit")

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"plait/vendor-svc-a-{upstream[:7]}" in setup.repos["svc_a"].heads
    # A change of the user's own in a folder the run reads still stops it.
    client = setup.svc_a / "svc_a" / "_vendored_corelib" / "client.py"
    client.write_text(client.read_text() + "\n# mine\n")
    refused = plait(setup.ws, "vendor", "svc-a", "--commit")
    assert refused.returncode == 2 and "uncommitted changes" in refused.stderr and "client.py" in refused.stderr


def test_adopt_commit_of_a_lineage_puts_the_state_and_the_manifest_edit_on_the_branch(tmp_path: Path) -> None:
    from lineage_builders import CANONICAL, FORK, MANIFEST, write_tree

    ws = tmp_path / "ws"
    write_tree(ws / "canonical" / "corelib", CANONICAL)
    write_tree(ws / "fork" / "forklib", FORK)
    manifest_text = MANIFEST.replace('syncs_from = "canonical"\n', 'syncs_from = "canonical"\nbase = "old/base"\n')
    (ws / "lineages.toml").write_text(manifest_text, encoding="utf-8")
    repo = git.Repo.init(ws)
    repo.git.add("-A")
    repo.index.commit("canonical and fork, a hand-kept base")
    head = repo.head.commit.hexsha

    done = plait(ws, "adopt", "fork", "--base", "HEAD", "--commit", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.head.commit.hexsha == head and status(repo) == ""
    assert (ws / "lineages.toml").read_text() == manifest_text, "the checkout's manifest is untouched"
    (commit,) = json.loads(done.stdout)["commits"]
    repo.git.merge("--ff-only", commit["branch"])
    assert "base = " not in (ws / "lineages.toml").read_text(), "the manifest's edit is on the branch"
    assert (ws / ".plait" / "state.toml").is_file()
    assert plait(ws, "status").returncode == 0
