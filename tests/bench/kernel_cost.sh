#!/bin/sh
# What sampling the kernel costs, pmcprof against perf record -g, with the
# kernel sampled (root, CAP_PERFMON or perf_event_paranoid <= 1; else it
# says so and stops).  Workloads: zstd -T2 -6 on 21 MB of generated text
# (a Debian binary, mostly user time) and dd from /dev/zero in 64 KiB reads
# (nearly all kernel time).  Configs at 1 kHz and 10 kHz (cpu-clock):
#   pmcprof      the default: kernel-mode samples are silent ring records,
#                only user-mode samples signal
#   pmcprof-sig  PMCPROF_STACK_COPY=0: every sample a signal (the scheme
#                before), for the signals' own cost
#   perf         perf record -g
# Figures per config (median of KC_REPS alternating rounds, default 3):
# user+sys of the whole process tree over the plain run ("overhead"), the
# system time it added ("sys+ms": the kernel time the profiler caused,
# its interrupts, signal deliveries and, for perf, its tool's reads and
# writes), the samples, the signals the program received (pmcprof's
# overflows counter), and the share of the profile's own samples in the
# kernel's signal-delivery and interrupt-exit path ("deliv%": functions
# below), for pmcprof and for perf alike.
: "${PMCPROF_BUILD:?}" "${PMCPROF_SRC:?}"
. "$(dirname "$0")/lib.sh"
bench_tools kernel_cost P I T
REPS=${KC_REPS:-3}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 1 ]; then
	echo "kernel_cost: the kernel cannot be sampled here (not root, perf_event_paranoid $paranoid)"
	exit 0
fi
bench_tmp kc-bench "$KC_KEEP"
bench_perf
bench_text "$tmp/data.txt"

workloads="dd"
command -v zstd >/dev/null && workloads="zstd dd"
cmd() {
	case $1 in
	zstd) echo "zstd -q -f -T2 -6 $tmp/data.txt -o $tmp/data.zst" ;;
	dd) echo "dd if=/dev/zero of=/dev/null bs=64k count=150000 status=none" ;;
	esac
}
configs="plain pmcprof-1k pmcprof-sig-1k pmcprof-10k pmcprof-sig-10k"
[ $have_perf = 1 ] && configs="plain pmcprof-1k pmcprof-sig-1k perf-1k pmcprof-10k pmcprof-sig-10k perf-10k"
# The kernel's way back to user mode after an interrupt, and its signal
# delivery and return: where a profiler's interrupts and signals cost the
# program kernel time (pvm_*: this PVM guest's interrupt enabling).
DELIV='irqentry_exit|exit_to_user_mode|arch_do_signal|get_signal|setup_rt_frame|sigframe|fpu__restore_sig|__fpu_restore_sig|restore_sigcontext|rt_sigreturn|pvm_irq_enable|native_irq_return|asm_sysvec|sysvec_|irq_work|kill_fasync|send_sigio|__send_signal'

# pmcprof's share of samples in DELIV functions, from its CSV.
deliv_pmcprof() {
	"$P" report --csv "$1" 2>/dev/null | python3 -c "
import csv, re, sys
rows = list(csv.DictReader(sys.stdin))
print('%.2f' % sum(float(r['self_pct']) for r in rows if re.search(r'$DELIV', r['function'])))"
}
deliv_perf() {
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk -v re="$DELIV" '/^ *[0-9.]+%/ { p = $1; sub("%", "", p); if ($0 ~ re) s += p } END { printf "%.2f\n", s }'
}

run() {	# workload config: appends "user sys samples signals deliv" to $tmp/w.c
	c=$(cmd "$1")
	s=0 sig=0 d=0
	case $2 in
	plain) $T "$tmp/t" $c >/dev/null 2>&1 ;;
	pmcprof-*)
		p=1000000; [ "${2##*-}" = 10k ] && p=100000
		copy=; case $2 in pmcprof-sig-*) copy=0 ;; esac
		rm -rf "$tmp/o"
		env ${copy:+PMCPROF_STACK_COPY=$copy} $T "$tmp/t" "$P" record -q -e cpu-clock@$p -o "$tmp/o" -- $c >/dev/null 2>&1
		for f in "$tmp"/o/*.pmcp; do
			s=$((s + $("$I" counter "$f" samples)))
			sig=$((sig + $("$I" counter "$f" overflows)))
		done
		d=$(deliv_pmcprof "$tmp/o") ;;
	perf-*)
		f=1000; [ "$2" = perf-10k ] && f=10000
		$T "$tmp/t" perf record -q -g -e cpu-clock -F $f -o "$tmp/perf.data" -- $c >/dev/null 2>&1
		s=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
		d=$(deliv_perf "$tmp/perf.data") ;;
	esac
	echo "$(cat "$tmp/t") ${s:-0} $sig $d" >>"$tmp/$1.$2"
}

bench_rounds

echo "kernel sampled; median of $REPS alternating rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-5s %-16s %8s %9s %8s %8s %8s %7s\n' workload config cpu_ms overhead sys+ms samples signals deliv%
for w in $workloads; do
	for c in $configs; do
		paste "$tmp/$w.$c" "$tmp/$w.plain" |
			awk '{ cpu = $1 + $2; base = $6 + $7; print cpu, (cpu / base - 1) * 100, $2 - $7, $3, $4, $5 }' >"$tmp/$w.$c.r"
	done
	for c in $configs; do
		med() { sort -n -k"$1" "$tmp/$w.$c.r" | awk -v k="$1" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
		ms=$(med 1) ovh=$(med 2) sys=$(med 3) s=$(med 4) sig=$(med 5) d=$(med 6)
		[ "$c" = plain ] && { ovh=0; sys=0; }
		case $c in perf-*) sig=0 ;; esac
		printf '  %-5s %-16s %8.0f %8.1f%% %8.0f %8d %8d %6.2f%%\n' "$w" "$c" "$ms" "$ovh" "$sys" "$s" "$sig" "$d"
		echo "$w $c $ovh $sys $d" >>"$tmp/all"
	done
done
if [ $have_perf = 1 ]; then
	for rate in 1k 10k; do
		awk -v r=$rate '
			$2 == "pmcprof-" r { o[$1] = $3; k[$1] = $5 }
			$2 == "perf-" r { po[$1] = $3; pk[$1] = $5 }
			END {
				for (w in o) {
					n++; if (o[w] < po[w]) ok++; if (k[w] <= pk[w]) kok++
					l = l sprintf(" %s %.1f%% vs %.1f%%;", w, o[w], po[w])
					kl = kl sprintf(" %s %.2f%% vs %.2f%%;", w, k[w], pk[w])
				}
				printf "goal: pmcprof overhead below perf record -g at %s: %s (%s )\n", r, ok == n ? "met" : "MISSED", l
				printf "goal: pmcprof deliv%% no larger than perf'"'"'s at %s: %s (%s )\n", r, kok == n ? "met" : "MISSED", kl
			}' "$tmp/all"
	done
fi
awk '$2 ~ /^pmcprof-/ { split($2, a, "-"); rate = a[length(a)]; if ($2 ~ /-sig-/) sg[$1 " " rate] = $3; else nw[$1 " " rate] = $3 }
	END { for (k in nw) printf "silent kernel samples vs a signal per sample, %s: overhead %.1f%% vs %.1f%%\n", k, nw[k], sg[k] }' "$tmp/all" | sort
