"""Outcome-fed embedding health and the degraded advisory.

A service whose embedding backend is dead keeps answering recall with keyword
matches, and nobody notices: ``embed()`` returned ``None`` and the service
fell back.  This module turns the per-call :class:`EmbedOutcome` into a state
and the state into an *advisory*: a data payload the service attaches to its
recall response so the agent relays it to a person who can fix the backend.

Why it lives in the client: every service vendors this package, so every
service gets the same state machine and the same runbook text.  That is also
why it imports nothing but the standard library (and the client's stdlib-only
`outcome` module, which holds the evidence record it reads).

States (per process, reset on restart)::

    unknown --observe(ok, attempted)--> healthy
    unknown/healthy --threshold consecutive failed calls--> fault
    fault --observe(ok, attempted)--> healthy      (only recall clears)
    any --observe_config("none")--> hint           (no debounce)
    hint --observe_config("http"/"api")--> unknown

Suppression: the first delivery of an outage carries the full runbook,
later ones a short reminder.  "Already told" is remembered per declared
``session_key``; without a key, per process when the process serves one
session (stdio).  A keyless multi-session process cannot tell callers apart,
so it never shortens a fault (the first caller must not consume everyone's
runbook) but does shorten a hint (a standing choice must not repeat 1,000
characters forever); its ``advisory_scope`` says ``"process"``.

Reach, stated honestly: nothing is pushed.  A fault surfaces on the next
recall that asks for an advisory, and delivery is best-effort: the agent may
drop or rephrase it.

Typical use in a service::

    from embedding_client import health
    health.configure(opt_out_env="CPERSONA_DEGRADED_ADVISORY", multi_session=False)
    ...
    health.default.observe_config(mode)
    vectors, outcome = await client.embed_with_outcome([query])
    health.default.observe(outcome)
    advisory = health.default.maybe_advisory(session_key)
    if advisory is not None:
        response["advisory"] = advisory
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol

from mnemo._vendored_mcp_common.embedding_client.outcome import Evidence, curl_command, evidence_of, printable, unsupported_mode

__all__ = [
    "EmbeddingHealth",
    "Outcome",
    "configure",
    "default",
    "enabled_from_env",
]

UNKNOWN = "unknown"
HEALTHY = "healthy"
HINT = "hint"
FAULT = "fault"

SCOPE_SESSION = "session"
SCOPE_PROCESS = "process"

REASON_FAULT = "embedding_backend_failing"
REASON_NOT_CONFIGURED = "embedding_not_configured"
REASON_UNSUPPORTED_MODE = "embedding_mode_unsupported"

# The two words services and agents match on: a fault is something failing
# that someone must repair; a hint is a standing configuration (mode none, or
# a mode this client does not know) with nothing to fail.  Which of the two
# configurations it is stays in ``reason``.
_SEVERITY = {FAULT: "fault", HINT: "hint"}

_BACKEND_MODES = frozenset({"http", "api"})
# An empty or missing mode is what an unset setting looks like; it means the
# same as an explicit "none": nobody configured a backend.
_OFF_MODES = frozenset({"none", ""})

# Values that opt out.  Anything else, including a typo, keeps the advisory
# on: a misspelt switch must not silently hide a dead backend.
_FALSE_WORDS = frozenset({"false", "0", "no", "off"})

# A session key is remembered only to know whether that session already had
# the full runbook in this outage.  A long-lived multi-session server sees an
# unbounded stream of keys, so the memory is capped; evicting the oldest key
# costs at most one extra full runbook for a session nobody has heard from in
# a while, which errs on the side of telling.
DEFAULT_MAX_SESSIONS = 4096


class Outcome(Protocol):
    """The three fields health needs; :class:`EmbedOutcome` has them.

    A Protocol rather than the class so a service may feed outcomes from its
    own wrappers or from another copy of the client.  When an outcome also
    carries this client's evidence record, health reads the endpoint and the
    port from it (`evidence_of`); otherwise it uses ``error`` as it is.
    """

    @property
    def attempted(self) -> bool: ...

    @property
    def ok(self) -> bool: ...

    @property
    def error(self) -> str | None: ...


def enabled_from_env(
    name: str,
    environ: Mapping[str, str] | None = None,
    *,
    default: bool = True,
) -> bool:
    """Read the advisory opt-out from the environment variable ``name``.

    The advisory is on unless the variable says one of ``false``, ``0``,
    ``no`` or ``off`` (case and surrounding space ignored).  Unset, empty or
    any other value keeps it on, because opting out must be a deliberate act:
    it records an operator who accepts running without an embedding backend.
    """
    env = os.environ if environ is None else environ
    raw = env.get(name)
    if raw is None:
        return default
    return raw.strip().lower() not in _FALSE_WORDS


# --- runbook templates -------------------------------------------------------
# Static text with named slots; the evidence (and what is parsed out of it) is
# the only thing that changes between outages, so the wording can be reviewed
# once.  Imperative throughout: agents relay instructions more faithfully
# than descriptions.  Rendering and translation are the agent's job.

_FAULT_FULL = (
    "EMBEDDING BACKEND DOWN (state=fault). Evidence: {evidence}\n"
    "Impact: recall is keyword-only; memories that match by meaning rather "
    "than exact words are missed until the backend answers again.\n"
    "Investigate:\n"
    "1. Check the embedding server process is alive (ps aux | grep -i embed).\n"
    "2. Check it listens on the port the service calls: ss -ltnp | grep ':{port}'\n"
    "3. Call it directly and read the status and body: {curl}\n"
    "4. Check the model is downloaded (server log, model cache such as "
    "~/.cache/huggingface).\n"
    "Repair: start or restart the embedding server, download the model if "
    "missing, and fix the service's embedding URL if it names the wrong host "
    "or port. The next successful recall clears this state.\n"
    "Notify the user: memory search is degraded to keyword matching because "
    "the embedding service is failing, so related memories may be missed.\n"
    "Opt out only if running without embeddings is intended: {opt_out}."
)

_HINT_FULL = (
    "EMBEDDING NOT CONFIGURED (state=hint). Evidence: {evidence}\n"
    "Impact: memory recall uses keyword matching only. Memories that match by "
    "meaning rather than exact words are not found.\n"
    "Investigate:\n"
    "1. Check the service's embedding mode setting; it must be http or api "
    "for semantic recall.\n"
    "2. If an embedding server should exist, check its process is alive and "
    "which port it listens on (ss -ltnp).\n"
    "3. Call it directly and read the status and body: {curl}\n"
    "4. Check its model is downloaded (server log, model cache).\n"
    "Repair: set the embedding mode to http with the server URL (or api with "
    "URL, model and key), then restart this service.\n"
    "Notify the user: memory search is using keyword matching only because no "
    "embedding service is configured.\n"
    "Opt out only if running without embeddings is intended: {opt_out}."
)

_FAULT_SHORT = "Reminder: embedding backend still failing, recall is keyword-only. Evidence: {evidence}"
_HINT_SHORT = "Reminder: embedding is not configured, recall is keyword-only. Evidence: {evidence}"

# With no call made there is no endpoint to name; the operator fills it in.
_HINT_CURL = curl_command("http", "http://127.0.0.1:<port>/embed")
_NO_ENDPOINT = "<embedding URL from the evidence>"


def _opt_out_text(env_name: str | None) -> str:
    if env_name:
        return f"set {env_name}=false"
    return "set the service's degraded-advisory variable to false"


class EmbeddingHealth:
    """Per-process embedding health, fed by outcomes, read as advisories.

    ``threshold``: consecutive failed *attempted* calls before a fault, so
    one blip is not reported.  ``multi_session``: the process serves many
    sessions that cannot be told apart (e.g. a stateless streamable-HTTP
    server); it changes how keyless advisories are suppressed.  ``enabled``:
    False silences every advisory (the state is still tracked, so
    :meth:`snapshot` stays truthful).  ``opt_out_env`` only names the switch
    in the runbook.  All methods are safe to call from several threads.
    """

    def __init__(
        self,
        threshold: int = 2,
        multi_session: bool = False,
        enabled: bool = True,
        *,
        opt_out_env: str | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        self._lock = threading.Lock()
        self._threshold = _check_threshold(threshold)
        self._multi_session = bool(multi_session)
        self._enabled = bool(enabled)
        self._opt_out_env = opt_out_env
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self._max_sessions = max_sessions

        self._state = UNKNOWN
        self._mode: str | None = None
        self._reason: str | None = None
        self._evidence: str | None = None
        # The record behind the latest failure, when the client built one:
        # the runbook's port and curl come from it, never from the text.
        self._record: Evidence | None = None
        self._failures = 0
        # Each entry into a degraded state starts a new outage; "already told"
        # is remembered as the outage number, so a recovery re-arms the full
        # runbook without having to clear every remembered session.
        self._outage = 0
        self._process_told: int | None = None
        self._sessions_told: OrderedDict[str, int] = OrderedDict()
        self._since = time.time()

    # --- setup ---------------------------------------------------------------

    def configure(
        self,
        *,
        threshold: int | None = None,
        multi_session: bool | None = None,
        enabled: bool | None = None,
        opt_out_env: str | None = None,
    ) -> None:
        """Change settings at service setup.

        Naming ``opt_out_env`` without ``enabled`` also reads the switch from
        that variable, so a service needs one line to honour its opt-out.
        """
        if opt_out_env is not None and enabled is None:
            enabled = enabled_from_env(opt_out_env)
        with self._lock:
            if threshold is not None:
                self._threshold = _check_threshold(threshold)
            if multi_session is not None:
                self._multi_session = bool(multi_session)
            if enabled is not None:
                self._enabled = bool(enabled)
            if opt_out_env is not None:
                self._opt_out_env = opt_out_env

    # --- observations --------------------------------------------------------

    def observe_config(self, mode: str | None) -> None:
        """Record the configured embedding mode; call it at recall entry.

        Mode ``none`` is a standing condition read from config, so it becomes
        a hint at once with no debounce.  An unsupported mode is treated the
        same way, because a typo in the mode silently disables embedding just
        as surely.  Switching back to a backend mode leaves the hint for
        ``unknown``: only real calls can say the backend is healthy.
        """
        norm = (mode or "").strip().lower()
        with self._lock:
            self._mode = norm
            if norm in _BACKEND_MODES:
                if self._state == HINT:
                    self._set(UNKNOWN, None, None)
                    self._failures = 0
                return
            if norm in _OFF_MODES:
                reason = REASON_NOT_CONFIGURED
                evidence = f"mode={norm or 'none'}: no embedding backend is configured"
            else:
                reason = REASON_UNSUPPORTED_MODE
                evidence = unsupported_mode(norm)
            self._failures = 0
            if self._state == HINT and self._reason == reason:
                self._evidence = evidence
                return
            self._set(HINT, reason, evidence)

    def observe(self, outcome: Outcome) -> None:
        """Feed the outcome of a recall-path embed call.

        A failed attempted call counts toward the threshold and carries its
        evidence.  An ok attempted call means the backend answered: health is
        restored and the next outage gets the full runbook again.  A cache
        hit sent nothing, says nothing about the backend and changes nothing.

        A call that sent nothing but still carries an error (the client's
        "no endpoint URL configured", "not a supported embedding mode")
        counts as a failure too: it is a broken setup that will fail on every
        recall, and ignoring it would be exactly the silent degradation this
        module exists to end.  Only an error-free unattempted failure (mode
        ``none``) is not a failure.
        """
        with self._lock:
            if self._state == HINT:
                # In a hint there is no client to fail or recover; config is
                # the authority and observe_config moves out of it.
                return
            if outcome.ok:
                if outcome.attempted:
                    self._failures = 0
                    if self._state != HEALTHY:
                        self._set(HEALTHY, None, None)
                return
            if outcome.attempted or outcome.error:
                self._fail(outcome)

    def observe_maintenance(self, outcome: Outcome) -> None:
        """Feed an outcome from a maintenance job (e.g. a background re-embed).

        Failure-only: such a job can latch a fault but never clears one.  Its
        successes are ignored because maintenance may run against a different
        path or batch than recall; only recall speaks for what users get.
        """
        with self._lock:
            if self._state == HINT or outcome.ok:
                return
            if outcome.attempted or outcome.error:
                self._fail(outcome)

    # --- reading -------------------------------------------------------------

    def maybe_advisory(self, session_key: str | None = None) -> dict[str, Any] | None:
        """Return the advisory to attach to this response, or ``None``.

        Call it once per logical response: each call may mark the full
        runbook as delivered.  ``session_key`` is the caller's session id
        when it has one; the module docstring explains the three scopes.
        """
        with self._lock:
            if not self._enabled or self._state not in (HINT, FAULT):
                return None
            outage = self._outage
            if session_key is not None:
                scope = SCOPE_SESSION
                full = self._sessions_told.get(session_key) != outage
                self._sessions_told[session_key] = outage
                self._sessions_told.move_to_end(session_key)
                while len(self._sessions_told) > self._max_sessions:
                    self._sessions_told.popitem(last=False)
            elif not self._multi_session:
                # stdio and the like: one process is one session, so the
                # process-wide memory is exactly the session's memory.
                scope = SCOPE_SESSION
                full = self._process_told != outage
                self._process_told = outage
            else:
                scope = SCOPE_PROCESS
                if self._state == FAULT:
                    # Keyless callers cannot be told apart: whoever came first
                    # must not consume everyone's full runbook for an outage
                    # they may need to act on.
                    full = True
                else:
                    # A hint is a standing config choice; repeating 1,000
                    # characters on every recall forever would train agents
                    # to ignore it.
                    full = self._process_told != outage
                    self._process_told = outage
            return self._payload(full, scope)

    def snapshot(self) -> dict[str, Any]:
        """A copy of the current state, for status endpoints and tests."""
        with self._lock:
            return {
                "state": self._state,
                "mode": self._mode,
                "reason": self._reason,
                "evidence": self._evidence,
                "consecutive_failures": self._failures,
                "threshold": self._threshold,
                "enabled": self._enabled,
                "multi_session": self._multi_session,
                "outage": self._outage,
                "since": self._since,
                "sessions_remembered": len(self._sessions_told),
            }

    # --- internals (call with the lock held) ---------------------------------

    def _fail(self, outcome: Outcome) -> None:
        self._failures += 1
        self._record = evidence_of(outcome)
        if self._record is not None:
            evidence = self._record.line
        else:
            # Another copy's outcome: its line is used as it is, only kept
            # to one printable line, and never parsed for parts.
            evidence = printable(outcome.error or "") or "embedding call failed without evidence"
        if self._state == FAULT:
            self._evidence = self._fault_evidence(evidence)
        elif self._failures >= self._threshold:
            self._set(FAULT, REASON_FAULT, self._fault_evidence(evidence))

    def _fault_evidence(self, last_error: str) -> str:
        return f"{self._failures} consecutive failed embedding calls; last: {last_error}"

    def _set(self, state: str, reason: str | None, evidence: str | None) -> None:
        if state in (HINT, FAULT):
            self._outage += 1
        self._state = state
        self._reason = reason
        self._evidence = evidence
        if state != FAULT:
            self._record = None
        self._since = time.time()

    def _payload(self, full: bool, scope: str) -> dict[str, Any]:
        evidence = self._evidence or ""
        fault = self._state == FAULT
        if full:
            if fault:
                record = self._record
                runbook = _FAULT_FULL.format(
                    evidence=evidence,
                    port=(record.port if record else None) or "<port>",
                    curl=record.curl() if record else curl_command(self._mode or "http", _NO_ENDPOINT),
                    opt_out=_opt_out_text(self._opt_out_env),
                )
            else:
                runbook = _HINT_FULL.format(
                    evidence=evidence, curl=_HINT_CURL, opt_out=_opt_out_text(self._opt_out_env)
                )
        else:
            runbook = (_FAULT_SHORT if fault else _HINT_SHORT).format(evidence=evidence)
        return {
            "degraded": True,
            "severity": _SEVERITY[self._state],
            "reason": self._reason,
            "evidence": evidence,
            "runbook": runbook,
            "advisory_scope": scope,
        }


def _check_threshold(threshold: int) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ValueError("threshold must be an integer of at least 1")
    return threshold


#: The process-wide instance.  It lives as long as the process, so a restart
#: starts from ``unknown``; tests and unusual services make their own.
default = EmbeddingHealth()


def configure(
    *,
    threshold: int | None = None,
    multi_session: bool | None = None,
    enabled: bool | None = None,
    opt_out_env: str | None = None,
) -> EmbeddingHealth:
    """Configure :data:`default` at service setup and return it."""
    default.configure(
        threshold=threshold,
        multi_session=multi_session,
        enabled=enabled,
        opt_out_env=opt_out_env,
    )
    return default
