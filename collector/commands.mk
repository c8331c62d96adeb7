# collector/commands.mk: the pmcprof front-end and `pmcprof stat`.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = collector/pmcprof.c
pmcprof_LDADD = backend/libpmc-core.la

pkglibexec_PROGRAMS += pmcprof-stat
pmcprof_stat_SOURCES = collector/cmd_stat.c
pmcprof_stat_LDADD = backend/libpmc-core.la

bashcompletiondir = $(datadir)/bash-completion/completions
bashcompletion_DATA = scripts/pmcprof
scripts/pmcprof: $(top_srcdir)/scripts/pmcprof.bash-completion
	$(AM_V_GEN)mkdir -p scripts && cp $< $@
CLEANFILES += scripts/pmcprof

# Man pages, generated from each command's --help so they always match it.
MAN_COMMANDS = record report diff view stat list probe dump
man1_MANS = doc-man/pmcprof.1 $(MAN_COMMANDS:%=doc-man/pmcprof-%.1)
CLEANFILES += $(man1_MANS)
man_summary_pmcprof = a sampling profiler that knows where it runs
man_summary_record = profile a program: per-thread calling-context profiles
man_summary_report = flat, line, module and tree reports of profiles
man_summary_diff = compare runs function by function, with confidence intervals
man_summary_view = interactive viewer of profiles, with compare mode
man_summary_stat = count events over a whole run
man_summary_list = list backends and events
man_summary_probe = describe the machine's counters, hypervisor and defaults
man_summary_dump = print a profile file's raw contents
doc-man/pmcprof.1: pmcprof$(EXEEXT) $(top_srcdir)/scripts/mkman.sh
	$(AM_V_GEN)mkdir -p doc-man && \
	$(SHELL) $(top_srcdir)/scripts/mkman.sh ./pmcprof pmcprof "$(man_summary_pmcprof)" $(VERSION) >$@
doc-man/pmcprof-%.1: pmcprof-% $(top_srcdir)/scripts/mkman.sh
	$(AM_V_GEN)mkdir -p doc-man && \
	$(SHELL) $(top_srcdir)/scripts/mkman.sh ./$< pmcprof-$* "$(man_summary_$*)" $(VERSION) >$@
