"""Files that are not Python: git's line merge, and git's binary merge.

A README, a JSON schema, a ``py.typed`` or a PNG in a package both sides
changed is merged as git merges it, never decided whole-file:

- a text file by `git merge-file` (`lines.merge_lines`), after the same
  surface fix-ups a Python merge gets (`surface`: one line ending where the
  sides differ in it, the result in ours'): a clean merge is used as is, a
  real conflict is written with git's markers.  Every text format takes
  them, as git gives them (a JSON or TOML file with markers does not load
  until a person resolves it, which is what markers are for);
- a binary file (git's rule, `plait.contents.is_binary`) cannot be merged
  by lines nor marked: unless a side left it as it was, ours is kept and a
  ``binary`` conflict says so, and the caller shows a person both versions.
"""

from __future__ import annotations

from .. import contents
from .conflicts import DEFAULT_MARKERS, Conflict, Markers
from .facts import MODULE
from .lines import merge_lines
from .result import MergeResult
from .surface import take_off

__all__ = ["binary_merge", "merge_text"]

_LABELS = ("base", "ours", "theirs")


def binary_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """git's merge of a binary file: a side that left it alone gives way, else ours is kept, in conflict."""
    if ours in (base, theirs) or theirs == base:
        return MergeResult(theirs if ours == base else ours, [], [], "identity")
    why = "both sides changed this binary file, which cannot be merged by lines or marked; ours is kept"
    return MergeResult(ours, [Conflict(MODULE, "binary", why)], [], "binary")


def merge_text(
    base: str,
    ours: str,
    theirs: str,
    *,
    markers: Markers = DEFAULT_MARKERS,
    names: tuple[str, str, str] = _LABELS,
) -> MergeResult:
    """Merge a file that is not Python, line by line as git does (binary: `binary_merge`).

    Conflicts are git's own, kind ``text``, each at the line of its
    ``<<<<<<<`` marker in the result.
    """
    if any(contents.is_binary(text) for text in (base, ours, theirs)):
        return binary_merge(base, ours, theirs)
    if ours in (base, theirs) or theirs == base:
        return MergeResult(theirs if ours == base else ours, [], [], "identity")
    (b, o, t), surface = take_off((base, ours, theirs), python=False)
    lm = merge_lines(b, o, t, markers, names)
    text = surface.put_back(lm.text, clean=lm.clean)
    conflicts = [Conflict(MODULE, "text", "both sides changed these lines", line) for line in lm.conflict_lines]
    return MergeResult(text, conflicts, [], "line")
