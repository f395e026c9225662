import sys


def configure(options):
    if sys.platform == "win32":
        options.encoding = locale_encoding(options, default="latin-1")
    else:
        options.encoding = locale_encoding(options, default="utf-8")
    options.strict = True
    return options
