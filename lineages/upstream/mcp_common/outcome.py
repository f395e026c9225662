"""What happened on one embedding call, and how that is told safely.

`embed()` returns ``None`` both when embedding is switched off and when the
backend is dead, so a service cannot tell silence from failure.  The outcome
is returned *with* the value of the call it describes and is never stored on
the client: concurrent calls must not read each other's outcome.

The evidence line is the one thing an operator sees when recall degrades, so
it is built here, once, already redacted: whatever is logged or returned is
the same string, and nothing downstream has to remember to scrub it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx

__all__ = ["EmbedOutcome", "Redactor", "unsupported_mode"]

# Ports are spelled out even when the scheme implies them: "is it listening
# on 443 or 8443?" is the first question asked of an evidence line.
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Secrets shorter than this are not scrubbed one by one: replacing every "1"
# or "ab" in a message would make the evidence unreadable.  They are still
# removed wherever the raw URL itself appears.
_MIN_SECRET_LEN = 4

_MASK = "***"


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    """The outcome of one embedding call.

    attempted: a request was sent to a backend (a cache hit or mode ``none`` is not).
    ok: the call produced usable vectors.
    error: one redacted evidence line when the call failed, else ``None``.
    """

    attempted: bool
    ok: bool
    error: str | None = None


def _safe_endpoint(raw_url: str) -> str:
    """``scheme://host:port/path`` of *raw_url*: no userinfo, query or fragment."""
    try:
        parts = urlsplit(raw_url.strip())
        host = parts.hostname or ""
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        # A URL too broken to split still must not leak what it carries.
        return "<unparseable url>"
    if not parts.scheme or not host:
        return "<unparseable url>"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port else host
    return f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}"


def _secrets_of(raw_url: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """Every fragment of *raw_url* (and *extra*) that must never be shown."""
    found: list[str] = [s for s in extra if s]
    try:
        parts = urlsplit(raw_url.strip())
    except ValueError:
        return tuple(found)
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        found.append(userinfo)
        user, _, password = userinfo.partition(":")
        found += [password, unquote(password), user, unquote(user)]
    if parts.query:
        found.append(parts.query)
        for _, value in parse_qsl(parts.query, keep_blank_values=True):
            found.append(value)
    if parts.fragment:
        found.append(parts.fragment)
    # Longest first, so a secret that contains another is masked whole.
    return tuple(
        sorted({s for s in found if len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True)
    )


class Redactor:
    """Turns failures on one endpoint into evidence lines that are safe to show.

    Built once per client: the safe endpoint and the list of secrets do not
    change between calls, and evidence is built on the failure path where a
    few string replacements are cheap next to the failure itself.
    """

    __slots__ = ("mode", "endpoint", "_raw_forms", "_secrets")

    def __init__(self, mode: str, raw_url: str, *secrets: str) -> None:
        self.mode = mode
        self.endpoint = _safe_endpoint(raw_url) if raw_url else "<no url>"
        # httpx re-renders the URL (dropping a default port, normalising
        # case), so its messages may carry a form the caller never typed.
        forms = {raw_url, raw_url.strip()}
        try:
            forms.add(str(httpx.URL(raw_url.strip())))
        except Exception:  # noqa: BLE001 - an unparseable URL has no other form
            pass
        self._raw_forms = tuple(sorted((f for f in forms if f), key=len, reverse=True))
        self._secrets = _secrets_of(raw_url, secrets)

    def scrub(self, text: str) -> str:
        """*text* with every raw URL replaced by the safe form and secrets masked."""
        for form in self._raw_forms:
            text = text.replace(form, self.endpoint)
        for secret in self._secrets:
            text = text.replace(secret, _MASK)
        return text

    def failed(self, kind: str, detail: str) -> str:
        """The evidence line for a request that failed with *kind*: *detail*."""
        detail = " ".join(detail.split()) or "no detail"
        return self.scrub(f"mode={self.mode} / POST {self.endpoint} failed: {kind}: {detail}")

    def failed_with(self, exc: BaseException) -> str:
        """The evidence line for a request that raised *exc*."""
        return self.failed(type(exc).__name__, str(exc))

    def no_embeddings(self) -> str:
        """The evidence line for a 2xx answer that carried no vectors."""
        return f"mode={self.mode} / POST {self.endpoint} returned no embeddings"


def unsupported_mode(mode: str) -> str:
    """The error for a mode this client does not know."""
    return f"mode={mode} is not a supported embedding mode"
