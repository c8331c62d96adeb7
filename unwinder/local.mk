# unwinder: (to be filled by its owner)
