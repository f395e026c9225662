"""The upstream lineage's tests import its own mcp_common, whatever the current directory."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
