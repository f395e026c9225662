"""The house: no module of plait imports itself round about, and each layer keeps to its side.

Read from the source with `ast`, so an import anywhere counts (inside a
function, or for the type checker only): a cycle that bites only when the
modules load in another order is caught here, not in a user's merge driver.
A package's ``__init__`` re-exporting its own modules is not a cycle.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import plait

ROOT = Path(plait.__file__).parent


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in ROOT.rglob("*.py")}


def _imports(name: str, path: Path) -> set[str]:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found |= {f"{target}.{alias.name}" for alias in node.names} | {target}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    own = {m for m in found if m in MODULES and m != name}
    if path.name == "__init__.py":
        own = {m for m in own if not m.startswith(name + ".")}
    return own


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle_through(start: str) -> list[str] | None:
    todo = [(start, [start])]
    seen: set[str] = set()
    while todo:
        here, trail = todo.pop()
        for nxt in GRAPH[here]:
            if nxt == start:
                return [*trail, start]
            if nxt not in seen:
                seen.add(nxt)
                todo.append((nxt, [*trail, nxt]))
    return None


def test_no_module_imports_itself_round_about() -> None:
    cycles = [cycle for name in sorted(GRAPH) if (cycle := _cycle_through(name))]
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_merge_engine_knows_nothing_of_manifests_git_or_the_cli() -> None:
    for name, imports in GRAPH.items():
        if name.startswith("plait.merge"):
            # The line merge runs `git merge-file`, which, like every git command, goes through gitops.
            # plait.contents is how a file's bytes are text (it imports nothing): the merge takes any file.
            # records is the house's part of dataclasses (the driver starts once per file); it knows nothing either.
            allowed = ("plait", "plait.errors", "plait.contents", "plait.records")
            allowed += ("plait.gitops",) if name == "plait.merge.lines" else ()
            outside = {m for m in imports if not m.startswith("plait.merge") and m not in allowed}
            assert outside == set(), f"{name} imports {sorted(outside)}"


_RUNNERS = {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
_SHELLS = {"system", "popen", "execv", "execvp", "execve", "execl", "execlp", "spawnv", "spawnvp"}


def _runs_git(call: ast.Call) -> bool:
    """Whether *call* starts git: a subprocess/os runner whose command is, or begins with, git."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in _RUNNERS | _SHELLS or not call.args:
        return False
    first = call.args[0]
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        first = first.elts[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value == "git" or first.value.startswith("git ")
    if isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
        return str(first.values[0].value).startswith("git ")
    return False


def test_only_gitops_runs_git_or_uses_gitpython() -> None:
    """Every git command runs through gitops, with its clean environment and pinned protocols:
    anything else that starts git, or opens a repository with GitPython (which copies
    the process environment, GIT_DIR and all), is a leak."""
    offenders: list[str] = []
    for name, path in MODULES.items():
        if name == "plait.gitops":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(a.name == "git" or a.name.startswith("git.") for a in node.names):
                offenders.append(f"{name}:{node.lineno} imports GitPython")
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "git":
                offenders.append(f"{name}:{node.lineno} imports GitPython")
            if isinstance(node, ast.Call) and _runs_git(node):
                offenders.append(f"{name}:{node.lineno} runs git itself")
    assert offenders == []


def test_the_house_test_sees_a_git_call_and_a_gitpython_import() -> None:
    caught = ast.parse("import subprocess\nsubprocess.run(['git', 'status'])\nfrom git import Repo\n")
    calls = [n for n in ast.walk(caught) if isinstance(n, ast.Call)]
    assert any(_runs_git(c) for c in calls)
    assert not _runs_git(ast.parse("subprocess.run([sys.executable, '-m', 'x'])").body[0].value)  # type: ignore[attr-defined]


def test_the_workflows_do_not_import_each_other_and_the_core_imports_neither() -> None:
    for name, imports in GRAPH.items():
        if name.startswith("plait.lineage"):
            assert not any(m.startswith("plait.vendoring.vendor") for m in imports) or name.endswith("adopt"), name
        if name.startswith("plait.vendoring"):
            assert not any(m.startswith("plait.lineage") for m in imports), name
        if name in ("plait.commit", "plait.store", "plait.workspace", "plait.runs", "plait.transforms"):
            workflows = {m for m in imports if m.startswith(("plait.lineage", "plait.vendoring", "plait.cli"))}
            assert workflows == set(), f"{name} imports {sorted(workflows)}"


def test_the_conformance_package_does_not_depend_on_the_cli() -> None:
    for name, imports in GRAPH.items():
        if name.startswith("plait.conformance"):
            assert not any(m.startswith("plait.cli") for m in imports), name


def test_the_client_knows_nothing_of_plait() -> None:
    import embedding_client

    for path in Path(embedding_client.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.append(node.module)
            assert not any(n.split(".")[0] == "plait" for n in names), path


# What a user installs is what the runtime code imports: a dependency nothing imports is installed
# for nothing (GitPython was, after gitops took every git call), and an import nothing declares
# fails on a clean install only.  Each distribution is read from its own pyproject.toml.
REPO = Path(__file__).resolve().parents[1]


# A module only its host loads brings its host along: pytest imports the plugin it registers (pytest11).
LOADED_BY_THEIR_HOST = {"conformance/pytest_plugin.py"}


def _third_party_imports(package_dir: Path, own: set[str]) -> dict[str, Path]:
    """Every top-level module imported (absolutely) by the sources under *package_dir* that is
    neither the standard library's nor one of *own*, with a file importing it."""
    found: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        if path.relative_to(package_dir).as_posix() in LOADED_BY_THEIR_HOST:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "__future__" and top not in own:
                    found.setdefault(top, path)
    return found


def _declared(pyproject: Path) -> set[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return {canonicalize_name(Requirement(spec).name) for spec in project.get("dependencies", [])}


def dependency_problems(package_dirs: list[Path], declared: set[str], own: set[str]) -> list[str]:
    """What is wrong between the imports under *package_dirs* (the packages of one distribution)
    and its *declared* runtime dependencies: a module whose distribution is not declared, a
    declared one nothing imports."""
    owners = importlib.metadata.packages_distributions()
    imported: set[str] = set()
    problems: list[str] = []
    for package_dir in package_dirs:
        for module, path in _third_party_imports(package_dir, own).items():
            dists = {canonicalize_name(d) for d in owners.get(module, [module])}
            imported |= dists
            if not dists & declared:
                where = path.relative_to(package_dir.parent)
                problems.append(f"{where} imports {module}, which no dependency declares")
    problems += [f"{dist} is a runtime dependency nothing imports" for dist in sorted(declared - imported)]
    return problems


def test_every_runtime_dependency_is_imported_and_every_import_is_declared() -> None:
    import embedding_client

    client_dir = Path(embedding_client.__file__).parent
    # plait's distribution ships the client package too, so it declares what the client imports.
    own = {"plait", "embedding_client"}
    plait_problems = dependency_problems([ROOT, client_dir], _declared(REPO / "pyproject.toml"), own)
    client_declared = _declared(REPO / "client" / "pyproject.toml")
    client_problems = dependency_problems([client_dir], client_declared, {"embedding_client"})
    assert plait_problems == []
    assert client_problems == []


def test_the_dependency_check_sees_an_unused_dependency_and_an_undeclared_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("import os\nimport httpx\nfrom click import echo\n", encoding="utf-8")
    problems = dependency_problems([package], {"httpx", "gitpython"}, {"pkg"})
    assert problems == [
        "pkg/mod.py imports click, which no dependency declares",
        "gitpython is a runtime dependency nothing imports",
    ]
