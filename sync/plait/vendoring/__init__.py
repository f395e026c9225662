"""The vendoring workflow: consumers that carry a copy inside their own package.

- `vendor`: re-vendor a consumer from its source, keeping its local edits;
- `lock`: the provenance lock (`plait.lock`) each vendored directory carries;
- `check`: the CI drift check of vendored copies against locks and sources;
- `drivers`: git merge drivers for vendored Python files and for `plait.lock`.
"""
