x = 1
msg = f"{[1]!r}"
