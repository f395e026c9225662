"""mcp_common, upstream lineage: shared pieces of the agent-memory and scheduling servers."""
