x = 2
<<<<<<< ours
msg = f"{[1]!r}"
||||||| base
msg = f"{[1, 2]!r}"
=======
msg = f"{[1, 2, 3]!r}"
>>>>>>> theirs
