"""Vendoring with git: a consumer in its own repository (--commit), a shallow CI clone,
and `plait merge` installed as the merge driver of vendored files."""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from vendor_builders import CANONICAL, client_source, fingerprint, init_repo, write_tree

from plait.cli import cli
from plait.vendoring.check import check, check_exit
from plait.vendoring.drivers import install_merge_driver
from plait.vendoring.lock import read_lock
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace

pytestmark = pytest.mark.slow  # real git merges through the installed driver

GIT_CONSUMER = """\
[canonical]
package = "corelib"
path = "canonical/corelib"

[consumers.app]
git = "../app"                 # the consumer's own repository
vendor_dir = "app/_vendor/corelib"
package = "app._vendor.corelib"
"""


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def two_repos(tmp_path: Path):
    """A workspace repository with the canonical package, and a consumer repository beside it."""
    ws = tmp_path / "ws"
    write_tree(ws / "canonical" / "corelib", CANONICAL)
    (ws / "lineages.toml").write_text(GIT_CONSUMER)
    ws_repo = init_repo(ws)
    ws_repo.git.add("-A")
    ws_repo.index.commit("canonical")
    app = tmp_path / "app"
    write_tree(app / "app", {"__init__.py": "", "_vendor/__init__.py": ""})
    app_repo = init_repo(app)
    app_repo.git.add("-A")
    app_repo.index.commit("the app")
    return ws, ws_repo, app, app_repo


def _commit_all(repo: git.Repo, message: str) -> str:
    repo.git.add("-A")
    repo.index.commit(message)
    return repo.head.commit.hexsha


def test_commit_on_a_git_backed_consumer_names_the_source_commit_and_the_preserved_edits(two_repos) -> None:
    ws, ws_repo, app, app_repo = two_repos
    assert vendor(Workspace.load(ws), ["app"]).exit_code == 0
    _commit_all(app_repo, "vendor corelib")
    client = app / "app" / "_vendor" / "corelib" / "client.py"
    client.write_text(client.read_text().replace("except ValueError as exc:", "except (ValueError, OSError) as exc:"))
    _commit_all(app_repo, "app: catch OSError too")
    write_tree(ws / "canonical" / "corelib", {"client.py": client_source(fetch_many=True)})
    source = _commit_all(ws_repo, "canonical: fetch_many")

    scratch = app / "app" / "_vendor" / "corelib" / "scratch.txt"
    scratch.write_text("uncommitted\n")
    dirty = _run("--workspace", str(ws), "vendor", "app", "--commit")
    assert dirty.exit_code == 2 and "uncommitted changes" in dirty.stderr
    assert "def fetch_many" not in client.read_text(), "refused before anything was written"
    scratch.unlink()

    head = app_repo.head.commit.hexsha
    result = _run("--workspace", str(ws), "vendor", "app", "--commit")

    assert result.exit_code == 0, result.output
    branch = f"plait/vendor-app-{source[:7]}"
    # The service's checkout stays on its own branch and commit; the branch carries the change.
    assert app_repo.active_branch.name == "main" and app_repo.head.commit.hexsha == head
    assert app_repo.git.diff("--cached") == ""
    message = app_repo.commit(branch).message
    assert app_repo.commit(branch).parents[0].hexsha == head
    assert message.startswith(f"plait: vendor canonical@{source[:7]} into app\n")
    assert f"Source: canonical at commit {source}" in message
    assert "Applied (what the written files change):\n  client.py: + Client.fetch_many\n" in message
    assert "Local edits kept:\n  client.py: ~ Client.fetch: + except type OSError\n" in message
    # The edit was made by hand since the last vendor: this run records it for the first time.
    assert "New local edits:\n  client.py: ~ Client.fetch: + except type OSError\n" in message
    committed = app_repo.commit(branch).tree / "app" / "_vendor" / "corelib"
    assert {b.name for b in committed.blobs} >= {"client.py", "plait.lock"}
    assert "def fetch_many" not in client.read_text(), "--commit writes the branch only, never the checkout"
    assert app_repo.git.status("--porcelain") == "" and ws_repo.git.status("--porcelain") == ""
    app_repo.git.merge("--ff-only", branch)
    assert "def fetch_many" in client.read_text() and "OSError" in client.read_text()


def test_a_shallow_clone_checks_and_re_vendors_from_the_lock_and_the_store(scenario, tmp_path: Path) -> None:
    assert vendor(scenario.ws(), ["svc"]).exit_code == 0
    scenario.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    assert vendor(scenario.ws(), ["svc"]).exit_code == 0  # records the local edit
    scenario.commit("vendor svc, with a local patch")
    write_tree(scenario.canonical, {"client.py": client_source(timeout=9)})
    scenario.commit("canonical: a longer timeout")

    clone_dir = tmp_path / "clone"
    git.Repo.clone_from(scenario.root.as_uri(), clone_dir, depth=1)
    clone = git.Repo(clone_dir)
    assert clone.git.rev_list("--count", "HEAD") == "1", "a clone with no history"
    ws = Workspace.load(clone_dir)

    (result,) = check(ws, ["svc"])
    assert result.state == "drift" and [(d.file, d.kind) for d in result.drift] == [("client.py", "behind")]
    report = vendor(ws, ["svc"])

    assert report.exit_code == 0, report.to_json()
    client = (clone_dir / "consumers" / "svc" / "svc" / "_vendor" / "corelib" / "client.py").read_text()
    assert "timeout = 9" in client and "except (ValueError, OSError) as exc:" in client
    assert check_exit(check(ws, ["svc"])) == 0


def test_install_merge_driver_is_idempotent_and_a_real_git_merge_of_a_vendored_file_uses_plait(scenario) -> None:
    assert vendor(scenario.ws(), ["svc"]).exit_code == 0
    scenario.commit("vendor svc")
    first = install_merge_driver(scenario.root)
    attributes = (scenario.root / ".gitattributes").read_text()
    second = install_merge_driver(scenario.root)

    assert first.changed and not second.changed
    assert first.added[0] == "consumers/svc/svc/_vendor/corelib/**/*.py merge=plait"
    assert (scenario.root / ".gitattributes").read_text() == attributes
    program = f"{shlex.quote(sys.executable)} -m plait"
    assert scenario.repo.git.config("--get", "merge.plait.driver") == f"{program} merge %O %A %B -L %L -P %P"
    assert scenario.repo.git.check_attr("merge", "consumers/svc/svc/_vendor/corelib/client.py").endswith("plait")
    assert scenario.repo.git.check_attr("merge", "canonical/corelib/client.py").endswith("unspecified")
    scenario.commit("merge vendored Python with plait")

    # Two branches add a method at the same spot: git's line merge conflicts, plait's does not.
    vendored = scenario.vendored() / "client.py"
    canonical = scenario.canonical / "client.py"
    base = vendored.read_text()
    scenario.repo.git.branch("feature")
    for path in (vendored, canonical):
        path.write_text(path.read_text() + "\n    def close(self):\n        return None\n")
    scenario.commit("main: close()")
    scenario.repo.git.checkout("feature")
    for path in (vendored, canonical):
        path.write_text(path.read_text() + "\n    def health(self):\n        return 'ok'\n")
    scenario.commit("feature: health()")
    scenario.repo.git.checkout("main")

    with pytest.raises(git.GitCommandError):
        scenario.repo.git.merge("feature", "--no-edit")

    merged = vendored.read_text()
    assert merged != base and "<<<<<<<" not in merged, "the vendored file merged cleanly, through plait"
    cls = next(n for n in ast.parse(merged).body if isinstance(n, ast.ClassDef))
    assert [n.name for n in cls.body if isinstance(n, ast.FunctionDef)] == ["__init__", "fetch", "close", "health"]
    assert "<<<<<<<" in canonical.read_text(), "outside the vendored directory git's own merge ran, and conflicted"
    status = scenario.repo.git.status("--porcelain")
    assert "UU canonical/corelib/client.py" in status
    assert "consumers/svc/svc/_vendor/corelib/client.py" not in status.replace("M  consumers", "")


def test_install_merge_driver_without_a_vendored_directory_says_so(scenario) -> None:
    before = fingerprint(scenario.root)
    result = _run("install-merge-driver", str(scenario.root))
    assert result.exit_code == 2 and "run `plait vendor` first" in result.stderr
    assert fingerprint(scenario.root) == before


def test_the_lock_records_no_commit_for_a_source_with_uncommitted_files(scenario) -> None:
    (scenario.canonical / "client.py").write_text(client_source(timeout=8))
    report = vendor(scenario.ws(), ["svc"])
    lock = read_lock(scenario.vendored())
    assert lock is not None and lock.source_commit is None
    assert len(report.plans[0].source_id) == 10, "a content id stands in for the commit (branch names, reports)"
