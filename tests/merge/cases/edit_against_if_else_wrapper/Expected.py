import sys


def configure(options):
<<<<<<< ours
    if sys.platform == "win32":
        options.encoding = locale_encoding(options, default="latin-1")
    else:
        options.encoding = locale_encoding(options, default="utf-8")
||||||| base
    options.encoding = locale_encoding(options, default="latin-1")
=======
    options.encoding = locale_encoding(options, default="utf-8")
>>>>>>> theirs
    options.strict = True
    return options
