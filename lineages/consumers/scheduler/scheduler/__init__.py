"""scheduler: a small job scheduler, bundled as the second demo consumer.

It vendors the upstream ``mcp_common`` lineage into ``scheduler/_vendor/``.
That lineage imports itself absolutely (``from mcp_common.outcome import
...``, ``import mcp_common.embedding``), so its vendored copy only works
because ``plait vendor`` rewrote every one of those imports into
``scheduler._vendor.mcp_common``.
"""

__version__ = "0.1.0"
