"""Renderers that more than one command prints: a run's report, status rows, a check verdict, a diff.

`plait demo` composes the other commands' output, so what it shares with
them lives here rather than in any one command's module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .output import Output, PlainTable, conflict_text, report_tail

if TYPE_CHECKING:
    # Types only: `plait check` prints a verdict with `check_summary` and must
    # not load the merge engine, libcst or GitPython to do it.
    from ..lineage.diff import CopyDiff
    from ..lineage.status import LineageStatus
    from ..lineage.sync import LineagePlan, SyncReport
    from ..runs import PlannedFiles
    from ..vendoring.check import ConsumerCheck
    from ..vendoring.vendor import VendorPlan, VendorReport

__all__ = ["check_summary", "outcome_words", "render_diff", "render_report", "render_status", "render_vendor_report"]

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
    """*outcome* as a report line says it: as done, or, in a dry run, as what would be done."""
    return _WOULD.get(outcome, f"would be {outcome}") if dry_run else outcome


def _would(text: str, dry_run: bool, verb: str) -> str:
    return f"would {verb}: {text}" if dry_run else text


_SYNC_STYLE = {
    "synced": "green",
    "up-to-date": "green",
    "conflicted": "bold red",
    "refused": "bold red",
    "skipped": "yellow",
}


def _plan_rows(table: PlainTable, plan: PlannedFiles, kept: list[tuple[str, str]], dry: bool) -> None:
    """One copy's rows of a run's table: what the source brought, what the copy kept, what conflicted."""
    for line in plan.applied():
        table.add(plan.name, line.file, _would(line.text, dry, "apply"))
    for file, text in kept:
        table.add(plan.name, file, f"would keep: {text}" if dry else f"kept: {text}", style="cyan")
    for conflict in plan.conflicts:
        text = conflict_text(conflict.path, conflict.reason, conflict.line)
        table.add(plan.name, conflict.file, _would(text, dry, "stop at"), style="bold red")


def _changed(plan: LineagePlan | VendorPlan, dry_run: bool) -> str:
    if not plan.changed:
        return ""
    return f", {len(plan.changed)} file(s) {'would change' if dry_run else 'changed'}"


def _headline(plan: LineagePlan, dry_run: bool) -> str:
    source = f"{plan.source.name}@{plan.new_base.short}" if plan.new_base else plan.source.name
    base = f" (base {plan.base.short})" if plan.base else ""
    reason = f": {plan.reason}" if plan.reason else ""
    return f"{plan.name} from {source}{base}: {outcome_words(plan.outcome, dry_run)}{_changed(plan, dry_run)}{reason}"


def render_report(report: SyncReport, out: Output) -> None:
    """What each lineage applied, kept and could not decide (also used by `plait demo`)."""
    dry = report.dry_run
    table = out.table("sync", ["lineage", "file", "what"])
    for plan in report.plans:
        kept = [(line.file, line.text.removeprefix("kept: ")) for line in plan.kept()]
        _plan_rows(table, plan, kept, dry)
    headlines = [(_headline(plan, dry), _SYNC_STYLE.get(plan.outcome)) for plan in report.plans]
    report_tail(report, out, table, headlines)


_VENDOR_STYLE = {"vendored": "green", "up-to-date": "green", "conflicted": "bold red", "refused": "bold red"}


def _vendor_headline(plan: VendorPlan, dry_run: bool) -> str:
    source = f"{plan.source}@{plan.source_id}" if plan.lock is not None else plan.source
    reason = f": {plan.reason}" if plan.reason else ""
    kept = "would be preserved" if dry_run else "preserved"
    edits = f", {len(plan.local_edits)} local edit(s) {kept}" if plan.local_edits else ""
    return (
        f"{plan.consumer} from {source}: {outcome_words(plan.outcome, dry_run)}{_changed(plan, dry_run)}{edits}{reason}"
    )


def render_vendor_report(report: VendorReport, out: Output) -> None:
    """What each consumer received, what local edits it keeps, and what could not be decided."""
    dry = report.dry_run
    table = out.table("vendor", ["consumer", "file", "what"])
    for plan in report.plans:
        _plan_rows(table, plan, [(edit.file, edit.text) for edit in plan.local_edits], dry)
    headlines = [(_vendor_headline(plan, dry), _VENDOR_STYLE.get(plan.outcome)) for plan in report.plans]
    report_tail(report, out, table, headlines)


_STATUS_STYLE = {"up-to-date": "green", "behind": "yellow", "conflicted": "bold red", "error": "bold red"}


def render_status(rows: list[LineageStatus], out: Output) -> None:
    """The status of every lineage (also used by `plait demo`).

    In a pipe, one line per pending change and per carried feature, then a
    summary line per lineage, so that `grep` finds a change on a line of its
    own (a lineage had 62 pending changes on one line before):

        sibling  pending  embedding.py  + EmbeddingClient.embed_with_outcome
        sibling  carries  embedding.py  branch self.mode == "uds" in EmbeddingClient.embed
        sibling  behind  pending 62  carries 5  upstream@1a2b3c4  upstream@tree:9f8e7d6c5b

    In a terminal a table holds the counts and the items follow, one per
    line, so nothing is folded.
    """
    if not out.out.is_terminal:
        for row in rows:
            for label, items in (("pending", row.pending), ("carries", row.kept)):
                for line in items:
                    out.line(f"{row.name}  {label}  {line.file}  {line.brief}")
            for conflict in row.conflicts:
                text = conflict_text(conflict.path, conflict.reason, conflict.line)
                out.line(f"{row.name}  conflict  {conflict.file}  {text}")
            state = row.state + (f" ({', '.join(row.conflicted_files)})" if row.conflicted_files else "")
            if row.reason:
                state += f": {row.reason}"
            cells = [row.name, state, f"pending {len(row.pending)}", f"carries {len(row.kept)}"]
            cells += [row.source_now or row.source, row.base or "-"]
            out.line("  ".join(cells))
        return
    columns = ["lineage", "state", "pending", "carries", "source now", "base"]
    table = out.table("lineages", columns, wrap=["source now", "base"])
    for row in rows:
        state = row.state + (f" ({', '.join(row.conflicted_files)})" if row.conflicted_files else "")
        table.add(
            row.name,
            state,
            str(len(row.pending)),
            str(len(row.kept)),
            row.source_now or row.source,
            row.base,
            style=_STATUS_STYLE.get(row.state),
        )
    out.show(table)
    for row in rows:
        if row.reason:
            out.line(f"{row.name}: {row.reason}", _STATUS_STYLE.get(row.state))
        for label, items in (("pending from " + row.source, row.pending), ("carries", row.kept)):
            if items:
                out.line(f"{row.name} {label}:", "bold")
                for line in items:
                    out.line(f"  {line.file}: {line.brief}")


def check_summary(result: ConsumerCheck) -> str:
    """One consumer's verdict on one line, with the command that fixes any drift."""
    name = result.consumer or result.vendor_dir
    if result.error:
        return f"{name}: error: {result.error}"
    locked = f"{result.source}@{result.locked_commit[:7]}" if result.locked_commit else result.source
    if not result.drift:
        return f"{name}: ok ({result.files} files, vendored from {locked})"
    return f"{name}: drift in {len(result.drift)} place(s); fix: {result.fix}"


def render_diff(result: CopyDiff, out: Output, fmt: str) -> None:
    """The diff as text (one line per member, diffs indented) or markdown (also used by `plait demo`)."""
    if fmt == "markdown":
        import click  # (here: `plait check` prints through this module without click)

        click.echo(result.markdown(), nl=False)
        return
    if result.same:
        out.line(f"{result.b} and {result.a} do not differ")
        return
    for line in result.text_lines():
        style = "dim" if line.startswith("    ") else None
        out.line(line, style)
