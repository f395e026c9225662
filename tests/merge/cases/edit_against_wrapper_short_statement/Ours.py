import sys


def configure(options):
    if sys.platform == "win32":
        options.encoding = "latin-1"
    else:
        options.encoding = "utf-8"
    options.strict = True
    return options
