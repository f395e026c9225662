"""What happened on one embedding call, and how that is told safely.

`embed()` returns ``None`` both when embedding is switched off and when the
backend is dead, so a service cannot tell silence from failure.  The outcome
is returned *with* the value of the call it describes and is never stored on
the client: concurrent calls must not read each other's outcome.

The evidence line is the one thing an operator sees when recall degrades.  It
is built here, once, from an `Evidence` record that is already redacted and
printable: whatever is logged or returned is the same string, nothing
downstream has to remember to scrub it, and nothing downstream has to parse
it back, because `health` and `plait probe` read the record itself through
`evidence_of`.

Standard library only: `health` imports this module, and health must stay
importable without httpx.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from urllib.parse import SplitResult, unquote, unquote_plus, urlsplit

__all__ = [
    "EmbedOutcome",
    "Evidence",
    "Redactor",
    "curl_command",
    "describe",
    "evidence_of",
    "port_of",
    "printable",
    "safe_endpoint",
    "unsupported_mode",
]

# Ports are spelled out even when the scheme implies them: "is it listening
# on 443 or 8443?" is the first question asked of an evidence line.
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Secrets shorter than this are not scrubbed one by one: replacing every "1"
# or "ab" in a message would make the evidence unreadable.  They are still
# removed wherever the raw URL itself appears.
_MIN_SECRET_LEN = 4

_MASK = "***"

# An exception message is normally a sentence; a longer one is a server's
# page echoed back by something, and one line of evidence must stay readable.
_MAX_DETAIL = 1024


@dataclass(frozen=True, slots=True)
class Evidence:
    """The facts behind one evidence line, so that nobody parses the line back.

    mode: the client mode of the call (``http``, ``api``, ...).
    endpoint: ``scheme://host:port/path``, with no userinfo, query or fragment.
    kind: the failure's type as httpx or the client names it
        (``ConnectError``, ``ReadTimeout``, ``HTTPStatusError``,
        ``ResponseRejected``...); ``None`` when the backend answered 2xx
        without any vectors.
    detail: what went wrong, redacted and printable.
    status: the HTTP status when the backend answered with one.
    """

    mode: str
    endpoint: str
    kind: str | None
    detail: str = ""
    status: int | None = None

    @property
    def line(self) -> str:
        """The evidence line: ``mode=<m> / POST <endpoint> failed: <kind>: <detail>``."""
        if self.kind is None:
            return f"mode={self.mode} / POST {self.endpoint} returned no embeddings"
        return f"mode={self.mode} / POST {self.endpoint} failed: {self.kind}: {self.detail}"

    @property
    def port(self) -> int | None:
        """The port the call went to (the scheme's default when the URL named none)."""
        return port_of(self.endpoint)

    def curl(self, *, key_variable: str = "API_KEY", model: str = "<model>") -> str:
        """A curl command that repeats this call by hand, with no secret in it."""
        return curl_command(self.mode, self.endpoint, key_variable=key_variable, model=model)


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    """The outcome of one embedding call.

    attempted: a request was sent to a backend (a cache hit or mode ``none`` is not).
    ok: the call produced usable vectors.
    error: one redacted evidence line when the call failed, else ``None``.
    evidence: the record *error* was built from, when this client built it.
        Keyword-only and left out of equality and repr, so the outcome still
        compares, prints and unpacks as the three-field contract.
    """

    attempted: bool
    ok: bool
    error: str | None = None
    evidence: Evidence | None = field(default=None, kw_only=True, compare=False, repr=False)


def evidence_of(outcome: object) -> Evidence | None:
    """The `Evidence` behind *outcome*, or ``None`` when it carries none.

    Outcomes from other copies of the client (a lineage, an older vendored
    copy) may lack the record, or carry their own copy's class; those give
    ``None`` and the caller uses the error string as it is.
    """
    record = getattr(outcome, "evidence", None)
    return record if isinstance(record, Evidence) else None


def _port(parts: SplitResult) -> int | None:
    # Raises ValueError for a port out of range, as SplitResult.port does.
    return parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())


def port_of(url: str) -> int | None:
    """The port *url* goes to, the scheme's default when it names none."""
    try:
        return _port(urlsplit(url.strip()))
    except ValueError:
        return None


def safe_endpoint(raw_url: str) -> str:
    """``scheme://host:port/path`` of *raw_url*: no userinfo, query or fragment."""
    try:
        parts = urlsplit(raw_url.strip())
        host = parts.hostname or ""
        port = _port(parts)
    except ValueError:
        # A URL too broken to split still must not leak what it carries.
        return "<unparseable url>"
    if not parts.scheme or not host:
        return "<unparseable url>"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port else host
    return printable(f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}")


def curl_command(mode: str, endpoint: str, *, key_variable: str = "API_KEY", model: str = "<model>") -> str:
    """A curl command an operator can paste to call *endpoint* as *mode* does.

    The key is read from ``$key_variable`` so the command carries no secret;
    every value is shell-quoted because the endpoint comes from config.
    """
    if mode == "api":
        body = {"model": model, "input": ["ping"]}
        auth = f' -H "Authorization: Bearer ${key_variable}"'
    else:
        body = {"texts": ["ping"]}
        auth = ""
    payload = json.dumps(body, separators=(",", ":"))
    return (
        f"curl -sS --max-time 10 -X POST {shlex.quote(endpoint)}"
        f" -H 'Content-Type: application/json'{auth} -d {shlex.quote(payload)}"
    )


def printable(text: str) -> str:
    """*text* as one printable line.

    White space runs (newlines included) become one space; any other control
    or format character (ANSI escapes, bidi overrides such as U+202E,
    zero-width characters) is written as its escape, so evidence cannot
    repaint a terminal or reorder what a reader sees.
    """
    text = " ".join(text.split())
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _spelled_any_way(text: str) -> str:
    """A pattern for *text* with any of its characters percent-encoded, or ``+`` for a space.

    A server may echo a query value raw, decoded, or re-encoded by its own
    rules (every byte, only some, ``%2f`` or ``%2F``); matching character by
    character catches all of them without listing each spelling.
    """
    parts = []
    for char in text:
        encoded = "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        spellings = [re.escape(char), re.escape(encoded)] + ([r"\+"] if char == " " else [])
        parts.append("(?:" + "|".join(spellings) + ")")
    return "".join(parts)


def _escaped(text: str) -> set[str]:
    """*text* as a repr (str or bytes), ``unicode_escape`` or JSON would show it."""
    return {
        repr(text)[1:-1],
        repr(text.encode("utf-8", "surrogatepass"))[2:-1],
        text.encode("unicode_escape").decode("ascii"),
        json.dumps(text)[1:-1],
    } - {text}


def _secret_pattern(secrets: set[str]) -> re.Pattern[str]:
    """One pattern for every spelling of every secret: raw, decoded, encoded, escaped."""
    bases = {base for secret in secrets for base in (secret, secret.strip(), unquote(secret), unquote_plus(secret))}
    bases = {base for base in bases if len(base) >= _MIN_SECRET_LEN}
    alternatives = [(len(base), _spelled_any_way(base)) for base in bases]
    alternatives += [(len(form), re.escape(form)) for base in bases for form in _escaped(base)]
    # Longest first, so a secret that contains another is masked whole;
    # case-blind, because %2f and %2F are the same byte.
    alternatives.sort(key=lambda item: item[0], reverse=True)
    return re.compile("|".join(pattern for _, pattern in alternatives), re.IGNORECASE)


def _secrets_of(raw_url: str, extra: tuple[str, ...]) -> set[str]:
    """Every fragment of *raw_url* (and *extra*) that must never be shown."""
    found: list[str] = [s for s in extra if s]
    try:
        parts = urlsplit(raw_url.strip())
    except ValueError:
        return set(found)
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, _, password = userinfo.partition(":")
        found += [userinfo, user, password]
    if parts.query:
        found.append(parts.query)
        found += [pair.partition("=")[2] for pair in parts.query.split("&")]
    if parts.fragment:
        found.append(parts.fragment)
    return {secret for secret in found if len(secret.strip()) >= _MIN_SECRET_LEN}


class Redactor:
    """Turns failures on one endpoint into `Evidence` that is safe to show.

    Built once per client: the safe endpoint and the secrets do not change
    between calls.  The pattern that masks the secrets is compiled on the
    first failure, so a healthy client never pays for it.
    """

    __slots__ = ("mode", "endpoint", "_raw_forms", "_secrets", "_pattern")

    def __init__(self, mode: str, raw_url: str, *secrets: str, url_forms: tuple[str, ...] = ()) -> None:
        """*url_forms*: other spellings of *raw_url* a transport may print."""
        self.mode = mode
        self.endpoint = safe_endpoint(raw_url) if raw_url else "<no url>"
        forms = {raw_url, raw_url.strip(), *url_forms}
        self._raw_forms = tuple(sorted((f for f in forms if f), key=len, reverse=True))
        self._secrets = _secrets_of(raw_url, secrets)
        self._pattern: re.Pattern[str] | None = None

    def scrub(self, text: str) -> str:
        """*text* with every raw URL replaced by the safe form and secrets masked."""
        for form in self._raw_forms:
            text = text.replace(form, self.endpoint)
        if not self._secrets:
            return text
        if self._pattern is None:
            self._pattern = _secret_pattern(self._secrets)
        return self._pattern.sub(_MASK, text)

    def _clean(self, text: str) -> str:
        # Scrubbed before and after escaping: a secret holding a control
        # character is only recognisable in one of the two spellings.
        text = self.scrub(printable(self.scrub(text)))
        return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 3] + "..."

    def failure(self, kind: str, detail: str, status: int | None = None) -> Evidence:
        """The evidence for a call that failed with *kind*: *detail*."""
        return Evidence(self.mode, self.endpoint, self._clean(kind), self._clean(detail) or "no detail", status)

    def exception(self, exc: BaseException, status: int | None = None) -> Evidence:
        """The evidence for a call that raised *exc*, whatever its message does."""
        kind, detail = describe(exc)
        return self.failure(kind, detail, status)

    def no_embeddings(self) -> Evidence:
        """The evidence for a 2xx answer that carried no vectors."""
        return Evidence(self.mode, self.endpoint, None)


def describe(exc: BaseException) -> tuple[str, str]:
    """The type name of *exc* and the first message in its chain, even when formatting raises.

    An exception is anything a transport chose to raise, and its ``__str__``
    is its own code: the client's promise never to raise must not depend on
    it.  httpx often raises with an empty message over a cause that has one
    (``ReadError`` over ``[Errno 104] Connection reset by peer``).
    """
    kind = type(exc).__name__
    cause: BaseException | None = exc
    # A chain is a few links long; the bound keeps a cycle from hanging us.
    for _ in range(8):
        if cause is None:
            break
        try:
            detail = str(cause)
        except Exception:  # whatever __str__ raises, the call still has an outcome
            return kind, "(its message could not be formatted)"
        if detail:
            return kind, detail
        cause = cause.__cause__ or cause.__context__
        if not isinstance(cause, Exception):
            # A cancellation under a timeout says nothing about the backend.
            break
    return kind, ""


def unsupported_mode(mode: str) -> str:
    """The error for a mode this client does not know."""
    shown = printable(mode)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"mode={shown} is not a supported embedding mode"
