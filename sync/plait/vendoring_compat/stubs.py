"""The `.pyi` stubs vendoring 1.4.0 writes beside the vendored libraries (tasks/stubs.py).

vendoring detects "libraries" as the top-level entries of the destination
after `drop`: every directory, and every `.py` file not protected (a
generated `.pyi` is skipped; another non-Python file is not a library).  Each
gets `<lib>.pyi` holding `from <lib> import *` (no newline at the end), unless
`typing-stubs` names the stubs for it, or the library ships `py.typed`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["stub_files", "vendored_libraries"]


def vendored_libraries(paths: Iterable[str], protected: Sequence[str]) -> list[str]:
    """The library names vendoring detects from the destination's files (*paths*, relative, `/`-separated)."""
    libraries: list[str] = []
    seen: set[str] = set()
    for path in sorted(paths):
        first, slash, _ = path.partition("/")
        if slash:
            name = first
        elif first.endswith(".pyi") or first in protected or not first.endswith(".py"):
            continue
        else:
            name = first[: -len(".py")]
        if name not in seen:
            seen.add(name)
            libraries.append(name)
    return libraries


def stub_files(
    libraries: Iterable[str], typing_stubs: Mapping[str, Sequence[str]], paths: Iterable[str]
) -> dict[str, str]:
    """The stub files vendoring writes: relative path → text, for the destination holding *paths*."""
    present = frozenset(paths)
    stubs: dict[str, str] = {}
    for library in libraries:
        if library.endswith((".dist-info", ".egg-info")):
            continue
        if f"{library}/py.typed" in present:
            continue
        for location, import_name in _stubs_of(library, typing_stubs):
            stubs[location] = f"from {import_name} import *"
    return stubs


def _stubs_of(library: str, typing_stubs: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    if library not in typing_stubs:
        return [(library + ".pyi", library)]
    stubs: list[tuple[str, str]] = []
    for import_name in typing_stubs[library]:
        location = import_name.replace(".", "/") + ".pyi"
        # an __init__.pyi imports from the package, not from `pkg.__init__`
        if import_name.endswith(".__init__"):
            import_name = import_name[: -len(".__init__")]
        stubs.append((location, import_name))
    return stubs
