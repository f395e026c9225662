"""What plait reports on a real setup of separate repositories, and that it is true (issue 21).

The setup is the onboarding tests' (`real_setups`): a canonical package
with history, a fork, two services that vendored it by hand with a local
patch, and a workspace repository beside them.  Upstream then takes the
services' patch (so it stops being theirs) and adds a function, and one
service patches its copy again.  The reports must say what the run did:
"applied" is what the written files change, the patch upstream took is
counted as such, the new patch is marked new, a conflict names the member,
the file in the other repository and both values, and the dry run's diff
applies with ``git apply``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from read_reports import copy_block, mermaid_edges, tables
from real_setups import Setup, canonical_files, commit_all, edit, make_setup

pytestmark = pytest.mark.slow  # every report on the real setup

Run = subprocess.CompletedProcess[str]
PATCH = "self.retryable = bool(retryable)"


def plait(cwd: Path, *args: str) -> Run:
    env = {k: v for k, v in os.environ.items() if k not in ("PLAIT_WORKSPACE", "COLUMNS")} | {"NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )


def ok(run: Run) -> list[str]:
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[Setup, dict[str, Run]]:
    setup = make_setup(tmp_path_factory.mktemp("real") / "repos")
    ws = setup.ws
    runs: dict[str, Run] = {}
    ok(plait(ws, "init", "--canonical", "../canonical", "../fork", "../svc-a", "../svc-b"))
    for name in ("fork", "svc-a", "svc-b"):
        ok(plait(ws, "adopt", name))
    runs["status, adopted"] = plait(ws, "status")
    runs["sync"] = plait(ws, "sync")
    runs["vendor"] = plait(ws, "vendor", "--all")
    for name in ("svc_a", "svc_b", "fork", "ws"):
        commit_all(setup.repos[name], "under plait")

    files = canonical_files(3)
    (setup.canonical / "corelib" / "errors.py").write_text(
        files["errors.py"].replace("self.retryable = retryable", PATCH)
    )
    (setup.canonical / "corelib" / "retry.py").write_text(
        files["retry.py"] + '\n\ndef backoff(attempt):\n    """Seconds to wait."""\n    return 2**attempt\n'
    )
    commit_all(setup.repos["canonical"], "corelib: retryable is a bool; a backoff")
    runs["status --check, behind"] = plait(ws, "status", "--check")
    runs["status -v, behind"] = plait(ws, "status", "--verbose")
    runs["vendor svc-b --dry-run"] = dry = plait(ws, "vendor", "svc-b", "--dry-run")
    patch = setup.root / "svc-b.diff"
    patch.write_text(dry.stdout[: dry.stdout.find("\nsvc-b  ") + 1])
    runs["git apply --check"] = subprocess.run(
        ["git", "apply", "--check", str(patch)], cwd=setup.svc_b, capture_output=True, text=True
    )
    edit(
        setup.svc_a / "svc_a" / "_vendored_corelib" / "client.py",
        "self.retries = retries",
        "self.retries = max(retries, 1)",
    )
    commit_all(setup.repos["svc_a"], "svc-a: at least one retry")
    runs["vendor --commit"] = plait(ws, "vendor", "--all", "--commit")
    # The maintainers take plait's branches as its `next:` lines say: the workspace's first.
    for step in [line for line in runs["vendor --commit"].stdout.splitlines() if line.startswith("next: git ")]:
        taken = subprocess.run(step.removeprefix("next: ").split(), cwd=ws, capture_output=True, text=True)
        assert taken.returncode == 0, (step, taken.stderr)
    runs["vendor again"] = plait(ws, "vendor", "--all")

    edit(setup.svc_b / "src" / "svc_b" / "_vendored_corelib" / "client.py", "timeout = 10", "timeout = 20")
    commit_all(setup.repos["svc_b"], "svc-b: a longer timeout")
    client = setup.canonical / "corelib" / "client.py"
    client.write_text(client.read_text().replace("timeout = 10", "timeout = 30"))
    commit_all(setup.repos["canonical"], "corelib: a longer timeout")
    runs["vendor svc-b --no-write-conflicts"] = plait(ws, "vendor", "svc-b", "--no-write-conflicts")
    runs["conflict"] = plait(ws, "vendor", "svc-b")
    runs["markers left, --json"] = plait(ws, "vendor", "svc-b", "--json")
    runs["status markdown"] = plait(ws, "status", "--format", "markdown")
    return setup, runs


def test_status_names_every_copy_and_check_exits_1_while_one_is_behind(real: tuple[Setup, dict[str, Run]]) -> None:
    _setup, runs = real
    out = ok(runs["status, adopted"])
    assert len(out) <= 25
    rows = {line.split()[0]: line.split() for line in out[1:] if not line.startswith(("next:", "workspace:"))}
    assert {name: row[1:3] for name, row in rows.items()} == {
        "fork": ["lineage", "behind"],
        "svc-a": ["consumer", "behind"],
        "svc-b": ["consumer", "behind"],
    }
    behind = runs["status --check, behind"]
    assert behind.returncode == 1
    states = {
        line.split()[0]: line.split()[2]
        for line in behind.stdout.splitlines()[1:]
        if line.split()[1:2] in (["lineage"], ["consumer"])
    }
    assert states == {"fork": "behind", "svc-a": "behind", "svc-b": "behind"}
    # The member detail: what a sync would bring the fork, each service's local edit, what check found.
    detail = ok(runs["status -v, behind"])
    assert "fork  retry.py  pending  + backoff" in detail
    assert "svc-a  errors.py  local edit  ~ Failure.__init__: ~ self.retryable = bool(retryable)" in detail
    assert any(
        line.startswith("svc-b  retry.py  behind  changed in canonical since it was vendored") for line in detail
    )


def test_sync_and_vendor_are_summaries_and_a_second_vendor_a_line_per_consumer(
    real: tuple[Setup, dict[str, Run]],
) -> None:
    _setup, runs = real
    synced = ok(runs["sync"])
    assert len(synced) <= 15 and synced[0].startswith("fork  canonical ")
    vendored = ok(runs["vendor"])
    assert len(vendored) <= 25
    assert any(line.startswith("svc-a  canonical ") for line in vendored)
    assert any(
        line.startswith("  kept") and "1 local edit in errors.py: ~ Failure.__init__" in line for line in vendored
    )
    again = ok(runs["vendor again"])
    assert len(again) <= 5
    assert [line.split(":")[0] for line in again[:2]] == ["svc-a", "svc-b"]
    assert all("up to date with canonical@" in line for line in again[:2])


def test_applied_is_what_the_written_files_change_when_upstream_took_the_local_patch(
    real: tuple[Setup, dict[str, Run]],
) -> None:
    setup, runs = real
    out = ok(runs["vendor --commit"])
    block = copy_block(out, "svc-b")
    assert block[0].endswith("1 file changed, 0 conflicts"), block
    assert "  applied   retry.py  + backoff" in block
    assert "  upstream  1 former local edit is now in canonical" in block
    assert not any("errors.py" in line for line in block if line.startswith("  applied")), (
        "the patch was theirs already"
    )

    repo = setup.repos["svc_b"]
    branch = next(h for h in repo.heads if h.name.startswith("plait/vendor-svc-b-"))
    message = branch.commit.message
    assert message.startswith("plait: vendor canonical@")
    assert message.splitlines()[0].endswith(" into svc-b")
    written = set(repo.git.diff("--name-only", f"{branch.name}~1", branch.name).splitlines())
    assert written == {"src/svc_b/_vendored_corelib/retry.py", "src/svc_b/_vendored_corelib/plait.lock"}
    applied = message.split("Applied (what the written files change):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert applied == ["  retry.py: + backoff"], message
    assert "Now in canonical (no longer local edits):\n  errors.py: ~ Failure.__init__" in message


def test_a_local_edit_made_since_the_last_vendor_is_marked_new(real: tuple[Setup, dict[str, Run]]) -> None:
    _setup, runs = real
    block = copy_block(ok(runs["vendor --commit"]), "svc-a")
    kept = next(line for line in block if line.startswith("  kept"))
    assert kept.endswith("1 new: client.py Client.__init__"), kept


def test_a_conflict_names_the_member_the_file_in_its_repository_ours_and_theirs(
    real: tuple[Setup, dict[str, Run]],
) -> None:
    setup, runs = real
    held = runs["vendor svc-b --no-write-conflicts"]
    assert held.returncode == 1
    assert "file changed" not in held.stdout and "files changed" not in held.stdout
    assert "would change" in held.stdout and "nothing was written (--no-write-conflicts)" in held.stdout

    run = runs["conflict"]
    assert run.returncode == 1
    client = setup.svc_b / "src" / "svc_b" / "_vendored_corelib" / "client.py"
    marker = next(i for i, line in enumerate(client.read_text().splitlines(), 1) if line.startswith("<<<<<<<"))
    (conflict,) = [line for line in run.stderr.splitlines() if line.startswith("CONFLICT")]
    assert conflict == (
        f"CONFLICT (both changed): Client.timeout in ../svc-b/src/svc_b/_vendored_corelib/client.py:{marker}"
        " (ours 20, theirs 30)"
    )
    steps = [line for line in run.stdout.splitlines() if line.startswith("next: ")]
    assert steps == [
        "next: resolve the markers, then plait vendor svc-b"
        " (to give up: git -C ../svc-b checkout -- src/svc_b/_vendored_corelib)"
    ]

    left = runs["markers left, --json"]
    assert left.returncode == 2 and json.loads(left.stdout)["consumers"][0]["outcome"] == "refused"
    (error,) = left.stderr.splitlines()
    assert error.startswith("plait vendor: error: svc-b: conflict markers are left in client.py")
    assert "svc-b: svc-b:" not in error


def test_a_dry_runs_diff_applies_with_git_apply_in_the_copys_repository(real: tuple[Setup, dict[str, Run]]) -> None:
    _setup, runs = real
    run = runs["vendor svc-b --dry-run"]
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("--- a/src/svc_b/_vendored_corelib/"), "paths as git names them in svc-b"
    applied = runs["git apply --check"]
    assert applied.returncode == 0, applied.stderr


def test_markdown_holds_every_copy_and_edge_of_the_setup(real: tuple[Setup, dict[str, Run]]) -> None:
    _setup, runs = real
    text = runs["status markdown"].stdout
    assert [row[0] for row in tables(text)[0][1:]] == ["fork", "svc-a", "svc-b"]
    _nodes, edges = mermaid_edges(text)
    assert {(a, b) for a, b, _ in edges} == {("canonical", "fork"), ("canonical", "svc-a"), ("canonical", "svc-b")}
    assert ("canonical", "svc-b", "conflicted") in edges


def test_the_fork_lineage_keeps_its_patch_named_by_member(real: tuple[Setup, dict[str, Run]]) -> None:
    _setup, runs = real
    synced = ok(runs["sync"])
    kept = next(line for line in synced if line.startswith("  kept"))
    assert "~ attempts" in kept and "+ file metrics.py" in kept, kept
    assert re.search(r"\d+ own changes? in \d+ files", kept)
