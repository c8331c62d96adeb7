# pmcprof list / probe on this machine: what is usable and why not.
. "$PMCPROF_SRC/tests/lib.sh"

"$PMCPROF" probe >probe.txt 2>&1
check "probe exits 0" [ $? -eq 0 ]
"$PMCPROF" list >list.txt 2>&1
check "list exits 0" [ $? -eq 0 ]
contains "list: perf_event is usable" "perf_event   usable" list.txt
contains "list: cputimer is usable" "cputimer     usable" list.txt
contains "list: cputimer's own events" "CPUTIME" list.txt
contains "list: aliases" "cpu-clock" list.txt
contains "probe names the default choice" "^Default: " probe.txt

if grep -q '^Hypervisor:  KVM' probe.txt && grep -q 'hardware events do not open' probe.txt; then
	contains "probe: KVM without vPMU explained" "KVM guest without a virtual PMU" probe.txt
	contains "probe: default falls back to cpu-clock" "cpu-clock" probe.txt
	contains "list: hardware aliases marked unavailable" "no hardware PMU here" list.txt
	if grep -q '^  kvm_vpmu' list.txt; then
		contains "list: kvm_vpmu disabled with the no-vPMU reason" "exposes no virtual PMU" list.txt
	fi
	if grep -q '^  perfctr_xen' list.txt; then
		contains "list: perfctr_xen disabled, not a Xen guest" "not a Xen guest" list.txt
	fi
else
	skip "KVM-without-vPMU checks (this machine is not one)"
fi

"$PMCPROF" list cpu-cl >pat.txt
contains "list PATTERN filters" "cpu-clock" pat.txt
check "list PATTERN hides non-matching aliases" sh -c '! grep -q "^  instructions " pat.txt'
"$PMCPROF" list --bogus 2>/dev/null
check "list: unknown option is a usage error" [ $? -eq 1 ]
"$PMCPROF" nosuchcommand 2>/dev/null
check "front-end: unknown command is a usage error" [ $? -eq 1 ]
"$PMCPROF" --version | grep -q 'plugin ABI'
check "--version names the plugin ABI" [ $? -eq 0 ]
