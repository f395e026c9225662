"""
requests.compat
~~~~~~~~~~~~~~~
"""

try:
    import chardet
except ImportError:
    import charset_normalizer as chardet

import sys

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
