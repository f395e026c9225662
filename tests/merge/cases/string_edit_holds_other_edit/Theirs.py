USAGE = """usage: tool [options]

  --help     show this help
  --quiet    say less
  --verbose  say more
"""


def main():
    print(USAGE)
