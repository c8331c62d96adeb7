#!/bin/sh
# xen-check.sh: does pmcprof's perfctr_xen backend work in this Xen guest?
# Run it as the user who will profile, inside the guest (domU or dom0),
# from a built source tree:   scripts/xen-check.sh [BUILD_DIR]
# (default ./build; with no build tree, the installed pmcprof and the
# hotspots example found in BUILD_DIR/examples or $HOTSPOTS).
# docs/virtualization.md ("Testing on a Xen host") says what each step
# checks and what a pass looks like.  Exit status: 0 all required steps
# passed, 1 a step failed, 2 usage.
#
# XEN_CHECK_SELFTEST=1 runs steps 5-7 on the cputimer backend (CPUTIME)
# instead, to check this script's own logic on a machine without Xen.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
case "${1:-}" in -h|--help) sed -n '2,13p' "$0"; exit 2 ;; esac
if [ -x "$build/pmcprof" ]; then
	PMCPROF=$build/pmcprof
	export PMCPROF_PLUGIN_PATH="${PMCPROF_PLUGIN_PATH:-$build/plugins/.libs}"
else
	PMCPROF=$(command -v pmcprof) || { echo "no pmcprof in $build or on PATH" >&2; exit 2; }
fi
HOTSPOTS=${HOTSPOTS:-$build/examples/hotspots}
[ -x "$HOTSPOTS" ] || { echo "no hotspots example at $HOTSPOTS (set HOTSPOTS=)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xen-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export PMCPROF_CACHE_DIR="$tmp/symbols"

if [ -n "${XEN_CHECK_SELFTEST:-}" ]; then
	BACKEND=cputimer EV_T=CPUTIME EV_C=CPUTIME SAMPLE=CPUTIME@1000
else
	BACKEND=perfctr_xen EV_T=TSC EV_C=cycles SAMPLE=cycles@2000003
fi
failed=0
step() { printf '[%s] %-34s ' "$1" "$2"; }
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failed=1; }
info() { echo "info: $*"; }

step 1/7 "Xen guest"
hv=$(cat /sys/hypervisor/type 2>/dev/null)
probe=$("$PMCPROF" probe 2>&1)
if [ "$hv" = xen ] || echo "$probe" | grep -q '^Hypervisor: *Xen'; then
	ok "$(echo "$probe" | sed -n 's/^Hypervisor: *//p' | head -1) (/sys/hypervisor/type: ${hv:-none})"
elif [ -n "${XEN_CHECK_SELFTEST:-}" ]; then
	info "not Xen ($(echo "$probe" | sed -n 's/^Hypervisor: *//p')); self-test goes on"
else
	bad "not a Xen guest ($(echo "$probe" | sed -n 's/^Hypervisor: *//p'))"
fi

step 2/7 "guest kernel with perfctr-xen"
cfg=""
for f in /proc/config.gz "/boot/config-$(uname -r)"; do
	[ -r "$f" ] || continue
	case $f in *.gz) cfg=$(zcat "$f") ;; *) cfg=$(cat "$f") ;; esac
	break
done
if [ -c /dev/perfctr ] && [ -r /dev/perfctr ]; then
	if echo "$cfg" | grep -q '^CONFIG_PERFCTR_XEN=y'; then
		ok "/dev/perfctr; $(uname -r) has CONFIG_PERFCTR_XEN=y"
	elif [ -n "$cfg" ]; then
		bad "/dev/perfctr, but $(uname -r)'s config lacks CONFIG_PERFCTR_XEN=y (a native perfctr)"
	else
		ok "/dev/perfctr ($(uname -r); kernel config not readable, step 5 tells)"
	fi
elif [ -n "${XEN_CHECK_SELFTEST:-}" ]; then
	info "no /dev/perfctr; self-test goes on"
else
	bad "no readable /dev/perfctr: boot the perfctr-xen guest kernel (Linux 3.2.30 + perfctr 2.6.42.2 + perfctr_r2b.patch, CONFIG_PERFCTR_XEN=y)"
fi

step 3/7 "Xen booted with 'perfctr'"
if command -v xl >/dev/null 2>&1 && line=$(xl info 2>/dev/null | grep '^xen_commandline'); then
	case " $(echo "$line" | sed 's/^[^:]*://') " in
	*" perfctr "*) ok "xen_commandline has perfctr" ;;
	*) bad "xen_commandline lacks perfctr: $(echo "$line" | sed 's/^[^:]*: *//')" ;;
	esac
else
	info "not visible from this domain (no 'xl info'); step 5 tells from the per-VCPU pages"
fi

step 4/7 "Xen without vpmu"
if [ -n "${line:-}" ] && echo "$line" | grep -q 'vpmu'; then
	bad "xen_commandline has vpmu: perfctr-xen's README says never with 'perfctr'"
else
	ok "no vpmu option seen"
fi

step 5/7 "backend $BACKEND usable"
list=$("$PMCPROF" list 2>&1)
state=$(echo "$list" | awk -v b="$BACKEND" '$1 == b { print $2; exit }')
why=$(echo "$list" | awk -v b="$BACKEND" 'f && /why:/ { sub(/^ *why: */, ""); print; exit } $1 == b { f = 1 }')
if [ "$state" = usable ]; then
	ok "$(echo "$list" | awk -v b="$BACKEND" 'f && !/note:/ { sub(/^ */, ""); print; exit } $1 == b { f = 1 }')"
else
	bad "${state:-missing}: ${why:-not listed (is PMCPROF_PLUGIN_PATH right?)}"
fi

step 6/7 "counting ($EV_T, $EV_C)"
if "$PMCPROF" stat -b "$BACKEND" -e "$EV_T" -e "$EV_C" -x , -o "$tmp/stat.csv" \
	--no-fallback -- "$HOTSPOTS" 1 >"$tmp/stat.out" 2>&1; then
	# hotspots runs T threads x 1 s of CPU time ("hotspots: 3 threads x 1.0 s
	# ..."), so the threads' TSC must be near T x the TSC rate (cpu MHz),
	# and cycles over TSC near 1 (turbo and power states move it a bit).
	# With the cputimer self-test both events are CPUTIME in ms.
	awk -F, -v t="$EV_T" -v c="$EV_C" -v self="${XEN_CHECK_SELFTEST:-}" \
		-v mhz="$(awk -F: '/^cpu MHz/ { print $2 + 0; exit }' /proc/cpuinfo)" \
		-v thr="$(sed -n 's/^hotspots: \([0-9]*\) threads x \([0-9.]*\) s.*/\1 \2/p' "$tmp/stat.out")" '
		BEGIN { split(thr, a, " "); cpu = a[1] * a[2] }
		$3 ~ t"$" && tv == "" { tv = $1 } $3 ~ c"$" { cv = $1 }
		END {
			if (tv <= 0 || cv <= 0) { printf "FAIL: %s %s, %s %s: zero (perfctr'"'"'s library says 0 too when Xen runs without perfctr)\n", t, tv, c, cv; exit 1 }
			want = self ? cpu * 1000 : cpu * mhz * 1e6
			r = want > 0 ? tv / want : 0
			printf "%s: %s %.0f, %s %.0f; %s / (%g s CPU x %s) = %.2f, %s / %s = %.2f\n",
				(r > 0.7 && r < 1.4) ? "ok" : "FAIL", t, tv, c, cv, t, cpu,
				self ? "1000 ms/s" : mhz " MHz", r, c, t, cv / tv
			exit !(r > 0.7 && r < 1.4)
		}' "$tmp/stat.csv" || failed=1
else
	bad "pmcprof stat failed: $(tail -2 "$tmp/stat.out" | tr '\n' ' ')"
fi

step 7/7 "sampling ($SAMPLE)"
if "$PMCPROF" record -b "$BACKEND" -e "$SAMPLE" -o "$tmp/rec" -- "$HOTSPOTS" 2 \
	>"$tmp/rec.out" 2>&1 && "$PMCPROF" report -q --csv "$tmp/rec" >"$tmp/rep.csv" 2>"$tmp/rep.err"; then
	# hotspots spends 60/30/10% in matmul/sort_pass/checksum.
	awk -F, '
		NR > 1 && $2 == "matmul" { m = $7 } NR > 1 && $2 == "sort_pass" { s = $7 }
		NR > 1 && $2 == "checksum" { c = $7 } NR > 1 { n += $6 }
		END {
			d = (m - 60) ^ 2 + (s - 30) ^ 2 + (c - 10) ^ 2
			printf "%s: %d samples; matmul %.1f%%, sort_pass %.1f%%, checksum %.1f%% (want 60/30/10 +-8)\n",
				(n >= 100 && d <= 3 * 64) ? "ok" : "FAIL", n, m, s, c
			exit !(n >= 100 && d <= 3 * 64)
		}' "$tmp/rep.csv" || failed=1
	grep -h 'spurious\|lost\|dropped' "$tmp/rec.out" | sed 's/^/      /'
else
	bad "record/report failed: $(tail -2 "$tmp/rec.out" "$tmp/rep.err" 2>/dev/null | tr '\n' ' ')"
fi

if [ -z "${XEN_CHECK_SELFTEST:-}" ] && command -v perfex >/dev/null 2>&1; then
	echo "      perfctr's own tool: $(perfex true 2>&1 | tr -s ' \t' ' ' | head -1) (0 = Xen without perfctr)"
fi
if [ "$failed" -eq 0 ]; then
	echo "PASS: pmcprof's $BACKEND backend counts and samples in this guest"
else
	echo "FAIL: see the steps above and docs/virtualization.md"
fi
exit "$failed"
