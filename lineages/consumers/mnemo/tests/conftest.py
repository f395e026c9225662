"""mnemo's tests import its own package (and its vendored client), whatever the current directory."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
