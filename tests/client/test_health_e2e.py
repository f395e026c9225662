"""One outage, one service process, two agents, real sockets all the way.

The service (the demo consumer's recall behind a tiny stateless HTTP front,
so it serves many anonymous sessions) runs in its own process and calls the
suite's loopback embedding backend, which answers 500.  Two agents, each with
its own connection, call the service.  What each agent received is the
behaviour that matters: the first keyless caller must not consume the other's
full runbook, while declared sessions are told in full once each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from plait.conformance.servers import EmbeddingServer

CPERSONA_ROOT = Path(__file__).resolve().parents[2] / "lineages" / "consumers" / "cpersona"

SERVICE = textwrap.dedent(
    """
    import asyncio, json, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from cpersona import recall as cp
    from cpersona._vendored_mcp_common.embedding_client import EmbeddingClient

    embed_url = sys.argv[1]
    cp.setup_health(multi_session=True)
    store = cp.MemoryStore()
    for text in ("Tea with Mika on Sunday", "The boiler is serviced every March"):
        store.add(text)

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    client = EmbeddingClient("http", http_url=embed_url, timeout=5)

    class Front(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            job = cp.recall(body["query"], store, mode="http", client=client,
                            session_key=body.get("session"))
            answer = json.dumps(asyncio.run_coroutine_threadsafe(job, loop).result()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Front)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """
)


@pytest.fixture
def service(tmp_path: Path, embedding_server: EmbeddingServer) -> Iterator[str]:
    script = tmp_path / "cpersona_service.py"
    script.write_text(SERVICE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CPERSONA_ROOT), env.get("PYTHONPATH")]))
    env.pop("CPERSONA_DEGRADED_ADVISORY", None)
    proc = subprocess.Popen(
        [sys.executable, str(script), embedding_server.base_url + "/embed"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.strip().isdigit():
            proc.kill()
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"service did not start: {err}")
        yield f"http://127.0.0.1:{line.strip()}/recall"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def ask(agent: httpx.Client, url: str, query: str, session: str | None = None) -> dict:
    payload: dict = {"query": query}
    if session is not None:
        payload["session"] = session
    resp = agent.post(url, content=json.dumps(payload), timeout=30)
    resp.raise_for_status()
    return resp.json()


def form(response: dict) -> str:
    """What the agent got: no advisory, the full runbook, or the reminder."""
    if "advisory" not in response:
        return "none"
    return "full" if "Notify the user:" in response["advisory"]["runbook"] else "short"


def test_two_agents_one_service_one_outage(embedding_server: EmbeddingServer, service: str) -> None:
    embedding_server.default_behaviour = "status-500"
    with httpx.Client() as alice, httpx.Client() as bob:
        received = [
            ("alice", ask(alice, service, "tea")),
            ("bob", ask(bob, service, "boiler")),
            ("alice", ask(alice, service, "sunday")),
            ("bob", ask(bob, service, "march")),
        ]
        # Keyless, multi-session: the first failure is debounced; after that
        # every caller gets the full runbook, whoever asked first.
        assert [(who, form(r)) for who, r in received] == [
            ("alice", "none"),
            ("bob", "full"),
            ("alice", "full"),
            ("bob", "full"),
        ]
        for _, r in received[1:]:
            adv = r["advisory"]
            assert adv["advisory_scope"] == "process"
            assert adv["severity"] == "fault"
            assert "500" in adv["evidence"]
            assert f"127.0.0.1:{embedding_server.port}" in adv["evidence"]
            # Port and curl come from the evidence record, through the service.
            assert f"grep ':{embedding_server.port}'" in adv["runbook"]
            assert f"-X POST http://127.0.0.1:{embedding_server.port}/embed" in adv["runbook"]
            assert "CPERSONA_DEGRADED_ADVISORY=false" in adv["runbook"]
        # Recall still answered, by keyword, throughout.
        assert received[0][1]["messages"][0]["text"] == "Tea with Mika on Sunday"
        assert received[1][1]["messages"][0]["text"] == "The boiler is serviced every March"

        # Declared sessions: each is told in full once, then reminded.
        declared = [
            ("alice", form(ask(alice, service, "mika", session="a"))),
            ("bob", form(ask(bob, service, "serviced", session="b"))),
            ("alice", form(ask(alice, service, "with", session="a"))),
            ("bob", form(ask(bob, service, "every", session="b"))),
        ]
        assert declared == [("alice", "full"), ("bob", "full"), ("alice", "short"), ("bob", "short")]

    # The service really called the backend for each of the eight recalls.
    assert len([r for r in embedding_server.requests if r.path == "/embed"]) >= 8
