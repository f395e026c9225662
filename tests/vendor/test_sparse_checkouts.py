"""Sparse checkouts (issue 30): what git has committed outside the cone is not "never vendored"
nor "deleted upstream".

A consumer's vendored directory outside the cone has its lock and its local
patch in git only; read from the disk it looked never vendored, and
`--commit` built a branch of pristine files over the committed patch.  A
canonical outside the cone looked deleted.  plait refuses both by name.
"""

from __future__ import annotations

from pathlib import Path

import git
from click.testing import CliRunner
from vendor_builders import Scenario

from plait.cli import cli


def _run(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--workspace", str(root), *args], catch_exceptions=False)


def _vendored_with_a_patch(scenario: Scenario) -> None:
    assert _run(scenario.root, "vendor", "svc").exit_code == 0
    scenario.commit("vendor corelib into svc")
    scenario.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    scenario.commit("svc: catch OSError too")


def _sparse(repo: git.Repo, *dirs: str) -> None:
    repo.git.sparse_checkout("set", *dirs)


def test_vendor_commit_refuses_a_vendored_dir_outside_the_cone_by_name(scenario: Scenario) -> None:
    _vendored_with_a_patch(scenario)
    _sparse(scenario.repo, "canonical", "consumers/tool")
    assert not scenario.vendored().exists()
    heads = {h.name for h in scenario.repo.heads}

    result = _run(scenario.root, "vendor", "svc", "--commit")

    assert result.exit_code == 2, result.output
    assert "outside the sparse checkout" in result.output and "client.py" in result.output
    assert "consumers/svc/svc/_vendor/corelib" in result.output
    assert "first vendor" not in result.output.lower()
    assert {h.name for h in scenario.repo.heads} == heads, "no branch of pristine files"
    assert "OSError" in scenario.repo.git.show("HEAD:consumers/svc/svc/_vendor/corelib/client.py")


def test_check_and_status_refuse_a_vendored_dir_outside_the_cone(scenario: Scenario) -> None:
    _vendored_with_a_patch(scenario)
    _sparse(scenario.repo, "canonical", "consumers/tool")
    check = _run(scenario.root, "check", "svc")
    assert check.exit_code == 2, check.output
    assert "outside the sparse checkout" in check.output and "never vendored" not in check.output
    status = _run(scenario.root, "status", "svc")
    assert "outside the sparse checkout" in status.output, status.output


def test_a_canonical_outside_the_cone_is_not_deleted_upstream(scenario: Scenario) -> None:
    _vendored_with_a_patch(scenario)
    _sparse(scenario.repo, "consumers")
    assert not scenario.canonical.exists()

    result = _run(scenario.root, "vendor", "svc")

    assert result.exit_code == 2, result.output
    assert "outside the sparse checkout" in result.output
    assert (scenario.vendored() / "client.py").is_file(), "nothing removed from the consumer"
    assert _run(scenario.root, "check", "svc").exit_code == 2
