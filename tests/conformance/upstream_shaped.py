"""A copy in the real upstream's shape, its five violations of the contract, and their fixes.

``upstream_shaped/mcp_common`` is laid out as the upstream ships its client:
one module, ``embedding_client.py``, in a package whose ``__init__`` exports
nothing, beside another module that imports it (``services.py``).  It opens
with ``initialize()``/``close()``, takes ``max_response_bytes``,
``max_dimension``, ``max_batch_size`` and ``expected_dimension``, names its
refusals ``EmbeddingResponseError(ValueError)``, logs
``"Embedding request failed: %s"`` with the exception, and imports numpy
lazily in api mode.  It breaks the contract in exactly the four ways the
real copy was found to, and raises where numpy is not installed
(`VIOLATIONS`: that one is the environment's, not the copy's); everything
else it does differently from the canonical client is parity.

`FIXES` repairs each violation by replacing whole functions with libcst, as
a maintainer's patch would; `shaped_copy` writes the copy, broken or fixed,
into a directory of its own.  `rewrite` refuses an edit that changes
nothing, so a fix that stopped applying fails loudly.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import pytest
from breaks import _Scoped, rewrite

TEMPLATE = Path(__file__).with_name("upstream_shaped") / "mcp_common"
MODULE = "embedding_client.py"


class ReplaceFunction(_Scoped):
    """The function at *where* becomes the one defined in *source* (a whole ``def``, same name)."""

    def __init__(self, where: Sequence[str], source: str) -> None:
        super().__init__(where)
        replacement = cst.parse_statement(source)
        assert isinstance(replacement, cst.FunctionDef) and replacement.name.value == where[-1]
        self.replacement = replacement

    def edit_function(self, node: cst.FunctionDef) -> cst.FunctionDef:
        return self.replacement.with_changes(leading_lines=node.leading_lines)


@dataclass(frozen=True)
class Violation:
    """One way the copy breaks the contract: the scenarios that show it, what they say (a pattern), at which tier."""

    scenarios: frozenset[str]
    says: str
    tier: str

    def explains(self, scenario: str, tier: str, text: str) -> bool:
        return scenario in self.scenarios and tier == self.tier and re.match(self.says, text) is not None


VIOLATIONS: dict[str, Violation] = {
    # Where numpy is not installed: the environment's gap, which fails nothing.
    "raises-without-numpy": Violation(
        frozenset({"api-ok", "api-shuffled"}),
        r"needs numpy, which is not installed where plait runs$",
        "environment",
    ),
    "raises-on-huge-int": Violation(frozenset({"huge-int"}), r"embed_with_outcome raised OverflowError: ", "contract"),
    "leaks-credentials": Violation(
        frozenset({"echo-credentials-http", "echo-credentials-api", "echo-500"}),
        r"a secret leaked into (the error|a log record of [\w., ]+) \(",
        "contract",
    ),
    # httpx's status messages are three lines; a server's escape codes come through its reason phrase.
    "control-characters": Violation(
        frozenset(
            {
                "status-500",
                "status-503",
                "redirect",
                "echo-credentials-http",
                "echo-credentials-api",
                "echo-500",
                "control-chars",
            }
        ),
        r"(the error|a log record of [\w., ]+) holds control characters ",
        "contract",
    ),
    # A per-read timeout only: each drip resets it, and the call lasts as long as the server drips
    # (3 s); on a machine loaded enough, past the 6 s guard.
    "past-the-deadline": Violation(
        frozenset({"drip-body", "drip-headers", "drip-error-body", "endless-1xx"}),
        r"(took (2\.9\d|[3-9]\.\d\d) s, ceiling 2 s|still running after 6 s: the call ignores its 1 s deadline)$",
        "safety",
    ),
}


FIXES: dict[str, tuple[tuple[str, ...], str]] = {
    "raises-without-numpy": (
        ("_normalise",),
        '''
def _normalise(vectors: list[list[float]]) -> list[list[float]]:
    """Unit-length vectors, as the api backends' similarity expects; numpy when it is there."""
    try:
        import numpy as np
    except ModuleNotFoundError:
        norms = [math.sqrt(sum(value * value for value in row)) or 1.0 for row in vectors]
        return [[value / norm for value in row] for row, norm in zip(vectors, norms, strict=True)]
    array = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (array / norms).tolist()
''',
    ),
    "raises-on-huge-int": (
        ("_as_float",),
        """
def _as_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EmbeddingResponseError(f"a vector holds a {type(value).__name__}, not a number")
    try:
        number = float(value)
    except OverflowError:
        raise EmbeddingResponseError("a vector holds a number beyond float64") from None
    if not math.isfinite(number) or abs(number) > _F32_MAX:
        raise EmbeddingResponseError("a vector holds a number beyond float32")
    return number
""",
    ),
    "leaks-credentials": (
        ("EmbeddingClient", "_redact"),
        '''
def _redact(self, text: str) -> str:
    """No credential shows in any spelling: the key, the URL's password, its query values."""
    from urllib.parse import parse_qsl, quote, unquote, unquote_plus

    parts = urlsplit(self._url)
    secrets = {self.api_key, parts.password or ""}
    secrets |= {pair.partition("=")[2] for pair in parts.query.split("&")}
    secrets |= {value for _, value in parse_qsl(parts.query)}
    forms: set[str] = set()
    for secret in secrets:
        for base in {secret, unquote(secret), unquote_plus(secret)}:
            if len(base) < 4:
                continue
            encoded = quote(base, safe="")
            forms |= {base, encoded, encoded.lower(), quote(base), repr(base)[1:-1], json.dumps(base)[1:-1]}
            forms |= {"".join(f"%{byte:{case}}" for byte in base.encode()) for case in ("02x", "02X")}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, "***")
    return text
''',
    ),
    "control-characters": (
        ("_printable",),
        '''
def _printable(text: str) -> str:
    """One line, every control and format character escaped."""
    import unicodedata

    flat = " ".join(text.splitlines())
    return "".join(
        c if c.isprintable() and unicodedata.category(c) not in ("Cc", "Cf") else c.encode("unicode_escape").decode()
        for c in flat
    )
''',
    ),
    "past-the-deadline": (
        ("EmbeddingClient", "_embed_all"),
        """
async def _embed_all(self, texts: list[str]) -> list[list[float]]:
    import asyncio

    vectors: list[list[float]] = []
    try:
        async with asyncio.timeout(self.timeout):
            for start in range(0, len(texts), self.max_batch_size):
                vectors += await self._embed_batch(texts[start : start + self.max_batch_size])
    except TimeoutError:
        raise httpx.ReadTimeout(f"no complete answer within {self.timeout:g} s") from None
    return vectors
""",
    ),
}

# What the leak and the control characters have in common: the logs.  The copy's own record
# carries the cleaned detail, and httpx's request log (every URL, tokens and all, and the
# server's reason phrase, at INFO) is kept to warnings.
_LOG_FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("EmbeddingClient", "_failure"),
        """
def _failure(self, exc: Exception) -> EmbedOutcome:
    detail = _printable(self._redact(str(exc)))
    logger.warning("Embedding request failed: %s", detail)
    return EmbedOutcome(True, False, self._line(f"failed: {type(exc).__name__}: {detail}"))
""",
    ),
    (
        ("EmbeddingClient", "initialize"),
        """
async def initialize(self) -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if self._client is None:
        self._client = httpx.AsyncClient(timeout=self.timeout)
""",
    ),
)


NO_NUMPY = '''"""numpy is absent: importing it fails exactly as it does where it is not installed."""

raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
'''


def hide_numpy(folder: Path, env: pytest.MonkeyPatch) -> None:
    """Workers started under *env* cannot import numpy, whether or not this machine has it installed.

    The copy imports numpy lazily in api mode, and a numpy the workers find
    would hide what happens where it is not installed.
    """
    (folder / "numpy").mkdir(parents=True)
    (folder / "numpy" / "__init__.py").write_text(NO_NUMPY)
    env.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])))


def shaped_copy(folder: Path, *, fixed: bool = False) -> Path:
    """The upstream-shaped package ``mcp_common`` in *folder*, as found (or with every violation fixed)."""
    package = folder / "mcp_common"
    shutil.copytree(TEMPLATE, package, ignore=shutil.ignore_patterns("__pycache__"))
    if fixed:
        for where, source in [*FIXES.values(), *_LOG_FIXES]:
            rewrite(package / MODULE, ReplaceFunction(where, source))
    return package
