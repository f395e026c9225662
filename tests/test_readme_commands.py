"""The README's two commands are the contract with a newcomer and with CI."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = text.split("```sh\n")[1:3]
    return [next(line for line in block.splitlines() if line and not line.startswith("#")) for block in blocks]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _main, test_cmd = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_cmd in ci


def test_main_job_merges_upstream_into_the_sibling_lineage() -> None:
    main, _ = _readme_commands()
    install, _, job = main.partition(" && ")
    assert install.startswith("python3 -m pip install -e .")
    argv = shlex.split(job)
    assert argv[0] == "plait"
    proc = subprocess.run([sys.executable, "-m", "plait", *argv[1:]], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    merged = proc.stdout
    wrapper, _, rest = merged.partition("async def embed_with_outcome")
    # embed() became the wrapper; the sibling's uds branch and broader catch moved with the dispatch.
    assert "await self.embed_with_outcome(texts)" in wrapper
    assert 'elif self.mode == "uds":' in rest
    assert "except (httpx.HTTPError, ValueError, OSError, json.JSONDecodeError) as exc:" in rest
    assert "async def _embed_uds" in rest
    assert "kept" in proc.stderr and "applied" in proc.stderr
