other = [1]
