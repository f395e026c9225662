USAGE = """usage: tool [options]

  --help     show this help
  --verbose  say more
"""


def main():
    print(USAGE)
