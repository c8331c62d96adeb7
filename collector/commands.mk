# collector/commands.mk: the pmcprof front-end and `pmcprof stat`.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = collector/pmcprof.c

pkglibexec_PROGRAMS += pmcprof-stat
pmcprof_stat_SOURCES = collector/cmd_stat.c
pmcprof_stat_LDADD = backend/libpmc-core.la

bashcompletiondir = $(datadir)/bash-completion/completions
bashcompletion_DATA = scripts/pmcprof
scripts/pmcprof: $(top_srcdir)/scripts/pmcprof.bash-completion
	$(AM_V_GEN)mkdir -p scripts && cp $< $@
CLEANFILES += scripts/pmcprof
