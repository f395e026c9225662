import sys


def configure(options):
    options.encoding = "latin-1"
    options.strict = True
    return options
