other = [1,
<<<<<<< ours
||||||| base
2
=======
2, 3
>>>>>>> theirs
]
