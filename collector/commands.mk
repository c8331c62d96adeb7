# collector/commands.mk: the pmcprof front-end and `pmcprof stat`.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = collector/pmcprof.c

pkglibexec_PROGRAMS += pmcprof-stat
pmcprof_stat_SOURCES = collector/cmd_stat.c
pmcprof_stat_LDADD = backend/libpmc-core.la
