"""`plait probe`: a thin shell over `plait.probe` (rendering and exit codes only)."""

from __future__ import annotations

import json
import logging

import click
from rich.console import Console
from rich.text import Text

from ..probe import DEFAULT_TEXT, MODES, ProbeResult, ProbeUsageError, hints, run_probe
from . import command

__all__ = ["probe"]

EXIT_OK = 0
EXIT_DEGRADED = 1


def _render(result: ProbeResult, console: Console) -> None:
    # Text objects, not markup: evidence like "[Errno 111]" must print as is.
    if result.ok:
        console.print(
            Text.assemble(("ok", "bold green"), f"  embedding works: mode={result.mode} {result.endpoint}"),
            soft_wrap=True,
        )
        console.print(Text(f"  width {result.width}, {result.elapsed_ms:.1f} ms"))
        return
    console.print(
        Text.assemble(("degraded", "bold red"), f"  embedding failed: mode={result.mode} {result.endpoint}"),
        soft_wrap=True,
    )
    # soft_wrap: the evidence stays one line, so it can be grepped and pasted.
    console.print(Text.assemble(("evidence: ", "bold"), result.error or "no detail"), soft_wrap=True)
    console.print(Text("what to check:", style="bold"))
    for hint in hints(result):
        console.print(Text(f"  - {hint}"), soft_wrap=True)


@command("probe")
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="http",
    show_default=True,
    help="http: POST {texts}; api: OpenAI-compatible POST {model, input}.",
)
@click.option("--url", required=True, help="The embedding endpoint, exactly as the services use it.")
@click.option("--text", default=DEFAULT_TEXT, show_default=True, help="The text to embed.")
@click.option(
    "--api-key",
    envvar="PLAIT_API_KEY",
    default="",
    show_default=False,
    help="Bearer key for --mode api (or set PLAIT_API_KEY).",
)
@click.option("--model", default="", help="Model name for --mode api.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds to wait for connect and for the answer.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of prose.")
@click.option("--pretty", is_flag=True, help="With --json: indent the object for people.")
def probe(
    mode: str, url: str, text: str, api_key: str, model: str, timeout: float, as_json: bool, pretty: bool
) -> None:
    """Embed one text through the client and show the outcome.

    Exits 0 when embedding works, 1 when it is degraded, 2 on usage errors.
    """
    # The client logs each failure as a warning; here the same evidence is
    # printed below, so an unconfigured root logger must not echo it first.
    logging.getLogger("embedding_client").addHandler(logging.NullHandler())
    try:
        result = run_probe(mode, url, text=text, api_key=api_key, model=model, timeout=timeout)
    except ProbeUsageError as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2 if pretty else None))
    else:
        _render(result, Console())
    click.get_current_context().exit(EXIT_OK if result.ok else EXIT_DEGRADED)
