# cli/: every command.  `pmcprof` dispatches to pmcprof-SUBCMD in
# pkglibexecdir; each subcommand's main and options live here, and the
# components (backend, collector, analyzer, viewer-tui, profile) hold no
# command code.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = cli/pmcprof.c $(cli_options)
# The commands link the static core, calling only what libpmc.so exports
# (tests/integration/abi.sh checks): uninstalled, a command linked with
# libpmc.so runs through libtool's wrapper script, which changes the
# environment and needs descriptors the profiled program would notice
# (record_firstlaw: env -i, ulimit -n 4) and a bash the arm64 guest's
# busybox does not have (docs/libpmc.md).
pmcprof_LDADD = backend/libpmc-core.la

# The option layer every command links.
cli_options = cli/options.c cli/options.h

pkglibexec_PROGRAMS += pmcprof-record pmcprof-stat pmcprof-list pmcprof-probe \
	pmcprof-report pmcprof-diff pmcprof-view pmcprof-dump pmcprof-script pmcprof-annotate \
	pmcprof-archive

pmcprof_record_SOURCES = cli/record.c cli/exe.c cli/exe.h $(cli_options) \
	collector/settings.c collector/settings.h cli/attach.c cli/attach.h
pmcprof_record_LDADD = attach/libattach.la unwinder/libunwinder.la profile/libprofile.la \
	backend/libpmc-core.la

pmcprof_stat_SOURCES = cli/stat.c $(cli_options) cli/attach.c cli/attach.h
pmcprof_stat_LDADD = attach/libattach.la unwinder/libunwinder.la profile/libprofile.la \
	backend/libpmc-core.la -lm

pmcprof_list_SOURCES = cli/list.c $(cli_options)
pmcprof_list_LDADD = backend/libpmc-core.la
pmcprof_probe_SOURCES = cli/probe.c $(cli_options)
pmcprof_probe_LDADD = backend/libpmc-core.la

pmcprof_report_SOURCES = cli/report.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_report_LDADD = analyzer/libpmcprof-analyzer.la
pmcprof_script_SOURCES = cli/script.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_script_LDADD = analyzer/libpmcprof-analyzer.la
pmcprof_diff_SOURCES = cli/diff.c cli/pivot.c cli/pivot.h cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_diff_LDADD = analyzer/libpmcprof-analyzer.la
pmcprof_annotate_SOURCES = cli/annotate.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_annotate_LDADD = analyzer/libpmcprof-analyzer.la

pmcprof_view_SOURCES = $(view_ui) viewer-tui/term.c cli/view.c cli/analyze.c cli/analyze.h \
	$(cli_options)
pmcprof_view_CFLAGS = $(AM_CFLAGS) $(NCURSES_CFLAGS)
pmcprof_view_LDADD = analyzer/libpmcprof-analyzer.la $(NCURSES_LIBS) -lm

pmcprof_archive_SOURCES = cli/archive.c cli/analyze.c cli/analyze.h $(cli_options)
pmcprof_archive_LDADD = analyzer/libpmcprof-analyzer.la

pmcprof_dump_SOURCES = cli/dump.c $(cli_options)
pmcprof_dump_LDADD = profile/libprofile.la

# `pmcprof vm`: a shell script (it only drives record, diff and QEMU).
pkglibexec_SCRIPTS = pmcprof-vm
# (a new file, then a rename: a running bash reads its script as it goes)
pmcprof-vm: $(top_srcdir)/cli/vm.sh
	$(AM_V_GEN)cp $< $@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@
CLEANFILES += pmcprof-vm
EXTRA_DIST += cli/vm.sh

bashcompletiondir = $(datadir)/bash-completion/completions
bashcompletion_DATA = scripts/pmcprof
scripts/pmcprof: $(top_srcdir)/scripts/pmcprof.bash-completion
	$(AM_V_GEN)mkdir -p scripts && cp $< $@
CLEANFILES += scripts/pmcprof

# Man pages: scdoc sources in docs/man (NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
# EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO); the install's paths
# and version filled in (their '_' escaped: scdoc would read it as emphasis).  tests/integration/man_pages.sh keeps their
# OPTIONS in step with each command's --help.
MAN_PAGES = pmcprof pmcprof-record pmcprof-report pmcprof-script pmcprof-diff pmcprof-view pmcprof-annotate \
	pmcprof-stat pmcprof-list pmcprof-probe pmcprof-dump pmcprof-vm pmcprof-archive
man1_MANS = $(MAN_PAGES:%=doc-man/%.1)
CLEANFILES += $(man1_MANS)
doc-man/%.1: $(top_srcdir)/docs/man/%.1.scd
	$(AM_V_GEN)mkdir -p doc-man && $(AWK) -v v='$(VERSION)' -v d='$(docdir)' \
	  -v l='$(pkglibdir)' -v x='$(pkglibexecdir)' \
	  'BEGIN { gsub(/_/, "\\_", d); gsub(/_/, "\\_", l); gsub(/_/, "\\_", x) } \
	   { gsub(/%VERSION%/, v); gsub(/%DOCDIR%/, d); gsub(/%PKGLIBDIR%/, l); \
	     gsub(/%PKGLIBEXECDIR%/, x); print }' $< | $(SCDOC) >$@.tmp && mv $@.tmp $@

# The documentation the man pages point to, installed.
dist_doc_DATA = README.md docs/analyzer.md docs/attach.md docs/collector.md docs/libpmc.md \
	docs/profile-format.md docs/reliability.md docs/unwinding.md docs/viewer.md docs/virtualization.md \
	docs/vm-vs-native.md docs/exports.md docs/performance.md docs/report-schema.json

# ---- tests ----
check_PROGRAMS += tests/unit/test-options
UNIT_TESTS += tests/unit/test-options
tests_unit_test_options_SOURCES = tests/unit/test_options.c $(cli_options) tests/harness.h
