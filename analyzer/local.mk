# analyzer: (to be filled by its owner)
