"""Renderers that more than one command prints: a run's report, status rows, a check verdict, a diff.

`plait demo` composes the other commands' output, so what it shares with
them lives here rather than in any one command's module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .output import Items, Output, conflict_text, report_tail

if TYPE_CHECKING:
    # Types only: `plait check` prints a verdict with `check_summary` and must
    # not load the merge engine, libcst or GitPython to do it.
    from ..lineage.diff import CopyDiff
    from ..lineage.status import LineageStatus
    from ..lineage.sync import LineagePlan, SyncReport
    from ..vendoring.check import ConsumerCheck
    from ..vendoring.vendor import VendorPlan, VendorReport

__all__ = ["check_summary", "render_diff", "render_report", "render_status", "render_vendor_report"]


_SYNC_STYLE = {
    "synced": "green",
    "up-to-date": "green",
    "conflicted": "bold red",
    "refused": "bold red",
    "skipped": "yellow",
}


def _headline(plan: LineagePlan) -> str:
    source = f"{plan.source.name}@{plan.new_base.short}" if plan.new_base else plan.source.name
    base = f" (base {plan.base.short})" if plan.base else ""
    reason = f": {plan.reason}" if plan.reason else ""
    changed = f", {len(plan.changed)} file(s) changed" if plan.changed else ""
    return f"{plan.name} from {source}{base}: {plan.outcome}{changed}{reason}"


def render_report(report: SyncReport, out: Output) -> None:
    """What each lineage applied, kept and could not decide (also used by `plait demo`)."""
    table = out.table("sync", ["lineage", "file", "what"])
    for plan in report.plans:
        for line in plan.applied():
            table.add(plan.name, line.file, line.text)
        for line in plan.kept():
            table.add(plan.name, line.file, line.text, style="cyan")
        for conflict in plan.conflicts:
            table.add(
                plan.name, conflict.file, conflict_text(conflict.path, conflict.reason, conflict.line), style="bold red"
            )
    report_tail(report, out, table, [(_headline(plan), _SYNC_STYLE.get(plan.outcome)) for plan in report.plans])


_VENDOR_STYLE = {"vendored": "green", "up-to-date": "green", "conflicted": "bold red", "refused": "bold red"}


def _vendor_headline(plan: VendorPlan) -> str:
    source = f"{plan.source}@{plan.source_id}" if plan.lock is not None else plan.source
    reason = f": {plan.reason}" if plan.reason else ""
    changed = f", {len(plan.changed)} file(s) changed" if plan.changed else ""
    edits = f", {len(plan.local_edits)} local edit(s) preserved" if plan.local_edits else ""
    return f"{plan.consumer} from {source}: {plan.outcome}{changed}{edits}{reason}"


def render_vendor_report(report: VendorReport, out: Output) -> None:
    """What each consumer received, what local edits it keeps, and what could not be decided."""
    table = out.table("vendor", ["consumer", "file", "what"])
    for plan in report.plans:
        for line in plan.applied():
            table.add(plan.consumer, line.file, line.text)
        for edit in plan.local_edits:
            table.add(plan.consumer, edit.file, f"kept: {edit.text}", style="cyan")
        for conflict in plan.conflicts:
            text = conflict_text(conflict.path, conflict.reason, conflict.line)
            table.add(plan.consumer, conflict.file, text, style="bold red")
    report_tail(
        report, out, table, [(_vendor_headline(plan), _VENDOR_STYLE.get(plan.outcome)) for plan in report.plans]
    )


_STATUS_STYLE = {"up-to-date": "green", "behind": "yellow", "conflicted": "bold red", "error": "bold red"}


def render_status(rows: list[LineageStatus], out: Output) -> None:
    """The status table (also used by `plait demo`).

    In a pipe each lineage is one line with every pending change and every
    lineage-only feature in full.  In a terminal the table holds the counts
    and the items follow, one per line, so nothing is folded.
    """
    terminal = out.out.is_terminal
    columns = ["lineage", "state", "pending", "carries", "source now", "base"]
    table = out.table("lineages", columns, wrap=["source now", "base"])
    for row in rows:
        pending = [f"{line.file}: {line.brief}" for line in row.pending]
        carries = [f"{line.file}: {line.brief}" for line in row.kept]
        state = row.state + (f" ({', '.join(row.conflicted_files)})" if row.conflicted_files else "")
        if row.reason and not terminal:
            state += f": {row.reason}"
        table.add(
            row.name,
            state,
            str(len(pending)) if terminal else Items("pending", pending),
            str(len(carries)) if terminal else Items("carries", carries),
            row.source_now or row.source,
            row.base,
            style=_STATUS_STYLE.get(row.state),
        )
    out.show(table)
    if terminal:
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
        click.echo(result.markdown(), nl=False)
        return
    if result.same:
        out.line(f"{result.b} and {result.a} do not differ")
        return
    for line in result.text_lines():
        style = "dim" if line.startswith("    ") else None
        out.line(line, style)
