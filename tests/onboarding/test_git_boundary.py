"""The git boundary (issue 23): git that cannot be steered from outside, a clone cache that runs nothing
and loses nothing, git that dies with plait, and failures that say everything.

Real repositories (`git_setups.under_plait`), plait run as a user runs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest
from git_setups import plait, stalled_server, status, under_plait, upstream_change
from real_setups import make_setup, url_manifest

from plait import gitops
from plait.errors import PlaitError

pytestmark = pytest.mark.slow  # whole runs in real repositories

CLONE = Path(".plait") / "clones" / "svc-b"


# --------------------------------------------------------------------------
# item 5: a clean environment


def test_a_hooks_git_dir_does_not_redirect_vendor_commit(tmp_path: Path) -> None:
    setup = under_plait(tmp_path / "repos")
    upstream = upstream_change(setup)
    other_dir = tmp_path / "other"
    other = git.Repo.init(other_dir)
    (other_dir / "f.txt").write_text("other\n")
    other.git.add("-A")
    other.index.commit("an unrelated repository")
    index_before = (other_dir / ".git" / "index").read_bytes()
    heads_before = sorted(h.name for h in other.heads), other.head.commit.hexsha

    env = {
        "GIT_DIR": str(other_dir / ".git"),
        "GIT_WORK_TREE": str(other_dir),
        "GIT_INDEX_FILE": str(other_dir / ".git" / "index"),
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(tmp_path / "nowhere"),
    }
    done = plait(setup.ws, "vendor", "--all", "--commit", env=env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert (sorted(h.name for h in other.heads), other.head.commit.hexsha) == heads_before
    assert (other_dir / ".git" / "index").read_bytes() == index_before
    assert f"plait/vendor-svc-a-{upstream[:7]}" in setup.repos["svc_a"].heads


def test_the_pre_commit_hook_runs_under_git_commit_a(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    (setup.ws / "lineages.toml").write_text(url_manifest(setup, with_svc_b=False), encoding="utf-8")
    assert plait(setup.ws, "adopt", "svc-a").returncode == 0
    assert plait(setup.ws, "vendor", "svc-a").returncode == 0
    assert plait(setup.ws, "check").returncode == 0
    ws = setup.repos["ws"]
    ws.git.add("-A")
    ws.index.commit("under plait")
    hook = setup.ws / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {sys.executable} -m plait check\n")
    hook.chmod(0o755)
    (setup.ws / "README.md").write_text("edited\n")
    # git hands the hook GIT_INDEX_FILE (its temporary index for -a and for PATH): the
    # clone's `git status` must not read it.
    for args in (["commit", "-q", "-am", "a"], ["commit", "-q", "-m", "b", "--", "README.md"]):
        done = subprocess.run(["git", *args], cwd=setup.ws, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        (setup.ws / "README.md").write_text(f"edited again {args[-1]}\n")


# --------------------------------------------------------------------------
# item 7: only file, https, ssh and git


@pytest.mark.parametrize("command", [["check"], ["vendor", "--all", "--dry-run"], ["status"]])
def test_an_ext_url_never_runs_whatever_the_environment_allows(tmp_path: Path, command: list[str]) -> None:
    setup = make_setup(tmp_path / "repos")
    marker = tmp_path / "ran"
    text = url_manifest(setup, with_svc_b=False).replace(f"file://{setup.svc_a}", f"ext::sh -c touch% {marker}")
    (setup.ws / "lineages.toml").write_text(text, encoding="utf-8")
    home = Path(os.environ["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("[protocol]\n\tallow = always\n")
    done = plait(setup.ws, *command, env={"GIT_ALLOW_PROTOCOL": "ext", "GIT_PROTOCOL_FROM_USER": "1"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'ext' transport" in done.stderr and "lineages.toml" in done.stderr
    assert not marker.exists()


def test_gitops_itself_refuses_ext_whatever_the_environment_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "ext:file")
    home = Path(os.environ["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("[protocol]\n\tallow = always\n")
    with pytest.raises(PlaitError, match="ext"):
        gitops.clone(f"ext::sh -c touch% {marker}", tmp_path / "dest", None)
    assert not marker.exists()


# --------------------------------------------------------------------------
# item 8: the clone cache's own config never runs


def test_a_cached_clones_fsmonitor_hook_never_runs(tmp_path: Path) -> None:
    setup = under_plait(tmp_path / "repos")
    assert plait(setup.ws, "check").returncode == 0
    marker = tmp_path / "ran"
    script = tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    clone = git.Repo(setup.ws / CLONE)
    with clone.config_writer() as config:
        config.set_value("core", "fsmonitor", str(script))
    hooks = setup.ws / CLONE / ".git" / "hooks"
    for name in ("post-checkout", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)

    done = plait(setup.ws, "check")

    assert not marker.exists(), "the clone's fsmonitor ran"
    assert done.returncode == 2 and "core.fsmonitor" in done.stderr and "rm -rf" in done.stderr, done.stderr
    with clone.config_writer() as config:
        config.remove_option("core", "fsmonitor")
    again = plait(setup.ws, "check")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not marker.exists(), "the clone's hooks ran"


# --------------------------------------------------------------------------
# items 10 and 14: values git would read as options or reflog entries


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("ref", "--quiet", "ref = '--quiet'"),
        ("ref", "main@{99}", "ref = 'main@{99}'"),
        ("ref", "--upload-pack=touch x", "ref = '--upload-pack=touch x'"),
        ("subdir", "-x", "subdir '-x'"),
    ],
)
def test_a_ref_or_subdir_git_would_misread_is_refused_when_the_manifest_is_read(
    tmp_path: Path, key: str, value: str, said: str
) -> None:
    setup = make_setup(tmp_path)
    text = url_manifest(setup, with_svc_b=False).replace(
        'vendor_dir = "svc_a', f'{key} = {value!r}\nvendor_dir = "svc_a'.replace("'", '"'), 1
    )
    (setup.ws / "lineages.toml").write_text(text, encoding="utf-8")
    for command in (["check"], ["status"]):
        done = plait(setup.ws, *command)
        assert done.returncode == 2, done.stdout + done.stderr
        assert said in done.stderr and "Traceback" not in done.stderr


def test_a_reflog_base_for_adopt_is_a_named_error(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    (setup.ws / "lineages.toml").write_text(url_manifest(setup, with_svc_b=False), encoding="utf-8")
    done = plait(setup.ws, "adopt", "svc-a", "--base", "HEAD@{99}")
    assert done.returncode == 2 and "HEAD@{99}" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_symlinked_subdir_in_a_fresh_clone_is_refused(tmp_path: Path) -> None:
    setup = make_setup(tmp_path / "repos")
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "svc_b").mkdir()
    (secret / "svc_b" / "stolen.py").write_text("SECRET = 1\n")
    os.symlink(secret, setup.svc_b / "link")
    setup.repos["svc_b"].git.add("-A")
    setup.repos["svc_b"].index.commit("a symlink")
    text = url_manifest(setup).replace('subdir = "src"', 'subdir = "link"')
    (setup.ws / "lineages.toml").write_text(text, encoding="utf-8")
    done = plait(setup.ws, "check", "svc-b")
    assert done.returncode == 2 and "symlink" in done.stderr and "Traceback" not in done.stderr, done.stderr


# --------------------------------------------------------------------------
# items 2, 3 and 4: the clone cache belongs to plait, and loses nothing


def test_a_commit_made_in_the_clone_cache_is_never_reset_away(tmp_path: Path) -> None:
    setup = under_plait(tmp_path)
    clone_dir = setup.ws / CLONE
    clone = git.Repo(clone_dir)
    app = clone_dir / "src" / "svc_b" / "app.py"
    app.write_text(app.read_text() + "\n# a fix made in plait's clone\n")
    who = {
        f"GIT_{role}_{key}": value
        for role in ("AUTHOR", "COMMITTER")
        for key, value in (("NAME", "me"), ("EMAIL", "me@x"))
    }
    with clone.git.custom_environment(**who):
        clone.git.commit("-q", "-am", "x")
    mine = clone.head.commit.hexsha

    done = plait(setup.ws, "check")

    assert done.returncode == 2, done.stdout + done.stderr
    assert mine[:7] in done.stderr and "push" in done.stderr and "branch" in done.stderr
    assert clone.head.commit.hexsha == mine and "a fix made" in app.read_text(), "nothing was reset"
    # Kept on a branch of the user's own, as the error says, the clone is plait's again.
    clone.git.branch("my-fix")
    clone.git.checkout("--detach")
    again = plait(setup.ws, "check")
    assert again.returncode == 0, again.stdout + again.stderr
    assert clone.heads["my-fix"].commit.hexsha == mine


def test_a_clone_left_on_a_plait_branch_reads_the_services_branch_again(tmp_path: Path) -> None:
    setup = under_plait(tmp_path)
    clone = git.Repo(setup.ws / CLONE)
    # What an older plait's --commit left: the clone on its review branch.
    clone.git.checkout("-q", "-b", "plait/vendor-svc-b-0000000")
    readme = setup.svc_b / "README.md"
    readme.write_text("moved on\n")
    setup.repos["svc_b"].git.add("-A")
    setup.repos["svc_b"].index.commit("the service moves on")
    done = plait(setup.ws, "check", "svc-b")
    assert done.returncode == 0, done.stdout + done.stderr
    assert clone.active_branch.name == "main"
    assert clone.head.commit.hexsha == setup.repos["svc_b"].head.commit.hexsha


# --------------------------------------------------------------------------
# item 13: git dies with plait, and a stalled server is bounded by progress


def _git_children(port: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(f"127.0.0.1:{port}".encode() in part for part in cmdline) and b"plait" not in b" ".join(cmdline):
            pids.append(int(entry.name))
    return pids


def _stalled_manifest(setup_dir: Path, port: int) -> None:
    """A workspace whose canonical package is behind a server that never answers."""
    (setup_dir / "fork" / "corelib").mkdir(parents=True, exist_ok=True)
    (setup_dir / "fork" / "corelib" / "__init__.py").write_text("")
    git.Repo.init(setup_dir)
    (setup_dir / "lineages.toml").write_text(
        f'[canonical]\npackage = "corelib"\ngit = "https://127.0.0.1:{port}/canonical.git"\n\n'
        '[lineages.fork]\npath = "fork/corelib"\npackage = "corelib"\nsyncs_from = "canonical"\n',
        encoding="utf-8",
    )


def test_git_dies_with_plait(tmp_path: Path) -> None:
    with stalled_server() as port:
        _stalled_manifest(tmp_path / "ws", port)
        proc = subprocess.Popen(
            [sys.executable, "-m", "plait", "diff", "canonical", "fork"],
            cwd=tmp_path / "ws",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while not _git_children(port) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _git_children(port), "plait started git"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        deadline = time.monotonic() + 10
        while _git_children(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _git_children(port) == [], "git outlived plait"


def test_a_stalled_server_is_given_up_on_after_the_timeout_a_user_sets(tmp_path: Path) -> None:
    with stalled_server() as port:
        _stalled_manifest(tmp_path / "ws", port)
        started = time.monotonic()
        done = plait(tmp_path / "ws", "diff", "canonical", "fork", env={"PLAIT_GIT_TIMEOUT": "2"}, timeout=120)
        took = time.monotonic() - started
    assert done.returncode == 2, done.stdout + done.stderr
    assert "PLAIT_GIT_TIMEOUT" in done.stderr and "git clone" in done.stderr
    assert took < 60


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_git_timeout_that_is_no_number_of_seconds_is_named(tmp_path: Path, value: str) -> None:
    with stalled_server() as port:
        _stalled_manifest(tmp_path / "ws", port)
        done = plait(tmp_path / "ws", "diff", "canonical", "fork", env={"PLAIT_GIT_TIMEOUT": value}, timeout=120)
    assert done.returncode == 2 and "$PLAIT_GIT_TIMEOUT" in done.stderr, done.stderr


# --------------------------------------------------------------------------
# item 17: a failure says the command, the repository and everything git said


def test_a_git_failure_shows_the_command_the_repository_and_gits_whole_message(tmp_path: Path) -> None:
    repo_dir = tmp_path / "repo"
    repo = git.Repo.init(repo_dir)
    (repo_dir / "f").write_text("x\n")
    repo.git.add("-A")
    repo.index.commit("one")
    repo.create_remote("origin", str(tmp_path / "gone"))
    repo.git.branch("b")
    with pytest.raises(PlaitError) as caught:
        gitops.push(repo_dir, "b")
    message = str(caught.value)
    assert "git push" in message and str(repo_dir) in message
    assert "does not appear to be a git repository" in message and "and the repository exists." in message
    assert "\n" not in message


def test_status_of_every_repository_is_untouched_by_a_read_only_check(tmp_path: Path) -> None:
    setup = under_plait(tmp_path)
    before = {name: status(repo) for name, repo in setup.repos.items()}
    assert plait(setup.ws, "check").returncode == 0
    assert {name: status(repo) for name, repo in setup.repos.items()} == before


def test_a_copy_at_its_repositorys_top_has_its_files_at_a_revision_and_a_file_named_dashdash_is_one(
    tmp_path: Path,
) -> None:
    # After --end-of-options, ls-tree reads `--` as a path: a lone one listed nothing, so a
    # package that is its repository's top had no files at any revision.
    repo = git.Repo.init(tmp_path / "pkg")
    (tmp_path / "pkg" / "core.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "--").write_text("a file named like an option\n")
    repo.index.add(["core.py", "--"])
    sha = repo.index.commit("pkg").hexsha
    assert gitops.files_at(tmp_path / "pkg", sha) == {"core.py": "X = 1\n", "--": "a file named like an option\n"}
    assert gitops.tree_files(tmp_path / "pkg", sha) == gitops.tree_files(tmp_path / "pkg", sha, "")
    assert sorted(gitops.tree_files(tmp_path / "pkg", sha)) == ["--", "core.py"]
    assert sorted(gitops.head_blobs(tmp_path / "pkg", ["core.py"]) or {}) == ["core.py"]
