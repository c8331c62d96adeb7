# plugins/perf_event: (to be filled by its owner)
