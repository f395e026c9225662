"""The conformance matrix, copies × scenarios, for people, pipes, pull requests and CI servers.

Every rendering groups problems by tier, contract first, then safety, then
parity: a copy's broken promises must not drown in the ways it merely
differs from the canonical client.

- `plain_lines`: what a pipe gets, one line per problem (and per passing or
  skipped scenario), ``<copy>  <scenario>  <tier>  <problem>``, so
  ``plait conform | grep ' contract '`` shows every broken promise and
  ``plait conform | grep sibling`` everything about the sibling.
- `terminal_renderables`: a table (one row per scenario, one column per
  copy), then the problems under it, grouped by tier.
- `to_markdown`: the same matrix for a pull request or a job summary.
- `to_junit`: JUnit XML, one ``testsuite`` per copy and one ``testcase`` per
  scenario, so a CI server lists each contract or safety problem as a failed
  test; a scenario with only parity differences passes, with them in its
  ``system-out``.  The elements and attributes are those of the JUnit schema
  CI servers read (Jenkins' ``junit-10.xsd``, which GitLab and the GitHub
  reporters accept too); a test validates the output against it.
- The JSON document is `ConformReport.to_json` plus the command's envelope.

This module returns text and renderables, and writes nothing itself: the
command decides where they go, so the conformance package knows nothing of
the CLI.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TYPE_CHECKING

from .runner import ConformReport, CopyResult
from .verdicts import FAIL, PARITY, PASS, SKIP, Verdict
from .wire import TIERS, Status

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["copy_line", "empty_junit", "plain_lines", "summary_line", "terminal_renderables", "to_junit", "to_markdown"]

_MARK: dict[Status, str] = {PASS: "ok", FAIL: "FAILS", PARITY: "parity", SKIP: "-"}
_STYLE: dict[Status, str] = {PASS: "green", FAIL: "bold red", PARITY: "yellow", SKIP: "dim"}
_EMOJI: dict[Status, str] = {PASS: "✅", FAIL: "❌", PARITY: "🔶", SKIP: "➖"}


def _counts(copy: CopyResult) -> str:
    scenarios = (
        f"{copy.count(PASS)} pass, {copy.count(FAIL)} fail, {copy.count(PARITY)} parity, {copy.count(SKIP)} skip"
    )
    problems = ", ".join(f"{len(copy.problems(tier))} {tier}" for tier in TIERS)
    return f"{scenarios}; problems: {problems}"


def copy_line(copy: CopyResult) -> str:
    """One copy's verdict on one line: whether it conforms, its counts, and where it was imported from."""
    if copy.error is not None:
        return f"{copy.target.name}: ERROR {copy.error}"
    state = "conforms" if copy.conforms else ("stale, fails" if copy.stale else "fails")
    where = f"{copy.target.import_name} from {copy.target.package_dir}"
    return f"{copy.target.name}: {state} ({_counts(copy)}) in {copy.elapsed:.2f} s  [{where}]"


def summary_line(report: ConformReport) -> str:
    """One line for the end of a run: how many copies conform, and how long it took."""
    good = sum(copy.conforms for copy in report.copies)
    errors = sum(copy.error is not None for copy in report.copies)
    differing = sum(copy.conforms and copy.count(PARITY) > 0 for copy in report.copies)
    tail = f", {errors} could not run" if errors else ""
    if differing:
        tail += f", {differing} with parity differences" + (" (--strict: they fail)" if report.strict else "")
    return (
        f"{good} of {len(report.copies)} copies conform to {len(report.scenarios.scenarios)} scenarios"
        f"{tail} in {report.elapsed:.2f} s"
    )


def plain_lines(report: ConformReport) -> list[str]:
    """The report as a pipe gets it: each copy's problems by tier, its passes and skips, then the totals."""
    lines: list[str] = []
    for copy in report.copies:
        name = copy.target.name
        if copy.error is not None:
            lines.append(f"{name}  -  error  {copy.error}")
            continue
        lines += [f"{name}  {scenario}  {problem.tier}  {problem}" for scenario, problem in copy.problems()]
        for status in (PASS, SKIP):
            for scenario, verdict in copy.verdicts.items():
                if verdict.status == status:
                    lines.append(f"{name}  {scenario}  {status}" + (f"  {verdict.reason}" if verdict.reason else ""))
    lines += [copy_line(copy) for copy in report.copies]
    lines.append(summary_line(report))
    return lines


def terminal_renderables(report: ConformReport) -> list[RenderableType]:
    """The matrix as a coloured table, each copy's line, then the problems grouped by tier."""
    from rich.table import Table
    from rich.text import Text

    runnable = [copy for copy in report.copies if copy.error is None]
    # Coloured cells, which the plain table of the CLI does not carry: a
    # matrix is read by its colours first.
    table = Table(title="conformance", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    table.add_column("tier", no_wrap=True, style="dim")
    for copy in runnable:
        table.add_column(copy.target.name, no_wrap=True)
    for scenario in report.scenarios.scenarios:
        cells = [Text(scenario.name), Text(scenario.tier)]
        for copy in runnable:
            status = copy.verdicts[scenario.name].status if scenario.name in copy.verdicts else SKIP
            cells.append(Text(_MARK[status], style=_STYLE[status]))
        table.add_row(*cells)
    parts: list[RenderableType] = [table]
    for copy in report.copies:
        style = "bold red" if copy.error is not None else ("green" if copy.conforms else "yellow")
        parts.append(Text(copy_line(copy), style=style))
    for tier in TIERS:
        grouped = _grouped(runnable, tier)
        if grouped:
            parts.append(Text(f"{tier} problems:", style="bold red" if tier != "parity" else "bold yellow"))
        parts += [Text(f"  {line}") for line in grouped]
    parts.append(Text(summary_line(report), style="bold"))
    return parts


def _grouped(copies: list[CopyResult], tier: str) -> list[str]:
    """``copy: scenario → problem`` lines of *tier*, one per problem text, its scenarios gathered."""
    lines: list[str] = []
    for copy in copies:
        scenarios: dict[str, list[str]] = defaultdict(list)
        for name, problem in copy.problems():
            if problem.tier == tier:
                scenarios[problem.text].append(name)
        for text, names in scenarios.items():
            where = names[0] if len(names) == 1 else f"{len(names)} scenarios ({', '.join(names)})"
            lines.append(f"{copy.target.name}: {where} → {text}")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: ConformReport) -> str:
    """The matrix as a markdown table, the counts per copy, then every problem by tier and every error."""
    runnable = [copy for copy in report.copies if copy.error is None]
    lines = [f"## plait conform: {summary_line(report)}", ""]
    lines.append("| scenario | tier | " + " | ".join(f"`{c.target.name}`" for c in runnable) + " |")
    lines.append("|---|---|" + "---|" * len(runnable))
    for scenario in report.scenarios.scenarios:
        marks = [_EMOJI[c.verdicts[scenario.name].status] if scenario.name in c.verdicts else "" for c in runnable]
        lines.append(f"| `{scenario.name}` | {scenario.tier} | " + " | ".join(marks) + " |")
    lines += ["", "| copy | conforms | contract | safety | parity | skipped |", "|---|---|---|---|---|---|"]
    for copy in runnable:
        counts = " | ".join(str(len(copy.problems(tier))) for tier in TIERS)
        verdict = "yes" if copy.conforms else "**no**"
        lines.append(f"| `{copy.target.name}` | {verdict} | {counts} | {copy.count(SKIP)} |")
    for tier in TIERS:
        grouped = report.problems(tier)
        if grouped:
            lines += ["", f"### {tier.capitalize()}", ""]
            lines += [f"- {_cell(line)}" for line in grouped]
    errors = report.errors()
    if errors:
        lines += ["", "### Errors", ""]
        lines += [f"- {_cell(line)}" for line in errors]
    lines += [
        "",
        f"{_EMOJI[PASS]} conforms · {_EMOJI[FAIL]} breaks the contract or its safety · "
        f"{_EMOJI[PARITY]} conforms, differs from the canonical · {_EMOJI[SKIP]} not applicable to that copy",
        "",
    ]
    return "\n".join(lines)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _testcase(suite: ET.Element, classname: str, name: str, verdict: Verdict, counts: dict[str, int]) -> None:
    """One scenario: skipped, a failure (contract or safety), or passed with its parity differences as output."""
    case = ET.SubElement(suite, "testcase", name=name, classname=classname, time=_seconds(_time_of(verdict)))
    listed = "\n".join(f"[{problem.tier}] {problem}" for problem in verdict.problems)
    if verdict.status == SKIP:
        ET.SubElement(case, "skipped", message=verdict.reason or "not applicable")
        counts["skipped"] += 1
    elif verdict.status == FAIL:
        first = next(problem for problem in verdict.problems if problem.tier != "parity")
        failure = ET.SubElement(case, "failure", message=first.text, type=first.tier)
        failure.text = listed
        counts["failures"] += 1
    elif verdict.status == PARITY:
        ET.SubElement(case, "system-out").text = listed


def to_junit(report: ConformReport) -> str:
    """JUnit XML: a testsuite per copy, a testcase per scenario (failure, error, skipped or passed)."""
    root = ET.Element("testsuites", name="plait conform", time=_seconds(report.elapsed))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for copy in report.copies:
        suite = ET.SubElement(root, "testsuite", name=copy.target.name)
        properties = ET.SubElement(suite, "properties")
        for key, value in (
            ("kind", copy.target.kind),
            ("import_name", copy.target.import_name),
            ("path", str(copy.target.package_dir)),
        ):
            ET.SubElement(properties, "property", name=key, value=value)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        classname = f"plait.conform.{copy.target.name}"
        if copy.error is not None:
            case = ET.SubElement(suite, "testcase", name="import", classname=classname, time="0.000")
            error = ET.SubElement(case, "error", message=copy.error, type="CopyError")
            error.text = copy.error
            counts["tests"] += 1
            counts["errors"] += 1
        for name, verdict in copy.verdicts.items():
            counts["tests"] += 1
            _testcase(suite, classname, name, verdict, counts)
        for key, count in counts.items():
            suite.set(key, str(count))
        suite.set("time", _seconds(copy.elapsed))
        for key in totals:
            totals[key] += counts[key]
    for key, total in totals.items():
        root.set(key, str(total))
    return _xml(root)


def empty_junit() -> str:
    """A JUnit document with no test: what a CI step gets where there was nothing to check."""
    return _xml(ET.Element("testsuites", name="plait conform", time=_seconds(0), tests="0", failures="0", errors="0"))


def _xml(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _time_of(verdict: Verdict) -> float:
    return float(sum(call.get("elapsed", 0.0) for call in verdict.observed.get("calls", [])))
