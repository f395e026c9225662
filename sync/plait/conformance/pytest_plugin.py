"""The conformance scenarios inside a consumer's own test run, with one line of configuration.

plait registers this module as a pytest plugin (the ``pytest11`` entry
point), so a service that has plait among its test dependencies only names
its vendored copy::

    [tool.pytest.ini_options]
    plait_conform = ["cpersona/_vendored_mcp_common/embedding_client"]

Every scenario then becomes a test item, ``plait-conform::<scenario>[<copy>]``,
that fails with its contract or safety problems in plain words, passes, or
is skipped where the copy lacks what the scenario needs, or where a module
it imports is not installed in the test environment (the skip names the
module and the command that installs it).  A scenario where
the copy only differs from the canonical client (parity: an exception's
name, logging, a detail's wording) passes with a note: the differences are
in the item's report section, its JUnit properties, and a summary at the end
of the run (``--plait-conform-strict`` fails them instead).  The copies run
as ``plait conform`` runs them (each in its own process, against real
loopback servers) and are compared with the canonical client installed
with plait.  A copy is a package directory or a module file.

Without the setting the plugin does nothing.  The items carry the
``plait_conform`` marker (``-m "not plait_conform"`` leaves them out), and
are not added when the command line picks single tests (``file::test``).
``--plait-conform DIR`` adds a copy from the command line;
``--plait-conform-scenario GLOB`` runs only some scenarios.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .environment import install_hint

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr
    from _pytest.terminal import TerminalReporter

    from .runner import ConformReport

__all__ = ["ConformanceItem", "ConformanceSuite"]

_INI = "plait_conform"
_MARKER = "plait_conform"
_REPORT = pytest.StashKey["ConformReport"]()
# The parity notes of the items that passed with them, for the summary at the end.
_NOTES = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        _INI,
        type="paths",
        default=[],
        help="vendored copies of the embedding client (package directories or module files) to hold to plait's"
        " conformance scenarios",
    )
    group = parser.getgroup("plait-conform", "plait conformance scenarios")
    group.addoption("--plait-conform", action="append", default=[], metavar="DIR", help="another copy to run")
    group.addoption(
        "--plait-conform-scenario", action="append", default=[], metavar="GLOB", help="only scenarios matching GLOB"
    )
    group.addoption(
        "--plait-conform-strict",
        action="store_true",
        default=False,
        help="fail on parity differences from the canonical client too",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{_MARKER}: a plait conformance scenario run on a vendored copy")


def pytest_terminal_summary(terminalreporter: TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """The parity differences of the scenarios that passed: not failures, but worth a look."""
    notes = config.stash.get(_NOTES, [])
    if notes:
        terminalreporter.section("plait conform: parity differences (they pass; --plait-conform-strict fails them)")
        for line in notes:
            terminalreporter.line(line)


def _copies(config: pytest.Config) -> list[Path]:
    configured = [Path(p) for p in config.getini(_INI)]
    given = [Path(p).resolve() for p in config.getoption("plait_conform")]
    return configured + given


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: our items are in the list before -k and -m deselect.
    copies = _copies(config)
    if not copies or any("::" in arg for arg in config.args):
        return
    suite = ConformanceSuite.from_parent(session, name="plait-conform", nodeid="plait-conform")
    suite.copies = copies
    items.extend(suite.collect())


def _run(config: pytest.Config, copies: list[Path]) -> ConformReport:
    """The matrix, run once per session, on the first item that needs it."""
    if _REPORT not in config.stash:
        from .runner import conform
        from .scenarios import load_scenarios
        from .targets import installed_canonical, path_target

        scenarios = load_scenarios().named(config.getoption("plait_conform_scenario"))
        targets = [installed_canonical(), *(path_target(copy, name=_name(config, copy)) for copy in copies)]
        config.stash[_REPORT] = conform(targets, scenarios)
    return config.stash[_REPORT]


def _name(config: pytest.Config, copy: Path) -> str:
    try:
        return copy.relative_to(config.rootpath).as_posix()
    except ValueError:
        return str(copy)


class ConformanceSuite(pytest.Collector):
    """Every scenario for every configured copy."""

    copies: list[Path]

    def collect(self) -> Iterator[pytest.Item]:
        from .scenarios import load_scenarios

        scenarios = load_scenarios().named(self.config.getoption("plait_conform_scenario"))
        for copy in self.copies:
            for scenario in scenarios.scenarios:
                item = ConformanceItem.from_parent(self, name=f"{scenario.name}[{_name(self.config, copy)}]")
                item.copy, item.scenario = copy, scenario.name
                item.add_marker(_MARKER)
                yield item


class ConformanceFailure(Exception):
    """A copy with a contract or safety problem on one scenario (or any, under strict); one line per problem."""


class ConformanceItem(pytest.Item):
    """One scenario on one copy."""

    copy: Path
    scenario: str

    def runtest(self) -> None:
        parent = self.parent
        assert isinstance(parent, ConformanceSuite)
        report = _run(self.config, parent.copies)
        name = _name(self.config, self.copy)
        reference = report.copies[0]
        if reference.error is not None:
            raise ConformanceFailure(f"the canonical client installed with plait could not run: {reference.error}")
        copy = next(c for c in report.copies if c.target.name == name)
        if copy.error is not None:
            raise ConformanceFailure(next(line for line in report.errors() if line.startswith(f"{name}: ")))
        verdict = copy.verdicts[self.scenario]
        if verdict.unchecked:
            # A module the copy imports is not installed in this test environment: its gap, not the copy's.
            pytest.skip(f"{verdict.reason} ({install_hint(copy.missing, sys.executable)})")
        if verdict.status == "skip":
            pytest.skip(verdict.reason or "not applicable")
        lines = [f"{name}: {self.scenario} → [{p.tier}] {p}" for p in verdict.problems]
        if verdict.status == "fail" or (lines and self.config.getoption("plait_conform_strict")):
            raise ConformanceFailure("\n".join(lines))
        if lines:
            note = "\n".join(lines)
            self.add_report_section("call", "plait conform parity", note)
            self.user_properties.append(("plait_conform_parity", note))
            self.config.stash.setdefault(_NOTES, []).extend(lines)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: str | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ConformanceFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.copy, None, f"plait conform: {self.scenario} on {_name(self.config, self.copy)}"
