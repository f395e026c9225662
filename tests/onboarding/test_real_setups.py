"""The whole loop on a setup the way users have one (issue 15, "Prove it").

Five git repositories side by side, made with GitPython (`real_setups`):
a canonical package with history, a fork copied by hand, two services
that vendored the package with cp + sed at different commits, each with a
local patch, and a workspace repository.  Everything runs through the
command line, as a new user would from the README and VENDORING.md:

1. `plait init` writes the manifest, and `plait adopt` records each copy's base;
2. `sync`, `vendor --all`, `check`;
3. an upstream change, then its `git revert`, each carried everywhere;
4. a second vendor that changes nothing;
5. `vendor --all --push` from a fresh shallow clone of the workspace, as CI runs it.

Throughout: every local patch survives, upstream's change arrives, each
service still imports and passes its own test, nothing conflicts
spuriously, and the services' checked-out branches are never moved.
A second workspace names the same copies by ``file://`` URLs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
from read_reports import copy_block
from real_setups import Setup, canonical_files, commit_all, make_setup, url_manifest

pytestmark = pytest.mark.slow  # the whole loop on separate repositories

PATCH = "self.retryable = bool(retryable)"  # both services' local fix
FORK_PATCH = "if limit < 1 or limit > 100:"  # the fork's local fix


def plait(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"} | {"NO_COLOR": "1"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, env=full, timeout=300
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CONFLICT" not in result.stdout + result.stderr
    return result.stdout


def heads(setup: Setup) -> dict[str, tuple[str, str]]:
    """Each service's checked-out branch and commit."""
    return {
        name: (setup.repos[name].active_branch.name, setup.repos[name].head.commit.hexsha)
        for name in ("svc_a", "svc_b", "fork")
    }


def service_test(repo: Path, top: str = ".") -> None:
    """The service's own test, run as its CI would: it imports the vendored client and uses it."""
    env = {**os.environ, "PYTHONPATH": str(repo / top), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(repo / "tests")],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def vendored(setup: Setup, service: str, rel: str) -> str:
    top = setup.svc_a / "svc_a" if service == "svc_a" else setup.svc_b / "src" / "svc_b"
    return (top / "_vendored_corelib" / rel).read_text()


def patched_everywhere(setup: Setup) -> None:
    for service in ("svc_a", "svc_b"):
        assert PATCH in vendored(setup, service, "errors.py"), f"{service}'s local patch was lost"
    assert FORK_PATCH in (setup.fork / "corelib" / "retry.py").read_text(), "the fork's local patch was lost"
    assert (setup.fork / "corelib" / "metrics.py").exists(), "the fork's own module was lost"
    service_test(setup.svc_a)
    service_test(setup.svc_b, "src")


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    made = make_setup(tmp_path)
    # Each service's own test also exercises what upstream adds later, when it is there.
    return made


def test_the_whole_loop_on_separate_repositories(setup: Setup) -> None:
    before = heads(setup)

    # 1. init, then adopt every copy: each base is the commit it was copied at.
    ok(plait(setup.ws, "init", "--canonical", "../canonical", "../fork", "../svc-a", "../svc-b"))
    adopted = {name: ok(plait(setup.ws, "adopt", name)) for name in ("fork", "svc-a", "svc-b")}
    assert f"fork: base canonical@{setup.commits[1][:7]} (" in adopted["fork"]
    assert f"svc-a: base canonical@{setup.commits[0][:7]} (" in adopted["svc-a"]
    assert f"svc-b: base canonical@{setup.commits[1][:7]} (" in adopted["svc-b"]
    for name in ("svc-a", "svc-b"):
        # The sed spelling of the imports is no local edit; the real patch is: one file, counted.
        files = [line.split()[0] for line in adopted[name].splitlines() if line.startswith("    ")]
        assert files == ["errors.py"], adopted[name]
    commit_all(setup.repos["ws"], "plait init and adopt")

    # 2. sync, vendor, check: upstream's commits arrive, the patches stay, no conflict.
    synced = ok(plait(setup.ws, "sync"))
    assert "  applied  embedding.py  + Client.fetch_many" in synced.splitlines()
    vendoring = ok(plait(setup.ws, "vendor", "--all"))
    assert any(
        line.startswith("  applied  client.py  + Client.fetch_many")
        for line in copy_block(vendoring.splitlines(), "svc-a")
    )
    assert "def fetch_many" in vendored(setup, "svc_a", "client.py")
    assert "timeout = 10" in vendored(setup, "svc_a", "client.py"), "svc-a came from v1: v2's change arrives too"
    ok(plait(setup.ws, "check"))
    patched_everywhere(setup)
    assert heads(setup) == before
    # As VENDORING.md's walkthrough goes on: git merges each service's vendored code with plait.
    for service in ("../svc-a", "../svc-b"):
        ok(plait(setup.ws, "install-merge-driver", service))

    # 3. an upstream change and its revert, each carried everywhere.
    (setup.canonical / "corelib" / "errors.py").write_text(
        canonical_files(3)["errors.py"] + '\n\nclass Closed(Failure):\n    """The client was closed."""\n'
    )
    change = commit_all(setup.repos["canonical"], "corelib: a Closed error")
    ok(plait(setup.ws, "sync"))
    ok(plait(setup.ws, "vendor", "--all"))
    assert "class Closed" in vendored(setup, "svc_b", "errors.py")
    assert "class Closed" in (setup.fork / "corelib" / "errors.py").read_text()
    ok(plait(setup.ws, "check"))
    setup.repos["canonical"].git.revert("--no-edit", change)
    ok(plait(setup.ws, "sync"))
    ok(plait(setup.ws, "vendor", "--all"))
    assert "class Closed" not in vendored(setup, "svc_b", "errors.py")
    assert "class Closed" not in (setup.fork / "corelib" / "errors.py").read_text()
    ok(plait(setup.ws, "check"))
    patched_everywhere(setup)

    # 4. a second vendor changes nothing, byte for byte.
    status = {name: setup.repos[name].git.status("--porcelain") for name in ("svc_a", "svc_b")}
    again = ok(plait(setup.ws, "vendor", "--all"))
    assert again.count(": up to date with canonical@") == 2 and "files changed" not in again
    assert {name: setup.repos[name].git.status("--porcelain") for name in ("svc_a", "svc_b")} == status
    assert heads(setup) == before

    # The maintainers merge what plait wrote; the workspace commits its store.
    for name in ("svc_a", "svc_b", "fork"):
        commit_all(setup.repos[name], "take plait's re-vendor")
    commit_all(setup.repos["ws"], "synced and vendored")
    before = heads(setup)

    # 5. CI: a fresh shallow clone of the workspace only; the copies are found beside its origin.
    (setup.canonical / "corelib" / "retry.py").write_text(
        canonical_files(3)["retry.py"]
        + '\n\ndef backoff(attempt):\n    """Seconds to wait."""\n    return 2**attempt\n'
    )
    upstream = commit_all(setup.repos["canonical"], "corelib: backoff")
    ci = setup.root / "ci"
    git.Repo.clone_from(f"file://{setup.ws}", ci / "ws", depth=1)
    pushed = plait(ci / "ws", "vendor", "--all", "--push")
    out = ok(pushed)
    assert not (setup.root / "ci" / "svc-a").exists(), "nothing is written outside the workspace and its clones"
    branch_a = f"plait/vendor-svc-a-{upstream[:7]}"
    block_a = "\n".join(copy_block(out.splitlines(), "svc-a"))
    assert f"pushed {branch_a}@" in block_a and f" to file://{setup.root / 'svc-a'}" in block_a, out
    svc_a = setup.repos["svc_a"]
    assert branch_a in svc_a.heads, "the branch was pushed to the service's own repository"
    assert "def backoff" in svc_a.git.show(f"{branch_a}:svc_a/_vendored_corelib/retry.py")
    assert PATCH in svc_a.git.show(f"{branch_a}:svc_a/_vendored_corelib/errors.py")
    assert svc_a.commit(branch_a).parents[0].hexsha == before["svc_a"][1]
    # The bases the pushed lock names were pushed to the workspace, so the next CI job has them.
    ws_branches = [h.name for h in setup.repos["ws"].heads if h.name.startswith("plait/vendor-")]
    assert ws_branches, "the store's new objects were pushed to the workspace's repository"
    assert heads(setup) == before, "no checked-out branch moved"
    assert svc_a.git.status("--porcelain") == ""


def test_a_workspace_that_names_its_copies_by_url(setup: Setup, tmp_path: Path) -> None:
    ws = setup.ws
    (ws / "lineages.toml").write_text(url_manifest(setup))
    for name in ("svc-a", "svc-b"):
        adopted = ok(plait(ws, "adopt", name))
        assert f"{name}: base canonical@" in adopted and "recorded in its lock" in adopted
    vendoring = ok(plait(ws, "vendor", "--all"))
    assert any(
        line.startswith("  applied  client.py  + Client.fetch_many")
        for line in copy_block(vendoring.splitlines(), "svc-a")
    )
    clone = ws / ".plait" / "clones" / "svc-a" / "svc_a" / "_vendored_corelib"
    assert "def fetch_many" in (clone / "client.py").read_text() and PATCH in (clone / "errors.py").read_text()
    ok(plait(ws, "check"))
    # The services' own repositories were only read: vendoring happened in the clones.
    assert setup.repos["svc_a"].git.status("--porcelain") == ""
    assert "def fetch_many" not in vendored(setup, "svc_a", "client.py")


def test_a_missing_ref_is_an_error_not_ignored(setup: Setup) -> None:
    ok(plait(setup.ws, "init", "--canonical", "../canonical", "../svc-a"))
    manifest = setup.ws / "lineages.toml"
    manifest.write_text(manifest.read_text().replace('git = "../svc-a"', 'git = "../svc-a"\nref = "release"'))
    refused = plait(setup.ws, "adopt", "svc-a")
    assert refused.returncode == 2
    assert "ref = 'release', which this repository does not have" in refused.stderr


def test_a_relative_copy_that_is_not_there_and_has_no_origin_is_refused(setup: Setup, tmp_path: Path) -> None:
    ok(plait(setup.ws, "init", "--canonical", "../canonical", "../svc-a"))
    commit_all(setup.repos["ws"], "init")
    # A CI checkout where ../svc-a does not exist, and nothing to find it beside.
    elsewhere = tmp_path / "ci" / "checkout" / "ws"
    subprocess.run(["git", "clone", "-q", "--no-local", str(setup.ws), str(elsewhere)], check=True)
    subprocess.run(["git", "-C", str(elsewhere), "remote", "remove", "origin"], check=True)

    def files() -> list[Path]:
        return sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file() and ".git" not in p.parts)

    before = files()
    for command in (["vendor", "--all"], ["check"], ["adopt", "svc-a"]):
        refused = plait(elsewhere, *command)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        said = refused.stdout + refused.stderr
        assert "is not on this machine, and the workspace's repository has no remote 'origin'" in said
        assert "never vendored" not in said
    assert files() == before, "nothing was written: no directory outside the checkout, no store change"
