# plugins/cputimer: (to be filled by its owner)
