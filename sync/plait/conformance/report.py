"""The conformance matrix, copies × scenarios, for people, pipes, pull requests and CI servers.

- `render_text`: in a terminal a table (one row per scenario, one column per
  copy) and the divergences grouped under it; in a pipe one line per copy
  and scenario, every problem in full, so ``plait conform | grep sibling``
  shows everything about the sibling.
- `to_markdown`: the same matrix for a pull request or a job summary.
- `to_junit`: JUnit XML, one ``testsuite`` per copy and one ``testcase`` per
  scenario, so a CI server lists each divergence as a failed test.  The
  elements and attributes are those of the JUnit schema CI servers read
  (Jenkins' ``junit-10.xsd``, which GitLab and the GitHub reporters accept
  too); a test validates the output against it.
- The JSON document is `ConformReport.to_json` plus the command's envelope.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TYPE_CHECKING

from .runner import ConformReport, CopyResult
from .verdicts import DIVERGE, PASS, SKIP, Verdict

if TYPE_CHECKING:
    from ..cli.output import Output

__all__ = ["render_text", "summary_line", "to_junit", "to_markdown"]

_MARK = {PASS: "ok", DIVERGE: "DIVERGES", SKIP: "-"}
_STYLE = {PASS: "green", DIVERGE: "bold red", SKIP: "dim"}
_EMOJI = {PASS: "✅", DIVERGE: "❌", SKIP: "➖"}


def copy_line(copy: CopyResult) -> str:
    """One copy's verdict on one line: whether it conforms, its counts, and where it was imported from."""
    if copy.error is not None:
        return f"{copy.target.name}: ERROR {copy.error}"
    state = "conforms" if copy.conforms else ("stale, diverges" if copy.stale else "diverges")
    counts = f"{copy.count(PASS)} pass, {copy.count(DIVERGE)} diverge, {copy.count(SKIP)} skip"
    where = f"{copy.target.import_name} from {copy.target.package_dir}"
    return f"{copy.target.name}: {state} ({counts}) in {copy.elapsed:.2f} s  [{where}]"


def summary_line(report: ConformReport) -> str:
    """One line for the end of a run: how many copies conform, and how long it took."""
    good = sum(copy.conforms for copy in report.copies)
    errors = sum(copy.error is not None for copy in report.copies)
    tail = f", {errors} could not run" if errors else ""
    return (
        f"{good} of {len(report.copies)} copies conform to {len(report.scenarios.scenarios)} scenarios"
        f"{tail} in {report.elapsed:.2f} s"
    )


def render_text(report: ConformReport, out: Output) -> None:
    """The matrix in a terminal, or plain lines in a pipe (see the module docstring)."""
    if out.out.is_terminal:
        _render_terminal(report, out)
    else:
        _render_plain(report, out)


def _render_plain(report: ConformReport, out: Output) -> None:
    for copy in report.copies:
        if copy.error is not None:
            out.line(f"{copy.target.name}  -  error  {copy.error}")
            continue
        for name, verdict in copy.verdicts.items():
            if verdict.status == PASS:
                out.line(f"{copy.target.name}  {name}  pass")
            elif verdict.status == SKIP:
                out.line(f"{copy.target.name}  {name}  skip  {'; '.join(verdict.problems)}")
            else:
                for problem in verdict.problems:
                    out.line(f"{copy.target.name}  {name}  diverge  {problem}")
    for copy in report.copies:
        out.line(copy_line(copy))
    out.line(summary_line(report))


def _render_terminal(report: ConformReport, out: Output) -> None:
    from rich.table import Table
    from rich.text import Text

    runnable = [copy for copy in report.copies if copy.error is None]
    # Coloured cells, which the plain table of cli.output does not carry: a
    # matrix is read by its colours first.
    table = Table(title="conformance", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    for copy in runnable:
        table.add_column(copy.target.name, no_wrap=True)
    for scenario in report.scenarios.scenarios:
        cells = [Text(scenario.name)]
        for copy in runnable:
            status = copy.verdicts[scenario.name].status if scenario.name in copy.verdicts else SKIP
            cells.append(Text(_MARK[status], style=_STYLE[status]))
        table.add_row(*cells)
    out.out.print(table)
    for copy in report.copies:
        style = "bold red" if copy.error is not None else ("green" if copy.conforms else "yellow")
        out.line(copy_line(copy), style)
    for copy in runnable:
        grouped: dict[str, list[str]] = defaultdict(list)
        for name, verdict in copy.verdicts.items():
            if verdict.status == DIVERGE:
                for problem in verdict.problems:
                    grouped[problem].append(name)
        if grouped:
            out.line(f"{copy.target.name} diverges:", "bold")
        for problem, names in grouped.items():
            where = names[0] if len(names) == 1 else f"{len(names)} scenarios ({', '.join(names)})"
            out.line(f"  {where} → {problem}")
    out.line(summary_line(report), "bold")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: ConformReport) -> str:
    """The matrix as a markdown table, then every divergence and error as a list."""
    runnable = [copy for copy in report.copies if copy.error is None]
    lines = [f"## plait conform: {summary_line(report)}", ""]
    lines.append("| scenario | " + " | ".join(f"`{c.target.name}`" for c in runnable) + " |")
    lines.append("|---|" + "---|" * len(runnable))
    for scenario in report.scenarios.scenarios:
        marks = [_EMOJI[c.verdicts[scenario.name].status] if scenario.name in c.verdicts else "" for c in runnable]
        lines.append(f"| `{scenario.name}` | " + " | ".join(marks) + " |")
    divergences = report.divergences()
    if divergences:
        lines += ["", "### Divergences", ""]
        lines += [f"- {_cell(line)}" for line in divergences]
    errors = report.errors()
    if errors:
        lines += ["", "### Errors", ""]
        lines += [f"- {_cell(line)}" for line in errors]
    lines += [
        "",
        f"{_EMOJI[PASS]} conforms · {_EMOJI[DIVERGE]} diverges · {_EMOJI[SKIP]} not applicable to that copy",
        "",
    ]
    return "\n".join(lines)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def to_junit(report: ConformReport) -> str:
    """JUnit XML: a testsuite per copy, a testcase per scenario (failure, error or skipped)."""
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
            case = ET.SubElement(suite, "testcase", name=name, classname=classname, time=_seconds(_time_of(verdict)))
            if verdict.status == SKIP:
                ET.SubElement(case, "skipped", message="; ".join(verdict.problems))
                counts["skipped"] += 1
            elif verdict.status == DIVERGE:
                failure = ET.SubElement(case, "failure", message=verdict.problems[0], type="Divergence")
                failure.text = "\n".join(verdict.problems)
                counts["failures"] += 1
        for key, count in counts.items():
            suite.set(key, str(count))
        suite.set("time", _seconds(copy.elapsed))
        for key in totals:
            totals[key] += counts[key]
    for key, total in totals.items():
        root.set(key, str(total))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _time_of(verdict: Verdict) -> float:
    return float(sum(call.get("elapsed", 0.0) for call in verdict.observed.get("calls", [])))
