"""Shared building blocks of the MCP servers.

Nothing is exported here: services import what they use from its module,
``from mcp_common.embedding_client import EmbeddingClient``.
"""
