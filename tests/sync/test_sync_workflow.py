"""`plait sync` on real workspaces under git: what a maintainer sees happen to a lineage."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import git
import pytest
from lineage_builders import CLIENT_V2, FORK, MANIFEST, client_source, fingerprint, make_scenario, read_tree, write_tree

from plait.lineage.adopt import adopt
from plait.lineage.status import status
from plait.lineage.sync import abort_sync, continue_sync, sync
from plait.store import digest_of
from plait.workspace import Workspace


@pytest.fixture
def scenario(tmp_path: Path):
    return make_scenario(tmp_path / "ws")


def _texts(report, name: str = "fork") -> tuple[list[str], list[str]]:
    plan = next(p for p in report.plans if p.name == name)
    return [line.text for line in plan.applied()], [line.text for line in plan.kept()]


def test_a_lineage_only_transport_survives_a_source_change(scenario) -> None:
    scenario.write_canonical({"client.py": CLIENT_V2})
    scenario.commit("canonical: fetch_many, versioned http")

    report = sync(scenario.ws())

    assert report.exit_code == 0 and report.written
    core = (scenario.fork / "core.py").read_text()
    # The source's change arrives, in the lineage's spelling...
    assert "def fetch_many(self, texts):" in core
    assert '"v": 2' in core
    # ...and the lineage's own transport and wider catch are still there.
    assert 'elif self.mode == "uds":' in core and "def _via_uds(self, text):" in core
    assert "except (ValueError, OSError) as exc:" in core
    assert "from forklib.errors import Failure" in core and "from .errors" not in core
    applied, kept = _texts(report)
    assert "+ Client.fetch_many" in applied
    assert any(t.startswith('kept: branch self.mode == "uds"') for t in kept)
    assert "kept: Client._via_uds" in kept
    assert any(t.startswith("kept: except type OSError") for t in kept)


def test_a_second_sync_changes_nothing(scenario) -> None:
    scenario.write_canonical({"client.py": CLIENT_V2})
    sync(scenario.ws())
    before = fingerprint(scenario.root)

    again = sync(scenario.ws())

    assert [p.outcome for p in again.plans] == ["up-to-date"]
    assert not again.written
    assert fingerprint(scenario.root) == before


def test_the_new_base_is_the_source_content_and_its_commit(scenario) -> None:
    scenario.write_canonical({"client.py": CLIENT_V2})
    sha = scenario.commit("canonical v2")

    sync(scenario.ws())

    record = scenario.ws().store.state().record("fork")
    assert record is not None and record.base.commit == sha
    assert record.base.files["client.py"] == digest_of(CLIENT_V2)
    assert scenario.ws().store.read_text(record.base.files["client.py"], what="base") == CLIENT_V2


def test_dry_run_prints_the_diff_and_writes_nothing(scenario) -> None:
    scenario.write_canonical({"client.py": CLIENT_V2})
    before = fingerprint(scenario.root)

    report = sync(scenario.ws(), dry_run=True)

    assert fingerprint(scenario.root) == before
    diff = report.plans[0].diff()
    assert diff.startswith("--- a/fork/core.py\n+++ b/fork/core.py\n")
    assert "+    def fetch_many(self, texts):" in diff


# errors.py folded into client.py
CLIENT_WITH_FAILURE = client_source(errors="")


def test_a_file_added_and_a_file_deleted_upstream(scenario) -> None:
    (scenario.canonical / "errors.py").unlink()
    write_tree(scenario.canonical, {"retry.py": '"""Retries."""\n\nfrom .client import Client\n\nATTEMPTS = 3\n'})
    write_tree(scenario.canonical, {"client.py": CLIENT_WITH_FAILURE})
    scenario.commit("canonical: retry.py added, errors.py folded into client.py")

    report = sync(scenario.ws())

    assert report.exit_code == 0
    assert not (scenario.fork / "errors.py").exists()
    retry = (scenario.fork / "retry.py").read_text()
    assert "from forklib.core import Client" in retry  # renamed module, absolute import
    applied, _ = _texts(report)
    assert "+ file retry.py" in applied and "- file errors.py" in applied


def test_a_file_the_source_deleted_but_the_lineage_changed_is_a_conflict(scenario) -> None:
    write_tree(scenario.fork, {"errors.py": FORK["errors.py"] + "\n\nclass Timeout(Failure):\n    pass\n"})
    (scenario.canonical / "errors.py").unlink()

    report = sync(scenario.ws())

    assert report.exit_code == 1
    (conflict,) = report.plans[0].conflicts
    assert (conflict.file, conflict.path, conflict.kind) == ("errors.py", "<file>", "delete/modify")
    assert "class Timeout" in (scenario.fork / "errors.py").read_text()  # left for the maintainer


def test_a_lineage_only_file_is_kept(scenario) -> None:
    write_tree(scenario.fork, {"sockets.py": '"""Only the fork has this."""\n'})
    scenario.write_canonical({"client.py": CLIENT_V2})

    report = sync(scenario.ws())

    assert (scenario.fork / "sockets.py").read_text() == '"""Only the fork has this."""\n'
    assert "kept: file sockets.py" in _texts(report)[1]


# The canonical client and the fork reword the same raise differently.
CONFLICTING = client_source(message='"canonical: " + str(exc)')
FORK_CORE_OWN_MESSAGE = client_source(
    errors="from forklib.errors import Failure", uds=True, catch="(ValueError, OSError)", message='"fork: " + str(exc)'
)


def _conflict(scenario) -> None:
    # Both sides reword the same raise differently.
    write_tree(scenario.fork, {"core.py": FORK_CORE_OWN_MESSAGE})
    write_tree(scenario.canonical, {"client.py": CONFLICTING})
    scenario.commit("fork and canonical reword the failure")


def test_a_conflict_is_written_with_markers_and_continue_records_the_base(scenario) -> None:
    _conflict(scenario)
    old = scenario.ws().store.state().record("fork")

    report = sync(scenario.ws())

    assert report.exit_code == 1 and report.written
    plan = report.plans[0]
    assert plan.outcome == "conflicted"
    assert {(c.file, c.path) for c in plan.conflicts} == {("core.py", "Client.fetch")}
    core = (scenario.fork / "core.py").read_text()
    assert "<<<<<<< ours" in core and ">>>>>>> theirs" in core
    record = scenario.ws().store.state().record("fork")
    assert record is not None and record.conflicted and record.base == old.base
    assert record.conflicted_files == ["core.py"]

    # Markers still there: --continue refuses and names the place.
    (still,) = continue_sync(scenario.ws(), ["fork"])
    assert not still.done and still.problems[0].startswith("core.py:")

    # The maintainer resolves the conflict by hand: it is marked around the
    # argument both sides reworded, inside the call's parentheses.
    lines = core.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("<<<<<<<"))
    end = next(i for i, line in enumerate(lines) if line.startswith(">>>>>>>"))
    assert lines[start - 1].rstrip().endswith("raise Failure(")
    resolved = [*lines[:start], '                "fork and canonical: " + str(exc)\n', *lines[end + 1 :]]
    (scenario.fork / "core.py").write_text("".join(resolved))
    ast.parse("".join(resolved))

    (done,) = continue_sync(scenario.ws(), ["fork"])
    assert done.done
    record = scenario.ws().store.state().record("fork")
    assert record is not None and not record.conflicted
    assert record.base.files["client.py"] == digest_of(CONFLICTING)
    assert [p.outcome for p in sync(scenario.ws()).plans] == ["up-to-date"]


def test_abort_puts_every_file_back(scenario) -> None:
    write_tree(scenario.canonical, {"retry.py": "ATTEMPTS = 3\n"})
    _conflict(scenario)
    before = read_tree(scenario.fork)
    old = scenario.ws().store.state().record("fork")

    assert sync(scenario.ws()).exit_code == 1
    assert (scenario.fork / "retry.py").exists()

    (result,) = abort_sync(scenario.ws(), ["fork"])

    assert result.done and set(result.restored) == {"core.py", "retry.py"}
    assert read_tree(scenario.fork) == before
    record = scenario.ws().store.state().record("fork")
    assert record is not None and not record.conflicted and record.base == old.base


def test_no_write_conflicts_writes_nothing_and_exits_1(scenario) -> None:
    _conflict(scenario)
    before = fingerprint(scenario.root)

    report = sync(scenario.ws(), write_conflicts=False)

    assert report.exit_code == 1 and not report.written
    assert fingerprint(scenario.root) == before


def test_a_sync_in_progress_refuses_another_until_it_is_finished(scenario) -> None:
    _conflict(scenario)
    sync(scenario.ws())

    again = sync(scenario.ws())

    assert again.exit_code == 2
    assert "sync --continue fork" in again.plans[0].reason


def test_a_lineage_file_that_does_not_parse_is_refused_and_nothing_is_written(scenario) -> None:
    write_tree(scenario.fork, {"errors.py": "class Failure(Exception:\n"})
    scenario.write_canonical({"client.py": CLIENT_V2})
    before = fingerprint(scenario.root)

    report = sync(scenario.ws())

    assert report.exit_code == 2 and not report.written
    assert "errors.py" in report.plans[0].reason and "does not parse" in report.plans[0].reason
    assert fingerprint(scenario.root) == before


def test_a_corrupt_store_entry_is_named_and_never_merged_from(scenario) -> None:
    ws = scenario.ws()
    record = ws.store.state().record("fork")
    assert record is not None
    entry = ws.store.path_of(record.base.files["client.py"])
    entry.write_text(entry.read_text().replace("def fetch", "def fetched"))
    scenario.write_canonical({"client.py": CLIENT_V2})
    before = fingerprint(scenario.fork)

    report = sync(scenario.ws())

    assert report.exit_code == 2
    assert "corrupt" in report.plans[0].reason and str(entry) in report.plans[0].reason
    assert "client.py" in report.plans[0].reason
    assert fingerprint(scenario.fork) == before


def test_a_missing_store_entry_is_named(scenario) -> None:
    ws = scenario.ws()
    record = ws.store.state().record("fork")
    assert record is not None
    ws.store.path_of(record.base.files["errors.py"]).unlink()

    report = sync(scenario.ws())

    assert report.exit_code == 2 and "missing" in report.plans[0].reason


def test_a_symlink_escaping_the_workspace_is_refused(scenario, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    (scenario.fork / "leak.py").symlink_to(outside)

    report = sync(scenario.ws())

    assert report.exit_code == 2
    assert "symlink escapes the workspace" in report.plans[0].reason and "leak.py" in report.plans[0].reason
    assert outside.read_text() == "SECRET = 1\n"


def test_lineages_sync_in_dependency_order_and_see_what_their_source_becomes(tmp_path: Path) -> None:
    manifest = MANIFEST + '\n[lineages.leaf]\npath = "leaf/forklib"\npackage = "forklib"\nsyncs_from = "fork"\n'
    scenario = make_scenario(tmp_path / "ws", manifest=manifest)
    write_tree(scenario.root / "leaf" / "forklib", read_tree(scenario.fork))
    write_tree(scenario.root / "leaf" / "forklib", {"extra.py": "LEAF = True\n"})
    adopt(scenario.ws(), "leaf", str(scenario.fork))
    scenario.write_canonical({"client.py": CLIENT_V2})

    report = sync(scenario.ws())

    assert [(p.name, p.outcome) for p in report.plans] == [("fork", "synced"), ("leaf", "synced")]
    leaf = (scenario.root / "leaf" / "forklib" / "core.py").read_text()
    assert "def fetch_many" in leaf and 'elif self.mode == "uds":' in leaf
    assert (scenario.root / "leaf" / "forklib" / "extra.py").exists()
    assert [p.outcome for p in sync(scenario.ws()).plans] == ["up-to-date", "up-to-date"]


def test_sync_and_status_work_in_a_shallow_clone_from_the_store_alone(scenario, tmp_path: Path) -> None:
    scenario.write_canonical({"client.py": CLIENT_V2})
    scenario.commit("canonical v2")
    clone = tmp_path / "clone"
    git.Repo.clone_from(scenario.root.as_uri(), clone, multi_options=["--depth", "1"])
    assert (clone / ".git" / "shallow").exists()
    assert len(list(git.Repo(clone).iter_commits())) == 1

    ws = Workspace.load(clone)
    (row,) = status(ws)
    assert row.state == "behind" and any(line.brief == "+ Client.fetch_many" for line in row.pending)

    report = sync(ws)
    assert report.exit_code == 0
    assert "def fetch_many" in (clone / "fork" / "forklib" / "core.py").read_text()


def test_commit_puts_a_git_backed_lineage_on_a_sync_branch(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path / "ws")
    lineage_repo = tmp_path / "fork-repo"
    shutil.copytree(scenario.fork, lineage_repo / "src" / "forklib")
    repo = git.Repo.init(lineage_repo, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "fork maintainer")
        config.set_value("user", "email", "fork@plait.invalid")
    repo.git.add("-A")
    repo.index.commit("the fork")
    manifest = (scenario.root / "lineages.toml").read_text()
    manifest = manifest.replace(
        'path = "fork/forklib"   # where the fork lives', 'git = "../fork-repo"\nref = "main"\nsubdir = "src/forklib"'
    )
    (scenario.root / "lineages.toml").write_text(manifest)
    scenario.write_canonical({"client.py": CLIENT_V2})
    sha = scenario.commit("canonical v2, fork moved to its own repository")

    head = repo.head.commit.hexsha
    report = sync(scenario.ws(), commit=True)

    assert report.exit_code == 0
    branch = f"plait/sync-{sha[:7]}"
    assert report.commits["fork"].startswith(branch + "@")
    # The maintainer's checkout is where it was: same branch, same HEAD, nothing staged.
    assert repo.active_branch.name == "main" and repo.head.commit.hexsha == head
    assert repo.git.diff("--cached") == ""
    message = repo.commit(branch).message
    assert repo.commit(branch).parents[0].hexsha == head
    assert message.startswith(f"plait: sync canonical@{sha[:7]} into fork\n")
    # What the written file changes, then what the lineage kept of its own, each by member.
    assert "Applied (what the written files change):\n  core.py: + Client.fetch_many\n" in message
    kept = message.split("Own changes kept:\n", 1)[1]
    assert kept.startswith("  core.py: ~ Client.fetch: ") and '+ branch self.mode == "uds"' in kept.splitlines()[0]
    assert "def fetch_many" in repo.git.show(f"{branch}:src/forklib/core.py")
    # Nothing is written to either checkout: the branch fast-forwards, and then holds what a sync writes.
    assert repo.git.status("--porcelain") == "" and scenario.repo.git.status("--porcelain") == ""
    repo.git.merge("--ff-only", branch)
    scenario.repo.git.merge("--ff-only", report.published[0]["branch"])
    assert sync(scenario.ws()).plans[0].outcome == "up-to-date"


def test_a_file_the_lineage_deleted_stays_deleted_unless_the_source_changed_it(scenario) -> None:
    (scenario.fork / "errors.py").unlink()
    scenario.write_canonical({"client.py": CLIENT_V2})

    quiet = sync(scenario.ws(), dry_run=True)
    assert "kept: deleted file errors.py" in _texts(quiet)[1] and not quiet.plans[0].conflicts

    write_tree(scenario.canonical, {"errors.py": '"""Errors."""\n\n\nclass Failure(Exception):\n    """Changed."""\n'})
    loud = sync(scenario.ws())
    assert loud.exit_code == 1
    assert [(c.file, c.kind) for c in loud.plans[0].conflicts] == [("errors.py", "delete/modify")]
    assert "the lineage deleted this file" in loud.plans[0].conflicts[0].reason
    assert not (scenario.fork / "errors.py").exists()


def test_a_file_both_added_with_different_contents_is_a_conflict(scenario) -> None:
    write_tree(scenario.canonical, {"retry.py": "ATTEMPTS = 3\n"})
    write_tree(scenario.fork, {"retry.py": "ATTEMPTS = 5\n"})

    report = sync(scenario.ws())

    assert report.exit_code == 1
    assert {c.file for c in report.plans[0].conflicts} == {"retry.py"}
    assert "<<<<<<<" in (scenario.fork / "retry.py").read_text()


def test_a_source_in_a_remote_repository_is_cloned_into_the_store_and_synced_from(scenario, tmp_path: Path) -> None:
    remote = tmp_path / "canonical-remote"
    shutil.copytree(scenario.canonical, remote / "corelib")
    write_tree(remote / "corelib", {"client.py": CLIENT_V2})
    repo = git.Repo.init(remote, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "canonical maintainer")
        config.set_value("user", "email", "canonical@plait.invalid")
    repo.git.add("-A")
    repo.index.commit("canonical v2, published")
    manifest = (scenario.root / "lineages.toml").read_text()
    remote_source = f'git = "{remote.as_uri()}"\nref = "main"\nsubdir = "corelib"'
    (scenario.root / "lineages.toml").write_text(manifest.replace('path = "canonical/corelib"', remote_source))

    report = sync(scenario.ws())

    assert report.exit_code == 0
    assert "def fetch_many" in (scenario.fork / "core.py").read_text()
    clones = scenario.root / ".plait" / "clones"
    assert (clones / "canonical" / "corelib" / "client.py").read_text() == CLIENT_V2
    assert "*" in (clones / ".gitignore").read_text().splitlines()
    record = scenario.ws().store.state().record("fork")
    assert record is not None and record.base.commit == repo.head.commit.hexsha
