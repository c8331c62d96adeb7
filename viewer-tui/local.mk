# viewer-tui: (to be filled by its owner)
