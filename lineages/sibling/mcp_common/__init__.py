"""mcp_common, sibling lineage: shared pieces of the agent-memory and scheduling servers."""
