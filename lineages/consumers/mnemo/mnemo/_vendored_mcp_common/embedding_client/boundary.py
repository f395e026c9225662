"""The trust boundary: what a backend's answer must look like to be used.

The backend is untrusted input.  A vector that is silently wrong (a boolean
read as 1.0, an infinity, a different width) poisons every similarity score
computed from it, long after the request that carried it; so anything odd is
refused here and becomes a failure outcome with evidence instead.

Every check raises `ResponseRejected`, which never leaves the client.  The
row checks run once per number, so they lean on C-level builtins (``map``,
``math.hypot``, ``max``, ``min``, ``sum``) and only walk a row element by
element to *describe* a row that has already failed.
"""

from __future__ import annotations

import json
import math
import zlib
from typing import Any, NoReturn

import httpx

__all__ = [
    "Inflater",
    "ResponseRejected",
    "inflater_for",
    "read_body",
    "parse_object",
    "check_vectors",
    "order_by_index",
    "normalise",
]

# The largest finite float32.  Vectors are stored packed as float32, so a
# value that fits float64 but not float32 would turn into an infinity later.
F32_MAX = 3.4028234663852886e38

_NUMBER_TYPES = frozenset({float, int})


class ResponseRejected(Exception):
    """The backend answered, but not with something this client will use."""


def _show(value: object) -> str:
    """A short, safe rendering of a value taken from the response."""
    if type(value) is int and value.bit_length() > 64:
        # str() of a huge int is slow and may hit the int-to-str digit limit.
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: object) -> str:
    """The JSON name of *value*'s type, as an operator would say it."""
    if value is None:
        return "null"
    if type(value) is bool:
        return "a JSON boolean"
    return {
        str: "a string",
        list: "an array",
        dict: "an object",
        int: "an integer",
        float: "a number",
    }.get(type(value), type(value).__name__)


# Content codings the client decodes itself, so that it can stop at the
# budget.  It never asks for compression; these are what servers send unasked.
_INFLATABLE = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class Inflater:
    """A gzip or deflate body, decompressed no further than the caller allows.

    httpx decodes a whole network chunk at once, so a small chunk of a
    compression bomb inflates to gigabytes before any budget can be checked;
    here every call is capped at the room the caller has left.
    """

    __slots__ = ("encoding", "_zlib", "_started")

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._zlib = zlib.decompressobj(_INFLATABLE[encoding])
        self._started = False

    def feed(self, data: bytes, room: int) -> bytes:
        """At most ``room + 1`` bytes decoded from *data*: more than *room* means over budget."""
        try:
            out = self._zlib.decompress(data, room + 1)
        except zlib.error as exc:
            if self.encoding == "deflate" and not self._started:
                # "deflate" is sent both zlib-wrapped and raw; httpx takes both.
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                self._started = True
                return self.feed(data, room)
            raise ResponseRejected(f"body is not valid {self.encoding} ({exc})") from None
        self._started = True
        return out


def inflater_for(response: httpx.Response) -> Inflater | None:
    """The decoder *response*'s body needs, ``None`` when it is not encoded."""
    codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return None
    if len(codings) > 1 or codings[0] not in _INFLATABLE:
        raise ResponseRejected(f"body is encoded as {_show(', '.join(codings))}, which this client does not decode")
    return Inflater(codings[0])


async def read_body(response: httpx.Response, budget: int) -> bytes:
    """The body of *response*, refused as soon as it is known to exceed *budget*.

    The declared Content-Length is checked before reading anything; the
    received length is checked chunk by chunk, because a chunked or
    close-delimited body declares nothing and a declaration can lie; and an
    encoded body is counted again as it is decompressed.
    """
    declared = response.headers.get("content-length")
    if declared is not None:
        try:
            declared_bytes = int(declared)
        except ValueError:
            raise ResponseRejected(f"Content-Length {_show(declared)} is not a number") from None
        if declared_bytes > budget:
            raise ResponseRejected(f"body declares {declared_bytes} bytes, over the {budget}-byte budget")
    inflater = inflater_for(response)
    chunks: list[bytes] = []
    received = decoded = 0
    async for chunk in response.aiter_raw():
        received += len(chunk)
        if received > budget:
            raise ResponseRejected(f"body passed the {budget}-byte budget ({received} bytes received)")
        if inflater is not None:
            chunk = inflater.feed(chunk, budget - decoded)
            decoded += len(chunk)
            if decoded > budget:
                raise ResponseRejected(
                    f"body passed the {budget}-byte budget while decoding {inflater.encoding}"
                    f" ({received} bytes received)"
                )
        chunks.append(chunk)
    return b"".join(chunks)


def _refuse_constant(token: str) -> NoReturn:
    # Python's json accepts NaN and Infinity although JSON does not.
    raise ResponseRejected(f"body holds {token}, which is not a JSON number")


def parse_object(body: bytes) -> dict[str, Any]:
    """*body* parsed as a JSON object."""
    try:
        parsed = json.loads(body, parse_constant=_refuse_constant)
    except ResponseRejected:
        raise
    except (ValueError, RecursionError) as exc:
        # ValueError covers bad JSON, bad UTF-8 and over-long integer literals.
        raise ResponseRejected(f"body is not valid JSON ({exc})") from None
    if type(parsed) is not dict:
        raise ResponseRejected(f"body is {_kind(parsed)}, not a JSON object")
    return parsed


def _describe_bad_row(index: int, row: list[Any]) -> str:
    """Why row *index* failed the fast checks, naming the first bad element."""
    for position, value in enumerate(row):
        if type(value) not in _NUMBER_TYPES:
            return f"vector {index} holds {_kind(value)} at position {position}, not a number"
    for position, value in enumerate(row):
        if type(value) is int and not -F32_MAX <= value <= F32_MAX:
            return f"vector {index} holds {_show(value)} at position {position}, beyond float32"
        if type(value) is float and not math.isfinite(value):
            return f"vector {index} holds {value!r} at position {position}, not a finite number"
        if not -F32_MAX <= value <= F32_MAX:
            return f"vector {index} holds {value!r} at position {position}, beyond float32"
    return f"vector {index} holds a value this client cannot use"


def _check_range(index: int, row: list[Any]) -> None:
    """Refuse a row of numbers holding NaN, an infinity or a value beyond float32.

    The slower, exact check for rows the norm cannot vouch for: rows with
    integers (huge ones overflow float conversion) or with large values.
    max/min catch infinities and out-of-range integers; a NaN can hide from
    max/min (it compares false) but not from sum, which cannot overflow once
    every value is within float32.
    """
    if not (min(row) >= -F32_MAX and max(row) <= F32_MAX):
        raise ResponseRejected(_describe_bad_row(index, row))
    total = sum(row)
    if total != total:
        raise ResponseRejected(_describe_bad_row(index, row))


def check_vectors(
    rows: object,
    count: int,
    *,
    width: int | None,
    max_width: int,
    width_source: str = "expected",
) -> list[list[float]]:
    """*rows* as ``count`` finite float32-range vectors of one width.

    *width* is the width every row must have (expected or learned earlier);
    when it is ``None`` the first row sets it for the rest of the batch.
    Integer elements are converted to floats so callers always get floats.
    """
    if type(rows) is not list:
        raise ResponseRejected(f"embeddings is {_kind(rows)}, not an array of vectors")
    if len(rows) != count:
        raise ResponseRejected(f"got {len(rows)} vectors for {count} texts")
    for index, row in enumerate(rows):
        if type(row) is not list:
            raise ResponseRejected(f"vector {index} is {_kind(row)}, not an array")
        size = len(row)
        if size == 0:
            raise ResponseRejected(f"vector {index} is empty")
        if size > max_width:
            raise ResponseRejected(f"vector {index} has width {size}, over the cap of {max_width}")
        if width is None:
            width, width_source = size, f"of vector {index}"
        elif size != width:
            raise ResponseRejected(f"vector {index} has width {size}, not the {width} {width_source}")
        types = list(map(type, row))
        if types.count(float) == size:
            # The common case, in one C pass: every |x| <= the Euclidean norm,
            # so a norm within float32 proves every element finite and in
            # range (a NaN norm compares false and falls through).
            if math.hypot(*row) <= F32_MAX:
                continue
            _check_range(index, row)
            continue
        if not set(types) <= _NUMBER_TYPES:
            raise ResponseRejected(_describe_bad_row(index, row))
        _check_range(index, row)
        rows[index] = [float(value) for value in row]
    return rows


def order_by_index(data: object, count: int) -> list[object]:
    """The ``embedding`` of each item of an OpenAI-style ``data`` list, by ``index``.

    Servers may answer out of order; the index is the only thing tying a
    vector to its text, so it must be exactly 0..count-1, each once.
    """
    if type(data) is not list:
        raise ResponseRejected(f"data is {_kind(data)}, not an array")
    if len(data) != count:
        raise ResponseRejected(f"got {len(data)} items for {count} texts")
    placed: list[object] = [None] * count
    seen: set[int] = set()
    for position, item in enumerate(data):
        if type(item) is not dict:
            raise ResponseRejected(f"item {position} is {_kind(item)}, not an object")
        index = item.get("index")
        if type(index) is not int or not 0 <= index < count:
            raise ResponseRejected(f"item {position} has index {_show(index)}; indices must be 0..{count - 1}")
        if index in seen:
            raise ResponseRejected(f"item {position} repeats index {index}")
        seen.add(index)
        placed[index] = item.get("embedding")
    return placed


def normalise(rows: list[list[float]]) -> list[list[float]]:
    """*rows* scaled to unit length; a zero vector stays zero (it has no direction)."""
    for index, row in enumerate(rows):
        norm = math.hypot(*row)
        if norm and norm != 1.0:
            rows[index] = [value / norm for value in row]
    return rows
