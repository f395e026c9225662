other = [1, 2, 3]
