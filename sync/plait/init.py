"""`plait init`: write the manifest by reading the code of the copies.

Someone who vendored a package by hand knows where the copies are, not how
plait must name them: which package each copy imports itself as, whether it
spells those imports absolutely, which files it renamed, whether it is a fork
(a lineage) or a copy inside a service (a consumer).  All of that is in the
code, so `init` reads it instead of asking:

- the copy of the canonical package inside a directory is the package whose
  files best match the canonical's, by name and by content (a file whose
  content matches a canonical file of another name is a rename);
- a copy that is a top-level package of its repository is a lineage; one
  nested inside another package is a consumer, imported by its dotted path;
- the name a copy imports itself by is read from its import statements
  (libcst), and so is the spelling of those imports;
- a copy in the manifest's repository is named by ``path``, one elsewhere
  by ``git`` (a path relative to the manifest, or the URL given) and
  ``subdir``.

Every finding is written as a comment beside the entry it explains, so a
reader can check it and correct what the code misled it about.  Nothing is
written on an error, nor on a dry run, and an existing manifest is replaced
only when asked.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import contents
from .commit import TEMP_SUFFIXES, fsync_dir, stage_file, workspace_lock, write_atomic
from .errors import PlaitError
from .names import MAX_NAME, copy_name_problem, one_line, shell_word
from .paths import JOURNAL_NAME, STORE_DIR
from .workspace import CANONICAL, MANIFEST, GitSpec, repository_top

__all__ = [
    "CopyFinding",
    "ImportStyle",
    "InitResult",
    "Match",
    "PackageFinding",
    "Survey",
    "import_style",
    "init",
    "match",
    "MERGE_ORDER",
    "commit_commands",
    "next_commands",
    "render_manifest",
    "survey",
]

Kind = Literal["lineage", "consumer"]

# Directories never searched for packages: VCS and tool state, virtual
# environments and installed packages (a venv holding the canonical package
# would otherwise be "a copy"), build output.
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})
# Top-level packages that are never the canonical package, whatever they hold.
_NOT_CANONICAL = frozenset({"tests", "test", "testing"})

# A candidate directory is a copy when its files carry at least this share of
# the canonical package's lines (the mean, over the canonical's modules, of
# how alike each is to its counterpart).
MIN_SCORE = 0.3
# Two candidates this close are equally good: `init` names them rather than
# guessing which one the user meant.
TIE_MARGIN = 0.02
# A file is taken for a renamed canonical file only when this alike, and
# only when both have a few lines (two empty files are alike by accident).
RENAME_MIN = 0.5
_RENAME_MIN_LINES = 3
# A same-named counterpart is preferred to a renamed one unless the renamed
# one is clearly closer.
_NAME_BONUS = 0.25
# A copy syncs from a lineage rather than the canonical package only when it
# is clearly closer to that lineage.
SOURCE_MARGIN = 0.05


# --------------------------------------------------------------------------
# reading directories


class _Reader:
    """The Python files of directories, read once however many candidates share them."""

    def __init__(self) -> None:
        self._texts: dict[Path, str | None] = {}
        self._files: dict[Path, dict[str, str]] = {}
        self._lines: dict[Path, dict[str, Counter[str]]] = {}

    def text(self, path: Path) -> str | None:
        if path not in self._texts:
            try:
                self._texts[path] = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts[path] = None  # not text plait could compare
        return self._texts[path]

    def package_files(self, top: Path) -> dict[str, str]:
        """Every ``.py`` file under *top* (relative path → text), in subpackages too."""
        if top not in self._files:
            out: dict[str, str] = {}
            for folder, _dirs, files in _walk(top):
                for name in sorted(files):
                    if name.endswith(".py"):
                        text = self.text(folder / name)
                        if text is not None:
                            out[(folder / name).relative_to(top).as_posix()] = text
            self._files[top] = out
        return self._files[top]

    def line_sets(self, top: Path) -> dict[str, Counter[str]]:
        """`package_files` as the comparison sees them."""
        if top not in self._lines:
            self._lines[top] = _line_sets(self.package_files(top))
        return self._lines[top]


def _walk(top: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk`` without the directories no package is searched in, sorted, never following links."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        yield Path(folder), dirs, files


def _packages(top: Path) -> Iterator[Path]:
    """Every directory under *top* (itself included) that is a package (holds ``__init__.py``)."""
    for folder, _dirs, files in _walk(top):
        if "__init__.py" in files:
            yield folder


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


# --------------------------------------------------------------------------
# comparing packages


def _lines(text: str) -> Counter[str]:
    """The significant lines of *text*, stripped, as a multiset (blank and comment lines dropped)."""
    return Counter(s for s in (line.strip() for line in text.splitlines()) if s and not s.startswith("#"))


def _alike(a: Counter[str], b: Counter[str]) -> float:
    """How alike two files are: twice their shared lines over all their lines (1.0 for two empty files)."""
    total = a.total() + b.total()
    if not total:
        return 1.0
    return 2 * (a & b).total() / total


@dataclass(frozen=True)
class Match:
    """How a candidate directory's files correspond to the canonical package's.

    pairs: ``(canonical file, copy file, how alike)``, one per canonical file
      that has a counterpart; names differ for a renamed file.
    score: the mean of how alike each canonical file is to its counterpart
      (0 for a file without one).
    """

    directory: Path
    pairs: tuple[tuple[str, str, float], ...]
    score: float
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def renamed(self) -> dict[str, str]:
        """Canonical file → the copy's file, for the files the copy renamed."""
        return {ours: theirs for ours, theirs, _ in self.pairs if ours != theirs}

    @property
    def modules(self) -> int:
        """Counterparts found for the canonical's modules, ``__init__.py`` files aside."""
        return sum(1 for ours, _, _ in self.pairs if posixpath.basename(ours) != "__init__.py")

    def shares(self, total: int) -> str:
        return f"{self.modules} of {total} modules, {self.score:.0%} alike"

    def to_json(self, shown: str) -> dict[str, Any]:
        """The match as data, its directory *shown* as the manifest names places."""
        return {
            "directory": shown,
            "score": round(self.score, 4),
            "pairs": [{"canonical": c, "copy": k, "alike": round(s, 4)} for c, k, s in self.pairs],
            "missing": list(self.missing),
            "extra": list(self.extra),
        }


def _is_init(rel: str) -> bool:
    return posixpath.basename(rel) == "__init__.py"


def match(source: Mapping[str, Counter[str]], copy: Mapping[str, Counter[str]], directory: Path) -> Match:
    """Pair every file of *source* with the file of *copy* that is its counterpart.

    A file pairs with the same-named file, or with a file of another name in
    the same directory whose content is clearly closer (a rename).  Pairs are
    chosen greedily, best first, one counterpart per file: the packages are
    small, and a rename that loses its file to a same-named one is no rename.
    """
    options: list[tuple[float, float, str, str]] = []
    for ours, ours_lines in source.items():
        for theirs, theirs_lines in copy.items():
            same = ours == theirs
            if not same and (
                _is_init(ours)
                or _is_init(theirs)
                or posixpath.dirname(ours) != posixpath.dirname(theirs)
                or min(ours_lines.total(), theirs_lines.total()) < _RENAME_MIN_LINES
            ):
                continue
            alike = _alike(ours_lines, theirs_lines)
            if same or alike >= RENAME_MIN:
                options.append((alike + (_NAME_BONUS if same else 0.0), alike, ours, theirs))
    options.sort(key=lambda o: (-o[0], o[2], o[3]))
    taken_ours: set[str] = set()
    taken_theirs: set[str] = set()
    pairs: list[tuple[str, str, float]] = []
    for _rank, alike, ours, theirs in options:
        if ours in taken_ours or theirs in taken_theirs:
            continue
        taken_ours.add(ours)
        taken_theirs.add(theirs)
        pairs.append((ours, theirs, alike))
    pairs.sort()
    score = sum(alike for _, _, alike in pairs) / len(source) if source else 0.0
    return Match(
        directory,
        tuple(pairs),
        score,
        tuple(sorted(set(source) - taken_ours)),
        tuple(sorted(set(copy) - taken_theirs)),
    )


def _line_sets(files: Mapping[str, str]) -> dict[str, Counter[str]]:
    return {rel: _lines(text) for rel, text in files.items()}


# --------------------------------------------------------------------------
# reading imports


@dataclass
class ImportStyle:
    """How a package spells the imports of its own modules.

    relative: how many relative imports (``from .x import y``) it has.
    absolute: per name it imports itself by, how many absolute imports name it.
    first: per such name, the first of them, as ``file:line: statement``.
    unparsable: files libcst could not parse (not surveyed).
    """

    relative: int = 0
    absolute: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    unparsable: list[str] = field(default_factory=list)

    @property
    def absolute_count(self) -> int:
        return sum(self.absolute.values())

    def dominant(self) -> str | None:
        """The name most of its absolute self-imports use, if any."""
        if not self.absolute:
            return None
        return max(sorted(self.absolute), key=lambda name: self.absolute[name])

    def example(self, name: str | None = None) -> str:
        chosen = name or self.dominant()
        return self.first.get(chosen, "") if chosen is not None else ""

    def spelled(self) -> str:
        """The spelling in words: ``4 absolute, 1 relative``."""
        parts = []
        if self.absolute_count:
            parts.append(f"{self.absolute_count} absolute")
        if self.relative:
            parts.append(f"{self.relative} relative")
        return ", ".join(parts) or "none"

    def to_json(self) -> dict[str, Any]:
        return {
            "relative": self.relative,
            "absolute": self.absolute,
            "first": self.first,
            "unparsable": self.unparsable,
        }


def _modules_of(files: Mapping[str, str]) -> set[str]:
    """The dotted modules of a package's files, relative to it (``""`` is the package)."""
    out: set[str] = set()
    for rel in files:
        parts = rel[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        out.add(".".join(parts))
    return out


def import_style(files: Mapping[str, str], names: Sequence[str]) -> ImportStyle:
    """Which of *names* (dotted names the package might import itself by) its imports use, and how often.

    An absolute import names the package when it is one of *names* followed
    by nothing or by a module of the package; the longest such name wins, so
    ``svc._vendor.corelib.x`` counts for ``svc._vendor.corelib``, not for a
    shorter name that happens to prefix it.
    """
    import libcst as cst
    from libcst.helpers import get_full_name_for_node
    from libcst.metadata import MetadataWrapper, PositionProvider

    modules = _modules_of(files)
    by_length = sorted(set(names), key=lambda n: (-len(n), n))
    style = ImportStyle()
    # Where each name's first import is, to give its line: positions cost a
    # pass over the whole file, so only the files holding a first are measured.
    firsts: dict[str, tuple[str, cst.Module, cst.CSTNode]] = {}

    def own(module: str) -> str | None:
        for name in by_length:
            if module == name:
                return name
            if module.startswith(name + "."):
                rest = module[len(name) + 1 :]
                if rest in modules or rest.rsplit(".", 1)[0] in modules:
                    return name
        return None

    class Collector(cst.CSTVisitor):
        def __init__(self, rel: str, tree: cst.Module) -> None:
            self.rel = rel
            self.tree = tree

        def _record(self, name: str | None, node: cst.CSTNode) -> None:
            if name is not None:
                style.absolute[name] = style.absolute.get(name, 0) + 1
                firsts.setdefault(name, (self.rel, self.tree, node))

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
            for statement in node.body:
                if isinstance(statement, cst.Import):
                    for alias in statement.names:
                        self._record(own(get_full_name_for_node(alias.name) or ""), statement)
                elif isinstance(statement, cst.ImportFrom):
                    if statement.relative:
                        style.relative += 1
                    elif statement.module is not None:
                        self._record(own(get_full_name_for_node(statement.module) or ""), statement)
            return False  # an import is a statement of its own: nothing below this line holds one

    for rel, text in sorted(files.items()):
        if "from ." not in text and not any(name in text for name in by_length):
            continue  # no import of its own package can be spelled without these
        try:
            tree = cst.parse_module(contents.python_text(text) or "\0")
        except (cst.ParserSyntaxError, ValueError):
            style.unparsable.append(rel)
            continue
        tree.visit(Collector(rel, tree))
    positions: dict[int, Mapping[cst.CSTNode, Any]] = {}
    for name, (rel, tree, node) in firsts.items():
        if id(tree) not in positions:
            positions[id(tree)] = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
        line = positions[id(tree)][node].start.line
        style.first[name] = f"{rel}:{line}: {' '.join(tree.code_for_node(node).split())}"
    return style


# --------------------------------------------------------------------------
# findings


@dataclass(frozen=True)
class Place:
    """Where a directory lives, as the manifest names it: ``path``, or ``git`` (+ ``subdir``)."""

    path: str | None = None
    git: str | None = None
    subdir: str = "."

    def keys(self) -> dict[str, str]:
        if self.path is not None:
            return {"path": self.path}
        assert self.git is not None
        return {"git": self.git, **({"subdir": self.subdir} if self.subdir != "." else {})}

    def describe(self) -> str:
        if self.path is not None:
            return self.path
        return self.git + (f" ({self.subdir})" if self.subdir != "." else "") if self.git else ""


@dataclass
class PackageFinding:
    """The canonical package: where it is, what it imports itself as, and why it was chosen."""

    given: str | None
    directory: Path
    shown: str
    package: str
    place: Place
    style: ImportStyle
    files: dict[str, str]
    why: str
    runner_up: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "given": self.given,
            "directory": self.shown,
            "package": self.package,
            "place": self.place.keys(),
            "imports": self.style.to_json(),
            "files": sorted(self.files),
            "why": self.why,
            "runner_up": self.runner_up,
        }


@dataclass
class CopyFinding:
    """One COPY: the copy of the canonical package found in it, and how the manifest declares it.

    directory: the copy's package directory.
    root: for a consumer, the directory its package is imported from (the
      manifest's consumer root); for a lineage, the package directory.
    source: the copy it syncs or vendors from (``canonical`` or a lineage).
    match: the copy against its source, carried into the copy's namespace.
    absolute_imports: a lineage's source is carried with absolute
      self-imports (``transforms.absolute_imports``): it is more like the
      lineage so.
    """

    name: str
    given: str
    kind: Kind
    directory: Path
    shown: str
    root: Path
    package: str
    place: Place
    style: ImportStyle
    match: Match
    files: dict[str, str]
    source: str = CANONICAL
    source_why: str = ""
    absolute_imports: bool = False
    beside: dict[str, str] = field(default_factory=dict)
    runner_up: Match | None = None
    runner_up_shown: str = ""
    evidence: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def vendor_dir(self) -> str:
        return self.directory.relative_to(self.root).as_posix()

    @property
    def renamed(self) -> dict[str, str]:
        return self.match.renamed

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "given": self.given,
            "kind": self.kind,
            "directory": self.shown,
            "package": self.package,
            "place": self.place.keys(),
            "source": self.source,
            "source_why": self.source_why,
            "imports": self.style.to_json(),
            "match": self.match.to_json(self.shown),
            "runner_up": self.runner_up.to_json(self.runner_up_shown) if self.runner_up is not None else None,
            "evidence": self.evidence,
            "notes": self.notes,
        }
        if self.kind == "lineage":
            data["absolute_imports"] = self.absolute_imports
            data["files"] = self.renamed
        else:
            data["vendor_dir"] = self.vendor_dir
            data["rename"] = self.beside
        return data


@dataclass
class Survey:
    """What `init` found: the manifest's place, the canonical package, each copy."""

    manifest: Path
    root: str | None
    canonical: PackageFinding
    copies: list[CopyFinding]

    @property
    def lineages(self) -> list[CopyFinding]:
        return [c for c in self.copies if c.kind == "lineage"]

    @property
    def consumers(self) -> list[CopyFinding]:
        return [c for c in self.copies if c.kind == "consumer"]


# --------------------------------------------------------------------------
# where things live


@dataclass
class _Given:
    """A COPY or --canonical argument, as a local directory to look in."""

    text: str
    local: Path
    url: str | None = None
    name: str | None = None

    @property
    def top(self) -> Path | None:
        """The git repository the directory is in (a URL's clone)."""
        return self.local if self.url is not None else repository_top(self.local)

    def inside(self, path: Path) -> str:
        """*path* as a user finds it in what they gave: relative to it."""
        return path.relative_to(self.local).as_posix()

    def shown(self, path: Path, ws_dir: Path) -> str:
        """*path* as the manifest's reader finds it: relative to the manifest, or in the URL's repository.

        Never an absolute path: the manifest is committed and read on other
        machines, and a URL's clone is temporary.
        """
        if self.url is not None:
            rel = self.inside(path)
            return self.url + (f" ({rel})" if rel != "." else "")
        return Path(os.path.relpath(path, ws_dir)).as_posix()


def _is_url(text: str) -> bool:
    return GitSpec(text, None, ".").is_remote


class _Clones:
    """Temporary clones of the URLs given, removed when `init` is done: the
    manifest names the URL, and a run that needs the copy clones it into the
    store's clone cache itself."""

    def __init__(self) -> None:
        self._dir: Path | None = None

    def clone(self, url: str) -> Path:
        from . import gitops

        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="plait-init-"))
        dest = self._dir / str(len(list(self._dir.iterdir())))
        gitops.clone(url, dest, None)
        return dest

    def close(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)


def _given(text: str, cwd: Path, clones: _Clones, *, what: str) -> _Given:
    name: str | None = None
    head, sep, rest = text.partition("=")
    if sep and copy_name_problem(head) is None and not (cwd / text).exists():
        name, text = head, rest
    if _is_url(text):
        return _Given(text, clones.clone(text), url=text, name=name)
    local = (cwd / Path(text).expanduser()).resolve()
    if not local.is_dir():
        raise PlaitError(f"{what}: not a directory", path=text)
    return _Given(text, local, name=name)


def _place(directory: Path, given: _Given, ws_dir: Path, ws_top: Path | None) -> Place:
    """How the manifest at *ws_dir* names *directory*: a path in its repository, else git."""
    if given.url is not None:
        return Place(git=given.url, subdir=directory.relative_to(given.local).as_posix())
    top = repository_top(directory)
    inside = directory.is_relative_to(ws_top) if ws_top is not None else directory.is_relative_to(ws_dir)
    if inside and top == ws_top:
        return Place(path=Path(os.path.relpath(directory, ws_dir)).as_posix())
    if top is None:
        raise PlaitError(
            f"{given.text}: outside the workspace ({ws_dir}) and in no git repository, so the manifest cannot"
            " name it: write the manifest in a directory that holds it (--workspace DIR), or make it a git repository"
        )
    return Place(git=Path(os.path.relpath(top, ws_dir)).as_posix(), subdir=directory.relative_to(top).as_posix())


def _import_path(directory: Path, limit: Path | None) -> list[str]:
    """The dotted import path of package *directory*: its name and the packages holding it,
    up to the first directory that is no package (or *limit*, a repository's top)."""
    parts = [directory.name]
    folder = directory
    while folder.parent != folder and _is_package(folder.parent) and folder != limit:
        folder = folder.parent
        parts.insert(0, folder.name)
    return parts


# --------------------------------------------------------------------------
# finding packages


def _candidates(canonical: Mapping[str, Counter[str]], top: Path, reader: _Reader, skip: Sequence[Path]) -> list[Match]:
    """Every package under *top* compared with the canonical package, best first.

    Packages sharing no module name with the canonical are compared only when
    none does (a copy whose every file was renamed), so a large repository
    costs a walk, not a comparison of every package.
    """
    names = {rel for rel in canonical if not _is_init(rel)}
    packages = [p for p in _packages(top) if not any(p == s or p.is_relative_to(s) for s in skip)]
    sharing = [p for p in packages if names & set(reader.package_files(p))] or packages
    found = [match(canonical, reader.line_sets(p), p) for p in sharing]
    return sorted(found, key=lambda m: (-m.score, str(m.directory)))


def _best(found: Sequence[Match], given: _Given, what: str) -> tuple[Match, Match | None]:
    """The one best candidate and the runner-up; an error when none is good enough or several are."""
    good = [m for m in found if m.score >= MIN_SCORE and m.modules]
    if not good:
        near = f" (the closest, {given.inside(found[0].directory)}, is {found[0].score:.0%} alike)" if found else ""
        raise PlaitError(f"no copy of {what} found: no package here carries its modules{near}", path=given.text)
    best = good[0]
    ties = [m for m in good if best.score - m.score <= TIE_MARGIN]
    if len(ties) > 1:
        listed = ", ".join(f"{given.inside(m.directory)} ({m.score:.0%})" for m in ties)
        raise PlaitError(
            f"several equally good copies of {what}: {listed}; name the one you mean (give its directory)",
            path=given.text,
        )
    return best, (found[1] if len(found) > 1 else None)


def _self_name(style: ImportStyle, fallback: str) -> str:
    return style.dominant() or fallback


def _canonical(
    given: _Given | None,
    copies: Sequence[_Given],
    ws_dir: Path,
    ws_top: Path | None,
    reader: _Reader,
) -> PackageFinding:
    """The canonical package: the one given, or the top-level package the copies match best."""
    here = ws_top or ws_dir
    look = given or _Given(str(here), here)
    if _is_package(look.local):
        options = [look.local]
    else:
        skip = [] if given is not None else [c.local for c in copies if c.url is None]
        options = [
            p
            for p in _packages(look.local)
            if not _is_package(p.parent)
            and p.name not in _NOT_CANONICAL
            and not any(p == s or p.is_relative_to(s) for s in skip)
        ]
    if not options:
        raise PlaitError(
            "cannot find the canonical package: no top-level package here (pass --canonical PATH|URL)",
            path=look.text,
        )
    why = "given with --canonical" if given is not None else "the only top-level package of this repository"
    runner_up = ""
    if len(options) > 1:
        listed = ", ".join(look.inside(p) for p in options)
        if not copies:
            raise PlaitError(
                f"cannot tell the canonical package among {listed}: pass --canonical, or name the copies",
                path=look.text,
            )
        totals = []
        for option in options:
            lines = reader.line_sets(option)
            total = 0.0
            for copy in copies:
                found = _candidates(lines, copy.local, reader, [option])
                total += found[0].score if found else 0.0
            totals.append((total / len(copies), option))
        totals.sort(key=lambda t: (-t[0], str(t[1])))
        (best, chosen), (second, other) = totals[0], totals[1]
        if best < MIN_SCORE:
            raise PlaitError(
                f"cannot find the canonical package: the copies carry none of {listed} (pass --canonical PATH|URL)",
                path=look.text,
            )
        if best - second <= TIE_MARGIN:
            raise PlaitError(
                f"cannot tell the canonical package: the copies match {look.inside(chosen)} and"
                f" {look.inside(other)} equally (pass --canonical)",
                path=look.text,
            )
        options = [chosen]
        why = f"of the top-level packages {listed}, the one the copies share ({best:.0%} alike, on average)"
        runner_up = f"{look.inside(other)} ({second:.0%} alike)"
    directory = options[0]
    files = reader.package_files(directory)
    dotted = ".".join(_import_path(directory, look.top))
    style = import_style(files, sorted({directory.name, dotted}))
    return PackageFinding(
        given=given.text if given is not None else None,
        directory=directory,
        shown=look.shown(directory, ws_dir),
        package=_self_name(style, directory.name),
        place=_place(directory, look, ws_dir, ws_top),
        style=style,
        files=files,
        why=why,
        runner_up=runner_up,
    )


def _copy(given: _Given, canonical: PackageFinding, ws_dir: Path, ws_top: Path | None, reader: _Reader) -> CopyFinding:
    """The copy of the canonical package inside *given*, and what kind of copy it is."""
    found = _candidates(reader.line_sets(canonical.directory), given.local, reader, [canonical.directory])
    best, runner_up = _best(found, given, canonical.package)
    directory = best.directory
    files = reader.package_files(directory)
    limit = given.top
    dotted = _import_path(directory, limit)
    structural = ".".join(dotted)
    suffixes = [".".join(dotted[i:]) for i in range(len(dotted))]
    style = import_style(files, sorted({*suffixes, canonical.package}))
    evidence: list[str] = []
    notes: list[str] = []
    spoken = style.dominant()
    example = style.example()
    if len(dotted) == 1:
        kind: Kind = "lineage"
        root = directory
        package = spoken or directory.name
        evidence.append(f"{directory.name}/ is a top-level package of its repository, so a lineage (a fork)")
        if spoken is not None:
            evidence.append(f"found by its imports: {example}")
        if spoken is not None and spoken != directory.name:
            notes.append(f"its imports name {spoken}, not {directory.name} (its directory): {example}")
    else:
        kind = "consumer"
        # The package is what its imports name when they name it by a dotted
        # path that ends in its directory (a service run from a subdirectory
        # imports it by a shorter path than the directories spell).
        # The canonical's own name is no such path: a copy whose imports still
        # name it was rewritten by hand, and the rewrite missed them.
        named = spoken in suffixes and (spoken != canonical.package or spoken == structural)
        package = spoken if spoken is not None and named else structural
        root = directory
        for _ in package.split("."):
            root = root.parent
        evidence.append(
            f"{'/'.join(dotted)} is nested in the package {'.'.join(dotted[:-1])}, so a consumer (a vendored copy)"
        )
        if spoken == package:
            evidence.append(f"found by its imports: {example}")
        else:
            evidence.append(f"named by its place: {structural} (its self-imports: {style.spelled()})")
        for name, count in sorted(style.absolute.items()):
            if name != package:
                notes.append(
                    f"{count} of its imports still name {name}, e.g. {style.first[name]}"
                    f" (the rewrite into {package} missed them?)"
                )
        beside = vendored_beside(canonical.files, canonical.package, files, package)
    if style.unparsable:
        notes.append(f"not parsed (not Python 3?): {', '.join(style.unparsable)}")
    return CopyFinding(
        name=given.name or "",
        given=given.text,
        kind=kind,
        directory=directory,
        shown=given.shown(directory, ws_dir),
        root=root,
        package=package,
        place=_place(root, given, ws_dir, ws_top),
        style=style,
        match=best,
        files=files,
        runner_up=runner_up,
        runner_up_shown=given.shown(runner_up.directory, ws_dir) if runner_up is not None else "",
        evidence=evidence,
        notes=notes,
        beside=beside if kind == "consumer" else {},
    )


def vendored_beside(
    source: Mapping[str, str], source_package: str, copy: Mapping[str, str], package: str
) -> dict[str, str]:
    """The dependencies a consumer vendored beside its copy: ``{"httpx": "svc._vendor.httpx"}`` where
    the source imports ``httpx`` and the copy imports ``svc._vendor.httpx``.

    A dependency is vendored beside the copy when the copy imports it from
    inside one of the packages that hold the copy (``svc._vendor``,
    ``svc``).  Without a ``rename`` for it, a vendor would write the
    source's ``import httpx``, and every such import would read as a local
    edit of the copy.
    """
    from .import_spelling import imported_modules
    from .transforms import module_name

    def heads(files: Mapping[str, str], pkg: str) -> set[str]:
        out: set[str] = set()
        for rel, text in files.items():
            if rel.endswith(".py"):
                mod, is_pkg = module_name(pkg, rel)
                out |= imported_modules(text, module=mod, is_package=is_pkg)
        return out

    theirs = {name.split(".", 1)[0] for name in heads(source, source_package)}
    theirs.discard(source_package.split(".", 1)[0])
    parts = package.split(".")
    holders = [".".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)]  # the nearest first
    found: dict[str, str] = {}
    for name in sorted(heads(copy, package)):
        if name == package or name.startswith(package + "."):
            continue
        for holder in holders:
            head = name[len(holder) + 1 :].split(".", 1)[0] if name.startswith(holder + ".") else ""
            if head and head in theirs and head != parts[-1]:
                found.setdefault(head, f"{holder}.{head}")
                break
    return found


def _name_copies(copies: Sequence[CopyFinding], given: Sequence[_Given]) -> None:
    """Give each copy a name: the one given (``NAME=COPY``), else its repository's, directory's or URL's name."""
    taken: set[str] = {CANONICAL}
    for arg in given:
        if arg.name is not None:
            if arg.name in taken:
                raise PlaitError(f"{arg.text}: the name {arg.name!r} is given twice (or is reserved)")
            taken.add(arg.name)
    for copy, arg in zip(copies, given, strict=True):
        if arg.name is not None:
            copy.name = arg.name
            continue
        if arg.url is not None:
            base = arg.url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
        else:
            # The directory given names it when it holds the directory the
            # package is imported from.  Given the exact package directory, a
            # copy in a repository of its own is named after the repository
            # (not after its src/), one in the workspace's after that directory.
            anchor = copy.root if copy.kind == "consumer" else copy.directory.parent
            top = repository_top(copy.directory)
            if anchor.is_relative_to(arg.local):
                base = arg.local.name
            elif copy.place.git is not None and top is not None:
                base = top.name
            else:
                base = anchor.name
        base = re.sub(r"[^A-Za-z0-9_-]+", "-", base).strip("-")[: MAX_NAME - 4] or copy.kind
        name = base
        n = 2
        while name in taken:
            name = f"{base}-{n}"
            n += 1
        taken.add(name)
        copy.name = name


def _choose_sources(copies: Sequence[CopyFinding], canonical: PackageFinding) -> None:
    """Compare each copy with its source as sync and vendor will, and let a copy sync (or vendor)
    from a lineage it is clearly closer to than the canonical package.

    Each source is first carried through the transforms into the copy's
    namespace, so that import spelling does not count.  A lineage may be the
    source only of copies less like the canonical than itself, so no two
    lineages sync from each other.
    """
    to_canonical = {id(c): _closest(canonical.files, canonical.package, c) for c in copies}
    chosen: list[tuple[CopyFinding, str, tuple[Match, bool]]] = []
    for copy in copies:
        source, best = CANONICAL, to_canonical[id(copy)]
        for lineage in copies:
            if lineage.kind != "lineage" or to_canonical[id(lineage)][0].score <= to_canonical[id(copy)][0].score:
                continue
            candidate = _closest(lineage.files, lineage.package, copy)
            if candidate[0].score > best[0].score + SOURCE_MARGIN and (
                source == CANONICAL or candidate[0].score > best[0].score
            ):
                source, best = lineage.name, candidate
        chosen.append((copy, source, best))
    for copy, source, (closest, absolute) in chosen:
        copy.source, copy.match, copy.absolute_imports = source, closest, absolute
        if source != CANONICAL:
            copy.source_why = (
                f"closer to the lineage {source} ({closest.score:.0%} alike) than to the canonical package"
                f" ({to_canonical[id(copy)][0].score:.0%})"
            )


def _closest(files: Mapping[str, str], package: str, copy: CopyFinding) -> tuple[Match, bool]:
    """*copy* against a source, and whether the source is carried with absolute imports.

    A lineage whose self-imports are all absolute is carried so, one with
    none as they are; one that mixes both is carried the way that makes the
    source most like it (relative on a tie: no transform to explain).
    """
    style = copy.style
    if copy.kind != "lineage" or not style.absolute_count:
        settings = [False]
    elif not style.relative:
        settings = [True]
    else:
        settings = [False, True]
    results = [(_carried_match(files, package, copy, absolute), absolute) for absolute in settings]
    return max(results, key=lambda r: (r[0].score, not r[1]))


def _carried_match(files: Mapping[str, str], package: str, copy: CopyFinding, absolute: bool) -> Match:
    """*copy* against a source whose files are carried into the copy's namespace first.

    The renames found comparing the raw files tell the rewrite which modules
    the copy renamed; the carried files keep the source's names, so the
    match still pairs a source file with the copy's file of another name.
    """
    from .transforms import ImportRewrite, rewrite_tree

    theirs = _line_sets(copy.files)
    raw = match(_line_sets(files), theirs, copy.directory)
    rewrite = ImportRewrite.between(package, copy.package, raw.renamed, absolute=absolute)
    try:
        carried = rewrite_tree(files, package=package, rewrite=rewrite)
    except PlaitError:
        return raw  # a dynamic import the transforms refuse: the raw comparison is the one left
    return match(_line_sets(carried), theirs, copy.directory)


def _describe_match(copy: CopyFinding, canonical: PackageFinding, copies: Sequence[CopyFinding]) -> None:
    """What the final comparison with its source says about *copy*, for the manifest's comments."""
    source_files = (
        canonical.files if copy.source == CANONICAL else next(c.files for c in copies if c.name == copy.source)
    )
    total = sum(1 for rel in source_files if not _is_init(rel))
    label = canonical.package if copy.source == CANONICAL else copy.source
    copy.evidence.append(f"matches {label}: {copy.match.shares(total)}")
    found = copy.match
    if copy.kind == "lineage":
        if found.missing:
            copy.notes.append(f"it has no counterpart of its source's {', '.join(found.missing)}")
        if found.extra:
            copy.notes.append(f"its own files: {', '.join(found.extra)}")
        return
    if found.renamed:
        listed = ", ".join(f"{a} as {b}" for a, b in sorted(found.renamed.items()))
        copy.notes.append(
            f"it vendored {listed}: a consumer cannot rename files, so vendor would write the source's names"
        )
    if found.extra:
        copy.notes.append(f"files of its own in the vendored directory: {', '.join(found.extra)}")


def survey(
    workspace: str | os.PathLike[str] | None,
    canonical: str | None,
    copies: Sequence[str],
    *,
    cwd: Path | None = None,
) -> Survey:
    """Find the canonical package and every copy, and how the manifest must declare each.

    *workspace*: the directory the manifest goes in (or the manifest's path);
    default the current directory.  *canonical* and *copies* are directories
    or URLs, as the user gave them.  Raises `PlaitError` for a copy with no
    copy of the canonical package in it, several equally good candidates, or
    no canonical package.
    """
    here = (cwd or Path.cwd()).resolve()
    target = (here / workspace).resolve() if workspace is not None else here
    manifest = target if target.suffix == ".toml" else target / MANIFEST
    ws_dir = manifest.parent
    if not ws_dir.is_dir():
        raise PlaitError("the workspace directory does not exist", path=str(ws_dir))
    ws_top = repository_top(ws_dir)
    clones = _Clones()
    try:
        given_copies = [_given(c, here, clones, what="COPY") for c in copies]
        given_canonical = _given(canonical, here, clones, what="--canonical") if canonical is not None else None
        reader = _Reader()
        found = _canonical(given_canonical, given_copies, ws_dir, ws_top, reader)
        results = [_copy(g, found, ws_dir, ws_top, reader) for g in given_copies]
    finally:
        clones.close()
    seen: dict[Path, str] = {}
    for result in results:
        if result.directory in seen:
            raise PlaitError(f"{seen[result.directory]} and {result.given} name the same copy ({result.directory})")
        seen[result.directory] = result.given
    _name_copies(results, given_copies)
    _choose_sources(results, found)
    for result in results:
        _describe_match(result, found, results)
    return Survey(manifest, _root(ws_dir, ws_top, found, results), found, results)


def _root(ws_dir: Path, ws_top: Path | None, canonical: PackageFinding, copies: Sequence[CopyFinding]) -> str | None:
    """The boundary the manifest needs: its directory, widened (within its repository) to hold every path."""
    held = [ws_dir]
    if canonical.place.path is not None:
        held.append(canonical.directory)
    held += [c.root for c in copies if c.place.path is not None]
    common = Path(os.path.commonpath(held))
    if common == ws_dir:
        return None
    assert ws_top is not None and common.is_relative_to(ws_top), "a path is only given inside the repository"
    return Path(os.path.relpath(common, ws_dir)).as_posix()


# --------------------------------------------------------------------------
# the manifest


_HEADER = """\
The plait workspace: the canonical package and the copies that carry it.
Written by `plait init` from what the code says: the comments of each entry
say what was found and why.  Correct whatever it got wrong.

canonical  the package every copy carries
lineages   separately maintained copies (forks); each syncs from the
           canonical package or from another lineage
consumers  services that vendored a copy into a package of their own

What each copy last synced from is not written here but by plait, in
.plait/ beside this file.  Nothing is recorded yet: record where each copy
started, so that the first sync and vendor merge three ways, not two (run
these from this directory):
"""


def _where(place: Place, kind: str) -> dict[str, tuple[str, str]]:
    """The location keys of an entry, each with the comment that explains it."""
    if place.path is not None:
        return {"path": (place.path, f"{kind} in this repository, relative to this file")}
    assert place.git is not None
    remote = _is_url(place.git)
    keys = {
        "git": (
            place.git,
            "cloned into .plait/clones when needed" if remote else "another repository, relative to this file",
        )
    }
    if place.subdir != ".":
        keys["subdir"] = (place.subdir, "inside that repository")
    return keys


def _comment(text: str) -> Any:
    """A comment line of the manifest: what it shows of the disk (a directory's name) escaped onto one line."""
    import tomlkit

    return tomlkit.comment(one_line(text))


def _comments(table: Any, lines: Sequence[str]) -> None:
    for line in lines:
        table.add(_comment(line))


def _keyed(table: Any, key: str, value: Any, comment: str = "") -> None:
    import tomlkit

    item = tomlkit.item(value)
    if comment:
        item.comment(one_line(comment))
    table.add(key, item)


def _canonical_table(found: PackageFinding) -> Any:
    import tomlkit

    table = tomlkit.table()
    lines = [f"{found.package}: {found.shown}, {found.why}"]
    if found.runner_up:
        lines.append(f"runner-up: {found.runner_up}")
    lines.append(
        f"its self-imports: {found.style.spelled()}"
        + (f", e.g. {found.style.example()}" if found.style.absolute else "")
    )
    _comments(table, lines)
    _keyed(table, "package", found.package, "the name its imports use" if found.style.absolute else "")
    for key, (value, why) in _where(found.place, "the canonical package").items():
        _keyed(table, key, value, why)
    return table


def _lineage_table(copy: CopyFinding) -> Any:
    import tomlkit

    table = tomlkit.table()
    _comments(table, [copy.shown, *copy.evidence, *(f"note: {n}" for n in copy.notes)])
    _keyed(table, "package", copy.package)
    for key, (value, why) in _where(copy.place, "a lineage").items():
        _keyed(table, key, value, why)
    _keyed(table, "syncs_from", copy.source, copy.source_why or "the canonical package")
    if copy.renamed:
        files = tomlkit.table()
        for ours, theirs, alike in copy.match.pairs:
            if ours != theirs:
                files.add(_comment(f"the source's {ours} is its {theirs} ({alike:.0%} alike)"))
        for ours, theirs in sorted(copy.renamed.items()):
            files.add(ours, theirs)
        table.add("files", files)
    mixed = bool(copy.style.absolute_count and copy.style.relative)
    if copy.absolute_imports:
        transforms = tomlkit.table()
        how = "mostly absolutely, and its source is closer carried so" if mixed else "absolutely"
        transforms.add(_comment(f"it spells its self-imports {how} ({copy.style.spelled()}):"))
        transforms.add(_comment(copy.style.example(copy.package) or copy.style.example()))
        transforms.add("absolute_imports", True)
        table.add("transforms", transforms)
    elif mixed:
        table.add(
            _comment(
                f"its self-imports are mixed ({copy.style.spelled()}), and its source is as close carried as it is:"
                " no transform"
            )
        )
    elif copy.style.relative:
        table.add(_comment(f"its self-imports are relative ({copy.style.spelled()}): no transform needed"))
    return table


def _consumer_table(copy: CopyFinding) -> Any:
    import tomlkit

    table = tomlkit.table()
    _comments(table, [copy.shown, *copy.evidence, *(f"note: {n}" for n in copy.notes)])
    for key, (value, why) in _where(copy.place, "the consumer").items():
        _keyed(table, key, value, why)
    _keyed(table, "vendor_dir", copy.vendor_dir, "the vendored package, inside the consumer")
    _keyed(table, "package", copy.package, "what its imports name; the source's package is renamed to it")
    _keyed(table, "source", copy.source, copy.source_why or "the canonical package")
    if copy.beside:
        table.add(_comment("its imports name these dependencies inside its own package, where the source imports them"))
        table.add(_comment("plainly: vendored beside it, so every vendor rewrites the source's imports so"))
        renames = tomlkit.inline_table()
        for dependency, where in sorted(copy.beside.items()):
            renames[dependency] = where
        table.add("rename", renames)
    else:
        parent = copy.package.rpartition(".")[0] or copy.package
        table.add(
            _comment(f'a dependency vendored beside it would need: rename = {{ "dep" = "{parent}.dep" }} (none found)')
        )
    if copy.match.missing:
        listed = ", ".join(f'"{m}"' for m in copy.match.missing)
        table.add(_comment(f"it did not vendor {', '.join(copy.match.missing)}; to keep them out:"))
        table.add(_comment(f"exclude = [{listed}]"))
    return table


def render_manifest(found: Survey, commands: Sequence[str] = (), commits: Sequence[str] = ()) -> str:
    """The commented manifest for *found*, as tomlkit writes it."""
    import tomlkit

    doc = tomlkit.document()
    for line in _HEADER.splitlines():
        doc.add(_comment(line))
    for command in commands:
        doc.add(_comment(f"  {command}"))
    if commits:
        doc.add(_comment("then commit what plait wrote, in each repository; " + MERGE_ORDER + ":"))
        for command in commits:
            doc.add(_comment(f"  {command}"))
    if found.root is not None:
        doc.add(tomlkit.nl())
        doc.add(_comment("Paths in this repository lead outside this directory, so the boundary no path"))
        doc.add(_comment("may leave is widened to hold them (never past the repository)."))
        doc.add("root", found.root)
    doc.add(tomlkit.nl())
    doc.add(CANONICAL, _canonical_table(found.canonical))
    for section, kind, render in (
        ("lineages", "lineage", _lineage_table),
        ("consumers", "consumer", _consumer_table),
    ):
        chosen = [c for c in found.copies if c.kind == kind]
        if chosen:
            tables = tomlkit.table(is_super_table=True)
            for copy in chosen:
                tables.add(copy.name, render(copy))
            doc.add(section, tables)
    return tomlkit.dumps(doc)


@dataclass
class InitResult:
    """What `plait init` found and wrote (or, on a dry run, would write)."""

    survey: Survey
    text: str
    commands: list[str]
    commits: list[str]
    written: bool
    replaced: bool
    dry_run: bool

    @property
    def manifest(self) -> Path:
        return self.survey.manifest

    def to_json(self) -> dict[str, Any]:
        found = self.survey
        return {
            "manifest": str(found.manifest),
            "written": self.written,
            "replaced": self.replaced,
            "dry_run": self.dry_run,
            "root": found.root,
            "canonical": found.canonical.to_json(),
            "lineages": [c.to_json() for c in found.lineages],
            "consumers": [c.to_json() for c in found.consumers],
            "commands": self.commands,
            "commits": self.commits,
            "merge_order": MERGE_ORDER,
            "text": self.text,
        }


def next_commands(found: Survey, cwd: Path) -> list[str]:
    """What to run once the manifest is written: adopt each copy, then sync and vendor.

    The commands name the workspace when plait would not find it from *cwd*.
    """
    ws_dir = found.manifest.parent
    found_from_cwd = found.manifest.name == MANIFEST and (cwd.is_relative_to(ws_dir) or ws_dir == cwd / "lineages")
    prefix = "plait" if found_from_cwd else f"plait --workspace {shell_word(os.path.relpath(found.manifest, cwd))}"
    order = [c for c in found.lineages if c.source == CANONICAL]
    while len(order) < len(found.lineages):
        named = {c.name for c in order}
        order += [c for c in found.lineages if c not in order and c.source in named]
    commands = [f"{prefix} adopt {shell_word(c.name)}" for c in [*order, *found.consumers]]
    if found.lineages:
        commands.append(f"{prefix} sync")
    if found.consumers:
        commands.append(f"{prefix} vendor --all")
    return commands


# Why the workspace's commit goes first: the services' locks name bases whose
# content is in the workspace's store, so a lock merged without them names
# nothing a later vendor can read.
MERGE_ORDER = (
    "merge the workspace's commit first (its .plait store holds the bases the locks name), then each other repository's"
)


def commit_commands(found: Survey, cwd: Path) -> list[str]:
    """What to commit once adopt, sync and vendor ran: in each repository, what plait wrote there.

    The workspace's repository holds the manifest, the store and the copies
    kept in it; every other repository on disk holds a copy plait wrote
    into (a consumer's vendored directory and its lock, a lineage's package).
    A copy named by URL lives in plait's clone cache, which `--push` publishes.
    """

    def git(top: Path) -> str:
        shown = os.path.relpath(top, cwd)
        return "git" if shown == "." else f"git -C {shell_word(shown)}"

    ws_dir = found.manifest.parent
    ws_top = repository_top(ws_dir) or ws_dir
    here = [os.path.relpath(found.manifest, ws_top), os.path.relpath(ws_dir / STORE_DIR, ws_top)]
    elsewhere: dict[Path, list[str]] = {}
    for copy in found.copies:
        top = repository_top(copy.directory)
        if copy.place.path is not None and top == ws_top:
            here.append(os.path.relpath(copy.directory, ws_top))
        elif copy.place.git is not None and not _is_url(copy.place.git) and top is not None:
            elsewhere.setdefault(top, []).append(os.path.relpath(copy.directory, top))
    lines = [
        f"{git(ws_top)} add {' '.join(shell_word(p) for p in here)}"
        f" && {git(ws_top)} commit -m {shell_word('plait: the manifest, the bases and the copies here')}"
    ]
    for top, paths in elsewhere.items():
        message = "plait: the vendored copy and its lock" if len(paths) == 1 else "plait: the copies and their locks"
        lines.append(
            f"{git(top)} add {' '.join(shell_word(p) for p in paths)} && {git(top)} commit -m {shell_word(message)}"
        )
    return lines


def _create(path: Path, text: str) -> None:
    """Write a new file all at once, refusing if one appeared meanwhile (a link never replaces)."""
    tmp = stage_file(path, text.encode("utf-8"))
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise PlaitError("a manifest appeared here meanwhile; pass --force to replace it", path=str(path)) from None
    except OSError:
        # A file system without hard links: the check above is all there is.
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def init(
    workspace: str | os.PathLike[str] | None,
    canonical: str | None,
    copies: Sequence[str],
    *,
    force: bool = False,
    dry_run: bool = False,
    cwd: Path | None = None,
) -> InitResult:
    """Survey the copies and write the commented manifest (see `survey` for the arguments).

    An existing manifest is refused unless *force*, which replaces it whole
    (the store in ``.plait`` is kept).  The text is loaded as a workspace
    before it is written: `init` never leaves a manifest plait cannot read.
    """
    from .workspace import Workspace

    here = (cwd or Path.cwd()).resolve()
    found = survey(workspace, canonical, copies, cwd=here)
    commands = next_commands(found, here)
    commits = commit_commands(found, here)
    # The manifest's reader runs them from its directory, not from where init ran.
    there = found.manifest.parent
    text = render_manifest(found, next_commands(found, there), commit_commands(found, there))
    try:
        Workspace(found.manifest, text)
    except PlaitError as exc:
        raise PlaitError(f"plait init made a manifest that does not load (a bug in plait): {exc}") from None
    store = found.manifest.parent / STORE_DIR
    if (store / JOURNAL_NAME).exists():
        raise PlaitError(
            "an interrupted plait run is waiting to be rolled forward under the old manifest; finish it first"
            " (any sync, vendor or adopt run does)",
            path=str(store / JOURNAL_NAME),
        )
    # A workspace with a store may have a run in progress: replace its
    # manifest between runs, not under one.  Without a store no run ever
    # happened here, and init creates none.
    with workspace_lock(store) if store.is_dir() else contextlib.nullcontext():
        exists = found.manifest.exists()
        # A killed init between its link and its unlink left the manifest and its
        # staged twin: that manifest is init's own, and the rerun finishes it.
        stale = [
            p
            for p in found.manifest.parent.glob(f".{found.manifest.name}.*{TEMP_SUFFIXES[0]}")
            if p.is_file() and not p.is_symlink()
        ]
        own = exists and any(p.read_bytes() == found.manifest.read_bytes() for p in stale)
        if exists and not force and not own:
            raise PlaitError("a manifest is already here; pass --force to replace it whole", path=str(found.manifest))
        if not dry_run:
            # What a killed init left: its manifest, staged and never renamed into place.
            for left in stale:
                left.unlink()
            if exists:
                write_atomic(found.manifest, text)
            else:
                _create(found.manifest, text)
    return InitResult(
        found, text, commands, commits, written=not dry_run, replaced=exists and not dry_run, dry_run=dry_run
    )
