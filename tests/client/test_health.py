"""The health state machine and the advisory a user ends up reading."""

from __future__ import annotations

import threading

import pytest

from embedding_client import EmbedOutcome
from embedding_client import health as health_mod
from embedding_client.health import EmbeddingHealth, enabled_from_env
from embedding_client.outcome import Evidence, Redactor

DEAD = "mode=http / POST http://127.0.0.1:8765/embed failed: ConnectError: [Errno 111] Connection refused"


def failed(evidence: Evidence) -> EmbedOutcome:
    """The outcome the client returns for *evidence*: the line plus its record."""
    return EmbedOutcome(True, False, evidence.line, evidence=evidence)


FAIL = failed(Redactor("http", "http://127.0.0.1:8765/embed").failure("ConnectError", "[Errno 111] Connection refused"))
OK = EmbedOutcome(attempted=True, ok=True)
CACHE_HIT = EmbedOutcome(attempted=False, ok=True)
MODE_NONE = EmbedOutcome(attempted=False, ok=False)

KEYS = {"degraded", "severity", "reason", "evidence", "runbook", "advisory_scope"}


def faulted(**kwargs: object) -> EmbeddingHealth:
    h = EmbeddingHealth(**kwargs)  # type: ignore[arg-type]
    h.observe_config("http")
    h.observe(FAIL)
    h.observe(FAIL)
    return h


def is_full(advisory: dict) -> bool:
    return "Notify the user:" in advisory["runbook"]


def assert_short(advisory: dict) -> None:
    runbook = advisory["runbook"]
    assert "Notify the user:" not in runbook
    # The reminder still carries the evidence, and its own words stay short.
    assert advisory["evidence"] in runbook
    assert len(runbook) - len(advisory["evidence"]) <= 120


def test_mode_none_gives_a_hint_at_once() -> None:
    h = EmbeddingHealth()
    h.observe_config("none")
    adv = h.maybe_advisory()
    assert adv is not None and set(adv) == KEYS
    assert adv["degraded"] is True
    assert adv["reason"] == "embedding_not_configured"
    assert adv["severity"] == "hint"
    assert "mode=none" in adv["evidence"]
    assert h.snapshot()["state"] == "hint"


def test_mode_none_outcomes_never_turn_a_hint_into_a_fault() -> None:
    h = EmbeddingHealth()
    h.observe_config("none")
    for _ in range(5):
        h.observe(MODE_NONE)
        h.observe(FAIL)
    assert h.snapshot()["state"] == "hint"


def test_unsupported_mode_is_reported_not_silent() -> None:
    h = EmbeddingHealth()
    h.observe_config("htpp")
    adv = h.maybe_advisory()
    assert adv is not None
    # Nothing can fail without a backend, so it is a hint; the reason says which.
    assert adv["severity"] == "hint"
    assert adv["reason"] == "embedding_mode_unsupported"
    assert adv["evidence"] == "mode=htpp is not a supported embedding mode"


def test_severity_is_one_of_the_two_contract_words() -> None:
    seen = set()
    for mode in ("none", "", "htpp", "http"):
        h = EmbeddingHealth()
        h.observe_config(mode)
        h.observe(FAIL)
        h.observe(FAIL)
        adv = h.maybe_advisory()
        assert adv is not None
        seen.add(adv["severity"])
    assert seen == {"fault", "hint"}


def test_two_failures_give_a_fault_with_evidence() -> None:
    h = faulted()
    adv = h.maybe_advisory()
    assert adv is not None and set(adv) == KEYS
    assert adv["severity"] == "fault"
    assert adv["reason"] == "embedding_backend_failing"
    assert DEAD in adv["evidence"]
    assert "2 consecutive" in adv["evidence"]


def test_one_failure_is_debounced() -> None:
    h = EmbeddingHealth()
    h.observe_config("http")
    h.observe(OK)
    h.observe(FAIL)
    assert h.maybe_advisory() is None
    # ...and a success in between restarts the count.
    h.observe(OK)
    h.observe(FAIL)
    assert h.maybe_advisory() is None


def test_threshold_is_configurable() -> None:
    h = EmbeddingHealth(threshold=3)
    h.observe(FAIL)
    h.observe(FAIL)
    assert h.maybe_advisory() is None
    h.observe(FAIL)
    assert h.maybe_advisory() is not None


def test_healthy_gives_no_advisory() -> None:
    h = EmbeddingHealth()
    assert h.maybe_advisory() is None  # unknown is not degraded
    h.observe_config("http")
    h.observe(OK)
    assert h.maybe_advisory() is None
    assert h.snapshot()["state"] == "healthy"


def test_full_runbook_then_short_reminders() -> None:
    h = faulted(opt_out_env="CPERSONA_DEGRADED_ADVISORY")
    first = h.maybe_advisory()
    assert first is not None and is_full(first)
    runbook = first["runbook"]
    # What the operator needs in the one message they may read.
    assert "state=fault" in runbook and DEAD in runbook
    assert "Impact:" in runbook
    assert "alive" in runbook
    assert "ss -ltnp | grep ':8765'" in runbook
    assert "curl" in runbook and "http://127.0.0.1:8765/embed" in runbook
    assert "model is downloaded" in runbook
    assert "Repair:" in runbook
    assert "CPERSONA_DEGRADED_ADVISORY=false" in runbook
    assert 800 <= len(runbook) - len(first["evidence"]) <= 1300
    for _ in range(3):
        later = h.maybe_advisory()
        assert later is not None
        assert_short(later)
        assert later["advisory_scope"] == "session"


def test_evidence_follows_the_latest_failure() -> None:
    h = faulted()
    h.maybe_advisory()
    h.observe(failed(Redactor("http", "http://h:9/other").failure("ReadTimeout", "")))
    adv = h.maybe_advisory()
    assert adv is not None
    assert "3 consecutive" in adv["evidence"] and "ReadTimeout" in adv["evidence"]
    assert "ReadTimeout" in adv["runbook"]
    # A session told now gets the runbook for the latest failure's endpoint.
    full = h.maybe_advisory("late-session")
    assert full is not None and is_full(full)
    assert "grep ':9'" in full["runbook"] and "-X POST http://h:9/other" in full["runbook"]


def test_recovery_clears_and_rearms_the_full_runbook() -> None:
    h = faulted()
    assert is_full(h.maybe_advisory())  # type: ignore[arg-type]
    assert not is_full(h.maybe_advisory())  # type: ignore[arg-type]
    h.observe(OK)
    assert h.maybe_advisory() is None
    h.observe(FAIL)
    assert h.maybe_advisory() is None  # the new outage is debounced too
    h.observe(FAIL)
    again = h.maybe_advisory()
    assert again is not None and is_full(again)


def test_cache_hits_do_not_clear_a_fault() -> None:
    h = faulted()
    for _ in range(10):
        h.observe(CACHE_HIT)
    adv = h.maybe_advisory()
    assert adv is not None and adv["reason"] == "embedding_backend_failing"


def test_cache_hits_do_not_reset_the_debounce_count() -> None:
    h = EmbeddingHealth()
    h.observe(FAIL)
    h.observe(CACHE_HIT)
    h.observe(FAIL)
    assert h.maybe_advisory() is not None


def test_maintenance_success_does_not_clear_a_fault() -> None:
    h = faulted()
    h.observe_maintenance(OK)
    assert h.maybe_advisory() is not None
    assert h.snapshot()["state"] == "fault"


def test_maintenance_failures_can_latch_a_fault() -> None:
    h = EmbeddingHealth()
    h.observe_config("http")
    h.observe(OK)
    h.observe_maintenance(FAIL)
    h.observe_maintenance(FAIL)
    adv = h.maybe_advisory()
    assert adv is not None and DEAD in adv["evidence"]


def test_opt_out_silences_everything() -> None:
    h = faulted(enabled=False)
    assert h.maybe_advisory() is None
    assert h.maybe_advisory("s1") is None
    h.observe_config("none")
    assert h.maybe_advisory() is None
    # The state is still tracked, so a status page stays truthful.
    assert h.snapshot()["state"] == "hint"


def test_opt_out_set_after_a_fault_silences_it() -> None:
    h = faulted()
    h.configure(enabled=False)
    assert h.maybe_advisory() is None


def test_two_declared_sessions_each_get_the_full_runbook() -> None:
    h = faulted()
    a1 = h.maybe_advisory("alice")
    b1 = h.maybe_advisory("bob")
    a2 = h.maybe_advisory("alice")
    b2 = h.maybe_advisory("bob")
    assert a1 and b1 and a2 and b2
    assert is_full(a1) and is_full(b1)
    assert_short(a2)
    assert_short(b2)
    assert {x["advisory_scope"] for x in (a1, b1, a2, b2)} == {"session"}


def test_declared_sessions_are_rearmed_after_recovery() -> None:
    h = faulted()
    h.maybe_advisory("alice")
    h.observe(OK)
    h.observe(FAIL)
    h.observe(FAIL)
    adv = h.maybe_advisory("alice")
    assert adv is not None and is_full(adv)


def test_remembered_sessions_are_bounded() -> None:
    h = faulted(max_sessions=3)
    for key in ("a", "b", "c", "d"):
        h.maybe_advisory(key)
    assert h.snapshot()["sessions_remembered"] == 3
    # The evicted, oldest session is told in full again rather than never.
    evicted = h.maybe_advisory("a")
    assert evicted is not None and is_full(evicted)
    kept = h.maybe_advisory("d")
    assert kept is not None and not is_full(kept)


def test_keyless_single_session_is_suppressed_per_process() -> None:
    h = faulted(multi_session=False)
    first, second = h.maybe_advisory(), h.maybe_advisory()
    assert first and second
    assert is_full(first)
    assert_short(second)
    assert first["advisory_scope"] == second["advisory_scope"] == "session"


def test_keyless_multi_session_fault_is_full_every_time() -> None:
    h = faulted(multi_session=True)
    for _ in range(4):
        adv = h.maybe_advisory()
        assert adv is not None and is_full(adv)
        assert adv["advisory_scope"] == "process"


def test_keyless_multi_session_hint_still_downgrades() -> None:
    h = EmbeddingHealth(multi_session=True)
    h.observe_config("none")
    first, second = h.maybe_advisory(), h.maybe_advisory()
    assert first and second
    assert is_full(first)
    assert_short(second)
    assert second["advisory_scope"] == "process"


def test_declared_key_wins_over_multi_session() -> None:
    h = faulted(multi_session=True)
    h.maybe_advisory("alice")
    adv = h.maybe_advisory("alice")
    assert adv is not None and not is_full(adv)
    assert adv["advisory_scope"] == "session"


def test_hint_does_not_repeat_while_config_keeps_saying_none() -> None:
    # observe_config runs at every recall entry; it must not re-arm the hint.
    h = EmbeddingHealth()
    h.observe_config("none")
    assert is_full(h.maybe_advisory())  # type: ignore[arg-type]
    h.observe_config("none")
    assert not is_full(h.maybe_advisory())  # type: ignore[arg-type]


def test_turning_embedding_on_leaves_the_hint_for_unknown() -> None:
    h = EmbeddingHealth()
    h.observe_config("none")
    h.observe_config("http")
    assert h.maybe_advisory() is None
    assert h.snapshot()["state"] == "unknown"


def test_config_mode_none_replaces_a_fault_with_a_fresh_hint() -> None:
    h = faulted()
    h.maybe_advisory()
    h.observe_config("none")
    adv = h.maybe_advisory()
    assert adv is not None and is_full(adv)
    assert adv["reason"] == "embedding_not_configured"


def test_runbook_names_a_generic_switch_without_an_env_name() -> None:
    adv = faulted().maybe_advisory()
    assert adv is not None
    assert "degraded-advisory variable to false" in adv["runbook"]


def test_api_mode_runbook_shows_an_api_style_curl() -> None:
    h = EmbeddingHealth()
    h.observe_config("api")
    redactor = Redactor("api", "https://key:secret@api.example/v1/embeddings?k=sekrit")
    err = failed(redactor.failure("HTTPStatusError", "401 Unauthorized", 401))
    h.observe(err)
    h.observe(err)
    adv = h.maybe_advisory()
    assert adv is not None
    assert "Authorization: Bearer $API_KEY" in adv["runbook"]
    assert "curl -sS --max-time 10 -X POST https://api.example:443/v1/embeddings" in adv["runbook"]
    assert "grep ':443'" in adv["runbook"]
    assert "secret" not in adv["runbook"] and "sekrit" not in adv["runbook"]


class ForeignOutcome:
    """An outcome from another copy of the client: the three fields, no record."""

    def __init__(self, error: str) -> None:
        self.attempted, self.ok, self.error = True, False, error


def test_outcomes_without_a_record_are_used_as_they_are_not_parsed() -> None:
    # Another copy's line that looks like ours: the runbook must not lift an
    # endpoint out of it (that text was never redacted by this client).
    line = "mode=http / POST http://10.0.0.7:9999/embed failed: ConnectError: refused"
    h = EmbeddingHealth()
    h.observe_config("http")
    h.observe(ForeignOutcome(line))
    h.observe(ForeignOutcome(line + "\n\x1b[31mred"))
    adv = h.maybe_advisory()
    assert adv is not None
    assert adv["evidence"].endswith(line + " \\x1b[31mred")
    assert "<port>" in adv["runbook"] and "<embedding URL from the evidence>" in adv["runbook"]
    assert "grep ':9999'" not in adv["runbook"]


def test_evidence_without_an_endpoint_still_renders() -> None:
    h = EmbeddingHealth()
    h.observe(EmbedOutcome(True, False, None))
    h.observe(EmbedOutcome(True, False, "something odd"))
    adv = h.maybe_advisory()
    assert adv is not None
    assert "something odd" in adv["runbook"] and "<port>" in adv["runbook"]


def test_invalid_threshold_is_refused() -> None:
    with pytest.raises(ValueError):
        EmbeddingHealth(threshold=0)


def test_concurrent_sessions_each_get_exactly_one_full_runbook() -> None:
    h = faulted()
    fulls: list[str] = []
    lock = threading.Lock()

    def worker(key: str) -> None:
        for _ in range(20):
            adv = h.maybe_advisory(key)
            if adv is not None and is_full(adv):
                with lock:
                    fulls.append(key)

    threads = [threading.Thread(target=worker, args=(f"s{i % 8}",)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(fulls) == sorted(f"s{i}" for i in range(8))


@pytest.mark.parametrize(
    ("raw", "enabled"),
    [
        (None, True),
        ("", True),
        ("true", True),
        ("1", True),
        ("yes", True),
        ("maybe", True),  # a typo must not silence a dead backend
        ("false", False),
        ("FALSE", False),
        (" off ", False),
        ("0", False),
        ("no", False),
    ],
)
def test_enabled_from_env(raw: str | None, enabled: bool) -> None:
    env = {} if raw is None else {"CPERSONA_DEGRADED_ADVISORY": raw}
    assert enabled_from_env("CPERSONA_DEGRADED_ADVISORY", env) is enabled


def test_configure_reads_the_named_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYSVC_DEGRADED_ADVISORY", "off")
    h = faulted()
    h.configure(opt_out_env="MYSVC_DEGRADED_ADVISORY", multi_session=True)
    assert h.maybe_advisory() is None
    assert h.snapshot()["multi_session"] is True


def test_default_is_one_process_wide_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    import embedding_client

    fresh = EmbeddingHealth()
    monkeypatch.setattr(health_mod, "default", fresh)
    assert health_mod.configure(multi_session=True) is fresh
    assert fresh.snapshot()["multi_session"] is True
    assert embedding_client.health is health_mod
    assert embedding_client.EmbeddingHealth is EmbeddingHealth


def test_a_broken_setup_that_sends_nothing_still_faults() -> None:
    # The client reports a missing URL without sending a request; recall
    # would be keyword-only forever, so it must not stay silent.
    no_url = EmbedOutcome(False, False, "mode=http has no endpoint URL configured")
    h = EmbeddingHealth()
    h.observe_config("http")
    h.observe(no_url)
    h.observe(no_url)
    adv = h.maybe_advisory()
    assert adv is not None and "no endpoint URL" in adv["evidence"]


def test_mode_none_outcomes_are_not_failures() -> None:
    h = EmbeddingHealth()
    for _ in range(5):
        h.observe(MODE_NONE)
        h.observe_maintenance(MODE_NONE)
    assert h.maybe_advisory() is None
