#!/bin/sh
# Broken variants of the perfctr_xen plugin must fail the model's tests.
# Each mutant is one sed edit of a copy of plugins/perfctr_xen/; the copy
# is compiled with the unchanged model (tests/xenmodel) and
# tests/unit/test_perfctr_xen_model.c, and must exit non-zero.  The
# unmutated copy must pass.  Not part of scripts/test.sh (it compiles a
# dozen programs); run it after changing the plugin or the model:
#     sh tests/xenmodel/mutants.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
[ -f "$build/config.h" ] || { echo "no $build/config.h: run scripts/build.sh first" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcx-mutants.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
CC=${CC:-cc}

# name | file under plugins/perfctr_xen | sed expression
mutants='
no retry of a racing read|pcx.c|s/if (ret < 0 || ok)$/if (1)/
the paper'"'"'s check only (VCPU TSC start)|pcx.c|s/\*consistent = ts->cstatus == cs \&\& ts->smp_id == smp \&\& ts->tsc_start == t_start \&\&/*consistent = 1 \&\&/
no Sum_vcpu term (eq. 3)|pcx.c|s/uint64_t star = vs->pmc\[s\].sum + pcx_delta/uint64_t star = 0 + pcx_delta/
deltas mod 2^width (not the patch'"'"'s arithmetic)|pcx.c|s/return now - start;/return (now - start) \& ((1ULL << 48) - 1);/
no sign extension of rdpmc|pcx.c|s/uint64_t phys = pcx_sign_extend(sys->rdpmc(ts->pmc\[s\].map, sys->arg),/uint64_t phys = (sys->rdpmc(ts->pmc[s].map, sys->arg)) + 0 * (/
no overflow check (takes every notification)|pcx.c|s/(int64_t)(slotval\[s\] - e->base - e->period) >= 0/1/
no restart after a refused notification|pcx.c|/c->sys->ioctl(c->fd, PCX_IOC_IRESUME, NULL, c->sys->arg);$/d
a-mode read live while perfctr pauses it|pcx.c|s/unsigned nr = pcx_cstatus_nrctrs(cs);/unsigned nr = pcx_cstatus_nrctrs(cs) ? pcx_cstatus_nrctrs(cs) : c->nractrs;/
Xen without perfctr not noticed|pcx.c|s/if (\*consistent \&\& !vcs)/if (0)/
probe without the hypervisor check|pcx.c|s/ret = hv_check(sys, fd);/ret = 1;/
P4 accepted|pcx.c|s/if (is_p4(info->cpu_type)) {/if (0) {/
ireset marshalled under the evntsel tag|marshal.c|s/CTL(ireset, 37, PCX_NR_SLOTS)/CTL(ireset, 36, PCX_NR_SLOTS)/
map and p4_escr_map swapped in the state|abi.h|/uint32_t p4_escr_map;/{N;s/\(.*\)\n\(.*\)/\2\n\1/}
'

build_run() {	# dir -> exit status of the model test built from dir's plugin
	"$CC" -std=gnu11 -O1 -w -I"$1" -I"$top" -I"$build" -o "$1/t" \
		"$1/plugins/perfctr_xen/pcx.c" "$1/plugins/perfctr_xen/marshal.c" \
		"$1/plugins/perfctr_xen/sys.c" "$top/tests/xenmodel/xenmodel.c" \
		"$top/tests/xenmodel/xp_marshal.c" "$top/tests/unit/test_perfctr_xen_model.c" \
		2>"$1/cc.log" || { echo "compile error"; return 3; }
	"$1/t" >"$1/out.log" 2>&1
}

fresh() {	# a pristine copy of the plugin in $1
	rm -rf "$1" && mkdir -p "$1/plugins" && cp -r "$top/plugins/perfctr_xen" "$1/plugins/"
}

fresh "$tmp/base"
if build_run "$tmp/base"; then
	echo "ok: the unmutated plugin passes ($(grep -c '^PASS' "$tmp/base/out.log") checks)"
else
	echo "FAIL: the unmutated plugin fails:"; grep '^FAIL' "$tmp/base/out.log" | head -3
	exit 1
fi
bad=0 n=0
printf '%s\n' "$mutants" | while IFS='|' read -r name file expr; do
	[ -n "$name" ] || continue
	d=$tmp/m
	fresh "$d"
	f=$d/plugins/perfctr_xen/$file
	sed "$expr" "$f" >"$f.new" && mv "$f.new" "$f"
	if cmp -s "$f" "$top/plugins/perfctr_xen/$file"; then
		echo "FAIL: mutant '$name': the edit did not apply"; exit 1
	fi
	if build_run "$d"; then
		echo "FAIL: mutant '$name' passes the model's tests"; exit 1
	fi
	echo "ok: mutant '$name' fails $(grep -c '^FAIL' "$d/out.log") checks, e.g. $(grep -m1 '^FAIL' "$d/out.log" | cut -c7-90)"
done || exit 1
echo "all mutants fail"
