# collector/commands.mk: the pmcprof front-end and pmcprof-stat
