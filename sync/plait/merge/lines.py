"""Line-based 3-way merge with `git merge-file` semantics.

Three jobs: the fast path (a clean line merge that re-parses and loses
nothing is used as is), the fallback when an input is not Python, and the
fallback when the structured merge runs out of budget.  We call git itself
rather than re-implementing diff3 so that "git merge-file semantics" is
literally true, markers and all.

git is given a time limit too, since the budget covers the whole merge:
when it cannot finish, `whole_file_conflict` is the last resort, which
costs nothing and loses nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from .. import contents, gitops
from ..errors import PlaitError
from ..records import record
from .conflicts import DEFAULT_MARKERS, Markers


@record(frozen=True)
class LineMerge:
    text: str
    conflicts: int
    # 1-based output lines where each conflict's `<<<<<<<` marker stands.
    conflict_lines: tuple[int, ...]
    # Both versions whole between markers: the line merge itself ran out of time.
    whole_file: bool = False

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


class LineMergeTimeout(Exception):
    """`git merge-file` did not finish within the time it was given (and was stopped)."""


def whole_file_conflict(base: str, ours: str, theirs: str, markers: Markers = DEFAULT_MARKERS) -> LineMerge:
    """One conflict spanning the file: ours, base and theirs whole, in git's diff3 layout.

    What a merge can still say when there is no time to compare anything:
    nothing is lost, and a person resolves it as any conflict.
    """
    newline = "\r\n" if "\r\n" in ours else "\n"

    def block(text: str) -> str:
        return text if not text or text.endswith("\n") else text + newline

    text = "".join(
        [
            markers.line("ours") + newline,
            block(ours),
            markers.line("base") + newline,
            block(base),
            markers.line("theirs") + newline,
            block(theirs),
            markers.line("end") + newline,
        ]
    )
    return LineMerge(text=text, conflicts=1, conflict_lines=(1,), whole_file=True)


def merge_lines(
    base: str,
    ours: str,
    theirs: str,
    markers: Markers = DEFAULT_MARKERS,
    names: tuple[str, str, str] = ("base", "ours", "theirs"),
    *,
    timeout: float | None = None,
) -> LineMerge:
    """Merge three texts line by line exactly as `git merge-file --diff3` does.

    `names` name the inputs in errors: git only knows the temporary files.
    Past `timeout` seconds git is stopped and `LineMergeTimeout` raised.
    """
    git = shutil.which("git")
    if git is None:
        raise PlaitError("git is not on PATH; the line-based merge needs `git merge-file`")
    named = dict(zip(("base", "ours", "theirs"), names, strict=True))
    inputs = {"ours": ours, "base": base, "theirs": theirs}  # git merge-file's argument order
    culprit = next((named[label] for label, text in inputs.items() if "\0" in text), None)
    if culprit is not None:
        raise PlaitError("contains NUL bytes; git cannot merge it as text", path=culprit)
    with tempfile.TemporaryDirectory(prefix="plait-merge-") as tmp:
        paths = {}
        for label, text in inputs.items():
            paths[label] = os.path.join(tmp, label)
            # As the bytes the text was read from (`plait.contents`): CRLF, latin-1 and
            # every other byte go through git's merge exactly.
            with open(paths[label], "wb") as fh:
                fh.write(contents.encode(text))
        argv = ["-p", "--diff3", f"--marker-size={markers.size}"]
        argv += ["-L", markers.ours, "-L", markers.base, "-L", markers.theirs, *paths.values()]
        try:
            code, stdout, stderr = gitops.merge_file(argv, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LineMergeTimeout from None
    if code < 0 or code > 127:
        message = stderr.decode(errors="replace").strip()
        for label, path in paths.items():
            message = message.replace(path, named[label])
        raise PlaitError(f"git merge-file failed: {message}")
    text = contents.decode(stdout)
    start = markers.line("ours")
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if line == start]
    return LineMerge(text=text, conflicts=len(lines), conflict_lines=tuple(lines))
