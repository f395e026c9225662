"""`plait probe`: the library result, the click command and the real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from plait.cli.probe_cmd import probe as probe_command
from plait.conformance.servers import EmbeddingServer
from plait.probe import ProbeUsageError, hints, probe


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(probe_command, list(args), env=env)
    return result.exit_code, result.output


async def test_library_probe_reports_width_and_time(embedding_server: EmbeddingServer) -> None:
    result = await probe("http", embedding_server.url("ok"), text="hello")
    assert result.ok and result.attempted and result.error is None
    assert result.width == 8 and result.elapsed_ms > 0
    assert hints(result) == []
    # A probe must reach the backend: it sends exactly one request.
    assert [r.body for r in embedding_server.requests] == [{"texts": ["hello"]}]


async def test_library_probe_refuses_what_it_cannot_do() -> None:
    with pytest.raises(ProbeUsageError, match="mode must be one of"):
        await probe("none", "http://127.0.0.1:1/x")
    with pytest.raises(ProbeUsageError, match="URL"):
        await probe("http", "")


def test_ok_exits_0_with_width(embedding_server: EmbeddingServer) -> None:
    code, output = invoke("--mode", "http", "--url", embedding_server.url("ok"))
    assert code == 0
    assert f"embedding works: mode=http {embedding_server.url('ok')}" in output
    assert "width 8" in output
    assert "\x1b[" not in output  # not a terminal: no colour codes


def test_dead_endpoint_exits_1_with_evidence_and_what_to_check(closed_url: str) -> None:
    code, output = invoke("--url", closed_url)
    assert code == 1
    port = closed_url.split(":")[2].split("/")[0]
    assert f"evidence: mode=http / POST {closed_url} failed: ConnectError:" in output
    assert "Is the embedding process alive?" in output
    assert f"listening on port {port}" in output
    assert f"curl -sS --max-time 10 -X POST {closed_url}" in output
    # The evidence is printed once, by the command, not again by a log handler.
    assert output.count("failed: ConnectError") == 1


@pytest.mark.parametrize(
    ("behaviour", "hint"),
    [
        ("slow", "did not answer in time"),
        ("status-500", "is the model downloaded and loaded?"),
        ("empty", "answered without vectors"),
        ("nan", "not with usable vectors"),
    ],
)
def test_degraded_answers_point_at_the_likely_cause(
    embedding_server: EmbeddingServer, behaviour: str, hint: str
) -> None:
    code, output = invoke("--url", embedding_server.url(behaviour), "--timeout", "0.2")
    assert code == 1
    assert hint in output


def test_json_output_is_one_object_with_redacted_endpoint(embedding_server: EmbeddingServer) -> None:
    url = embedding_server.url("ok").replace("http://", "http://me:pw-SECRET-1@") + "?token=SECRET-TOKEN"
    code, output = invoke("--url", url, "--json")
    assert code == 0
    report = json.loads(output)
    assert set(report) == {"schema", "ok", "attempted", "error", "mode", "endpoint", "width", "elapsed_ms"}
    assert report["schema"] == 1 and "\n" not in output.strip()
    assert report["ok"] is True and report["attempted"] is True and report["error"] is None
    assert report["endpoint"] == embedding_server.url("ok") and report["width"] == 8
    assert "SECRET" not in output


def test_json_output_when_degraded(closed_url: str) -> None:
    code, output = invoke("--url", closed_url, "--json", "--pretty")
    assert code == 1
    assert output.startswith("{\n  ")
    report = json.loads(output)
    assert report["ok"] is False and report["width"] is None
    assert report["error"].startswith(f"mode=http / POST {closed_url} failed: ConnectError")


def test_api_mode_takes_the_key_from_the_environment(embedding_server: EmbeddingServer) -> None:
    embedding_server.api_key = "sk-from-env"
    args = ("--mode", "api", "--url", embedding_server.url("api-ok"), "--model", "m")
    code, output = invoke(*args, env={"PLAIT_API_KEY": "sk-from-env"})
    assert code == 0, output
    code, output = invoke(*args, env={"PLAIT_API_KEY": "sk-wrong-one"})
    assert code == 1
    assert "check the API key" in output
    assert "sk-wrong-one" not in output


@pytest.mark.parametrize(
    "args",
    [
        ("--mode", "grpc", "--url", "http://127.0.0.1:1/embed"),
        ("--mode", "http"),
        ("--mode", "api", "--url", "http://127.0.0.1:1/embed"),
        ("--url", "http://127.0.0.1:1/embed", "--timeout", "0"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    code, _ = invoke(*args)
    assert code == 2


def test_real_process_probe(embedding_server: EmbeddingServer, closed_url: str) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    ok = subprocess.run(
        [sys.executable, "-m", "plait", "probe", "--mode", "http", "--url", embedding_server.url("ok"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["width"] == 8
    dead = subprocess.run(
        [sys.executable, "-m", "plait", "probe", "--url", closed_url],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert dead.returncode == 1
    assert "evidence: mode=http / POST" in dead.stdout and "what to check" in dead.stdout
    assert "failed: ConnectError" not in dead.stderr


def test_a_key_with_a_stray_newline_is_named_and_nothing_is_sent(embedding_server: EmbeddingServer) -> None:
    args = ("--mode", "api", "--url", embedding_server.url("api-ok"), "--model", "m")
    code, output = invoke(*args, env={"PLAIT_API_KEY": "sk-from-a-file\n"})
    assert code == 1
    assert "the API key is not a legal header value (it holds \\n)" in output
    assert "Nothing was sent: check the API key for a stray newline" in output
    assert "sk-from-a-file" not in output
    assert embedding_server.requests == []


@pytest.mark.parametrize(
    ("behaviour", "hint"),
    [
        ("redirect", "The backend redirects; the client never follows"),
        ("status-503", "The backend failed the request"),
        ("reset-mid-body", "Is the embedding process alive"),
    ],
)
def test_hints_follow_the_record_not_the_text(embedding_server: EmbeddingServer, behaviour: str, hint: str) -> None:
    code, output = invoke("--url", embedding_server.url(behaviour), "--timeout", "0.5")
    assert code == 1
    assert hint in output
    assert f"curl -sS --max-time 10 -X POST {embedding_server.url(behaviour)}" in output


def test_a_line_that_mentions_401_is_not_read_as_a_401(embedding_server: EmbeddingServer) -> None:
    # The old hints looked for " 401 " anywhere in the line; here it is the
    # path, and the backend's answer is a 404.
    code, output = invoke("--url", embedding_server.base_url + "/x 401 y")
    assert code == 1
    assert f"POST {embedding_server.base_url}/x 401 y failed: HTTPStatusError: 404 Not Found" in output
    assert "check the API key" not in output
    assert "Nothing answers at this path" in output


def test_a_hostile_reason_phrase_cannot_repaint_the_terminal(embedding_server: EmbeddingServer) -> None:
    code, output = invoke("--url", embedding_server.url("control-chars"))
    assert code == 1
    assert "\x1b" not in output and "\u202e" not in output
    assert "\\x1b[31m" in output
