"""`core.autocrlf=true` checkouts (issue 30): `check` hashes what git would commit.

git converts the vendored files to CRLF on checkout and back to LF on
commit, so `git status` is clean; `check` hashed the CRLF bytes and
reported every file edited.  A lock is the same whichever checkout wrote
it, and passes in either.
"""

from __future__ import annotations

from pathlib import Path

import git
from click.testing import CliRunner
from vendor_builders import Scenario

from plait.cli import cli


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _autocrlf_clone(scenario: Scenario, dest: Path, *, attributes: bool = False) -> git.Repo:
    assert _run("--workspace", str(scenario.root), "vendor", "svc").exit_code == 0
    if attributes:
        (scenario.root / ".gitattributes").write_text("*.py text eol=crlf\n")
    scenario.commit("vendor corelib into svc")
    clone = git.Repo.clone_from(str(scenario.root), dest, no_checkout=True)
    with clone.config_writer() as config:
        config.set_value("core", "autocrlf", "true")
    clone.git.reset("--hard")  # the checkout, converted as the config says
    return clone


def test_check_is_clean_in_an_autocrlf_checkout_whose_git_status_is_clean(scenario: Scenario, tmp_path: Path) -> None:
    clone = _autocrlf_clone(scenario, tmp_path / "crlf")
    vendored = tmp_path / "crlf" / "consumers" / "svc" / "svc" / "_vendor" / "corelib"
    assert b"\r\n" in (vendored / "client.py").read_bytes(), "git converted the checkout"
    assert clone.git.status("--porcelain") == ""

    check = _run("--workspace", str(tmp_path / "crlf"), "check", "svc")
    assert check.exit_code == 0, check.output
    locks = _run("check", "--locks", str(tmp_path / "crlf" / "consumers"))
    assert locks.exit_code == 0, locks.output


def test_an_eol_attribute_is_applied_as_git_applies_it(scenario: Scenario, tmp_path: Path) -> None:
    _autocrlf_clone(scenario, tmp_path / "crlf", attributes=True)
    vendored = tmp_path / "crlf" / "consumers" / "svc" / "svc" / "_vendor" / "corelib"
    assert b"\r\n" in (vendored / "client.py").read_bytes()
    assert _run("--workspace", str(tmp_path / "crlf"), "check", "svc").exit_code == 0, "the eol rule is git's"

    # A real edit is still drift: the conversion hides line endings only.
    client = vendored / "client.py"
    client.write_bytes(client.read_bytes().replace(b"timeout = 5", b"timeout = 6"))
    check = _run("--workspace", str(tmp_path / "crlf"), "check", "svc")
    assert check.exit_code == 1 and "client.py" in check.output, check.output


def test_crlf_committed_as_crlf_is_still_an_edit_without_autocrlf(scenario: Scenario) -> None:
    assert _run("--workspace", str(scenario.root), "vendor", "svc").exit_code == 0
    scenario.commit("vendor corelib into svc")
    client = scenario.vendored() / "client.py"
    client.write_bytes(client.read_bytes().replace(b"\n", b"\r\n"))
    check = _run("--workspace", str(scenario.root), "check", "svc")
    assert check.exit_code == 1 and "client.py" in check.output, check.output
