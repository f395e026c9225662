"""mnemo: an agent-memory server (the search path is all the demo needs)."""
