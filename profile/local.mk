# profile: (to be filled by its owner)
