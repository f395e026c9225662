"""The conformance matrix, copies × scenarios, for people, pipes, pull requests and CI servers.

A person needs four facts of a run: how each copy stands beside the
canonical client, what needs them, and what to run next.  So by default a
report is a summary, the way ``git merge`` and cargo end a run:

- `copy_line`: one verdict per copy, its headline parity with the
  canonical, ``cpersona behaves like canonical on 68/68``, then what keeps
  it from that (``2 fail (contract)``, ``5 not applicable``);
- `attention_lines`: only what needs attention, each problem once per copy
  with the scenarios it showed in (not a line per scenario), contract
  first, then safety, then the environment (parity too under ``--strict``
  or when the contract does not apply);
- `summary_line`, then `next_line`: the command to run, when something failed.

`summary` is those lines in order, with their styles.  The detail is behind
``--verbose``:

- `plain_lines`: what a pipe gets, one line per problem (and per passing or
  skipped scenario), ``<copy>  <scenario>  <tier>  <problem>``, so
  ``plait conform -v | grep ' contract '`` shows every broken promise.
- `terminal_renderables`: a table (one row per scenario, one column per
  copy), then the problems under it, grouped by tier.

And for machines and reviewers:

- `to_markdown`: a table with a row per copy (its verdict, its parity with
  the canonical, its problems per tier), what needs attention and the next
  command, for a CI job summary or a pull request's body; the matrix too
  with ``verbose``.
- `to_junit`: JUnit XML, one ``testsuite`` per copy and one ``testcase`` per
  scenario, so a CI server lists each contract or safety problem as a failed
  test; a scenario with only parity differences passes, with them in its
  ``system-out``; one a missing module kept from running is skipped, saying
  which.  The elements and attributes are those of the JUnit schema CI
  servers read (Jenkins' ``junit-10.xsd``, which GitLab and the GitHub
  reporters accept too); a test validates the output against it.
- The JSON document is `ConformReport.to_json` plus the command's envelope.

This module returns text and renderables, and writes nothing itself: the
command decides where they go, so the conformance package knows nothing of
the CLI.
"""

from __future__ import annotations

import shlex
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..names import one_line
from .environment import install_hint
from .runner import ConformReport, CopyResult
from .verdicts import FAIL, FAILING, PARITY, PASS, SKIP, Verdict
from .wire import TIERS, Status, Tier

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = [
    "NO_CONTRACT",
    "Line",
    "attention_lines",
    "contract_line",
    "copy_line",
    "detail_line",
    "empty_junit",
    "next_line",
    "plain_lines",
    "rerun_lines",
    "summary",
    "summary_line",
    "terminal_renderables",
    "to_junit",
    "to_markdown",
    "verdict_word",
]

#: A line of text and its style in a terminal (``None``: plain).
Line = tuple[str, str | None]

NO_CONTRACT = "the outcome contract does not apply: canonical has no embed_with_outcome"

_MARK: dict[Status, str] = {PASS: "ok", FAIL: "FAILS", PARITY: "parity", SKIP: "-"}
_STYLE: dict[Status, str] = {PASS: "green", FAIL: "bold red", PARITY: "yellow", SKIP: "dim"}
_EMOJI: dict[Status, str] = {PASS: "✅", FAIL: "❌", PARITY: "🔶", SKIP: "➖"}
_UNCHECKED_MARK, _UNCHECKED_EMOJI = "env", "⚠️"
_TIER_STYLE: dict[str, str] = {
    "contract": "bold red",
    "safety": "bold red",
    "parity": "yellow",
    "environment": "yellow",
}
# How many scenario names a grouped problem shows before it counts the rest.
_NAMED = 3


# -- one copy ----------------------------------------------------------------------------------


def _stale(copy: CopyResult) -> bool:
    """It lacks embed_with_outcome where the contract applies: its failures are all that one."""
    return any(problem.field == "embed_with_outcome" for _, problem in copy.problems("contract"))


def _unchecked(copy: CopyResult) -> int:
    return sum(verdict.unchecked for verdict in copy.verdicts.values())


def _failing_tiers(copy: CopyResult) -> str:
    return ", ".join(tier for tier in TIERS if tier in FAILING and copy.problems(tier))


def _tail(copy: CopyResult) -> list[str]:
    """What keeps a copy from behaving like the canonical everywhere, as counts of scenarios."""
    parts = ["stale: no embed_with_outcome"] if _stale(copy) else []
    fails = copy.count(FAIL)
    if fails:
        parts.append(f"{fails} fail ({_failing_tiers(copy)})")
    if copy.count(PARITY):
        parts.append(f"{copy.count(PARITY)} differ (parity)")
    unchecked = _unchecked(copy)
    if unchecked:
        parts.append(f"{unchecked} not checked here (needs {', '.join(copy.missing)})")
    if copy.standings:
        if copy.standing("not_applicable"):
            parts.append(f"{copy.standing('not_applicable')} not applicable")
        if copy.standing("canonical_skips"):
            parts.append(f"{copy.standing('canonical_skips')} the canonical does not run")
        if copy.standing("canonical_fails"):
            parts.append(f"{copy.standing('canonical_fails')} where the canonical itself has a problem")
    elif copy.count(SKIP) - unchecked:
        parts.append(f"{copy.count(SKIP) - unchecked} not applicable")
    return parts


def copy_line(copy: CopyResult) -> str:
    """One copy's verdict on one line, its headline how often it behaves like the canonical client.

    ``cpersona behaves like canonical on 68/68``; ``upstream behaves like
    canonical on 66/68: 2 fail (contract)``; the reference says what it
    passed itself; a copy that could not run says why.
    """
    name = copy.target.name
    if copy.error is not None:
        if copy.absent is not None:
            return f"{name} could not be checked here: it needs {copy.absent}, which is not installed where plait runs"
        return f"{name} could not run: {copy.error}"
    total = len(copy.verdicts)
    like = copy.like_canonical()
    parts = _tail(copy)
    if copy.reference and copy.stale:
        head = f"{name} is the reference, without embed_with_outcome: {copy.count(PASS)}/{total} ran"
        return head + "".join(f", {part}" for part in parts)
    if like is not None:
        return f"{name} behaves like canonical on {like['alike']}/{total}" + (": " + ", ".join(parts) if parts else "")
    if copy.reference:
        head = f"{name} is the reference: {copy.count(PASS)}/{total} pass"
    else:
        head = f"{name}: {copy.count(PASS)}/{total} pass (no canonical client to compare with)"
    return head + "".join(f", {part}" for part in parts)


def detail_line(copy: CopyResult) -> str:
    """One copy's counts, time and where it was imported from: the verbose report's line per copy."""
    if copy.error is not None:
        return f"{copy.target.name}: ERROR {copy.error}"
    state = "conforms" if copy.conforms else ("stale, fails" if copy.stale else "fails")
    scenarios = (
        f"{copy.count(PASS)} pass, {copy.count(FAIL)} fail, {copy.count(PARITY)} parity, {copy.count(SKIP)} skip"
    )
    problems = ", ".join(f"{len(copy.problems(tier))} {tier}" for tier in TIERS)
    where = f"{copy.target.import_name} from {copy.target.package_dir}"
    return f"{copy.target.name}: {state} ({scenarios}; problems: {problems}) in {copy.elapsed:.2f} s  [{where}]"


def verdict_word(copy: CopyResult, report: ConformReport) -> str:
    """A copy's verdict in a few words, for a table cell."""
    if copy.error is not None:
        return f"not checked here (needs {copy.absent})" if copy.absent else "could not run"
    if not copy.passes(report.strict):
        return "fails: stale" if _stale(copy) else "fails"
    if copy.reference:
        return "reference"
    word = "conforms" if report.contract_applies else "alike"
    if copy.count(PARITY):
        word = "conforms, differs" if report.contract_applies else "differs"
    return word + (f", {_unchecked(copy)} not checked here" if _unchecked(copy) else "")


def _style(copy: CopyResult, report: ConformReport) -> str:
    if copy.error is not None or not copy.passes(report.strict):
        return "bold red"
    return "yellow" if copy.count(PARITY) or _unchecked(copy) else "green"


# -- the run -----------------------------------------------------------------------------------


def contract_line(report: ConformReport) -> str | None:
    """Why no outcome was held to any copy, when the canonical client predates the contract."""
    return None if report.contract_applies else NO_CONTRACT


def summary_line(report: ConformReport) -> str:
    """One line for the end of a run: how many copies conform, and how long it took."""
    good = sum(copy.conforms for copy in report.copies)
    errors = sum(copy.error is not None for copy in report.copies)
    differing = sum(copy.conforms and copy.count(PARITY) > 0 for copy in report.copies)
    tail = f", {errors} could not run" if errors else ""
    if differing:
        tail += f", {differing} with parity differences" + (" (--strict: they fail)" if report.strict else "")
    unchecked = sum(_unchecked(copy) > 0 for copy in report.copies)
    if unchecked:
        tail += f", {unchecked} not fully checked here"
    scenarios = len(report.scenarios.scenarios)
    if not report.contract_applies:
        others = [copy for copy in report.copies if not copy.reference]
        alike = sum(copy.error is None and copy.standing("alike") == len(copy.verdicts) for copy in others)
        missed = f", {errors} could not run" if errors else ""
        return (
            f"{alike} of {len(others)} copies behave like canonical on every one of {scenarios} scenarios"
            f" (the outcome contract does not apply){missed} in {report.elapsed:.2f} s"
        )
    return f"{good} of {len(report.copies)} copies conform to {scenarios} scenarios{tail} in {report.elapsed:.2f} s"


def _tiers_shown(report: ConformReport) -> tuple[Tier, ...]:
    """The tiers that need attention: parity only when it fails the run, or is all that is checked."""
    parity = report.strict or not report.contract_applies
    return tuple(tier for tier in TIERS if tier != "parity" or parity)


def _where(names: list[str]) -> str:
    if len(names) <= _NAMED:
        return ", ".join(names)
    return f"{len(names)} scenarios: {', '.join(names[:_NAMED])} and {len(names) - _NAMED} more"


def _groups(copy: CopyResult, tier: Tier, *, exact: bool = False) -> dict[str, list[str]]:
    """Problem → the scenarios it showed in, for one copy and tier, in the order found.

    A problem is its gist, so that one measured differently in each scenario
    is said once; *exact*: its full text (what it measured) instead.
    """
    grouped: dict[str, list[str]] = defaultdict(list)
    for scenario, problem in copy.problems(tier):
        said = problem.text if exact else problem.headline
        if scenario not in grouped[said]:
            grouped[said].append(scenario)
    return grouped


@dataclass(frozen=True)
class _Attention:
    """One thing that needs a person: a copy, the tier (``error`` for a copy that could not run), what, where."""

    copy: str
    tier: str
    text: str
    scenarios: str = ""

    @property
    def style(self) -> str:
        return _TIER_STYLE.get(self.tier, "bold red")

    def plain(self) -> str:
        return f"{self.copy}  {self.tier}  {self.text}" + (f"  ({self.scenarios})" if self.scenarios else "")

    def markdown(self) -> str:
        where = f" ({self.scenarios})" if self.scenarios else ""
        return f"- `{self.copy}` **{self.tier}**: {_cell(self.text + where)}"


def _attention(report: ConformReport) -> list[_Attention]:
    found: list[_Attention] = []
    for copy in report.copies:
        name = copy.target.name
        if copy.absent is not None:
            found.append(_Attention(name, "environment", f"needs {copy.absent}, not installed where plait runs"))
        elif copy.error is not None:
            found.append(_Attention(name, "error", copy.error))
        else:
            found += [
                _Attention(name, tier, text, _where(names))
                for tier in _tiers_shown(report)
                for text, names in _groups(copy, tier).items()
            ]
    return found


def attention_lines(report: ConformReport) -> list[str]:
    """What needs attention, one line per copy and problem: ``<copy>  <tier>  <problem>  (<scenarios>)``."""
    return [item.plain() for item in _attention(report)]


def _rerun_outcome(verdict: Verdict, *, exact: bool = False) -> str:
    if verdict.status == FAIL:
        first = next(problem for problem in verdict.problems if problem.tier in FAILING)
        return f"fails again: {first.text if exact else first.headline}"
    if verdict.status == PARITY:
        first = verdict.problems[0]
        return f"differs again (parity): {first.text if exact else first.headline}"
    return "passes"


def _rerun_text(verdict: Verdict, *, shown: int | None = 1, digits: int = 2) -> str:
    """What the first run said, both times, and what the rerun said (*shown*: how many first problems,
    each as its gist; ``None``: all, as measured)."""
    assert verdict.rerun is not None
    rerun = verdict.rerun
    first = rerun.first
    # What would have failed the run first: the contract and safety problems, then the rest.
    problems = first.of(*sorted(FAILING)) + [p for p in first.problems if p.tier not in FAILING]
    said = "; ".join(problem.headline if shown is not None else problem.text for problem in problems[:shown])
    if shown is not None and len(problems) > shown:
        said += f" and {len(problems) - shown} more"
    if not problems:  # the reference, rerun because a copy differed from what its late calls did
        said = "a copy differed from it, and its calls ended late"
    times = f"in {rerun.first_seconds:.{digits}f} s; alone in {rerun.seconds:.{digits}f} s"
    return f"{said} {times}: {_rerun_outcome(verdict, exact=shown is None)}"


def rerun_lines(report: ConformReport) -> list[str]:
    """One line per verdict that needed a rerun to be confirmed, with both times and what the rerun said:
    ``sibling  rerun  uds-drip-body: took longer than its 2 s ceiling in 2.40 s; alone in 1.02 s: passes``."""
    return [
        f"{copy.target.name}  rerun  {scenario}: {_rerun_text(verdict)}"
        for copy in report.copies
        for scenario, verdict in copy.verdicts.items()
        if verdict.rerun is not None
    ]


def _selector(copy: CopyResult, report: ConformReport) -> str:
    """How ``plait conform`` names *copy* on its command line."""
    name = copy.target.name
    if copy.target.kind == "path":
        return f"--path {shlex.quote(name)}"
    if copy.target.kind == "import":
        where = report.inputs.get("from")
        return f"--import {shlex.quote(name)}" + (f" --from {shlex.quote(str(where))}" if where else "")
    return shlex.quote(name)


def next_line(report: ConformReport) -> str | None:
    """``next: <command>; ...``: what to run when something failed or could not be checked, else ``None``."""
    steps: list[str] = []
    stale = [copy for copy in report.copies if copy.error is None and _stale(copy)]
    for kind, command in (("lineage", "plait sync"), ("consumer", "plait vendor")):
        names = [shlex.quote(copy.target.name) for copy in stale if copy.target.kind == kind]
        if names:
            steps.append(f"{command} {' '.join(names)} (brings embed_with_outcome)")
    steps += [
        f"re-vendor {copy.target.name} from the canonical client (it lacks embed_with_outcome)"
        for copy in stale
        if copy.target.kind not in ("lineage", "consumer")
    ]
    missing = sorted({module for copy in report.copies for module in copy.missing})
    if missing:
        steps.append(
            f"{install_hint(missing, sys.executable)}, or run plait conform where the copies' own dependencies are"
        )
    failing = [
        copy for copy in report.copies if copy not in stale and copy.error is None and not copy.passes(report.strict)
    ]
    if failing:
        steps.append(f"plait conform {' '.join(_selector(c, report) for c in failing)} --verbose shows each scenario")
    broken = [copy for copy in report.copies if copy.error is not None and copy.absent is None]
    if broken:
        listed = ", ".join(copy.target.name for copy in broken)
        steps.append(f"make {listed} importable (the error above says why), then rerun plait conform")
    return f"next: {'; '.join(steps)}" if steps else None


def summary(report: ConformReport, *, quiet: bool = False) -> list[Line]:
    """The default report: the contract note, a verdict per copy, what needs attention, the totals, next.

    *quiet*: only what needs attention and the next command.
    """
    lines: list[Line] = []
    note = contract_line(report)
    if not quiet:
        if note is not None:
            lines.append((note, "bold"))
        lines += [(copy_line(copy), _style(copy, report)) for copy in report.copies]
    lines += [(item.plain(), item.style) for item in _attention(report)]
    lines += [(line, "yellow") for line in rerun_lines(report)]
    if not quiet:
        lines.append((summary_line(report), "bold"))
    step = next_line(report)
    if step is not None:
        lines.append((step, "bold"))
    return lines


# -- the detail (--verbose) --------------------------------------------------------------------


def plain_lines(report: ConformReport) -> list[str]:
    """The report as a pipe gets it with --verbose: each copy's problems by tier, its passes and skips,
    then the line of each copy and the totals."""
    lines: list[str] = []
    note = contract_line(report)
    if note is not None:
        lines.append(note)
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
    lines += rerun_lines(report)
    lines += [detail_line(copy) for copy in report.copies]
    lines += [copy_line(copy) for copy in report.copies]
    lines.append(summary_line(report))
    step = next_line(report)
    if step is not None:
        lines.append(step)
    return lines


def _mark(verdict: Verdict | None) -> tuple[str, str, str]:
    """(word, style, emoji) of one cell of the matrix."""
    if verdict is None:
        return _MARK[SKIP], _STYLE[SKIP], ""
    if verdict.unchecked:
        return _UNCHECKED_MARK, "yellow", _UNCHECKED_EMOJI
    return _MARK[verdict.status], _STYLE[verdict.status], _EMOJI[verdict.status]


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
            word, style, _emoji = _mark(copy.verdicts.get(scenario.name))
            cells.append(Text(word, style=style))
        table.add_row(*cells)
    parts: list[RenderableType] = [table]
    note = contract_line(report)
    if note is not None:
        parts.append(Text(note, style="bold"))
    for copy in report.copies:
        parts.append(Text(detail_line(copy), style=_style(copy, report)))
    for tier in TIERS:
        grouped = _grouped(runnable, tier)
        if grouped:
            parts.append(Text(f"{tier} problems:", style=_TIER_STYLE[tier]))
        parts += [Text(f"  {line}") for line in grouped]
    parts += [Text(line, style="yellow") for line in rerun_lines(report)]
    parts += [Text(copy_line(copy), style=_style(copy, report)) for copy in report.copies]
    parts.append(Text(summary_line(report), style="bold"))
    step = next_line(report)
    if step is not None:
        parts.append(Text(step, style="bold"))
    return parts


def _grouped(copies: list[CopyResult], tier: Tier) -> list[str]:
    """``copy: scenario → problem`` lines of *tier*, one per problem text, its scenarios gathered."""
    lines: list[str] = []
    for copy in copies:
        for text, names in _groups(copy, tier, exact=True).items():
            where = names[0] if len(names) == 1 else f"{len(names)} scenarios ({', '.join(names)})"
            lines.append(f"{copy.target.name}: {where} → {text}")
    return lines


# -- markdown ----------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return one_line(text.replace("\n", " ")).replace("|", "\\|")


def _like(copy: CopyResult) -> str:
    like = copy.like_canonical()
    return "—" if like is None else f"{like['alike']}/{like['scenarios']}"


def to_markdown(report: ConformReport, *, verbose: bool = False) -> str:
    """A table with a row per copy, what needs attention and the next command; with *verbose*, the matrix too.

    For a CI job summary or a pull request's body: the heading is the run's
    summary line, each copy's row its verdict, how many scenarios it behaves
    like the canonical on, its problems per tier and its skips.
    """
    lines = [f"## plait conform: {summary_line(report)}", ""]
    note = contract_line(report)
    if note is not None:
        lines += [f"> {note}", ""]
    lines.append("| copy | verdict | like canonical | " + " | ".join(TIERS) + " | skipped |")
    lines.append("|---|---|---|" + "---|" * len(TIERS) + "---|")
    for copy in report.copies:
        counts = " | ".join(str(len(copy.problems(tier))) for tier in TIERS)
        word = verdict_word(copy, report)
        shown = word if copy.error is None and copy.passes(report.strict) else f"**{word}**"
        lines.append(f"| `{copy.target.name}` | {shown} | {_like(copy)} | {counts} | {copy.count(SKIP)} |")
    lines += ["", *(f"- {_cell(copy_line(copy))}" for copy in report.copies)]
    attention = _attention(report)
    if attention:
        lines += ["", "### Needs attention", "", *(item.markdown() for item in attention)]
    reruns = rerun_lines(report)
    if reruns:
        lines += ["", "### Confirmed by a rerun, alone", ""]
        lines += [f"- `{line.split('  ', 1)[0]}` {_cell(line.split('  rerun  ', 1)[1])}" for line in reruns]
    step = next_line(report)
    if step is not None:
        lines += ["", f"**next:** {_cell(step.removeprefix('next: '))}"]
    if verbose:
        lines += ["", *_matrix(report)]
    lines.append("")
    return "\n".join(lines)


def _matrix(report: ConformReport) -> list[str]:
    """Every scenario × every copy that ran, by emoji, and what the emoji say."""
    runnable = [copy for copy in report.copies if copy.error is None]
    lines = ["### Every scenario", ""]
    lines.append("| scenario | tier | " + " | ".join(f"`{c.target.name}`" for c in runnable) + " |")
    lines.append("|---|---|" + "---|" * len(runnable))
    for scenario in report.scenarios.scenarios:
        marks = [_mark(c.verdicts.get(scenario.name))[2] for c in runnable]
        lines.append(f"| `{scenario.name}` | {scenario.tier} | " + " | ".join(marks) + " |")
    lines += [
        "",
        f"{_EMOJI[PASS]} conforms · {_EMOJI[FAIL]} breaks the contract or its safety · "
        f"{_EMOJI[PARITY]} conforms, differs from the canonical · {_EMOJI[SKIP]} not applicable to that copy · "
        f"{_UNCHECKED_EMOJI} not checked here (a module is missing)",
    ]
    return lines


# -- JUnit -------------------------------------------------------------------------------------


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
        first = next(problem for problem in verdict.problems if problem.tier in FAILING)
        failure = ET.SubElement(case, "failure", message=first.text, type=first.tier)
        failure.text = listed
        counts["failures"] += 1
    said = [listed] if verdict.status == PARITY else []
    if verdict.rerun is not None:
        said.append(f"rerun alone to confirm: {_rerun_text(verdict, shown=None, digits=3)}")
    if said:
        ET.SubElement(case, "system-out").text = "\n".join(said)


def to_junit(report: ConformReport) -> str:
    """JUnit XML: a testsuite per copy, a testcase per scenario (failure, error, skipped or passed)."""
    root = ET.Element("testsuites", name="plait conform", time=_seconds(report.elapsed))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    errors = dict(zip((c.target.name for c in report.copies if c.error is not None), report.errors(), strict=True))
    for copy in report.copies:
        suite = ET.SubElement(root, "testsuite", name=copy.target.name)
        properties = ET.SubElement(suite, "properties")
        for key, value in (
            ("kind", copy.target.kind),
            ("import_name", copy.target.import_name),
            ("path", str(copy.target.package_dir)),
            *(("missing", module) for module in copy.missing),
        ):
            ET.SubElement(properties, "property", name=key, value=value)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        classname = f"plait.conform.{copy.target.name}"
        if copy.error is not None:
            said = errors[copy.target.name].removeprefix(f"{copy.target.name}: ")
            case = ET.SubElement(suite, "testcase", name="import", classname=classname, time="0.000")
            error = ET.SubElement(case, "error", message=said, type="MissingModule" if copy.absent else "CopyError")
            error.text = said
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
