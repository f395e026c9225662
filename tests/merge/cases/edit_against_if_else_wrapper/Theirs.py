import sys


def configure(options):
    options.encoding = locale_encoding(options, default="utf-8")
    options.strict = True
    return options
