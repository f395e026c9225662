USAGE = """usage: tool [options]

  --help     show this help
  --quiet    say less
  --verbose  say more
  --color    colour the output
"""


def main():
    print(USAGE)
