# make install DESTDIR=...: commands, libpmc with its header and pmc.pc, the
# collector and plugins in pkglibdir, man pages, bash completion; a program
# builds against the installed libpmc with pkg-config and runs; the
# installed commands that link libpmc.so find it in $(libdir), not in the
# build tree.
. "$PMCPROF_SRC/tests/lib.sh"
command -v make >/dev/null && [ -f "$PMCPROF_BUILD/Makefile" ] || { skip "install: no build tree"; exit 0; }

D=$TMP/dest
make -s -C "$PMCPROF_BUILD" install DESTDIR="$D" >install.log 2>&1
check "make install DESTDIR succeeds" [ $? -eq 0 ]
prefix=$(sed -n 's/^prefix = //p' "$PMCPROF_BUILD/Makefile")
root=$D$prefix
for f in bin/pmcprof include/pmc.h include/pmc/event.h include/pmc/plan.h lib/pkgconfig/pmc.pc lib/libpmc.so \
	lib/pmcprof/libpmcprof-collector.so lib/pmcprof/pmc-perf_event.so lib/pmcprof/pmc-cputimer.so \
	lib/pmcprof/pmc-kvm_vpmu.so lib/pmcprof/pmc-perfctr_xen.so \
	libexec/pmcprof/pmcprof-record libexec/pmcprof/pmcprof-report libexec/pmcprof/pmcprof-view \
	share/man/man1/pmcprof.1 share/man/man1/pmcprof-record.1 share/man/man1/pmcprof-diff.1 \
	share/bash-completion/completions/pmcprof; do
	check "installed: $f" [ -e "$root/$f" ]
done
check "the man page of record carries its --help" grep -q -- '--call-graph' "$root/share/man/man1/pmcprof-record.1"
check "the man pages have EXAMPLES and EXIT STATUS" sh -c "grep -q '^.SH EXAMPLES' '$root/share/man/man1/pmcprof-report.1' && grep -q '^.SH EXIT STATUS' '$root/share/man/man1/pmcprof-stat.1'"
# (roff's "\&" after each dot removed first: scdoc puts it there)
sed 's/\\&//g' "$root/share/man/man1/pmcprof-report.1" >report.1.txt
check "the man pages name the installed docs" grep -qF "$prefix/share/doc/pmcprof/analyzer.md" report.1.txt
for f in analyzer.md collector.md viewer.md profile-format.md report-schema.json README.md; do
	check "installed: share/doc/pmcprof/$f" [ -s "$root/share/doc/pmcprof/$f" ]
done

# The commands linked with libpmc.so (docs/libpmc.md): the installed file
# is the build tree's, so its DT_RUNPATH must name where make install put
# libpmc and nothing of the build tree; and it runs on the installed copy
# (LD_LIBRARY_PATH: a DESTDIR install is not where its RUNPATH looks).
if command -v readelf >/dev/null; then
	for c in bin/pmcprof libexec/pmcprof/pmcprof-record libexec/pmcprof/pmcprof-stat \
		libexec/pmcprof/pmcprof-list libexec/pmcprof/pmcprof-probe; do
		readelf -d "$root/$c" >dyn.txt 2>&1
		rp=$(sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' dyn.txt)
		abs=$(echo "$rp" | tr ':' '\n' | grep '^/')
		check "installed $c: NEEDED libpmc.so.0, RUNPATH ($rp) names the installed libpmc's directory and no build-tree path" \
			sh -c 'grep -q "(NEEDED).*\[libpmc.so.0\]" dyn.txt && [ "$(echo "$1" | wc -l)" -eq 1 ] &&
				[ -f "$2$1/libpmc.so.0" ] && case "$1/" in "$3"/*) exit 1 ;; esac' - "$abs" "$D" "$PMCPROF_BUILD"
	done
	env LD_LIBRARY_PATH="$root/lib" LD_TRACE_LOADED_OBJECTS=1 "$root/bin/pmcprof" >ldd.txt 2>&1
	contains "the installed pmcprof loads the installed libpmc" "libpmc.so.0 => $root/lib/libpmc.so.0 " ldd.txt
	LD_LIBRARY_PATH=$root/lib "$root/bin/pmcprof" --version >ver.txt 2>&1
	contains "and runs (--version)" "^pmcprof .*: libpmc " ver.txt
	LD_LIBRARY_PATH=$root/lib PMCPROF_PLUGIN_PATH=$root/lib/pmcprof \
		"$root/libexec/pmcprof/pmcprof-list" >list.txt 2>&1
	contains "the installed pmcprof-list runs on it, with the installed plugins" "^  cputimer  *usable" list.txt
else
	skip "install: no readelf"
fi

cat >use.c <<'EOC'
#include <pmc.h>
#include <stdio.h>
int main(void)
{
	struct pmc_event ev;
	char msg[256];
	int ret = pmc_event_parse("cpu-clock@1000", &ev, msg, sizeof(msg));
	printf("%s %s %llu\n", pmc_version(), ev.name, (unsigned long long)ev.period);
	return ret != 0;
}
EOC
PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D \
	cc use.c $(PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags --libs pmc) -o use 2>cc.log
check "a program builds against the installed libpmc (pkg-config pmc)" [ $? -eq 0 ]
LD_LIBRARY_PATH=$root/lib ./use >use.out 2>&1
contains "and runs" "perf::CPU-CLOCK 1000" use.out
check "libpmc exports only pmc_* symbols" sh -c "! nm -D --defined-only '$root/lib/libpmc.so' | awk '{print \$3}' | grep -v '^pmc_' | grep -v '^PMC_0' | grep -q ."
