"""
requests.compat
~~~~~~~~~~~~~~~
"""

from pip._vendor import chardet

import importlib
import sys
<<<<<<< ours
||||||| base
=======

# -------------------
# Character Detection
# -------------------


def _resolve_char_detection():
    """Find supported character detection libraries."""
    chardet = None
    for lib in ("chardet", "charset_normalizer"):
        if chardet is None:
            try:
                chardet = importlib.import_module(lib)
            except ImportError:
                pass
    return chardet


chardet = _resolve_char_detection()
>>>>>>> theirs

# Syntax sugar.
_ver = sys.version_info

#: Python 2.x?
is_py2 = _ver[0] == 2

#: Python 3.x?
is_py3 = _ver[0] == 3

has_simplejson = False
try:
    import simplejson as json

    has_simplejson = True
except ImportError:
    import json
