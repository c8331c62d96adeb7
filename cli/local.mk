# cli/: every command.  `pmcprof` dispatches to pmcprof-SUBCMD in
# pkglibexecdir; each subcommand's main and options live here, and the
# components (backend, collector, analyzer, viewer-tui, profile) hold no
# command code.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = cli/pmcprof.c $(cli_options)
pmcprof_LDADD = backend/libpmc-core.la

# The option layer every command links.
cli_options = cli/options.c cli/options.h

pkglibexec_PROGRAMS += pmcprof-record pmcprof-stat pmcprof-list pmcprof-probe \
	pmcprof-report pmcprof-diff pmcprof-view pmcprof-dump

pmcprof_record_SOURCES = cli/record.c cli/exe.c cli/exe.h $(cli_options) \
	collector/settings.c collector/settings.h
pmcprof_record_LDADD = backend/libpmc-core.la

pmcprof_stat_SOURCES = cli/stat.c $(cli_options)
pmcprof_stat_LDADD = backend/libpmc-core.la -lm

pmcprof_list_SOURCES = cli/list.c $(cli_options)
pmcprof_list_LDADD = backend/libpmc-core.la
pmcprof_probe_SOURCES = cli/probe.c $(cli_options)
pmcprof_probe_LDADD = backend/libpmc-core.la

pmcprof_report_SOURCES = cli/report.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_report_LDADD = analyzer/libpmcprof-analyzer.la
pmcprof_diff_SOURCES = cli/diff.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_diff_LDADD = analyzer/libpmcprof-analyzer.la

pmcprof_view_SOURCES = $(view_ui) viewer-tui/term.c cli/view.c $(cli_options)
pmcprof_view_CFLAGS = $(AM_CFLAGS) $(NCURSES_CFLAGS)
pmcprof_view_LDADD = analyzer/libpmcprof-analyzer.la $(NCURSES_LIBS) -lm

pmcprof_dump_SOURCES = cli/dump.c $(cli_options)
pmcprof_dump_LDADD = profile/libprofile.la

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
