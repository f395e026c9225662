other = [1, 2]
