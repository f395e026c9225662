"""What sync and vendor share: the per-file plan, the run report, diffs and parse checks.

A lineage sync and a re-vendor are the same run seen from two sides: for
every copy, every file is merged from a base, the copy as it is and its
source, by git's whole-file rules (`merge_trees`); the result is planned in
full before anything is written, reported line by line (`ReportLine`), and
gathered in one `RunReport` whose exit code follows git.  This module holds
that shared layer so that neither workflow imports the other.
"""

from __future__ import annotations

import ast
import difflib
import functools
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from . import contents
from .errors import PlaitError, UnparsableSource
from .members import FILE, Edit
from .merge import DEFAULT_BUDGET, Change, Conflict, MergeResult, merge3, merge_text
from .merge.conflicts import ConflictKind
from .merge.facts import MODULE
from .records import record
from .store import Snapshot

if TYPE_CHECKING:
    from .publish import Publication

__all__ = [
    "Action",
    "FileConflict",
    "FilePlan",
    "PlannedFiles",
    "ReportLine",
    "RunReport",
    "BESIDE_SUFFIXES",
    "applied_lines",
    "beside_names",
    "check_parses",
    "kept_line",
    "marker_line",
    "merge_trees",
    "sides_left",
    "snapshot_json",
    "specific_changes",
    "unified_diff",
    "unresolved_file",
    "untracked_paths",
]

Action = Literal["unchanged", "merged", "added", "deleted", "kept", "conflict"]


@dataclass(frozen=True)
class ReportLine:
    """One thing a run applied or kept, as the merge names it.

    text: the report line, e.g. ``+ EmbeddingClient.embed_with_outcome`` or
      ``kept: branch self.mode == "uds" in EmbeddingClient.embed_with_outcome``.
    brief: the same without the verb or note, for a status cell.
    detail / statement / note: the merge's own words (`plait.merge.Change`),
      from which `plait.members` names and folds the member it is about.
    """

    file: str
    text: str
    path: str = ""
    kind: str = ""
    brief: str = ""
    detail: str = ""
    statement: str = ""
    note: str = ""

    @property
    def edit(self) -> Edit:
        return Edit(self.file, self.path or FILE, self.kind, self.detail, self.statement, self.note)

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "path": self.path, "kind": self.kind, "text": self.text, "brief": self.brief}


@record(frozen=True, kw_only=True)  # (a record, as the merge's Conflict it extends)
class FileConflict(Conflict):
    """A merge conflict in one lineage file; path ``<file>`` for the whole file."""

    file: str

    def describe(self) -> str:
        return f"{self.file}: {super().describe()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "path": self.path,
            "kind": self.kind,
            "reason": self.reason,
            "line": self.line,
            "ours": self.ours,
            "theirs": self.theirs,
        }


@dataclass
class FilePlan:
    """What a sync does to one lineage file.

    before / after: the file's text now and after the sync (None: absent).
    result: the merge that made *after*.  Where a side left the file as the
      base had it, the bytes decide *after* and nothing is merged; the
      result (what each side changed) is then worked out only when someone
      reads it, and never for what a side did not change (`changes_by`).
    """

    name: str
    source_name: str | None
    action: Action
    before: str | None
    after: str | None
    _result: MergeResult | None = None
    conflicts: list[FileConflict] = field(default_factory=list)
    _deferred: _Deferred | None = field(default=None, repr=False, compare=False)
    # A conflict no marker can show (a binary file): each side's version, written beside
    # the file under these names (`beside_names`), until a person has chosen.
    beside: dict[str, str] = field(default_factory=dict)
    # Whether the file is executable (git's 100755) now, and after the run (`merge_modes`).
    was_executable: bool = False
    executable: bool = False

    @property
    def changes_file(self) -> bool:
        return self.before != self.after or (self.after is not None and self.was_executable != self.executable)

    @property
    def changes_mode(self) -> bool:
        """Whether the run changes only the file's mode, or its mode too."""
        return self.before is not None and self.after is not None and self.was_executable != self.executable

    @property
    def result(self) -> MergeResult | None:
        if self._deferred is not None:
            self._result, self._deferred = self._deferred.merge(), None
        return self._result

    def share_texts(self, one: Callable[[str], str]) -> None:
        """Hold each text as *one* gives it: the plans of a fleet hold the same source
        texts many times over, and a plan made in a worker comes back as a copy."""
        self.before = None if self.before is None else one(self.before)
        self.after = None if self.after is None else one(self.after)
        if self._deferred is not None:
            d = self._deferred
            self._deferred = _Deferred(one(d.base), one(d.ours), one(d.theirs), d.unchanged, d.budget, d.where)

    def changes_by(self, side: Literal["ours", "theirs"]) -> list[Change]:
        """The specific changes of the merge that *side* made, alone or as both sides did.

        Free for a side that left the file as the base had it: it made none.
        A member in conflict is the conflict's: neither side's change of it
        was applied or kept, so neither is listed here (the conflict line names it).
        """
        if self._deferred is not None and self._deferred.unchanged == side:
            return []
        result = self.result
        if result is None:
            return []
        conflicted = {c.path for c in self.conflicts}
        return [c for c in specific_changes(result.changes) if c.side in (side, "both") and c.path not in conflicted]


@dataclass(frozen=True)
class _Deferred:
    """A merge whose text the bytes already decided (one side is the base), kept for its report.

    It travels with the plan (a worker's plan goes back to the process that
    writes), so it holds texts, not parse trees; a side equal to the base is
    the base's own string, so it is pickled once.
    """

    base: str
    ours: str
    theirs: str
    unchanged: Literal["ours", "theirs", ""]
    budget: float
    where: tuple[tuple[str, str], ...]

    def merge(self) -> MergeResult:
        return _identity_merge(self.base, self.ours, self.theirs, self.budget, self.where)


@functools.lru_cache(maxsize=64)
def _identity_merge(
    base: str, ours: str, theirs: str, budget: float, where: tuple[tuple[str, str], ...]
) -> MergeResult:
    # Every consumer of one source asks this of the same three texts.
    return _merge(base, ours, theirs, budget=budget, where=dict(where))


class PlannedFiles:
    """What every copy's plan answers from its files: what changes, what conflicts,
    what the source brought in, and the diff.  A lineage plan and a consumer's
    plan both hold ``files`` and a ``name``; the rest is the same question."""

    files: list[FilePlan]

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def changed(self) -> list[FilePlan]:
        return [f for f in self.files if f.changes_file]

    @property
    def conflicts(self) -> list[FileConflict]:
        return [c for f in self.files for c in f.conflicts]

    def applied(self) -> list[ReportLine]:
        """What the run changes in the copy's files: node paths and whole files (`applied_lines`)."""
        found: list[ReportLine] | None = self.__dict__.get("_applied")
        if found is None:
            found = self.__dict__["_applied"] = applied_lines(self.files, spelled=self.spelled)
        return found

    def spelled(self, name: str, before: str, after: str) -> str:
        """*before* as *after* spells its imports, so that a respelling is no change (a
        consumer overrides it: a hand-vendored `sed` spelling binds the same names)."""
        return before

    def diff(self, label: str | None = None) -> str:
        """A unified diff of every file the run changes."""
        return unified_diff(self.changed, label or self.name)


class _Plan(Protocol):
    @property
    def outcome(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


PlanT = TypeVar("PlanT", bound=_Plan)


@dataclass
class RunReport(Generic[PlanT]):
    """A multi-copy run (sync, vendor): every copy's plan and what was written.

    Exit codes as everywhere: 2 when a copy was refused, 1 when one
    conflicted (or could not run), else 0.
    """

    plans: list[PlanT]
    dry_run: bool = False
    written: bool = False
    commits: dict[str, str] = field(default_factory=dict)
    pushed: dict[str, str] = field(default_factory=dict)
    published: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    manifest: str = ""
    # Where each copy's files are (a lineage's root, a consumer's vendored
    # directory), so a report names a file by a path one can open.
    roots: dict[str, str] = field(default_factory=dict)
    # Files the run added that git does not track yet: `git commit -a` would leave them out.
    untracked: list[str] = field(default_factory=list)

    # The JSON key that lists the plans ("lineages", "consumers").
    plans_key: ClassVar[str] = "plans"

    @property
    def refused(self) -> list[PlanT]:
        return [p for p in self.plans if p.outcome == "refused"]

    @property
    def conflicted(self) -> list[PlanT]:
        return [p for p in self.plans if p.outcome == "conflicted"]

    @property
    def exit_code(self) -> int:
        if self.refused:
            return 2
        if self.conflicted or any(p.outcome == "skipped" for p in self.plans):
            return 1
        return 0

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "written": self.written,
            "exit": self.exit_code,
            self.plans_key: [p.to_json() for p in self.plans],
            "commits": self.published,
            "notes": self.notes,
            "untracked": self.untracked,
        }

    def record(self, publication: Publication) -> None:
        """What `--commit` / `--push` did: each copy's branch, and where it was pushed."""
        self.published += publication.to_json()
        for commit in publication.commits:
            repository = str(commit.repository)
            for name in commit.names:
                self.commits[name] = f"{commit.ref} in {repository}"
                if commit.pushed_to is not None:
                    self.pushed[name] = f"{commit.branch} to {commit.pushed_to}"
        self.notes += publication.notes


def untracked_paths(paths: Iterable[Path]) -> list[str]:
    """Files a run added in a git repository that git does not track yet: `git commit -a`
    would leave them out, so the report names them, with the `git add` that tracks them."""
    from . import gitops

    return [str(path) for path in gitops.untracked(sorted(set(paths)))]


def unified_diff(files: Iterable[FilePlan], prefix: str) -> str:
    """One unified diff of *files* (before → after), named ``a/<prefix>/<file>`` as git names them:
    with *prefix* the copy's directory in its repository, ``git apply`` takes it as is."""
    out: list[str] = []
    for f in files:
        path = f"{prefix}/{f.name}" if prefix and prefix != "." else f.name
        out += difflib.unified_diff(
            (f.before or "").splitlines(keepends=True),
            (f.after or "").splitlines(keepends=True),
            fromfile=f"a/{path}" if f.before is not None else "/dev/null",
            tofile=f"b/{path}" if f.after is not None else "/dev/null",
        )
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
    return "".join(out)


def snapshot_json(snapshot: Snapshot | None) -> dict[str, Any] | None:
    if snapshot is None:
        return None
    return {"commit": snapshot.commit, "tree": snapshot.tree, "files": dict(snapshot.files)}


_CONTAINER_DETAILS = ("", "module-level statements")


def specific_changes(changes: list[Change]) -> list[Change]:
    """*changes* without the container summaries that other lines already detail.

    "both changed EmbeddingClient" or "ours changed EmbeddingClient.__init__"
    next to "ours added parameter uds_path in EmbeddingClient.__init__" only
    says where the edits met; a summary with nothing more specific under it
    stays, so nothing is hidden.  A change that names the statement it
    changed (``Config.__init__: timeout = max(timeout, 1.0)``) is specific.
    """

    def inside(path: str, container: str) -> bool:
        return container == MODULE or path == container or path.startswith(container + ".")

    out: list[Change] = []
    for change in changes:
        summary = change.kind == "changed" and change.detail in _CONTAINER_DETAILS and not change.statement
        detailed = any(
            other is not change
            and (change.side == "both" or other.side in (change.side, "both"))
            and inside(other.path, change.path)
            and not (other.kind == "changed" and other.detail in _CONTAINER_DETAILS)
            for other in changes
        )
        if not (summary and detailed):
            out.append(change)
    return out


_SIGNS = {"added": "+", "changed": "~", "removed": "-", "moved": ">"}


def _what(change: Change) -> str:
    return change.what


def _noted(change: Change) -> str:
    return f"{_what(change)} ({change.note})" if change.note else _what(change)


def applied_lines(
    files: Iterable[FilePlan],
    *,
    spelled: Callable[[str, str, str], str] | None = None,
    budget: float = DEFAULT_BUDGET,
) -> list[ReportLine]:
    """What writing *files* changes in them: node paths and whole files.

    Measured on each written file, its text before against after, not on
    what the source changed since the base: an edit the copy already had,
    which the source has now taken, changes nothing in the file and is not
    listed (a commit message listed 25 such changes for a diff of one line).
    A conflicted file, whose text holds markers, is listed by what the
    source brought.  *spelled* gives the before text in the after text's
    import spelling.
    """
    lines: list[ReportLine] = []
    for f in files:
        if f.changes_mode:
            mode = f"mode {_MODE[f.was_executable]} → {_MODE[f.executable]}"
            lines.append(ReportLine(f.name, f"~ {mode} of {f.name}", "", "changed", f"~ file {f.name}", mode))
        if f.before == f.after:
            continue
        if f.before is None:
            note = f"executable, {_MODE[True]}" if f.executable else ""
            added = f"+ file {f.name}" + (f" ({note})" if note else "")
            lines.append(ReportLine(f.name, added, "", "added", f"+ file {f.name}", note=note))
        elif f.after is None:
            lines.append(ReportLine(f.name, f"- file {f.name}", "", "removed", f"- file {f.name}"))
        elif f.conflicts:
            lines += [
                _applied_line(f.name, c) for c in f.changes_by("theirs") if c.side == "theirs" and c.kind != "dropped"
            ]
        elif not f.name.endswith(".py"):
            lines.append(ReportLine(f.name, f"~ file {f.name}", "", "changed", f"~ file {f.name}"))
        else:
            before = spelled(f.name, f.before, f.after) if spelled is not None else f.before
            found = [_applied_line(f.name, c) for c in _changes_between(before, f.after, budget)]
            lines += found or [
                ReportLine(f.name, "~ comments or formatting", "", "changed", "~ comments or formatting", FORMATTING)
            ]
    return lines


FORMATTING = "comments or formatting"
_MODE = {True: "100755", False: "100644"}


@functools.lru_cache(maxsize=64)
def _changes_between(before: str, after: str, budget: float) -> tuple[Change, ...]:
    """What *after* changed in *before*, member by member, as the merge names it.  Kept per
    pair of texts: a run's summary, its JSON and its commit message all ask."""
    if before == after:
        return ()
    try:
        result = merge3(before, after, before, budget=budget, strict=True)
    except UnparsableSource:
        return ()
    return tuple(c for c in specific_changes(result.changes) if c.side == "ours" and c.kind != "dropped")


def _applied_line(file: str, change: Change) -> ReportLine:
    sign = _SIGNS[change.kind]
    return ReportLine(
        file,
        f"{sign} {_noted(change)}",
        change.path,
        change.kind,
        f"{sign} {_what(change)}",
        change.detail,
        change.statement,
        change.note,
    )


def kept_line(file: str, change: Change) -> ReportLine:
    verb = "" if change.kind == "added" else f"{change.kind} "
    return ReportLine(
        file,
        f"kept: {verb}{_noted(change)}",
        change.path,
        change.kind,
        f"{verb}{_what(change)}",
        change.detail,
        change.statement,
        change.note,
    )


def check_parses(files: Mapping[str, str], root: Path, who: str) -> None:
    """Refuse a copy whose Python files do not parse, naming the file and line: plait
    never writes a copy from broken code."""
    for rel, text in sorted(files.items()):
        if rel.endswith(".py"):
            problem = _parse_problem(text)
            if problem is not None:
                message, line = problem
                raise PlaitError(f"{who}: does not parse ({message})", path=str(root / rel), line=line)


@functools.lru_cache(maxsize=256)
def _parse_problem(text: str) -> tuple[str, int | None] | None:
    """Why *text* does not parse, and where; None when it does.  Kept per text: a vendor
    run checks the same source, and mostly the same vendored files, for every consumer.

    Parsed as the file's bytes, as the interpreter reads a module it imports:
    a UTF-8 BOM, and a latin-1 file that declares its encoding, are Python;
    a latin-1 file that declares none is not, and is named so.
    """
    data = contents.encode(text)
    try:
        ast.parse(data)
    except (SyntaxError, ValueError) as exc:
        if not contents.is_utf8(text) and contents.declared_encoding(text) is None:
            return _not_utf8(data)
        return str(getattr(exc, "msg", exc)), getattr(exc, "lineno", None)
    return None


def _not_utf8(data: bytes) -> tuple[str, int]:
    """Why a module whose bytes are not UTF-8, and which declares no other encoding, is not Python."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        return f"byte 0x{byte:02x} is not UTF-8, and the file declares no other encoding (PEP 263)", line
    return "not UTF-8", 1


@functools.lru_cache(maxsize=256)
def _parses(text: str) -> bool:
    try:
        ast.parse(contents.encode(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _merge(base: str, ours: str, theirs: str, *, budget: float, where: Mapping[str, str]) -> MergeResult:
    try:
        result = merge3(base, ours, theirs, budget=budget, strict=True)
    except UnparsableSource as exc:
        side = exc.path or "input"
        raise PlaitError(f"{side} does not parse ({exc.message})", path=where.get(side, side)) from None
    _never_unseen(result, base, ours, theirs)
    return result


def _never_unseen(result: MergeResult, base: str, ours: str, theirs: str) -> None:
    """A conflict with no marker in its text (an addition the audits found missing, which
    they cannot point at) becomes one whole-file conflict, as `plait merge` makes it: the
    text is written for a person to resolve, and a text without markers would read as
    resolved with a side's change gone.  (A budget conflict alone is git's clean merge,
    and a binary one takes no markers.)"""
    if result.clean or marker_line(result.text) is not None:
        return
    if all(c.kind in ("budget", "binary") for c in result.conflicts):
        return
    from .merge.lines import whole_file_conflict

    result.text = whole_file_conflict(base, ours, theirs).text
    result.notes.append("the merge could not show a conflict in place, so the whole file is marked")


def _merge_conflicts(name: str, result: MergeResult) -> list[FileConflict]:
    return [
        FileConflict(path=c.path, kind=c.kind, reason=c.reason, line=c.line, ours=c.ours, theirs=c.theirs, file=name)
        for c in result.conflicts
    ]


def merge_trees(
    base: Mapping[str, str],
    ours: Mapping[str, str],
    theirs: Mapping[str, str],
    *,
    ours_raw: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
    protected: Collection[str] = (),
    labels: Callable[[str], Mapping[str, str]] | None = None,
    local: str = "the lineage",
    budget: float = DEFAULT_BUDGET,
    modes: Modes | None = None,
) -> list[FilePlan]:
    """Merge three versions of a tree of files, file by file, by git's rules.

    All three are keyed by the local copy's file names and already in its
    namespace (transformed).  *ours_raw* is the local copy as it is on disk
    (what a file left alone keeps, byte for byte); *sources* names each
    file's source file for the report; *protected* files are never touched;
    *labels* names the three inputs of a file for an error; *local* names
    the local copy in conflict reasons.  *modes* names the executable files
    of base, ours and theirs; each file's mode is merged as git merges it
    (`merge_modes`).  This is the core a lineage sync and a re-vendor share.
    """
    raw = ours_raw if ours_raw is not None else ours
    names = sorted(set(base) | set(theirs) | set(ours))
    plans: list[FilePlan] = []
    for name in names:
        src = (sources or {}).get(name, name) if name in base or name in theirs else None
        if src is None or name in protected:
            plans.append(FilePlan(name, src, "kept", raw.get(name), raw.get(name)))
            continue
        where = labels(name) if labels is not None else {"base": f"base {name}", "ours": name, "theirs": name}
        plans.append(
            _merge_file(
                name, src, base.get(name), raw.get(name), ours.get(name), theirs.get(name), budget, where, local
            )
        )
    if modes is not None:
        merge_modes(plans, *modes, base_has=base.keys())
    return plans


# The executable files of base, ours and theirs (`merge_trees`).
Modes = tuple[Collection[str], Collection[str], Collection[str]]


def merge_modes(
    plans: Iterable[FilePlan],
    base: Collection[str],
    ours: Collection[str],
    theirs: Collection[str],
    *,
    base_has: Collection[str] = (),
) -> None:
    """Give each plan the mode git's merge gives its file: the execute bit merged three ways.

    A file new to the copy gets the source's mode; a side that left the bit
    as the base had it gives way to the other (a mode change upstream is
    carried in, the copy's own change of it kept); a file the copy alone has
    keeps its own.  The base is *base_has*'s files: one it lacks (both added
    it) keeps ours' mode.
    """
    for plan in plans:
        name = plan.name
        plan.was_executable = plan.before is not None and name in ours
        if plan.after is None:
            plan.executable = False
        elif plan.action == "kept":  # (a protected file, or one the copy alone has: its own mode)
            plan.executable = plan.was_executable
        elif plan.before is None or plan.source_name is None:
            plan.executable = name in theirs if plan.before is None else plan.was_executable
        else:
            was = name in base if name in base_has else plan.was_executable
            plan.executable = (name in theirs) if plan.was_executable == was else plan.was_executable


def _merge_file(
    name: str,
    src: str,
    base: str | None,
    ours_raw: str | None,
    ours: str | None,
    theirs: str | None,
    budget: float,
    where: Mapping[str, str],
    local: str,
) -> FilePlan:
    python = name.endswith(".py")
    if base is None and theirs is not None:  # new in the source
        if ours is None:
            return FilePlan(name, src, "added", None, theirs)
        if ours == theirs:
            return FilePlan(name, src, "unchanged", ours_raw, ours_raw)
        if python:
            result = _merge("", ours, theirs, budget=budget, where=where)
            action: Action = "merged" if result.clean else "conflict"
            return FilePlan(name, src, action, ours_raw, result.text, result, _merge_conflicts(name, result))
        return _merge_other(name, src, "", ours_raw, ours, theirs, local)
    if theirs is None:  # deleted in the source
        if base is None or ours is None:
            return FilePlan(name, src, "unchanged", ours_raw, ours_raw)
        if ours == base:
            return FilePlan(name, src, "deleted", ours_raw, None)
        return _whole_file_conflict(
            name, src, ours_raw, "delete/modify", f"the source deleted this file; {local} changed it"
        )
    if base is None:  # pragma: no cover - handled above: new in the source
        raise AssertionError(name)
    if ours is None:  # the local copy deleted it
        if theirs == base:
            return FilePlan(name, src, "kept", None, None)
        # Nothing can be marked in a file that is not there: the source's version is
        # put beside it, so that a person sees the change before choosing.
        _ours_name, theirs_name = beside_names(name)
        plan = _whole_file_conflict(
            name,
            src,
            None,
            "delete/modify",
            f"{local} deleted this file; the source changed it (its version is beside it, as {theirs_name})",
        )
        plan.beside = {theirs_name: theirs}
        return plan
    if not python:
        if theirs == base or ours == theirs:
            return FilePlan(name, src, "unchanged", ours_raw, ours_raw)
        if ours == base:
            return FilePlan(name, src, "merged", ours_raw, theirs)
        return _merge_other(name, src, base, ours_raw, ours, theirs, local)
    decided = _decided(name, src, base, ours_raw, ours, theirs, budget, where)
    if decided is not None:
        return decided
    result = _merge(base, ours, theirs, budget=budget, where=where)
    if not result.clean:
        return FilePlan(name, src, "conflict", ours_raw, result.text, result, _merge_conflicts(name, result))
    after = ours_raw if result.text == ours else result.text
    return FilePlan(name, src, "unchanged" if after == ours_raw else "merged", ours_raw, after, result)


def _decided(
    name: str,
    src: str,
    base: str,
    ours_raw: str | None,
    ours: str,
    theirs: str,
    budget: float,
    where: Mapping[str, str],
) -> FilePlan | None:
    """The plan of a file two of whose three versions are equal, decided by their bytes, or None.

    This is `merge3`'s identity law (a side that is the base gives way to
    the other, byte for byte) applied before any parse, so that a fleet of
    consumers that mostly did not touch a file pays nothing for it.  What
    the merge would also do, refuse a version that does not parse, is
    checked (once per text) first; one that does not parse goes to the
    merge, to be refused in its words.
    """
    if ours not in (base, theirs) and theirs != base:
        return None
    if not all(_parses(text) for text in {base, ours, theirs}):
        return None
    text = theirs if ours == base else ours
    after = ours_raw if text == ours else text
    action: Action = "unchanged" if after == ours_raw else "merged"
    if ours == base == theirs:
        return FilePlan(name, src, action, ours_raw, after, MergeResult(ours, [], [], "identity"))
    unchanged: Literal["ours", "theirs", ""] = "ours" if ours == base else "theirs" if theirs == base else ""
    deferred = _Deferred(
        base,
        base if ours == base else ours,
        base if theirs == base else ours if theirs == ours else theirs,
        unchanged,
        budget,
        tuple(sorted(where.items())),
    )
    return FilePlan(name, src, action, ours_raw, after, _deferred=deferred)


BESIDE_SUFFIXES = ("~ours", "~theirs")
_MARKERS = ("<<<<<<<", ">>>>>>>")


def marker_line(text: str) -> int | None:
    """The first line of *text* holding a conflict marker, 1-based; None when it holds none."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(_MARKERS):
            return number
    return None


def sides_left(rel: str, path: Path) -> list[str]:
    """The sides of a conflict still written beside the file *rel* at *path* (`beside_names`), as a problem."""
    sides = [side for side in beside_names(rel) if os.path.lexists(path.parent / Path(side).name)]
    if not sides:
        return []
    return [f"{rel}: {' and '.join(sides)} still beside it (leave the version you want at {rel}, remove both)"]


def unresolved_file(rel: str, path: Path) -> list[str]:
    """What is left to resolve of a file written in conflict, at *path*: a marker, or a
    side's version still beside it (`beside_names`).  Nothing is taken as resolved that a
    person has not seen: a conflict with no markers is resolved by removing its sides."""
    left = sides_left(rel, path)
    try:
        text = contents.decode(path.read_bytes()) if path.is_file() else ""
    except OSError:
        text = ""
    line = marker_line(text) if not contents.is_binary(text) else None
    if line is not None:
        left.append(f"{rel}:{line}: conflict marker left")
    return left


def beside_names(name: str) -> tuple[str, str]:
    """Where each side's version of a conflict no marker can show is written: ``<name>~ours``
    (the copy's own, also left at *name*) and ``<name>~theirs`` (the source's), beside the
    file as git writes the sides of a conflict it cannot mark.  The conflict is resolved
    when a person has left the version they want at *name* and removed both."""
    ours, theirs = BESIDE_SUFFIXES
    return f"{name}{ours}", f"{name}{theirs}"


def _merge_other(name: str, src: str, base: str, ours_raw: str | None, ours: str, theirs: str, local: str) -> FilePlan:
    """A file that is not Python, both sides changed (or both added): git's line merge, with
    markers on a real conflict; a binary file is kept as the copy has it, both versions beside."""
    ours_raw = ours if ours_raw is None else ours_raw
    result = merge_text(base, ours, theirs, names=(f"base {name}", name, name))
    if result.strategy == "binary":
        ours_name, theirs_name = beside_names(name)
        reason = (
            f"both the source and {local} changed this binary file, which takes no markers: {local}'s is kept,"
            f" and both versions are beside it, as {ours_name} and {theirs_name}"
        )
        plan = _whole_file_conflict(name, src, ours_raw, "binary", reason)
        plan.beside = {ours_name: ours_raw, theirs_name: theirs}
        return plan
    if result.clean:
        after = ours_raw if result.text == ours else result.text
        return FilePlan(name, src, "unchanged" if after == ours_raw else "merged", ours_raw, after, result)
    conflicts = [
        FileConflict(path=FILE, kind=c.kind, reason=c.reason, line=c.line, file=name) for c in result.conflicts
    ]
    return FilePlan(name, src, "conflict", ours_raw, result.text, result, conflicts)


def _whole_file_conflict(name: str, src: str | None, before: str | None, kind: ConflictKind, reason: str) -> FilePlan:
    # The file is left as the lineage has it; the maintainer decides
    # (delete it or keep it), then runs --continue.
    return FilePlan(
        name, src, "conflict", before, before, None, [FileConflict(path=FILE, kind=kind, reason=reason, file=name)]
    )
