"""The CI recipe in VENDORING.md works when copied into fresh repositories (issue 15, item 7).

The recipe's YAML blocks are read from VENDORING.md itself and every
``run:`` step is executed as a script, in order, the way the runner would:
in a fresh venv where `python -m pip install plait` installs plait from
wheels built from this checkout (its dependencies come from the package
index), in fresh shallow clones of real repositories (`real_setups`), with
``${{ matrix.* }}`` filled from `plait consumers --json`'s own matrix and
``gh`` replaced by a recorder.  A recipe that installs with ``-e .``, names
a path of plait's own repository, runs a command that fails on a package
that is not an embedding client, or checks a consumer's repository as if it
held a workspace, fails here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import git
import pytest
from real_setups import Setup, canonical_files, commit_all, make_setup

pytestmark = pytest.mark.slow  # the whole CI recipe in fresh repositories

REPO = Path(__file__).resolve().parents[2]


def recipe_blocks() -> dict[str, str]:
    """The YAML blocks of VENDORING.md's CI recipe, by the file name their first line gives."""
    text = (REPO / "VENDORING.md").read_text(encoding="utf-8")
    section = text[text.index("## CI recipe") :]
    section = section[: section.find("\n## ", 5)] if "\n## " in section[5:] else section
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    named = {}
    for block in blocks:
        first = block.splitlines()[0]
        named[first.split("/")[-1].split(",")[0].split()[0]] = block
    return named


def run_steps(block: str, job: str | None = None) -> list[str]:
    """The ``run:`` scripts of *block* (of one job when *job* is given), in order.

    A step is ``- run: cmd`` or ``run: |`` followed by lines indented deeper.
    """
    lines = block.splitlines()
    if job is not None:
        start = next(i for i, line in enumerate(lines) if line.strip() == f"{job}:")
        indent = _indent(lines[start])
        end = next(
            (
                i
                for i in range(start + 1, len(lines))
                if lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) <= indent
            ),
            len(lines),
        )
        lines = lines[start:end]
    steps: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = re.match(r"^(\s*)(?:- )?run: (.*)$", line)
        if match is None:
            i += 1
            continue
        body = match.group(2)
        if body.strip() == "|":
            base = None
            script: list[str] = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or base is None or lines[i].startswith(" " * base)):
                if lines[i].strip() and base is None:
                    base = len(lines[i]) - len(lines[i].lstrip())
                script.append(lines[i][base or 0 :])
                i += 1
            steps.append("\n".join(script).rstrip() + "\n")
            continue
        steps.append(body.split("  #", 1)[0].strip() if not body.strip().startswith("echo") else body.strip())
        i += 1
    return steps


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def fill(script: str, matrix: dict[str, str]) -> str:
    def value(found: re.Match[str]) -> str:
        expression = found.group(1).strip()
        if expression.startswith("matrix."):
            return matrix[expression.removeprefix("matrix.")]
        if expression.startswith("secrets."):
            return "not-a-real-token"
        raise AssertionError(f"the recipe uses ${{{{ {expression} }}}} in a run step; the test cannot run it")

    return re.sub(r"\$\{\{(.*?)\}\}", value, script)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A fresh environment where `python -m pip install plait` installs this checkout's plait."""
    root = tmp_path_factory.mktemp("runner")
    # Built from a copy: setuptools writes build/ into the tree it builds.
    source = root / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".venv")
    for part in ("client", "sync"):
        shutil.copytree(REPO / part, source / part, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    wheels = root / "wheels"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(wheels),
            str(source / "client"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    tools = root / "tools"
    tools.mkdir()
    gh_log = root / "gh.log"
    (tools / "gh").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {gh_log}\n')
    (tools / "gh").chmod(0o755)
    path = os.pathsep.join([str(bin_dir), str(tools), "/usr/bin", "/bin"])
    return {
        "PATH": path,
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "HOME": str(root / "home"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "NO_COLOR": "1",
        "GH_LOG": str(gh_log),
        "LANG": "C.UTF-8",
    }


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


def onboarding_steps() -> str:
    """The shell block of VENDORING.md's "Bringing a real setup under plait, step by step", as written."""
    text = (REPO / "VENDORING.md").read_text(encoding="utf-8")
    section = text[text.index("## Bringing a real setup under plait, step by step") :]
    found = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert found is not None, "the onboarding steps are a sh block"
    return found.group(1)


def under_plait(setup: Setup, env: dict[str, str]) -> None:
    """The setup brought under plait by the documented steps, to the letter, as a script.

    Run from the directory holding the repositories, with plait installed as
    the recipe installs it and a person's git identity; every repository
    plait wrote in must then be clean: what the steps leave uncommitted, a
    CI job's shallow clone would not have.
    """
    installed = run("python -m pip install plait", setup.root, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    person = {
        f"GIT_{role}_{key}": value
        for role in ("AUTHOR", "COMMITTER")
        for key, value in (("NAME", "A Maintainer"), ("EMAIL", "m@example.com"))
    }
    done = run(onboarding_steps(), setup.root, {**env, **person})
    assert done.returncode == 0, done.stdout + done.stderr
    for name, repo in setup.repos.items():
        assert repo.git.status("--porcelain", "--untracked-files=all") == "", (name, "left uncommitted by the steps")


def test_every_step_of_the_ci_recipe_runs_in_fresh_repositories(runner: dict[str, str], tmp_path: Path) -> None:
    blocks = recipe_blocks()
    assert sorted(blocks) == ["lineages.yml", "re-vendor.yml", "vendored.yml"]
    for block in blocks.values():
        assert "-e ." not in block and "lineages/" not in block, "the recipe names plait's own repository"
    setup = make_setup(tmp_path / "repos")
    summary = tmp_path / "step-summary.md"
    env = {**runner, "HOME": str(tmp_path / "home"), "GITHUB_STEP_SUMMARY": str(summary)}
    (tmp_path / "home").mkdir()
    under_plait(setup, env)

    # The lineages workflow, on a shallow clone of the workspace.
    ci = tmp_path / "ci"
    git.Repo.clone_from(f"file://{setup.ws}", ci / "lineages", depth=1)
    for step in run_steps(blocks["lineages.yml"]):
        done = run(fill(step, {}), ci / "lineages", env)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    assert (
        "nothing to check" in (ci / "lineages" / "conform.xml").read_text()
        or (ci / "lineages" / "conform.xml").exists()
    )
    # The job summary holds the overview: a table row per copy and the family's graph.
    overview = summary.read_text()
    assert overview.startswith("## plait status") and "```mermaid" in overview
    assert all(f"| {name} |" in overview for name in ("fork", "svc-a", "svc-b"))
    summary.write_text("")

    # The drift check, in a consumer's own repository.
    git.Repo.clone_from(f"file://{setup.svc_a}", ci / "svc-a", depth=1)
    for step in run_steps(blocks["vendored.yml"]):
        done = run(fill(step, {}), ci / "svc-a", env)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
        assert "svc-a: ok" in done.stdout or "pip" in step

    # The re-vendor matrix, after an upstream change.
    (setup.canonical / "corelib" / "retry.py").write_text(canonical_files(3)["retry.py"] + "\n\nLIMIT = 100\n")
    upstream = commit_all(setup.repos["canonical"], "corelib: a limit")
    listing = ci / "consumers"
    git.Repo.clone_from(f"file://{setup.ws}", listing, depth=1)
    output = tmp_path / "github-output"
    list_env = {**env, "GITHUB_OUTPUT": str(output)}
    for step in run_steps(blocks["re-vendor.yml"], job="consumers"):
        done = run(fill(step, {}), listing, list_env)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    consumers = json.loads(output.read_text().split("consumers=", 1)[1])
    matrix = consumers["matrix"]["include"]
    assert [entry["consumer"] for entry in matrix] == ["svc-a", "svc-b"]
    for entry in matrix:
        job = ci / f"vendor-{entry['consumer']}"
        git.Repo.clone_from(f"file://{setup.ws}", job, depth=1)
        for step in run_steps(blocks["re-vendor.yml"], job="vendor"):
            done = run(fill(step, entry), job, env)
            assert done.returncode == 0, (entry["consumer"], step, done.stdout, done.stderr)
        report = json.loads((job / "vendor.json").read_text())
        pushed = {c["branch"]: c["pushed_to"] for c in report["commits"]}
        branch = f"plait/vendor-{entry['consumer']}-{upstream[:7]}"
        service = setup.repos["svc_a" if entry["consumer"] == "svc-a" else "svc_b"]
        assert branch in service.heads, "the consumer's branch was pushed to its own repository"
        assert branch in setup.repos["ws"].heads, "the bases' branch was pushed to the workspace's repository"
        assert pushed[branch]
        # The consumer's own CI checks its pull request: a shallow clone of the pushed branch is green.
        pull = ci / f"pull-{entry['consumer']}"
        git.Repo.clone_from(f"file://{service.working_tree_dir}", pull, depth=1, branch=branch)
        for step in run_steps(blocks["vendored.yml"]):
            done = run(fill(step, {}), pull, env)
            assert done.returncode == 0, (entry["consumer"], step, done.stdout, done.stderr)
    log = Path(env["GH_LOG"]).read_text()
    assert log.count("pr create") == 4, log  # two consumers: their branch, and the bases' branch each
    # Each pull request is titled with what it carries, and its body is the run's markdown report.
    for name in ("svc-a", "svc-b"):
        title = f"--title plait: vendor canonical@{upstream[:7]} into {name} --body-file body.md"
        assert title in log, log
        assert f"--title plait: vendor canonical@{upstream[:7]} into {name} (the workspace's bases)" in log, log
    reports = summary.read_text()
    assert reports.count("## plait: vendor canonical@") == 2 and reports.count("```mermaid") == 2, reports
