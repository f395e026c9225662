import sys


def configure(options):
    options.encoding = locale_encoding(options, default="latin-1")
    options.strict = True
    return options
