"""Renderers that more than one command prints: a run's report, the workspace's status, a check, a diff.

Every report follows one shape, the one `git merge` and cargo taught:

- one line per copy, with counts (``cpersona  canonical 97b11d8 → 6a9cd1e   4 files changed, 0 conflicts``),
  and a no-op in one line (``cpersona: up to date with canonical@6a9cd1e``);
- under it only what needs reading: what the written files change, what
  the copy keeps, what its source has taken of its own edits, where the
  files went;
- then ``next:``, the command to run.

``--verbose`` adds every member, one line each, folded (`plait.members`);
``--quiet`` prints only the problems.  Problems (conflicts, refusals,
errors) go to stderr, one line each, with ``--json`` too, so a CI log says
why a step failed.  ``--format markdown`` renders the same facts for a CI
job summary or a pull request's body: a table per copy and a mermaid graph
of the family, canonical → lineages → consumers.

`plait demo` composes the other commands' output, so what it shares with
them lives here rather than in any one command's module.  `plait check`
imports this module to print its verdict, so nothing here loads the merge
engine, libcst, GitPython or rich at import time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..names import one_line, shell_word
from ..records import record
from .output import Output

TYPE_CHECKING = False  # (not typing's: `plait check` does not import typing)
if TYPE_CHECKING:
    from typing import Any

    from ..lineage.adopt import AdoptResult
    from ..lineage.diff import CopyDiff
    from ..lineage.status import ConsumerStatus, LineageStatus, Overview
    from ..lineage.sync import LineagePlan, SyncReport
    from ..members import Member
    from ..runs import PlannedFiles, RunReport
    from ..summary import CopyStory, Mode
    from ..vendoring.check import ConsumerCheck
    from ..vendoring.vendor import VendorPlan, VendorReport
    from ..workspace import Workspace

    AnyPlan = LineagePlan | VendorPlan
    AnyReport = SyncReport | VendorReport

__all__ = [
    "Places",
    "aligned",
    "check_markdown",
    "check_summary",
    "diff_headline",
    "finish_run",
    "md_table",
    "mermaid",
    "outcome_words",
    "overview_markdown",
    "render_adopt",
    "render_check",
    "render_diff",
    "render_overview",
    "render_run",
    "run_markdown",
    "run_title",
]

# A dry run says what would happen, on every line, so that no line of it
# reads like a run that wrote (it used to open with "fork: synced").
_WOULD = {
    "synced": "would sync",
    "vendored": "would vendor",
    "conflicted": "would conflict",
    "skipped": "would be skipped",
    "refused": "would be refused",
    "up-to-date": "up-to-date (nothing would change)",
}


def outcome_words(outcome: str, dry_run: bool) -> str:
    """*outcome* as a progress line says it: as done, or, in a dry run, as what would be done."""
    return _WOULD.get(outcome, f"would be {outcome}") if dry_run else outcome


_STYLE = {
    "synced": "green",
    "vendored": "green",
    "up-to-date": "green",
    "ok": "green",
    "conflicted": "bold red",
    "refused": "bold red",
    "error": "bold red",
    "skipped": "yellow",
    "behind": "yellow",
    "drift": "yellow",
    "edited": "yellow",
    "unlocked": "yellow",
    "never-synced": "yellow",
    "never-vendored": "yellow",
    "waiting": "yellow",
}


# --------------------------------------------------------------------------
# where things are, as the reader names them


class Places:
    """Where a workspace's copies are, named as the reader at the current directory would type them.

    A path is shown relative to the current directory when that is shorter
    (``../CPersona/cpersona/_vendored/embedding_client.py``), else in full;
    a git command runs in the copy's repository (``git -C ../CPersona diff``),
    plain ``git`` at that repository's top.
    """

    def __init__(self, ws: Workspace | None, roots: Mapping[str, str] | None = None) -> None:
        self.ws = ws
        self.roots = dict(roots or {})
        self.cwd = Path.cwd()

    def show(self, path: str | Path) -> str:
        full = str(path)
        try:
            rel = os.path.relpath(full, self.cwd)
        except ValueError:  # another drive
            return full
        return rel if len(rel) < len(full) else full

    def manifest(self, path: str | Path) -> str:
        """The manifest a report is about: relative only when it is below the current directory,
        so the one line that says which workspace it was is never ambiguous."""
        full = str(path)
        try:
            rel = os.path.relpath(full, self.cwd)
        except ValueError:
            return full
        return full if rel.startswith("..") else rel

    def root(self, name: str) -> Path | None:
        """The directory a copy's files are named from (a lineage's root, a consumer's vendored directory)."""
        if name in self.roots:
            return Path(self.roots[name])
        ws = self.ws
        if ws is None:
            return None
        if name in ws.consumers:
            return ws.consumers[name].vendor_dir
        if name in ws.lineages or name == "canonical":
            return ws.copy(name).root
        return None

    def file(self, name: str, rel: str) -> str:
        root = self.root(name)
        return self.show(root / rel) if root is not None else rel

    def repo(self, name: str) -> Path | None:
        from ..workspace import repository_top

        root = self.root(name)
        return repository_top(root) if root is not None else None

    def git(self, top: Path) -> str:
        """``git`` as the reader runs it on *top*'s repository: plain at its top, else with ``-C``,
        since the paths given to it (`in_repo`) are named from the top, not from below it."""
        if self.cwd.resolve() == top.resolve():
            return "git"
        # Quoted: a checkout under "svc ünï" printed a command the shell split into two words.
        return f"git -C {shell_word(self.show(top))}"

    def in_repo(self, path: Path, top: Path) -> str:
        """*path* as git names it inside the repository at *top*."""
        try:
            return path.resolve().relative_to(top.resolve()).as_posix() or "."
        except ValueError:
            return str(path)


def aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as lines, each column padded to its widest cell; empty cells at a row's end dropped."""
    widths: dict[int, int] = {}
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths.get(i, 0), len(cell))
    lines = []
    for row in rows:
        cells = list(row)
        while cells and not cells[-1]:
            cells.pop()
        lines.append("  ".join(c.ljust(widths.get(i, 0)) if i < len(cells) - 1 else c for i, c in enumerate(cells)))
    return lines


def md_code(text: str) -> str:
    """*text* as a markdown code span: ``__init__.py`` and ``__all__`` must not read as bold."""
    if not text or text == "-":
        return "-"
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def md_listing(members: Sequence[Member]) -> str:
    """Members for a markdown cell: each sign, then its name as code."""
    return ", ".join(f"{m.sign} {md_code(m.name)}" for m in members) or "-"


def md_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured markdown table; ``|``, newlines and control characters inside a cell are escaped."""

    def cell(text: str) -> str:
        return one_line(text.replace("\n", " ")).replace("|", "\\|") or " "

    out = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


# --------------------------------------------------------------------------
# the family graph: canonical → lineages → consumers


@record(frozen=True)
class Edge:
    """One copy and what it syncs or vendors from, with its state."""

    parent: str
    child: str
    kind: str
    label: str


def family(ws: Workspace, labels: Mapping[str, str]) -> list[Edge]:
    """Every edge of the workspace's family: a lineage from its source, a consumer from its source."""
    edges = [
        Edge(lineage.syncs_from, lineage.name, "lineage", labels.get(lineage.name, "")) for lineage in ws.sync_order()
    ]
    edges += [Edge(c.source, c.name, "consumer", labels.get(c.name, "")) for c in ws.consumers.values()]
    return edges


def mermaid(edges: Sequence[Edge], canonical: str = "canonical") -> list[str]:
    """A mermaid graph (GitHub renders it) of *edges*: one node per copy, each edge labelled with its state."""
    ids: dict[str, str] = {canonical: "n0"}
    kinds: dict[str, str] = {canonical: "canonical"}
    for edge in edges:
        for name, kind in ((edge.parent, ""), (edge.child, edge.kind)):
            ids.setdefault(name, f"n{len(ids)}")
            if kind:
                kinds[name] = kind
    lines = ["```mermaid", "graph LR"]
    for name, node in ids.items():
        kind = kinds.get(name, "")
        label = f"{name} ({kind})" if kind and kind != "canonical" else name
        lines.append(f'  {node}["{label}"]')
    for edge in edges:
        arrow = f"-->|{edge.label}|" if edge.label else "-->"
        lines.append(f"  {ids[edge.parent]} {arrow} {ids[edge.child]}")
    lines.append("```")
    return lines


def recorded_labels(ws: Workspace) -> dict[str, str]:
    """Each copy's state as the store and the locks record it, read without merging anything."""
    from ..vendoring.lock import CorruptLock, read_lock

    labels: dict[str, str] = {}
    try:
        state = ws.store.state()
    except Exception:  # noqa: BLE001 - a graph label is no place to fail a report
        state = None
    for name in ws.lineages:
        record = state.record(name) if state is not None else None
        if record is None:
            labels[name] = "never synced"
        else:
            labels[name] = "conflicted" if record.conflicted else f"base {record.base.short}"
    for name, consumer in ws.consumers.items():
        try:
            lock = read_lock(consumer.vendor_dir)
        except (CorruptLock, OSError):
            labels[name] = "unreadable lock"
            continue
        if lock is None:
            labels[name] = "unlocked"
        else:
            labels[name] = "conflicted" if lock.conflicted else f"vendored {lock.source_short}"
    return labels


# --------------------------------------------------------------------------
# runs: sync and vendor


def _mode(report: RunReport[Any]) -> Mode:
    if report.dry_run:
        return "dry"
    # --commit writes branches, not checkouts: what it committed is done all the same.
    return "written" if report.written or report.published else "held"


def run_title(report: AnyReport, command: str) -> str:
    """The run in one line, for a pull request: a copy's own title, or the copies it wrote."""
    plans = [p for p in report.plans if p.changed] or list(report.plans)
    if len(plans) == 1:
        return plans[0].title
    return f"plait: {command} into {', '.join(p.name for p in plans)}"


def _written_count(plan: AnyPlan) -> int:
    from ..vendoring.vendor import VendorPlan

    extra = 1 if isinstance(plan, VendorPlan) and plan.lock_changed else 0
    return len(plan.changed) + extra


def _wrote(plan: AnyPlan, report: AnyReport, places: Places) -> str:
    """Where a copy's files went: the directory, how many, whether git tracks the new ones, the commit."""
    commit = next((e for e in report.published if plan.name in e.get("copies", ())), None)
    committed = f"{commit['branch']}@{commit['commit'][:7]}" if commit else None
    pushed = commit.get("pushed_to") if commit else None
    if not (report.written or committed) or plan.outcome in ("refused", "skipped"):
        return ""
    root = places.root(plan.name)
    count = _written_count(plan)
    if root is None or not count:
        return ""
    # The lock by name: "2 files changed" above counts the copy's files, and a third one
    # here, unnamed, reads as a file nobody was told about.
    from ..paths import LOCK_NAME

    files = len(plan.changed)
    parts = [f"{files} file{'s' if files != 1 else ''}"] if files else []
    if count > files:
        parts.append(LOCK_NAME)
    text = f"{places.show(root)}: {' and '.join(parts)}"
    untracked = [u for u in report.untracked if Path(u).is_relative_to(root)]
    if untracked:
        text += f", {len(untracked)} new one{'s' if len(untracked) != 1 else ''} not tracked by git"
    if not committed:
        return text + ", not committed"
    if pushed:
        return text + f", pushed {committed} to {pushed}"
    return text + f", committed on {committed}, not in the checkout"


def _repos_written(report: AnyReport, places: Places) -> list[Path]:
    tops: list[Path] = []
    for plan in report.plans:
        if _written_count(plan):
            top = places.repo(plan.name)
            if top is not None and top not in tops:
                tops.append(top)
    if places.ws is not None:
        from ..workspace import repository_top

        store = repository_top(places.ws.store.root)
        if store is not None and store not in tops:
            tops.append(store)
    return tops


def _in_clone_cache(top: Path, places: Places) -> bool:
    """Whether *top* is one of plait's own clones (`.plait/clones/<name>`), which nobody commits in by hand."""
    if places.ws is None:
        return False
    from ..workspace import CLONES

    return top.resolve().is_relative_to((places.ws.store.root / CLONES).resolve())


def _dependents(report: AnyReport, places: Places, command: str) -> list[str]:
    """The consumers a sync leaves behind: those vendoring a lineage it changed."""
    ws = places.ws
    if command != "sync" or ws is None:
        return []
    changed = {p.name for p in report.plans if p.changed and p.outcome == "synced"}
    return [c.name for c in ws.consumers.values() if c.source in changed]


def _run_next(report: AnyReport, places: Places, command: str) -> list[str]:
    """The commands that come after this run: resolve, abort, review, commit, track, vendor."""
    if report.refused:
        return [f"fix what the error says, then run plait {command} again"]
    changing = [p for p in report.plans if _written_count(p) or p.outcome in ("synced", "vendored", "conflicted")]
    if report.dry_run:
        return ["rerun without --dry-run to write it"] if changing else []
    if report.conflicted and not report.written:
        return ["rerun without --no-write-conflicts to write the conflict markers, then resolve them"]
    steps: list[str] = []
    for plan in report.conflicted:
        resolve = _resolve_step(plan)
        if command == "sync":
            give_up = f"plait sync --abort {plan.name}"
            steps.append(f"{resolve}, then plait sync --continue {plan.name} (to give up: {give_up})")
            continue
        root, top = places.root(plan.name), places.repo(plan.name)
        if root is not None and top is not None:
            abort = f"{places.git(top)} checkout -- {shell_word(places.in_repo(root, top))}"
            steps.append(f"{resolve}, then plait vendor {plan.name} (to give up: {abort})")
        else:
            steps.append(f"{resolve}, then plait vendor {plan.name}")
    if report.published:
        steps += branch_steps(report.published, places)
    elif any(_written_count(p) for p in report.plans if p.outcome in ("synced", "vendored")):
        tops = _repos_written(report, places)
        cached = [top for top in tops if _in_clone_cache(top, places)]
        tops = [top for top in tops if top not in cached]
        if tops:
            diffs = ", ".join(f"{places.git(top)} diff" for top in tops)
            there = " in each" if len(tops) > 1 else ""
            steps.append(f"{diffs}, then commit{there}")
        if cached:
            names = ", ".join(top.name for top in cached)
            steps.append(f"rerun with --push to send what plait wrote in its clones ({names}) to their origins")
    by_repo: dict[Path, list[str]] = {}
    from ..workspace import repository_top

    for path in report.untracked:
        top = repository_top(Path(path).parent)
        if top is not None:
            by_repo.setdefault(top, []).append(places.in_repo(Path(path), top))
    steps += [f"{places.git(top)} add {' '.join(shell_word(p) for p in paths)}" for top, paths in by_repo.items()]
    dependents = _dependents(report, places, command)
    if dependents and not report.conflicted:
        steps.append(f"plait vendor {' '.join(dependents)}")
    return steps


def _resolve_step(plan: AnyPlan) -> str:
    """What resolving a copy's conflicts takes: the markers, and for a conflict no marker can
    show (a binary file), the choice between the versions written beside the file."""
    marked = [f.name for f in plan.files if f.conflicts and not f.beside]
    beside = [f for f in plan.files if f.beside]
    steps = ["resolve the markers"] if marked or not beside else []
    for f in beside:
        sides = " or ".join(f.beside)
        kept = "" if f.after is None else ", where the copy's stands now"
        steps.append(
            f"leave the version of {f.name} you want ({sides}) at {f.name}{kept}, and remove {_both(f.beside)}"
        )
    return "; ".join(steps)


def _both(names: Iterable[str]) -> str:
    listed = list(names)
    return listed[0] if len(listed) == 1 else " and ".join(listed)


def branch_steps(published: Sequence[Mapping[str, Any]], places: Places) -> list[str]:
    """What takes `--commit`'s branches, in the order they were made (the workspace's first:
    a lock names bases its branch holds): a pull request where one was pushed, else the
    fast-forward merge into the checkout, else, for plait's own clone, the push."""
    steps: list[str] = []
    for entry in published:
        if entry.get("pushed_to"):
            steps.append(f"open a pull request from {entry['branch']} at {entry['pushed_to']}")
        elif entry.get("merge"):
            steps.append(f"{places.git(Path(entry['repository']))} merge --ff-only {entry['branch']}")
        else:
            names = ", ".join(entry.get("copies", [])) or entry["branch"]
            steps.append(f"rerun with --push to send {entry['branch']} ({names}) from plait's clone to its origin")
    return steps


def _stories(report: AnyReport) -> list[tuple[AnyPlan, CopyStory]]:
    mode = _mode(report)
    return [(plan, plan.story(mode)) for plan in report.plans]


def render_run(report: AnyReport, out: Output, places: Places, *, command: str, footer: bool = True) -> None:
    """A sync's or a vendor's report: a summary per copy (and every member with ``--verbose``), then next.

    ``--quiet`` prints nothing here but what comes after a conflict; the
    problems themselves go to stderr (`run_problems`).
    """
    from ..summary import detail_lines, summary_lines

    stories = _stories(report)
    if not out.quiet:
        for plan, story in stories:
            if out.verbose:
                for line in detail_lines(story):
                    out.line(line)
            for i, line in enumerate(summary_lines(story, wrote=_wrote(plan, report, places))):
                out.line(line, _STYLE.get(plan.outcome) if i == 0 else None)
        for note in report.notes:
            out.line(note)
    if not footer:
        return
    steps = _run_next(report, places, command)
    if out.quiet:
        steps = steps if report.conflicted or report.refused else []
    for step in steps:
        out.line(f"next: {step}", "bold")
    if not out.quiet:
        if report.dry_run:
            out.line(
                f"dry run: this is what a run would do; nothing was written ({places.manifest(report.manifest)})", "dim"
            )
        else:
            out.workspace(places.manifest(report.manifest))


def _refusal(name: str, reason: str, dry_run: bool) -> str:
    said = reason if reason.startswith(f"{name}:") else f"{name}: {reason}"
    return f"would be refused: {said}" if dry_run else said


def run_problems(report: AnyReport, out: Output, places: Places) -> None:
    """Every conflict and refusal of a run on stderr, one line each, whatever the format of stdout."""
    from ..summary import conflict_notes

    for plan in report.plans:
        for note in conflict_notes(plan):
            text = note.text(places.file(plan.name, note.file))
            out.line(f"would {text}" if report.dry_run else text, "bold red", stderr=True)
        if plan.outcome == "refused":
            out.error(_refusal(plan.name, plan.reason, report.dry_run))


def run_markdown(report: AnyReport, places: Places, *, command: str) -> str:
    """The run for a CI job summary or a pull request's body: a table of the copies, a table per
    copy of what its files change and keep, and the family graph."""
    from ..summary import count

    title = run_title(report, command)
    lines = [f"## {title}", ""]
    if report.dry_run:
        lines += ["_A dry run: nothing was written._", ""]
    rows = []
    stories = _stories(report)
    for plan, story in stories:
        rows.append(
            [
                story.name,
                story.source,
                story.was or "-",
                story.now or "-",
                outcome_words(plan.outcome, report.dry_run),
                str(len(story.changed)),
                str(len(story.conflicts)),
                str(count(story.kept)),
                str(count(story.new)),
                str(count(story.upstream)),
            ]
        )
    own = "local edits" if command == "vendor" else "own changes"
    headers = [
        "copy",
        "source",
        "from",
        "to",
        "outcome",
        "files changed",
        "conflicts",
        f"{own} kept",
        "new",
        "now upstream",
    ]
    lines += [*md_table(headers, rows), ""]
    for plan, story in stories:
        lines += _story_markdown(plan, story, places, report.dry_run)
    if places.ws is not None:
        labels = recorded_labels(places.ws)
        labels.update({plan.name: outcome_words(plan.outcome, report.dry_run) for plan in report.plans})
        lines += ["### The family", "", *mermaid(family(places.ws, labels)), ""]
    return "\n".join(lines)


def _story_markdown(plan: AnyPlan, story: CopyStory, places: Places, dry_run: bool) -> list[str]:
    files = list(
        dict.fromkeys(
            [m.file for m in story.applied] + [m.file for m in story.kept] + [n.file for n in story.conflicts]
        )
    )
    if not files:
        return []
    out = [f"### {story.name}", ""]
    rows = []
    for name in files:
        applied = md_listing([m for m in story.applied if m.file == name])
        kept = md_listing([m for m in story.kept if m.file == name])
        conflicts = "; ".join(n.text(name) for n in story.conflicts if n.file == name)
        rows.append([md_code(name), applied, kept, conflicts or "-"])
    out += [*md_table(["file", "would apply" if dry_run else "applied", "kept", "conflicts"], rows), ""]
    if story.upstream:
        out += [f"Now in {story.source}, no longer {story.own}s: {md_listing(story.upstream)}", ""]
    if story.new:
        out += [f"New {story.own}s: {md_listing(story.new)}", ""]
    return out


def finish_run(
    report: AnyReport,
    out: Output,
    places: Places,
    *,
    command: str,
    fmt: str,
    inputs: dict[str, Any],
) -> None:
    """Print a run that writes copies (`sync`, `vendor`) the one way both do, and exit with its code.

    JSON: the report (with each plan's ``diff`` on a dry run), its markdown
    and, for each commit, the title a pull request takes.  Markdown: the
    same as `run_markdown`.  Text: the diffs on a dry run, then the report.
    Whatever stdout gets, every conflict and refusal is on stderr too.
    """
    import click

    key = report.plans_key
    if out.as_json or fmt == "json":
        data = report.to_json()
        if report.dry_run:
            for entry, plan in zip(data[key], report.plans, strict=True):
                entry["diff"] = _repo_diff(plan, places)
        data["title"] = run_title(report, command)
        data["next"] = _run_next(report, places, command)
        data["markdown"] = run_markdown(report, places, command=command)
        for commit in data["commits"]:
            named = [p for p in report.plans if p.name in commit["copies"]]
            if len(named) == 1:
                commit["title"] = named[0].title
            else:
                # The workspace's own branch: the bases the copies' new locks name.
                commit["title"] = data["title"] + ("" if named else " (the workspace's bases)")
        out.emit_json(data, inputs=inputs)
    elif fmt == "markdown":
        click.echo(run_markdown(report, places, command=command))
    else:
        if report.dry_run and not out.quiet:
            for plan in report.plans:
                diff = _repo_diff(plan, places)
                if diff:
                    click.echo(diff, nl=False)
        render_run(report, out, places, command=command)
    run_problems(report, out, places)
    sys.exit(report.exit_code)


def _repo_diff(plan: PlannedFiles, places: Places) -> str:
    """The plan's unified diff, its paths as git names them in the copy's repository (``git apply`` takes it)."""
    root, top = places.root(plan.name), places.repo(plan.name)
    if root is None:
        return plan.diff()
    base = top if top is not None else (places.ws.dir if places.ws is not None else root)
    prefix = places.in_repo(root, base)
    return plan.diff(prefix)


# --------------------------------------------------------------------------
# status: the workspace's overview


def _lineage_cells(row: LineageStatus) -> list[str]:
    pending = len(row.pending)
    files = len({line.file for line in row.pending})
    cells = [row.name, "lineage", row.state, f"base {row.base}" if row.base else "no base"]
    if row.state in ("behind", "up-to-date"):
        cells.append(
            f"{pending} change{'s' if pending != 1 else ''} pending"
            + (f" in {files} file{'s' if files != 1 else ''}" if pending else "")
        )
        cells.append(f"{len(row.kept)} own")
    elif row.state == "conflicted":
        cells += [f"conflicts in {', '.join(row.conflicted_files)}", ""]
    else:
        cells += [row.reason, ""]
    cells.append(row.next)
    return cells


def _consumer_cells(row: ConsumerStatus) -> list[str]:
    cells = [row.name, "consumer", row.state]
    if row.state in ("unlocked", "never-vendored", "error"):
        cells += [row.reason, "", ""]
    else:
        cells.append(f"vendored {row.vendored}")
        if row.state == "conflicted":
            cells.append(f"conflicts in {', '.join(row.conflicted_files)}")
        elif row.state == "edited":
            cells.append(row.reason)
        else:
            cells.append(f"{row.pending} source file{'s' if row.pending != 1 else ''} changed")
        edits = len(row.local_edits)
        cells.append(f"{edits} local edit{'s' if edits != 1 else ''}")
    cells.append(row.next)
    return cells


_COLUMNS = ("copy", "kind", "state", "at", "pending", "local", "next")


def _plain_cells(cells: list[str]) -> list[str]:
    """A status row as a line says it: the next command says it is one."""
    return [*cells[:-1], f"next: {cells[-1]}" if cells[-1] else ""]


def render_overview(view: Overview, out: Output, places: Places, *, footer: bool = True) -> None:
    """`plait status`: the canonical and its commit, a row per lineage and per consumer, then next.

    ``--verbose`` adds, under each row, every pending change and every own
    change or local edit by member, and each drift ``check`` found.
    """
    at = f"@{view.canonical_commit[:7]}" if view.canonical_commit else " (no commit)"
    rows: list[tuple[list[str], str, list[str]]] = []
    for lineage in view.lineages:
        rows.append((_lineage_cells(lineage), lineage.state, _lineage_detail(lineage) if out.verbose else []))
    for consumer in view.consumers:
        rows.append((_consumer_cells(consumer), consumer.state, _consumer_detail(consumer) if out.verbose else []))
    if out.quiet:
        rows = [r for r in rows if r[1] != "up-to-date"]
    else:
        out.line(f"{view.canonical}{at}  {view.canonical_package}  {places.show(view.canonical_path)}", "bold")
    from .output import PlainTable

    table = PlainTable("", _COLUMNS)
    for cells, state, _detail in rows:
        table.add(*cells, style=_STYLE.get(state))
    if not out.plain() and not out.verbose and rows and table.width() <= out.out.width:
        out.show(table)
    else:
        # A pipe, the detail, or a terminal too narrow for the table with every cell whole.
        for line, (_cells, state, detail) in zip(aligned([_plain_cells(r[0]) for r in rows]), rows, strict=True):
            out.line(line, _STYLE.get(state))
            for text in detail:
                out.line(text)
    if not view.lineages and not view.consumers and not out.quiet:
        out.line("the workspace declares no lineage and no consumer")
    steps = view.next()
    if steps:
        out.line("next: " + ", then ".join(steps), "bold")
    if footer and not out.quiet:
        out.workspace(places.manifest(places.ws.manifest) if places.ws is not None else "")


def _lineage_detail(row: LineageStatus) -> list[str]:
    """A lineage's members, one line each, named so that `grep` finds the lineage with the member."""
    story = row.story
    if story is None:
        return [f"{row.name}  -  {row.state}  {row.reason}"] if row.reason else []
    lines = [f"{row.name}  {m.file}  pending  {m.detail}" for m in story.applied]
    lines += [f"{row.name}  {m.file}  own  {m.detail}" for m in story.kept]
    lines += [f"{row.name}  {n.file}  CONFLICT ({n.label})  {n.member}: {n.reason}" for n in story.conflicts]
    return lines


def _consumer_detail(row: ConsumerStatus) -> list[str]:
    from ..members import Edit, Texts, fold

    texts: dict[str, Texts] = {}
    if row.vendor_dir is not None:
        inside = row.vendor_dir.resolve()
        for name in {e.file for e in row.local_edits}:
            path = (row.vendor_dir / name).resolve()
            if not path.is_relative_to(inside):
                continue  # (a lock names files inside the copy; read nothing a name or symlink leads out to)
            try:
                texts[name] = Texts(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # (named as the lock has it, without the file's text)
    edits = fold((Edit(e.file, e.path, e.kind, e.detail) for e in row.local_edits), texts)
    lines = [f"{row.name}  {m.file}  local edit  {m.detail}" for m in edits]
    lines += [f"{row.name}  {d.file or '-'}  {d.kind}  {d.detail}" for d in row.drift]
    if row.reason and row.state == "error":
        lines.append(f"{row.name}  -  error  {row.reason}")
    return lines


def overview_markdown(view: Overview, places: Places) -> str:
    """`plait status --format markdown`: a table of every copy, a table per copy with something to say,
    and the family graph."""
    lines = ["## plait status", ""]
    at = view.canonical_commit[:7] if view.canonical_commit else "no commit"
    lines += [f"Canonical: `{view.canonical_package or view.canonical}` at `{at}`", ""]
    rows = [[*(_lineage_cells(r) + [""] * 7)[:7]] for r in view.lineages]
    rows += [[*(_consumer_cells(c) + [""] * 7)[:7]] for c in view.consumers]
    lines += [
        *md_table(["copy", "kind", "state", "at", "pending", "local", "next"], [[c or "-" for c in r] for r in rows]),
        "",
    ]
    for lineage in view.lineages:
        story = lineage.story
        if story is None or not (story.applied or story.kept):
            continue
        files = list(dict.fromkeys([m.file for m in story.applied] + [m.file for m in story.kept]))
        table = [
            [
                md_code(name),
                md_listing([m for m in story.applied if m.file == name]),
                md_listing([m for m in story.kept if m.file == name]),
            ]
            for name in files
        ]
        lines += [f"### {lineage.name}", "", *md_table(["file", "pending", "own"], table), ""]
    for consumer in view.consumers:
        if not (consumer.local_edits or consumer.drift):
            continue
        table = [[md_code(e.file), "local edit", md_code(e.text)] for e in consumer.local_edits]
        table += [[md_code(d.file or "-"), d.kind, d.detail] for d in consumer.drift]
        lines += [f"### {consumer.name}", "", *md_table(["file", "what", "detail"], table), ""]
    if places.ws is not None:
        labels = {r.name: r.state for r in view.lineages} | {c.name: c.state for c in view.consumers}
        lines += ["### The family", "", *mermaid(family(places.ws, labels)), ""]
    steps = view.next()
    if steps:
        lines += ["Next: " + ", then ".join(f"`{s}`" for s in steps), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# check


def check_summary(result: ConsumerCheck) -> str:
    """One consumer's verdict on one line, with the command that fixes any drift."""
    name = result.consumer or result.vendor_dir
    if result.error:
        return f"{name}: error: {result.error}"
    locked = f"{result.source}@{result.locked_commit[:7]}" if result.locked_commit else result.source
    if not result.drift:
        return f"{name}: ok ({result.files} files, vendored from {locked})"
    return f"{name}: drift in {len(result.drift)} place(s); fix: {result.fix}"


def _check_state(result: ConsumerCheck) -> str:
    if result.error:
        return "error"
    kinds = list(dict.fromkeys(d.kind for d in result.drift))
    return ", ".join(kinds) if kinds else "ok"


def render_check(results: Sequence[ConsumerCheck], out: Output, *, footer: bool = True) -> None:
    """`plait check`: a line per drift (``<consumer>  <file>  <kind>  <detail>``), a verdict per consumer,
    then the commands that fix what drifted.  Plain text needs no rich: a pre-commit hook prints it."""
    from .output import PlainTable

    table = PlainTable("drift", ["consumer", "file", "drift", "detail"], wrap=["detail"])
    for result in results:
        for drift in result.drift:
            table.add(result.consumer or result.vendor_dir, drift.file or "-", drift.kind, drift.detail)
    if table.rows and not out.quiet:
        out.show(table)
    elif table.rows:
        for line in table.plain_lines():
            out.line(line)
    for result in results:
        if out.quiet and result.state == "ok":
            continue
        out.line(check_summary(result), _STYLE[result.state], stderr=result.state == "error")
    fixes = list(dict.fromkeys(r.fix for r in results if r.fix))
    if fixes and footer:
        out.line("next: " + ", then ".join(fixes), "bold")


def check_markdown(results: Sequence[ConsumerCheck], places: Places) -> str:
    """`plait check --format markdown`: a table of the consumers, a table of each one's drift, the family graph."""
    lines = ["## plait check", ""]
    rows = [
        [
            r.consumer or r.vendor_dir,
            _check_state(r),
            f"{r.source}@{r.locked_commit[:7]}" if r.locked_commit else (r.source or "-"),
            str(r.files),
            str(len(r.drift)),
            f"`{r.fix}`" if r.fix else (r.error or "-"),
        ]
        for r in results
    ]
    lines += [*md_table(["consumer", "state", "vendored from", "files", "drift", "fix"], rows), ""]
    for result in results:
        if result.drift:
            table = [[md_code(d.file or "-"), d.kind, d.detail] for d in result.drift]
            lines += [
                f"### {result.consumer or result.vendor_dir}",
                "",
                *md_table(["file", "drift", "detail"], table),
                "",
            ]
    if places.ws is not None:
        labels = recorded_labels(places.ws) | {r.consumer: _check_state(r) for r in results if r.consumer}
        lines += ["### The family", "", *mermaid(family(places.ws, labels)), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# adopt and diff


def render_adopt(result: AdoptResult, out: Output, *, dry_run: bool = False) -> None:
    """An adoption's summary: the base and why, the runner-up, the local edits counted per file.

    `plait adopt` prints it, then what to commit and run next; `plait demo`
    prints it alone (its copy is temporary: nothing there to commit).
    """
    from collections import Counter

    verb = "would record" if dry_run else "recorded"
    where = "its lock" if result.kind == "consumer" else "the sync state"
    found = result.finding
    dated = f" ({found.chosen.revision.date})" if found is not None else ""
    out.line(f"{result.name}: base {result.source}@{result.base.short}{dated}, {verb} in {where}", "green")
    out.line(f"  why: {result.why()}")
    if result.runner_up is not None:
        out.line(f"  runner-up: {_runner_up(result)}")
    files = Counter(edit.file for edit in result.local_edits)
    plural = "s" if len(files) != 1 else ""
    out.line(f"  local edits: {len(result.local_edits)} in {len(files)} file{plural}")
    for file, count in sorted(files.items()):
        kinds = Counter(edit.kind for edit in result.local_edits if edit.file == file)
        detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        out.line(f"    {file}  {count} ({detail})", "cyan")
        if out.verbose:
            for edit in result.local_edits:
                if edit.file == file:
                    out.line(f"      {edit.text}")
    for published in result.published:
        out.line(f"  committed on {published['branch']}@{published['commit'][:7]} in {published['repository']}")
    for note in result.notes:
        out.line(f"  note: {note}")


def _runner_up(result: AdoptResult) -> str:
    runner = result.runner_up
    assert runner is not None
    text = runner.describe()
    if runner.penalty:
        shown = ", ".join(f"{e.file}: {e.text}" for e in runner.penalty[:2])
        text += f"; under it your copy would have removed what the source had just added ({shown})"
    return text


def diff_headline(result: CopyDiff) -> str:
    """The diff in one line: how many members differ, and how."""
    only_a = sum(m.status == "only-a" for m in result.members) + len(result.only_a_files)
    only_b = sum(m.status == "only-b" for m in result.members) + len(result.only_b_files)
    changed = sum(m.status == "changed" for m in result.members)
    files = len({m.file for m in result.members} | set(result.only_a_files) | set(result.only_b_files))
    parts = [f"{only_b} only in {result.b}", f"{changed} changed", f"{only_a} only in {result.a}"]
    differ = "s differ" if files != 1 else " differs"
    return f"{result.b} compared with {result.a}: {files} file{differ} ({', '.join(parts)})"


def render_diff(result: CopyDiff, out: Output, fmt: str, *, bodies: bool | None = None) -> None:
    """The diff as text or markdown (also used by `plait demo`).

    Text: a headline with the counts, then one line per member with what
    changed in it; the member's unified diff under it with ``--verbose``
    (or *bodies*).
    """
    import click

    if fmt == "markdown":
        import click  # (here: `plait check` prints through this module without click)

        click.echo(result.markdown(), nl=False)
        return
    if result.same:
        out.line(f"{result.b} and {result.a} do not differ")
        return
    out.line(diff_headline(result), "bold")
    for line in result.text_lines(with_diff=out.verbose if bodies is None else bodies):
        style = "dim" if line.startswith("    ") else None
        out.line(line, style)
