"""Every command's help, read from the command itself, says what that command does.

Each command's one-line summary is written once (`plait.cli.COMMANDS`):
`plait --help` lists it and `plait <command> --help` opens with it.  So the
tests ask each command for its own help and look for a phrase only a correct
summary of that command would hold; a stale summary fails its command's test.
"""

from __future__ import annotations

import re
from importlib.metadata import version as dist_version

import pytest
from click.testing import CliRunner

from plait.cli import COMMANDS, cli

# What each command does, in words its summary must use.
PHRASES = {
    "merge": "three-way merge one python file; usable as a git merge driver",
    "merge-lock": "git's merge driver for locks",
    "status": "pending changes",
    "sync": "into its lineages, keeping what they add",
    "diff": "member by member",
    "init": "commented lineages.toml by reading the copies' code",
    "adopt": "never-synced lineage or a hand-vendored consumer",
    "vendor": "re-vendor consumers",
    "check": "vendored copies against their locks",
    "consumers": "ci matrix",
    "install-merge-driver": "make git merge vendored python files and locks",
    "probe": "embed one text",
    "conform": "conformance scenarios in every copy",
    # The demo runs the whole job, not only status, sync and diff.
    "demo": "status, sync, vendor, check, conform and diff",
}


def _help(*args: str, width: int = 200) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="plait", terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.output


def _summary(help_text: str) -> str:
    """The first paragraph after the usage line, on one line."""
    paragraph = help_text.split("\n\n")[1]
    return " ".join(paragraph.split())


def test_every_command_has_a_phrase_to_be_checked_against() -> None:
    assert sorted(PHRASES) == sorted(COMMANDS)


@pytest.mark.parametrize("name", list(PHRASES))
def test_a_commands_own_help_opens_with_what_it_does(name: str) -> None:
    own = _help(name)
    assert own.startswith(f"Usage: plait {name} ")
    assert PHRASES[name] in _summary(own).lower()


def _listed(name: str) -> str:
    """The summary `plait --help` lists for *name*, on one line."""
    listed = re.search(rf"^  {re.escape(name)}  +(.+?)(?=^  \S|\Z)", _help(), re.M | re.S)
    assert listed is not None, name
    return " ".join(listed.group(1).split())


@pytest.mark.parametrize("name", list(PHRASES))
def test_plait_help_lists_the_summary_each_command_opens_with(name: str) -> None:
    assert _listed(name) == _summary(_help(name))


def test_plait_help_says_the_demo_vendors_checks_and_conforms() -> None:
    # The listing once said "Show status, sync and diff": the demo also
    # re-vendors every consumer, checks it, and runs the conformance matrix.
    assert all(step in _listed("demo").lower() for step in ("vendor", "check", "conform"))


def test_merge_help_keeps_the_git_driver_line_whole() -> None:
    merge_help = _help("merge", width=60)
    assert "git config merge.plait.driver 'plait merge %O %A %B -L %L -P %P'" in merge_help


def test_version_is_the_package_version() -> None:
    result = CliRunner().invoke(cli, ["-V"])
    assert result.exit_code == 0 and dist_version("plait") in result.output
