"""plait's git merge drivers in real repositories, run by a git whose PATH has no plait.

`install-merge-driver` registers the interpreter by absolute path, so a
merge started from a shell without the virtual environment still runs the
structured merge; and the lock driver merges two branches' plait.lock into
a lock that parses, whatever git's line merge would have made of it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from vendor_builders import Scenario, client_source, fingerprint, write_tree

import plait
from plait.cli import cli
from plait.vendoring.check import check, check_exit
from plait.vendoring.drivers import install_merge_driver
from plait.vendoring.lock import read_lock
from plait.vendoring.vendor import vendor

pytestmark = pytest.mark.slow  # real git merges through the installed drivers

PLAIN_PATH = "/usr/bin:/bin"  # git and sh, and no plait: not the venv, not a pyenv shim


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def plain_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git as a shell without the virtual environment runs it."""
    env = {
        "PATH": PLAIN_PATH,
        "HOME": os.environ["HOME"],
        "GIT_CONFIG_NOSYSTEM": "1",
        "LANG": "C.UTF-8",
        "GIT_EDITOR": "true",
    }
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=False)


def _methods(path: Path) -> list[str]:
    cls = next(n for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef))
    return [n.name for n in cls.body if isinstance(n, ast.FunctionDef)]


def _append_method(path: Path, name: str) -> None:
    path.write_text(path.read_text() + f"\n    def {name}(self):\n        return {name!r}\n")


def _two_branches_add_a_method(scenario: Scenario) -> Path:
    """main adds close(), feature adds health(), at the same spot of the vendored client."""
    vendored = scenario.vendored() / "client.py"
    scenario.repo.git.branch("feature")
    _append_method(vendored, "close")
    scenario.commit("main: close()")
    scenario.repo.git.checkout("feature")
    _append_method(vendored, "health")
    scenario.commit("feature: health()")
    scenario.repo.git.checkout("main")
    return vendored


@pytest.fixture
def vendored(scenario: Scenario) -> Scenario:
    assert vendor(scenario.ws(), ["svc"]).exit_code == 0
    scenario.commit("vendor svc")
    return scenario


def test_plain_plait_is_not_on_the_path_these_tests_give_git(vendored: Scenario) -> None:
    """The premise of the tests below: a bare `plait` would not start under this git."""
    assert plain_git(vendored.root, "status").returncode == 0
    assert subprocess.run(["sh", "-c", "command -v plait"], env={"PATH": PLAIN_PATH}).returncode != 0


def test_a_merge_from_a_shell_without_plait_on_path_still_runs_the_structured_merge(vendored: Scenario) -> None:
    installed = _run("install-merge-driver", str(vendored.root))
    assert installed.exit_code == 0, installed.output
    assert "checked: the driver runs plait, version" in installed.output
    # .gitattributes is the repository's: the report ends with the command that commits it, and
    # that command, run as printed, leaves nothing uncommitted.
    step = installed.output.splitlines()[-1]
    assert step.startswith("next: git ") and "add .gitattributes && git " in step, installed.output
    done = subprocess.run(step.removeprefix("next: "), shell=True, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not vendored.repo.is_dirty(untracked_files=True)
    vendored_client = _two_branches_add_a_method(vendored)

    merged = plain_git(vendored.root, "merge", "feature", "--no-edit")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "not found" not in merged.stderr
    assert _methods(vendored_client) == ["__init__", "fetch", "close", "health"], "the feature's method is there"
    assert "<<<<<<<" not in vendored_client.read_text()
    assert not vendored.repo.is_dirty(untracked_files=True)


def test_the_driver_names_the_interpreter_by_absolute_path_and_both_files_get_a_driver(vendored: Scenario) -> None:
    first = install_merge_driver(vendored.root)
    second = install_merge_driver(vendored.root)

    assert first.changed and not second.changed
    rel = "consumers/svc/svc/_vendor/corelib"
    assert first.added == [f"{rel}/**/*.py merge=plait", f"{rel}/plait.lock merge=plait-lock"]
    config = vendored.repo.git.config("--local", "--get-regexp", r"^merge\.")
    python = os.path.abspath(sys.executable)
    assert f"merge.plait.driver {python} -m plait merge %O %A %B -L %L -P %P" in config
    assert f"merge.plait-lock.driver {python} -m plait merge-lock %O %A %B -P %P" in config
    assert vendored.repo.git.check_attr("merge", f"{rel}/plait.lock").endswith("plait-lock")
    assert vendored.repo.git.check_attr("merge", f"{rel}/client.py").endswith(": plait")
    assert vendored.repo.git.check_attr("merge", "canonical/corelib/client.py").endswith("unspecified")


def test_a_bare_plait_registered_by_hand_is_replaced(vendored: Scenario) -> None:
    vendored.repo.git.config("--local", "merge.plait.driver", "plait merge %O %A %B -L %L -P %P")
    install = install_merge_driver(vendored.root)
    assert install.config_changed
    driver = vendored.repo.git.config("--local", "--get", "merge.plait.driver")
    assert driver.startswith(os.path.abspath(sys.executable))


def _python_at(where: Path, *, with_plait: bool) -> Path:
    """A real virtual environment at *where*; *with_plait*: it sees the plait under test."""
    venv.create(where, with_pip=False, symlinks=True)
    if with_plait:
        site = next((where / "lib").glob("python*/site-packages"))
        plait_root = Path(plait.__file__).resolve().parent.parent
        (site / "plait_under_test.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{plait_root}\n")
    return where / "bin" / "python"


def test_an_interpreter_path_git_would_mangle_is_quoted_for_its_shell_its_percent_and_its_config(
    vendored: Scenario, tmp_path: Path
) -> None:
    # A space and a quote for the shell, %P for git's expansion, # for git's config syntax.
    python = _python_at(tmp_path / "tools dir" / "it's #1 at 100%P $HOME", with_plait=True)
    install = install_merge_driver(vendored.root, python=python)
    assert install.python == str(python)
    vendored.commit("merge vendored files with plait")
    vendored_client = _two_branches_add_a_method(vendored)

    merged = plain_git(vendored.root, "merge", "feature", "--no-edit")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert _methods(vendored_client) == ["__init__", "fetch", "close", "health"]


def test_an_interpreter_without_plait_is_refused_before_anything_is_written(vendored: Scenario, tmp_path: Path) -> None:
    python = _python_at(tmp_path / "bare", with_plait=False)
    before = fingerprint(vendored.root)
    config = (Path(vendored.repo.git_dir) / "config").read_text()

    result = _run("install-merge-driver", str(vendored.root), "--python", str(python))

    assert result.exit_code == 2
    assert "the merge driver does not run" in result.stderr and "No module named plait" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert fingerprint(vendored.root) == before and not (vendored.root / ".gitattributes").exists()
    assert (Path(vendored.repo.git_dir) / "config").read_text() == config


def test_a_python_path_that_is_no_interpreter_is_refused(vendored: Scenario, tmp_path: Path) -> None:
    result = _run("install-merge-driver", str(vendored.root), "--python", str(tmp_path / "nope"))
    assert result.exit_code == 2 and "no such interpreter" in result.stderr


# --------------------------------------------------------------------------
# the lock driver: two branches that each re-vendored


@pytest.fixture
def drivers(vendored: Scenario) -> Scenario:
    """svc vendored, a local patch recorded, and both drivers installed and committed."""
    vendored.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    assert vendor(vendored.ws(), ["svc"]).exit_code == 0
    install_merge_driver(vendored.root)
    vendored.commit("svc: catch OSError too; merge vendored files with plait")
    return vendored


def _revendor_on(scenario: Scenario, branch: str, files: dict[str, str], message: str) -> str:
    """On *branch*: change the canonical package, commit, re-vendor svc, commit; the source commit."""
    scenario.repo.git.checkout(branch)
    write_tree(scenario.canonical, files)
    source = scenario.commit(f"canonical: {message}")
    report = vendor(scenario.ws(), ["svc"])
    assert report.exit_code == 0, report.to_json()
    scenario.commit(f"re-vendor svc: {message}")
    return source


ERRORS_WITH_TIMEOUT = (
    '"""Errors."""\n\n\nclass Failure(Exception):\n    """A fetch failed."""\n\n\n'
    'class Timeout(Failure):\n    """A fetch took too long."""\n'
)


def test_two_branches_that_re_vendored_different_files_merge_their_locks_cleanly(drivers: Scenario) -> None:
    drivers.repo.git.branch("feature")
    ours = _revendor_on(drivers, "main", {"client.py": client_source(timeout=9)}, "a longer timeout")
    _revendor_on(drivers, "feature", {"errors.py": ERRORS_WITH_TIMEOUT}, "a Timeout error")
    drivers.repo.git.checkout("main")

    merged = plain_git(drivers.root, "merge", "feature", "--no-edit")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    lock_text = (drivers.vendored() / "plait.lock").read_text()
    assert "<<<<<<<" not in lock_text
    lock = read_lock(drivers.vendored())
    assert lock is not None and not lock.conflicted
    assert lock.source_commit == ours, "neither source commit descends from the other: ours'"
    assert [e.text for e in lock.local_edits] == ["except type OSError in Client.fetch"]
    client = (drivers.vendored() / "client.py").read_text()
    assert "timeout = 9" in client and "(ValueError, OSError)" in client
    assert "class Timeout(Failure)" in (drivers.vendored() / "errors.py").read_text()
    (result,) = check(drivers.ws(), ["svc"])
    assert result.state == "ok", [d.to_json() for d in result.drift]


def test_two_branches_that_re_vendored_one_file_leave_a_lock_that_parses_and_names_plait_vendor(
    drivers: Scenario,
) -> None:
    drivers.repo.git.branch("feature")
    _revendor_on(drivers, "main", {"client.py": client_source(timeout=9)}, "a longer timeout")
    _revendor_on(drivers, "feature", {"client.py": client_source(fetch_many=True)}, "fetch_many")
    drivers.repo.git.checkout("main")

    merged = plain_git(drivers.root, "merge", "feature", "--no-edit")

    # merge-ort writes the merged client.py only after the lock's driver ran:
    # the lock cannot know its digest, and says so instead of guessing.
    assert merged.returncode == 1
    lock_rel = "consumers/svc/svc/_vendor/corelib/plait.lock"
    assert f"CONFLICT {lock_rel}: client.py: re-vendored on both branches" in merged.stderr
    assert f"{lock_rel} parses; after the merge, run: plait vendor svc" in merged.stderr
    assert "<<<<<<<" not in (drivers.vendored() / "plait.lock").read_text()
    lock = read_lock(drivers.vendored())
    assert lock is not None and lock.conflicted == ["client.py"]
    client = (drivers.vendored() / "client.py").read_text()
    assert "timeout = 9" in client and "def fetch_many" in client and "(ValueError, OSError)" in client

    (result,) = check(drivers.ws(), ["svc"])
    assert result.state == "drift" and result.fix == "plait vendor svc"
    # Said once, with the one command, and no "revert it" for a file git merged.
    assert [(d.file, d.kind) for d in result.drift] == [("client.py", "conflicted"), ("client.py", "behind")]
    assert all("plait vendor svc" in d.detail for d in result.drift)

    report = vendor(drivers.ws(), ["svc"])  # the one command

    assert report.exit_code == 0, report.to_json()
    assert check_exit(check(drivers.ws(), ["svc"])) == 0
    lock = read_lock(drivers.vendored())
    assert lock is not None and not lock.conflicted
    assert [e.text for e in lock.local_edits] == ["except type OSError in Client.fetch"]
    assert (drivers.vendored() / "client.py").read_text() == client, "vendor only re-derived the lock"
    drivers.repo.git.add("-A")
    assert plain_git(drivers.root, "commit", "--no-edit").returncode == 0


def _git_recursive_is_ort() -> bool:
    found = re.search(r"(\d+)\.(\d+)", git.Git().version())
    assert found is not None
    return (int(found[1]), int(found[2])) >= (2, 50)  # git 2.50 made -s recursive a synonym of ort


RETRY = "def attempts():\n    return 3\n\n\ndef delay():\n    return 1.0\n"


@pytest.mark.parametrize("strategy", ["ort", "recursive"])
def test_a_file_git_merged_before_the_lock_is_re_derived_from_the_working_tree(
    drivers: Scenario, strategy: str
) -> None:
    if strategy == "recursive" and _git_recursive_is_ort():
        pytest.skip("this git's -s recursive is merge-ort")
    # retry.py sorts after plait.lock: git runs drivers in reverse path order,
    # and -s recursive writes each merged file before the next driver runs.
    _revendor_on(drivers, "main", {"retry.py": RETRY}, "retry")
    drivers.repo.git.branch("feature")
    _revendor_on(drivers, "main", {"retry.py": RETRY.replace("return 3", "return 5")}, "more attempts")
    drivers.repo.git.checkout("feature")
    patched = drivers.vendored() / "retry.py"
    patched.write_text(patched.read_text() + "\n\ndef jitter():\n    return 0.1\n")
    assert vendor(drivers.ws(), ["svc"]).exit_code == 0  # records the local edit
    drivers.commit("svc: jitter")
    drivers.repo.git.checkout("main")

    merged = plain_git(drivers.root, "merge", "-s", strategy, "feature", "--no-edit")

    retry = (drivers.vendored() / "retry.py").read_text()
    assert "return 5" in retry and "def jitter" in retry
    lock = read_lock(drivers.vendored())
    assert lock is not None and "<<<<<<<" not in (drivers.vendored() / "plait.lock").read_text()
    assert "jitter" in [e.path for e in lock.local_edits]
    if strategy == "ort":
        assert merged.returncode == 1 and lock.conflicted == ["retry.py"]
        return
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert not lock.conflicted
    (result,) = check(drivers.ws(), ["svc"])
    assert result.state == "ok", [d.to_json() for d in result.drift]


def test_the_source_commit_and_digests_come_from_the_branch_that_vendored_the_newer_source(
    drivers: Scenario,
) -> None:
    write_tree(drivers.canonical, {"errors.py": ERRORS_WITH_TIMEOUT})
    older = drivers.commit("canonical: a Timeout error")
    drivers.repo.git.branch("feature")  # feature has the Timeout error too, and builds on it
    assert vendor(drivers.ws(), ["svc"]).exit_code == 0
    drivers.commit("re-vendor svc: a Timeout error")
    newer = _revendor_on(drivers, "feature", {"client.py": client_source(timeout=9)}, "a longer timeout")
    drivers.repo.git.checkout("main")
    assert read_lock(drivers.vendored()).source_commit == older  # type: ignore[union-attr]

    merged = plain_git(drivers.root, "merge", "feature", "--no-edit")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    lock = read_lock(drivers.vendored())
    assert lock is not None and lock.source_commit == newer and not lock.conflicted
    (result,) = check(drivers.ws(), ["svc"])
    assert result.state == "ok", [d.to_json() for d in result.drift]


def test_a_lock_that_does_not_parse_is_refused_and_ours_is_left_as_it_was(tmp_path: Path, drivers: Scenario) -> None:
    lock = (drivers.vendored() / "plait.lock").read_text()
    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    base.write_text(lock)
    ours.write_text(lock)
    theirs.write_text("<<<<<<< ours\n" + lock)

    result = _run("merge-lock", str(base), str(ours), str(theirs), "-P", "v/plait.lock")

    assert result.exit_code == 2 and "(theirs): the lock does not parse" in result.stderr
    assert ours.read_text() == lock
