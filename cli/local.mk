# cli/: every command.  `pmcprof` dispatches to pmcprof-SUBCMD in
# pkglibexecdir; each subcommand's main and options live here, and the
# components (backend, collector, analyzer, viewer-tui, profile) hold no
# command code.
bin_PROGRAMS += pmcprof
pmcprof_SOURCES = cli/pmcprof.c $(cli_options)
# The commands that use libpmc (the front-end, record, stat, list, probe)
# link libpmc.so, the public interface, and are ELF programs in the build
# tree too (docs/libpmc.md, "Who links libpmc.so").  Given backend/libpmc.la,
# libtool puts a wrapper script there instead (it sets LD_LIBRARY_PATH,
# PWD, SHLVL, BIN_SH, DUALCASE and needs descriptors: record_firstlaw's
# env -i and ulimit -n 4 see it; it is bash, which the arm64 guest's busybox
# lacks); with -no-install it does not, but the program make install copies
# keeps the build tree's absolute path in its RUNPATH.  So libtool is given
# the built library's file, which it passes to the linker as it is (NEEDED
# is the soname), and the program a DT_RUNPATH of $ORIGIN/backend/.libs
# first (built at the top of the tree, it loads the tree's own library,
# whatever an install holds) and $(libdir) (installed): no build-tree path,
# so make install copies the same file, no relink (abi.sh and install.sh
# check).  '$$' is make's '$', quoted from the shell; libtool keeps it.
# _DEPENDENCIES name the .la: the program relinks when the library does.
cli_libpmc = backend/.libs/libpmc.so
cli_libpmc_ldflags = $(AM_LDFLAGS) -Wl,--enable-new-dtags \
	-Wl,-rpath,'$$ORIGIN/backend/.libs' -Wl,-rpath,$(libdir)
pmcprof_LDADD = $(cli_libpmc)
pmcprof_LDFLAGS = $(cli_libpmc_ldflags)
pmcprof_DEPENDENCIES = backend/libpmc.la

# make installcheck (make distcheck runs it on its install, a real prefix):
# the installed commands load the installed libpmc.so by their RUNPATH
# alone, with an empty environment (not after a DESTDIR install: the
# RUNPATH names $(libdir) itself).
installcheck-local:
	for p in '$(bindir)/pmcprof' '$(pkglibexecdir)/pmcprof-record'; do \
	  env -i LD_TRACE_LOADED_OBJECTS=1 "$$p" | grep -F '=> $(libdir)/libpmc.so.' || exit 1; \
	done
	env -i '$(bindir)/pmcprof' --version | grep 'libpmc'
	env -i '$(bindir)/pmcprof' probe >/dev/null
	env -i '$(bindir)/pmcprof' list | grep '^  cputimer '

# The option layer every command links.
cli_options = cli/options.c cli/options.h

pkglibexec_PROGRAMS += pmcprof-record pmcprof-stat pmcprof-list pmcprof-probe \
	pmcprof-report pmcprof-diff pmcprof-view pmcprof-dump pmcprof-script pmcprof-annotate \
	pmcprof-archive

pmcprof_record_SOURCES = cli/record.c cli/exe.c cli/exe.h $(cli_options) \
	collector/settings.c collector/settings.h cli/attach.c cli/attach.h
pmcprof_record_LDADD = attach/libattach.la unwinder/libunwinder.la profile/libprofile.la \
	$(cli_libpmc)
pmcprof_record_LDFLAGS = $(cli_libpmc_ldflags)
pmcprof_record_DEPENDENCIES = attach/libattach.la unwinder/libunwinder.la \
	profile/libprofile.la backend/libpmc.la

pmcprof_stat_SOURCES = cli/stat.c $(cli_options) cli/attach.c cli/attach.h
pmcprof_stat_LDADD = attach/libattach.la unwinder/libunwinder.la profile/libprofile.la \
	$(cli_libpmc) -lm
pmcprof_stat_LDFLAGS = $(cli_libpmc_ldflags)
pmcprof_stat_DEPENDENCIES = attach/libattach.la unwinder/libunwinder.la \
	profile/libprofile.la backend/libpmc.la

pmcprof_list_SOURCES = cli/list.c $(cli_options)
pmcprof_list_LDADD = $(cli_libpmc)
pmcprof_list_LDFLAGS = $(cli_libpmc_ldflags)
pmcprof_list_DEPENDENCIES = backend/libpmc.la
pmcprof_probe_SOURCES = cli/probe.c $(cli_options)
pmcprof_probe_LDADD = $(cli_libpmc)
pmcprof_probe_LDFLAGS = $(cli_libpmc_ldflags)
pmcprof_probe_DEPENDENCIES = backend/libpmc.la

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
