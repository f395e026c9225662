"""The output the docs show, produced by the code that prints it, so the docs cannot drift from it.

A doc marks an example with a comment before its fenced block::

    <!-- example: revendor -->
    ```text
    ...
    ```

`test_doc_examples.py` runs the commands again and compares; what varies
from run to run (commit ids, the demo's temporary copy, timings, and the
conformance verdicts, which time real calls on a machine that may be
loaded) is masked on both sides first.  When the output changes on
purpose, rewrite every example from a fresh run:

    python tests/docs/examples.py --update
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for helpers in ("tests/init", "tests/vendor", "tests/sync"):
    if str(REPO / helpers) not in sys.path:
        sys.path.insert(0, str(REPO / helpers))

DOCS = {
    "README.md": REPO / "README.md",
    "VENDORING.md": REPO / "VENDORING.md",
    "architecture": REPO / "docs" / "architecture.md",
}

BLOCK = re.compile(r"<!-- example: (?P<name>[\w-]+) -->\n```text\n(?P<body>.*?)```\n", re.S)

# A finished copy's progress line on stderr (a terminal shows a bar instead).
_PROGRESS = re.compile(
    r"^[\w.-]+: (vendored|synced|up-to-date|conflicted|refused|skipped|behind|unlocked|never-synced|"
    r"never-vendored|edited|waiting|error|would \w+.*)$"
)


def normalise(text: str) -> str:
    """*text* with what varies between two honest runs masked."""
    text = re.sub(r"\S*plait-demo-[\w]+", "<copy>", text)
    text = re.sub(r"tree:[0-9a-f]{10}", "tree:<tree>", text)
    text = re.sub(r"\b[0-9a-f]{7,40}\b", "<commit>", text)
    text = re.sub(r"\b\d+\.\d+ s\b", "<t> s", text)
    # A copy's verdict (conform's own line: `sibling behaves like canonical on 63/68: ...`).
    verdicts = r"behaves like canonical on|is the reference|could not run|could not be checked here"
    text = re.sub(rf"(?m)^([\w-]+) ({verdicts})\b.*$", r"\1 <verdict>", text)
    text = re.sub(r"(?m)^([\w-]+): (conforms|stale, fails|fails|ERROR) .*$", r"\1 <verdict>", text)
    text = re.sub(r"(?m)^\d+ of \d+ copies (conform|behave) .*$", "<conformance summary>", text)
    text = re.sub(r"\(\d{4}-\d\d-\d\d, '[^']*'\)", "(<date>, <subject>)", text)
    return text


def blocks(path: Path) -> dict[str, str]:
    """The examples a doc holds, by name."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(path.read_text(encoding="utf-8"))}


def rewrite(path: Path, examples: dict[str, str]) -> list[str]:
    """Put *examples* into the doc's blocks of the same names; the names rewritten."""
    text = path.read_text(encoding="utf-8")
    done: list[str] = []

    def put(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in examples:
            return match.group(0)
        done.append(name)
        body = examples[name].rstrip("\n") + "\n"
        return f"<!-- example: {name} -->\n```text\n{body}```\n"

    path.write_text(BLOCK.sub(put, text), encoding="utf-8")
    return done


def plait(cwd: Path, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"} | {"NO_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )
    return done.returncode, done.stdout, done.stderr


def shown(cwd: Path, *args: str) -> str:
    """A command and what a terminal shows of it: stdout, then the problems on stderr."""
    _code, out, err = plait(cwd, *args)
    problems = [line for line in err.splitlines() if not _PROGRESS.match(line)]
    return "\n".join([f"$ plait {' '.join(args)}", *out.splitlines(), *problems]) + "\n"


# --------------------------------------------------------------------------
# the examples


def demo() -> str:
    """`plait demo`, piped, from the repository's root, as the README's first command runs it."""
    code, out, err = plait(REPO, "demo")
    assert code == 0, err
    return out


def demo_sections(output: str) -> dict[str, str]:
    """The demo's output cut into its sections, by number (``"1"`` … ``"7"``, ``"next"``)."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in output.splitlines():
        heading = re.match(r"^== (\d+|next)[ .]", line)
        if heading:
            current = heading.group(1)
            sections[current] = []
        elif current:
            sections[current].append(line)
    return {key: "\n".join(lines) + "\n" for key, lines in sections.items()}


def from_demo(output: str) -> dict[str, str]:
    """The examples cut from the demo's output: the whole demo, its status, its sync."""
    sections = demo_sections(output)
    return {"demo": output, "status": sections["1"], "sync": sections["3"]}


def real_setup(root: Path) -> dict[str, str]:
    """VENDORING.md's examples, on the real setup of separate repositories the onboarding tests use:
    a re-vendor after upstream took the services' local patch (and one service made a new one), the
    status before it, and a conflict."""
    from real_setups import canonical_files, commit_all, edit, make_setup, under_plait

    setup = make_setup(root)
    ws = setup.ws

    def ok(*args: str) -> None:
        code, out, err = plait(ws, *args)
        assert code == 0, (args, out, err)

    under_plait(setup)

    # Upstream takes the services' own fix, and adds a backoff.
    files = canonical_files(3)
    (setup.canonical / "corelib" / "errors.py").write_text(
        files["errors.py"].replace("self.retryable = retryable", "self.retryable = bool(retryable)")
    )
    (setup.canonical / "corelib" / "retry.py").write_text(
        files["retry.py"] + '\n\ndef backoff(attempt):\n    """Seconds to wait."""\n    return 2**attempt\n'
    )
    commit_all(setup.repos["canonical"], "corelib: retryable is a bool; a backoff")
    # svc-a patches its copy once more, by hand.
    edit(
        setup.svc_a / "svc_a" / "_vendored_corelib" / "client.py",
        "self.retries = retries",
        "self.retries = max(retries, 1)",
    )
    examples = {"status": shown(ws, "status"), "revendor": shown(ws, "vendor", "--all")}
    ok("sync")
    for name in ("svc_a", "svc_b", "fork", "ws"):
        commit_all(setup.repos[name], "re-vendored")

    # Both sides change one line: the service its timeout, upstream its own.
    edit(setup.svc_b / "src" / "svc_b" / "_vendored_corelib" / "client.py", "timeout = 10", "timeout = 20")
    client = setup.canonical / "corelib" / "client.py"
    client.write_text(client.read_text().replace("timeout = 10", "timeout = 30"))
    commit_all(setup.repos["canonical"], "corelib: a longer timeout")
    examples["conflict"] = shown(ws, "vendor", "svc-b")
    return examples


def all_examples() -> dict[str, dict[str, str]]:
    """Every doc's examples, freshly made: doc → name → text."""
    made = from_demo(demo())
    with tempfile.TemporaryDirectory(prefix="plait-docs-") as folder:
        setup = real_setup(Path(folder) / "repos")
    return {
        "README.md": {"demo": made["demo"], "status": made["status"]},
        "VENDORING.md": setup,
        "architecture": {"sync": made["sync"]},
    }


def main(argv: list[str]) -> int:
    if argv != ["--update"]:
        print(__doc__)
        return 2
    for doc, examples in all_examples().items():
        names = rewrite(DOCS[doc], examples)
        print(f"{DOCS[doc].relative_to(REPO)}: rewrote {', '.join(names) or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
