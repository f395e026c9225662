"""Which revision of its source a copy was made from, found in both histories.

Closeness of content alone is the wrong question once upstream has taken a
copy's patches, reworked: the later revision is then closer to the copy
than the one it was made from, and a merge from it drops upstream's rework
as if the copy had removed it.  The evidence a person would use is in git:

1. **A sync point.**  The copy's own repository holds the commits of its
   directory; the latest one whose files equal a source revision exactly
   (through the transforms and the import spelling) says where the copy
   stood, and every later commit is local.
2. **Dates.**  A source revision committed after the copy's files were
   last committed cannot be where they came from.
3. **Direction.**  Local patches add and change code.  A base under which
   the copy deletes what the source had just added (a member, a tuple
   entry, a branch) is suspect: the copy more likely predates it.

Without a sync point the candidates are ranked by content, the direction
rule penalising the newer of two, and when the best two are close or the
penalty alone decides, the choice is put to a person (`Ambiguity`), never
made silently.

The walk is cheap, so it is never capped silently: a revision is a list of
blob ids (``git ls-tree``), every blob is read once (``git cat-file
--batch``), and revisions are first ranked by how many lines their files
share with the copy, computed per blob and cached; only the few closest are
carried through the transforms and compared member by member.  The source's
package is followed through moves (``pkg/`` → ``src/pkg/``): where the
history of its directory begins with a commit that created it, the parent
commit is searched for the directory it came from, by its files.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import contents, gitops
from ..errors import PlaitError
from ..vendoring.lock import LocalEdit
from .diff import distance

__all__ = [
    "Ambiguity",
    "AmbiguousBase",
    "Candidate",
    "CopyHistory",
    "Finding",
    "SourceHistory",
    "SyncPoint",
    "find_base",
    "package_at",
    "said",
]

How = Literal["sync point", "content", "direction", "chosen"]

# How many revisions, closest by shared lines, are carried and compared
# member by member; and how many of those get their local edits listed
# (a merge per differing file), which the direction rule needs.
_FINALISTS = 4
_JUDGED = 3
# How many revisions, closest by shared lines, are checked for equality with a state of the copy.
_SYNC_TRIES = 4
# Two candidates this close are a choice for a person: local edits within
# one, and differing lines within this many (or a tenth).
_CLOSE_EDITS = 1
_CLOSE_LINES = 3


# --------------------------------------------------------------------------
# the source's history, followed through moves


@dataclass(frozen=True)
class Segment:
    """A stretch of the source's history during which its package lived at *path*."""

    path: str
    revisions: tuple[gitops.Revision, ...]


def package_segments(top: Path, path: str, rev: str = "HEAD") -> list[Segment]:
    """The history of the package at *path* (relative to the repository's *top*), newest first,
    one segment per place it lived in.

    Where a segment begins with the commit that created the directory, its
    parent is searched for the directory the files came from (`_moved_from`)
    and the walk goes on there.
    """
    out: list[Segment] = []
    seen: set[str] = set()
    while path not in seen:
        seen.add(path)
        revisions = tuple(r for r in gitops.path_history(top, path, rev) if r.sha not in _shas(out))
        if not revisions:
            break
        out.append(Segment(path, revisions))
        oldest = revisions[-1]
        if not oldest.parents or not path:
            break
        parent = oldest.parents[0]
        if gitops.tree_files(top, parent, path):
            break  # the directory was there before: its history simply ends
        old = _moved_from(top, parent, gitops.tree_files(top, oldest.sha, path))
        if old is None:
            break
        path, rev = old, parent
    return out


def _shas(segments: Sequence[Segment]) -> set[str]:
    return {r.sha for s in segments for r in s.revisions}


def _moved_from(top: Path, rev: str, files: Mapping[str, str]) -> str | None:
    """The directory of *rev* that the package's *files* (name → blob) most likely came from.

    Each file of the tree at *rev* that ends in one of the package's file
    names votes for the directory that would hold it, twice when its blob
    is the same; the directory with the most votes wins if it holds at least
    half of the names.
    """
    return _best_directory(gitops.tree_files(top, rev), files)


def _best_directory(tree: Mapping[str, str], files: Mapping[str, str]) -> str | None:
    if not files:
        return None
    votes: Counter[str] = Counter()
    names: Counter[str] = Counter()
    for where, blob in tree.items():
        for rel, wanted in files.items():
            if where == rel or where.endswith("/" + rel):
                prefix = where[: len(where) - len(rel)].rstrip("/")
                names[prefix] += 1
                votes[prefix] += 2 if blob == wanted else 1
    held = [p for p in votes if names[p] * 2 >= len(files)]
    if not held:
        return None
    return max(held, key=lambda p: (votes[p], -len(p)))


def package_at(top: Path, path: str, rev: str, known: Sequence[str] = ()) -> tuple[str, dict[str, str]]:
    """Where the package was at *rev* and its files there (name → blob): at *path*, else at one of
    the *known* places it lived in, else wherever its file names are."""
    for where in (path, *known):
        files = gitops.tree_files(top, rev, where)
        if files:
            return where, files
    found = _best_directory(gitops.tree_files(top, rev), gitops.tree_files(top, "HEAD", path))
    if found is None:
        return path, {}
    return found, gitops.tree_files(top, rev, found)


# --------------------------------------------------------------------------
# what is compared


@dataclass(frozen=True)
class SourceHistory:
    """The source as `find_base` walks it.

    top / path: its repository and the package's directory in it.
    select: whether a file of the package counts (excludes, a consumer's globs).
    carry: files of the source → the same in the copy's namespace (its names and imports).
    name_of: a source file's name in the copy (a lineage renames some).
    """

    name: str
    top: Path
    path: str
    select: Callable[[str], bool]
    carry: Callable[[Mapping[str, str]], dict[str, str]]
    name_of: Callable[[str], str] = lambda rel: rel


@dataclass(frozen=True)
class CopyHistory:
    """The copy as `find_base` compares it.

    files: its files now, in plait's spelling.
    top / path: its repository and directory, when it has one.
    keep: whether a file of its directory is part of the copy (not its lock, not excluded).
    normalise: files of the copy at a commit → plait's spelling, as *files* are.
    align: (copy files, reference) → the copy's imports spelled as the reference spells the same bindings.
    edits: (pristine, copy) → what the copy has that *pristine* does not, one entry per edit.
    """

    name: str
    files: Mapping[str, str]
    top: Path | None
    path: str
    keep: Callable[[str], bool]
    normalise: Callable[[Mapping[str, str]], dict[str, str]]
    align: Callable[[Mapping[str, str], Mapping[str, str]], dict[str, str]]
    edits: Callable[[Mapping[str, str], Mapping[str, str]], list[LocalEdit]]
    raw: Mapping[str, str] = field(default_factory=dict)
    # (file, text as committed) → the same in plait's spelling: a commit of the
    # copy mostly holds the blobs of the one before it, and of the disk.
    spelled: dict[tuple[str, str], str | None] = field(default_factory=dict, compare=False, repr=False)

    def in_plait_spelling(self, files: Mapping[str, str]) -> dict[str, str] | None:
        """*files* of a commit of the copy in plait's spelling, file by file; None when one
        cannot be read (a half-made copy holds no sync point)."""
        if not self.spelled:
            self.spelled.update({(rel, text): self.files.get(rel) for rel, text in self.raw.items()})
        out: dict[str, str] = {}
        for rel, text in files.items():
            key = (rel, text)
            if key not in self.spelled:
                try:
                    self.spelled[key] = self.normalise({rel: text})[rel]
                except PlaitError:
                    self.spelled[key] = None
            spelled = self.spelled[key]
            if spelled is None:
                return None
            out[rel] = spelled
        return out


@dataclass
class Candidate:
    """A revision of the source, and how far the copy is from it.

    members / lines: the distance member by member, then line by line.
    edits: what the copy would carry as local edits over it (for the closest few).
    penalty: those of *edits* that delete what the source had just added.
    """

    revision: gitops.Revision
    path: str
    members: int = 0
    lines: int = 0
    edits: list[LocalEdit] | None = None
    penalty: list[LocalEdit] = field(default_factory=list)
    shared: int = 0

    @property
    def short(self) -> str:
        return self.revision.short

    def label(self) -> str:
        return f"{self.revision.short} ({self.revision.date})"

    def describe(self) -> str:
        """The candidate as a report's "why" and "runner-up" say it."""
        if self.edits is not None:
            return f"{self.label()}: {_count(len(self.edits), 'local edit')}"
        return f"{self.label()}: {self.members} differing members, {self.lines} differing lines"

    def to_json(self) -> dict[str, Any]:
        r = self.revision
        return {
            "commit": r.sha,
            "date": r.date,
            "summary": r.summary,
            "path": self.path,
            "members": self.members,
            "lines": self.lines,
            "local_edits": len(self.edits) if self.edits is not None else None,
            "removes_what_the_source_added": [e.text for e in self.penalty],
        }


@dataclass(frozen=True)
class SyncPoint:
    """The commit of the copy's own history whose files equal a source revision."""

    commit: gitops.Revision | None  # None: the copy as it is now, uncommitted
    later: int

    def describe(self, copy: str, source: Candidate) -> str:
        if self.commit is None:
            return f"{copy} as it is now equals it"
        later = (
            f"; {_count(self.later, 'later commit')} {'is' if self.later == 1 else 'are'} local" if self.later else ""
        )
        return f"{copy} {self.commit.short} ({self.commit.date}) equals it{later}"


@dataclass(frozen=True)
class Ambiguity:
    """Two candidates too close to choose between without a person, and what each would mean."""

    first: Candidate
    second: Candidate
    reason: str

    def meaning(self, candidate: Candidate, other: Candidate) -> str:
        """What taking *candidate* would say about the copy: its edits that taking *other* would not."""
        own = _own_edits(candidate, other)
        # What tells the two apart first: removals of what the source added, then changes, then additions.
        order = {"removed": 0, "changed": 1}
        own.sort(key=lambda e: (e not in candidate.penalty, order.get(e.kind, 2)))
        if not own:
            return f"under {candidate.short} your copy has no edit it would not have under {other.short}"
        shown = ", ".join(said(e) for e in own[:2])
        more = f" (and {len(own) - 2} more)" if len(own) > 2 else ""
        return f"under {candidate.short} your copy {shown}{more}"

    def describe(self) -> str:
        return (
            f"{self.reason}: {self.first.label()} or {self.second.label()};"
            f" {self.meaning(self.first, self.second)}; {self.meaning(self.second, self.first)}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "candidates": [self.first.to_json(), self.second.to_json()],
            "meanings": [self.meaning(self.first, self.second), self.meaning(self.second, self.first)],
        }


def said(edit: LocalEdit) -> str:
    """An edit as a sentence's verb and object: ``removed _ACTION_ID_KEYS (store.py)``."""
    text = edit.text if edit.kind != "added" or edit.path == "<file>" else f"added {edit.text}"
    return text if edit.path == "<file>" else f"{text} ({edit.file})"


def _own_edits(candidate: Candidate, other: Candidate) -> list[LocalEdit]:
    theirs = {(e.file, e.path, e.kind, e.detail) for e in other.edits or []}
    return [e for e in candidate.edits or [] if (e.file, e.path, e.kind, e.detail) not in theirs]


class AmbiguousBase(PlaitError):
    """Two revisions are equally good bases: `adopt` asks for ``--base`` rather than guess."""

    def __init__(self, name: str, ambiguity: Ambiguity) -> None:
        first, second = ambiguity.first.short, ambiguity.second.short
        super().__init__(
            f"cannot tell which revision {name} was copied from, {ambiguity.describe()};"
            f" pass --base {first} or --base {second}"
        )
        self.ambiguity = ambiguity


@dataclass
class Finding:
    """The base `find_base` chose, why, and what it weighed."""

    chosen: Candidate
    files: dict[str, str]
    how: How
    runner_up: Candidate | None = None
    sync: SyncPoint | None = None
    compared: int = 0
    skipped_newer: int = 0
    bound: str = ""
    ambiguity: Ambiguity | None = None
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# the walk


class _Blobs:
    """Every blob of the walk, read once and decoded; the line counts the first ranking uses."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.texts: dict[str, str | None] = {}

    def load(self, shas: set[str]) -> None:
        missing = shas - self.texts.keys()
        for sha, data in gitops.blobs(self.top, missing).items():
            self.texts[sha] = contents.decode(data)  # any file, byte for byte (`plait.contents`)
        for sha in missing - self.texts.keys():
            self.texts[sha] = None

    def files(self, blobs: Mapping[str, str]) -> dict[str, str]:
        out = {}
        for rel, sha in blobs.items():
            text = self.texts.get(sha)
            if text is not None:
                out[rel] = text
        return out


@functools.lru_cache(maxsize=8192)
def _lines(text: str) -> Counter[str]:
    return Counter(line.strip() for line in text.splitlines() if line.strip())


def _shared(a: str, b: str) -> int:
    """How many lines two texts differ by, order aside: cheap, and close to a diff's count."""
    if a == b:
        return 0
    la, lb = _lines(a), _lines(b)
    return ((la - lb).total()) + ((lb - la).total())


def find_base(
    source: SourceHistory,
    copy: CopyHistory,
    *,
    max_revisions: int | None = None,
    choose: Callable[[Ambiguity], Candidate | None] | None = None,
) -> Finding:
    """The revision of *source* that *copy* was made from (see the module's docstring).

    *choose* is asked when two candidates are too close to tell apart (a
    terminal's prompt); without it, or when it answers None, `AmbiguousBase`
    names both.
    """
    segments = package_segments(source.top, source.path)
    if not segments:
        raise PlaitError(
            f"no git history for {source.name}; pass --base PATH (the source as {copy.name} started from it)",
            path=str(source.top / source.path),
        )
    notes: list[str] = []
    for newer, older in zip(segments, segments[1:], strict=False):
        notes.append(
            f"followed {source.name}'s package from {older.path or '.'}/ to {newer.path or '.'}/"
            f" (moved in {newer.revisions[-1].short})"
        )
    revisions = [(r, s.path) for s in segments for r in s.revisions]
    blobs = _Blobs(source.top)
    trees = {
        r.sha: {rel: b for rel, b in gitops.tree_files(source.top, r.sha, p).items() if source.select(rel)}
        for r, p in revisions
    }

    copy_revisions, bound_at, copy_blobs = _copy_history(copy)
    skipped = 0
    if bound_at is not None:
        latest = max(bound_at.authored, bound_at.committed)
        permitted = [(r, p) for r, p in revisions if min(r.authored, r.committed) <= latest]
        skipped = len(revisions) - len(permitted)
        revisions = permitted
    bound = ""
    if max_revisions is not None and len(revisions) > max_revisions:
        bound = f"compared the newest {max_revisions} of {len(revisions)} revisions (--max-revisions)"
        revisions = revisions[:max_revisions]
    # One candidate per distinct content: the newest revision that has it.
    distinct: list[tuple[gitops.Revision, str]] = []
    states: set[frozenset[tuple[str, str]]] = set()
    for revision, path in revisions:
        state = frozenset(trees[revision.sha].items())
        if state and state not in states:
            states.add(state)
            distinct.append((revision, path))
    if not distinct and bound_at is not None and skipped:
        # The date bound was right to leave these out (a copy cannot start from a revision newer than
        # itself), but a bare "no files" hides that the bound did it, and what to do instead.
        raise PlaitError(
            f"{source.name} has no revision dated before {copy.name}'s last commit {bound_at.short}"
            f" ({bound_at.date}): the date bound left out all {_count(skipped, 'revision')} of its history;"
            f" if the copy was made from one of them, pass --base REF (a revision of {source.name})",
            path=str(source.top / source.path),
        )
    if not distinct:
        raise PlaitError(f"{source.name} has no files in its history", path=str(source.top / source.path))
    blobs.load({sha for r, _ in distinct for sha in trees[r.sha].values()})

    walk = _Walk(source, copy, blobs, trees, distinct)
    if bound_at is not None and skipped:
        notes.append(
            f"{_count(skipped, 'newer revision')} of {source.name} not compared: dated after {copy.name}'s"
            f" last commit {bound_at.short} ({bound_at.date})"
        )
    if bound:
        notes.append(bound + "; pass a larger --max-revisions to compare more")
    sync = walk.sync_point(copy_revisions, copy_blobs)
    if sync is not None:
        candidate, point = sync
        return Finding(
            candidate,
            walk.raw(candidate),
            "sync point",
            sync=point,
            compared=len(distinct),
            skipped_newer=skipped,
            bound=bound,
            notes=notes,
        )
    ranked, how, ambiguity = walk.rank()
    chosen = ranked[0]
    if ambiguity is not None:
        picked = choose(ambiguity) if choose is not None else None
        if picked is None:
            raise AmbiguousBase(copy.name, ambiguity)
        chosen, how = picked, "chosen"
    runner_up = next((c for c in ranked if c is not chosen), None)
    return Finding(
        chosen,
        walk.raw(chosen),
        how,
        runner_up=runner_up,
        compared=len(distinct),
        skipped_newer=skipped,
        bound=bound,
        ambiguity=ambiguity,
        notes=notes,
    )


def _copy_history(copy: CopyHistory) -> tuple[list[gitops.Revision], gitops.Revision | None, _Blobs | None]:
    """The commits of the copy's directory, newest first; the one that bounds the dates (its newest,
    when the copy is as that commit holds it); and the blob reader of its repository."""
    if copy.top is None:
        return [], None, None
    revisions = gitops.path_history(copy.top, copy.path)
    if not revisions:
        return [], None, None
    reader = _Blobs(copy.top)
    newest = revisions[0]
    files = _copy_files(copy, reader, newest.sha)
    # Files edited since, uncommitted, are the copy's too, so no date bounds them.
    return revisions, (newest if files == dict(copy.files) else None), reader


def _copy_files(copy: CopyHistory, reader: _Blobs, rev: str) -> dict[str, str]:
    assert copy.top is not None
    tree = {rel: sha for rel, sha in gitops.tree_files(copy.top, rev, copy.path).items() if copy.keep(rel)}
    reader.load(set(tree.values()))
    return copy.in_plait_spelling(reader.files(tree)) or {}


class _Walk:
    """The distinct revisions of the source against the copy: cheap first, precise for the closest."""

    def __init__(
        self,
        source: SourceHistory,
        copy: CopyHistory,
        blobs: _Blobs,
        trees: Mapping[str, Mapping[str, str]],
        distinct: list[tuple[gitops.Revision, str]],
    ) -> None:
        self.source = source
        self.copy = copy
        self.blobs = blobs
        self.trees = trees
        self.candidates = [Candidate(r, p) for r, p in distinct]
        self._carried: dict[tuple[str, str], tuple[str, str] | None] = {}
        self._aligned: dict[tuple[str, str, str], str] = {}
        self._edits: dict[tuple[str, str | None, str | None], list[LocalEdit]] = {}
        self._pairs: dict[tuple[str, str], int] = {}
        # Files only the copy has cost every candidate the same: left out.
        self.known = {source.name_of(rel) for tree in trees.values() for rel in tree}

    def raw(self, candidate: Candidate) -> dict[str, str]:
        return self.blobs.files(self.trees[candidate.revision.sha])

    def carried(self, candidate: Candidate) -> dict[str, str]:
        """The candidate's files in the copy's namespace, carried one blob at a time, once each."""
        out: dict[str, str] = {}
        for rel, sha in self.trees[candidate.revision.sha].items():
            key = (rel, sha)
            if key not in self._carried:
                text = self.blobs.texts.get(sha)
                self._carried[key] = None if text is None else next(iter(self.source.carry({rel: text}).items()))
            done = self._carried[key]
            if done is not None:
                out[done[0]] = done[1]
        return out

    def align(self, mine: Mapping[str, str], theirs: Mapping[str, str]) -> dict[str, str]:
        """*mine* spelled as *theirs* spells the same imports, file by file, each pair once."""
        out: dict[str, str] = {}
        for name, text in mine.items():
            reference = theirs.get(name)
            if reference is None or reference == text:
                out[name] = text
                continue
            key = (name, text, reference)
            if key not in self._aligned:
                self._aligned[key] = self.copy.align({name: text}, {name: reference})[name]
            out[name] = self._aligned[key]
        return out

    def edits(self, pristine: Mapping[str, str], after: Mapping[str, str]) -> list[LocalEdit]:
        """What *after* carries that *pristine* does not, file by file, each pair once."""
        out: list[LocalEdit] = []
        for name in sorted(pristine.keys() | after.keys()):
            key = (name, pristine.get(name), after.get(name))
            if key[1] == key[2]:
                continue
            if key not in self._edits:
                one = {name: key[1]} if key[1] is not None else {}
                other = {name: key[2]} if key[2] is not None else {}
                self._edits[key] = self.copy.edits(one, other)
            out += self._edits[key]
        return out

    def shared(self, candidate: Candidate, files: Mapping[str, str]) -> int:
        """The cheap distance: lines differing, file by file, between the raw revision and *files*
        (each pair of a blob and a text counted once: most revisions share most blobs)."""
        total = 0
        seen: set[str] = set()
        for rel, sha in self.trees[candidate.revision.sha].items():
            name = self.source.name_of(rel)
            seen.add(name)
            text = files.get(name, "")
            key = (sha, text)
            if key not in self._pairs:
                self._pairs[key] = _shared(self.blobs.texts.get(sha) or "", text)
            total += self._pairs[key]
        for name, text in files.items():
            if name in self.known and name not in seen:
                total += _shared("", text)
        return total

    # -- the copy's own history ----------------------------------------------

    def sync_point(self, revisions: list[gitops.Revision], reader: _Blobs | None) -> tuple[Candidate, SyncPoint] | None:
        """The latest state of the copy that equals a revision of the source, and that revision."""
        states: list[tuple[gitops.Revision | None, dict[str, str]]] = [(None, dict(self.copy.files))]
        if reader is not None:
            states += [(r, _copy_files(self.copy, reader, r.sha)) for r in revisions]
        never = self._never_had([files for _, files in states])
        tried: set[frozenset[tuple[str, str]]] = set()
        for index, (commit, files) in enumerate(states):
            content = frozenset(files.items())
            if not files or content in tried:
                continue  # a commit that changed nothing the copy holds equals what it did before
            tried.add(content)
            found = self._equal(files, never, commit)
            if found is not None:
                later = max(index - 1, 0) if commit is not None else 0
                if commit is None and len(states) > 1 and states[1][1] == files:
                    commit = states[1][0]  # the copy now is its last commit: name that commit
                return found, SyncPoint(commit, later)
        return None

    def _never_had(self, states: Sequence[Mapping[str, str]]) -> set[str]:
        """Source files the copy never had in any state: not vendored, so no sync point needs them."""
        had = {name for files in states for name in files}
        return self.known - had

    def _equal(self, files: Mapping[str, str], never: set[str], commit: gitops.Revision | None) -> Candidate | None:
        """The source revision *files* equal, through the transforms and the import spelling.

        Files no revision ever had are the copy's own (a note, a licence), so they say
        nothing about where the rest came from.
        """
        files = {name: text for name, text in files.items() if name in self.known}
        if not files:
            return None
        scored = sorted(self.candidates, key=lambda c: self.shared(c, files))
        closest = self.shared(scored[0], files)
        matches: list[Candidate] = []
        for tried, candidate in enumerate(scored):
            # An import spelled otherwise costs a line or two, so the revision the copy equals is
            # among the closest few, not always the closest.
            if tried >= _SYNC_TRIES and self.shared(candidate, files) > closest:
                break
            names = {self.source.name_of(rel) for rel in self.trees[candidate.revision.sha]} - never
            if names != set(files):
                continue
            theirs = {n: t for n, t in self.carried(candidate).items() if n not in never}
            if set(theirs) == set(files) and self.align(files, theirs) == theirs:
                matches.append(candidate)
        if not matches:
            return None
        if commit is not None:
            latest = max(commit.authored, commit.committed)
            before = [c for c in matches if min(c.revision.authored, c.revision.committed) <= latest]
            matches = before or matches
        return matches[0]  # the newest: candidates are newest first

    # -- ranking by content --------------------------------------------------

    def rank(self) -> tuple[list[Candidate], How, Ambiguity | None]:
        mine = {k: v for k, v in self.copy.files.items() if k in self.known}
        for candidate in self.candidates:
            candidate.shared = self.shared(candidate, mine)
        age = {id(c): i for i, c in enumerate(self.candidates)}
        cheap = sorted(self.candidates, key=lambda c: (c.shared, age[id(c)]))[:_FINALISTS]
        for candidate in cheap:
            theirs = self.carried(candidate)
            candidate.members, candidate.lines = distance(theirs, self.align(mine, theirs))
        finalists = sorted(cheap, key=lambda c: (c.members, c.lines, age[id(c)]))[:_JUDGED]
        carried = {id(c): self.carried(c) for c in finalists}
        for candidate in finalists:
            candidate.edits = self.edits(carried[id(candidate)], mine)
        for candidate in finalists:
            for older in finalists:
                if age[id(older)] > age[id(candidate)]:
                    added = _added(self.edits(carried[id(older)], carried[id(candidate)]))
                    removed = [e for e in candidate.edits or [] if e.kind == "removed" and _key(e) in added]
                    candidate.penalty += [e for e in removed if e not in candidate.penalty]

        def by_content(c: Candidate) -> tuple[int, int, int]:
            return (len(c.edits or []), c.lines, age[id(c)])

        def with_penalty(c: Candidate) -> tuple[int, int, int]:
            return (len(c.edits or []) + len(c.penalty), c.lines, age[id(c)])

        content = sorted(finalists, key=by_content)
        ranked = sorted(finalists, key=with_penalty)
        rest = [c for c in cheap if c not in finalists]
        how: How = "content" if ranked[0] is content[0] else "direction"
        if len(ranked) < 2:
            return ranked + rest, how, None
        first, second = ranked[0], ranked[1]
        if how == "direction":
            reason = (
                f"{content[0].short} is closer by content, but under it your copy removes"
                f" {_count(len(content[0].penalty), 'thing')} the source had just added"
            )
            return ranked + rest, how, Ambiguity(first, second, reason)
        gap_edits = with_penalty(second)[0] - with_penalty(first)[0]
        gap_lines = second.lines - first.lines
        # Under the first the copy has edits the second would not explain, and the other way round:
        # a candidate whose edits are a part of the other's explains the copy with less, and wins.
        both_own = bool(_own_edits(first, second)) and bool(_own_edits(second, first))
        if both_own and gap_edits <= _CLOSE_EDITS and gap_lines <= max(_CLOSE_LINES, first.lines // 10):
            reason = (
                f"the two closest revisions are too close to tell apart"
                f" ({_count(len(first.edits or []), 'local edit')} against {len(second.edits or [])})"
            )
            return ranked + rest, how, Ambiguity(first, second, reason)
        return ranked + rest, how, None


def _key(edit: LocalEdit) -> tuple[str, str, str]:
    return (edit.file, edit.path, edit.detail)


def _added(edits: Sequence[LocalEdit]) -> set[tuple[str, str, str]]:
    """What a newer revision added over an older one, keyed as the copy's removal of it would be."""
    return {_key(e) for e in edits if e.kind == "added"}


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def relative_path(top: Path, directory: Path) -> str:
    """*directory* relative to the repository's *top*, as git names it ("" for the top)."""
    rel = directory.resolve().relative_to(top.resolve()).as_posix()
    return "" if rel == "." else rel
