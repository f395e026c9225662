"""License files, placed where vendoring 1.4.0's `LicenseExtractor` puts them.

vendoring takes every member of the downloaded archive whose path contains
`LICENSE` or `COPYING` (not under `/test`), and writes it, by its base name,
into the library's directory (the distribution name as the artifact spells
it, or that lowercased, or `license.directories[name]`), else beside it as
`NAME.FILENAME`.  With none in the archive it downloads
`license.fallback-urls[name]`.  plait reads the distribution's unpacked tree
instead of the archive, and fetches a fallback with a short timeout, so an
unreachable URL is one error naming the package, never a hang.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping

from ..errors import PlaitError

__all__ = ["FALLBACK_TIMEOUT", "fetch_fallback_license", "license_files", "library_name_of_artifact"]

FALLBACK_TIMEOUT = 10.0


def library_name_of_artifact(artifact: str) -> str:
    """vendoring's reconstruction: the dash-separated parts of *artifact* before the first starting with a digit."""
    parts: list[str] = []
    for part in artifact.split("-"):
        if part[:1].isdigit():
            break
        parts.append(part)
    return "-".join(parts)


def license_files(
    members: Mapping[str, str],
    *,
    library: str,
    kept: Iterable[str],
    directories: Mapping[str, str],
    fallback_urls: Mapping[str, str],
) -> dict[str, str]:
    """destination path → text of the license files for *library*.

    *members*: the distribution's files (path → text) as its archive holds
    them; *kept*: the destination's paths after drop (which directories exist).
    """
    present = {path.rsplit("/", 1)[0] for path in kept if "/" in path}
    present |= {prefix for path in present for prefix in _prefixes(path)}

    def destination(filename: str) -> str:
        if library in present:
            return f"{library}/{filename}"
        if library.lower() in present:
            return f"{library.lower()}/{filename}"
        if library in directories:
            return f"{directories[library]}/{filename}"
        return f"{library}.{filename}"

    found = {
        destination(path.rsplit("/", 1)[-1]): text
        for path, text in sorted(members.items())
        if ("LICENSE" in path or "COPYING" in path) and "/test" not in path
    }
    if found:
        return found
    if library not in fallback_urls:
        raise PlaitError(f"{library}: no LICENSE or COPYING file, and no license.fallback-urls entry for it")
    url = fallback_urls[library]
    text = fetch_fallback_license(library, url)
    return {destination(url.rpartition("/")[2]): text}


def fetch_fallback_license(library: str, url: str, *, timeout: float = FALLBACK_TIMEOUT) -> str:
    """The license text at *url*; a failure (or *timeout* seconds of silence) is an error naming *library*."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data: bytes = response.read()
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise PlaitError(f"{library}: cannot fetch its license.fallback-urls entry {url}: {error}") from None
    return data.decode("utf-8", errors="replace")


def _prefixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts))]
