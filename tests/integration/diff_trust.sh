#!/bin/sh
# Trust: diff, report and view warn when runs were measured differently
# (backend, hypervisor, vPMU, fallback, calibration verdicts), when a
# counter failed calibration and was used anyway (record --force), and
# when the host stole more than 5% of the CPU time (a noisy neighbour).
# Profiles are crafted with ana_mkprofile's metadata; each case names its
# line.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache

VALID='perf::CYCLES=valid (counted 40000000, expected 10000000..2020000000)'
# mk NAME: a profile with the metadata in BE HV VP FB CAL STEAL (steal in
# ns over a 2 s run on 2 CPUs: 4e9 ns of CPU time)
mk() {
	"$PROGS/ana_mkprofile" -o "$1.pmcp" -b "$PROGS/ana_work" -e perf::CYCLES@1000000=cycles \
		-m "backend=$BE" -m "hypervisor=$HV" -m "vpmu=$VP" -m "fallback=$FB" -m "calibration=$CAL" \
		-m start_time=100.0 -m end_time=102.0 -m cpus=2 -m steal_start=1000 -m "steal_end=$((1000 + STEAL))" \
		"main;work_a=600" "main;work_b=300" || fail "ana_mkprofile $1"
}
defaults() { BE=perf_event HV=none VP='arch perfmon v4, 8 gp counters x 48 bits' FB= CAL=$VALID STEAL=0; }
defaults
mk ok

# case_ NAME WANT [NOT]: diff ok NAME must print WANT (a grep pattern) in
# its header, and not NOT; the profile NAME is made from the variables set
# before the call.  Failures name the case's line (dash has no $LINENO).
case_() {
	name=$1 want=$2 not=$3
	line=$(grep -n "case_ $name " "$0" | head -1 | cut -d: -f1)
	mk "$name"
	"$PMCPROF" diff ok.pmcp "$name.pmcp" >out.txt 2>err.txt
	if grep -q -- "^# warning: .*$want" out.txt; then pass "line $line: $name: diff warns '$want'"
	else fail "line $line: $name: diff warns '$want'"; sed 's/^/    | /' out.txt | head -12; fi
	if [ -n "$not" ] && grep -q -- "$not" out.txt; then fail "line $line: $name: no '$not'"; fi
	defaults
}

BE=kvm_vpmu;			case_ backend "backend differs: 'perf_event' in ok.pmcp, 'kvm_vpmu' in backend.pmcp"
HV=kvm;				case_ hypervisor "hypervisor differs: 'none' in ok.pmcp, 'kvm' in hypervisor.pmcp"
VP=none;			case_ vpmu "vpmu differs: 'arch perfmon v4, 8 gp counters x 48 bits' in ok.pmcp, 'none' in vpmu.pmcp"
FB='cycles -> perf::CPU-CLOCK@1000000: no hardware PMU here; using cpu-clock'
				case_ fallback "fallback differs: 'none' in ok.pmcp, 'cycles -> perf::CPU-CLOCK@1000000' in fallback.pmcp"
CAL='perf::CYCLES=unverified (counted 40000000; no known expectation)'
				case_ unverified "calibration differs: 'perf::CYCLES=valid' in ok.pmcp, 'perf::CYCLES=unverified' in unverified.pmcp" "at calibration"
CAL='perf::CYCLES=zero (counted 0, expected 10000000..2020000000)'
				case_ zero "zero.pmcp: counter perf::CYCLES was zero at calibration (counted 0, expected 10000000..2020000000): recorded with --force"
CAL='perf::CYCLES=implausible (counted 3917405024756549, expected 10000000..2020000000)'
				case_ implausible "counter perf::CYCLES was implausible at calibration"
STEAL=400000000;		case_ steal10 "steal10.pmcp: the host stole 10.0% of the CPU time during the run (steal 0.400 s in 2.000 s): a noisy neighbour"
STEAL=80000000;			mk steal2
"$PMCPROF" diff --header ok.pmcp steal2.pmcp >out.txt 2>&1
if grep -q "stole\|warning" out.txt; then fail "2% steal, same facts: no warning at all"; sed 's/^/    | /' out.txt | head
else pass "2% steal, same facts: no warning at all"; fi
contains "2% steal is still shown in the header" "steal: 0.080 s (2.0% of the CPU time)" out.txt

# report: the same warnings in its header, before the run's facts
CAL='perf::CYCLES=zero (counted 0, expected 10000000..2020000000)' STEAL=400000000; mk both
defaults
"$PMCPROF" report --header both.pmcp >out.txt 2>err.txt
contains "report warns: counter failed calibration" "^# warning: both.pmcp: counter perf::CYCLES was zero at calibration" out.txt
contains "report warns: steal above 5%" "^# warning: both.pmcp: the host stole 10.0% of the CPU time" out.txt
contains "report still shows the calibration metadata" "^# calibration: perf::CYCLES=zero" out.txt
"$PMCPROF" report --csv both.pmcp >out.csv 2>err.txt
contains "report --csv: warnings on stderr" "pmcprof report: warning: both.pmcp: counter perf::CYCLES was zero" err.txt
"$PMCPROF" report --by thread both.pmcp >out.txt 2>err.txt
n=$(grep -c "was zero at calibration" out.txt)
check "report --by: the calibration warning once, not per group ($n)" test "$n" -eq 1

# view: the warning line of the header
"$PMCPROF" view --snapshot 200x30 both.pmcp >view.txt 2>err.txt
contains "view's header warns" "^! both.pmcp: counter perf::CYCLES was zero at calibration" view.txt
"$PMCPROF" view --snapshot 200x30 ok.pmcp both.pmcp >view.txt 2>err.txt
contains "view compare mode warns" "^! both.pmcp: counter perf::CYCLES was zero at calibration" view.txt
