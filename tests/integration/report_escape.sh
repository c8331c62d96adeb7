# Names and metadata inside a profile are untrusted: report and diff show
# control bytes as '?', never as terminal escape sequences.
. "$PMCPROF_SRC/tests/lib.sh"
esc=$(printf '\033')
cat >script.txt <<END
app 100 1.000000: PERF_RECORD_MMAP2 100/100: [0x555555555000(0x1000) @ 0x1000 fe:00 1 0]: r-xp /opt/a${esc}[2Jpp
app 100 1.000000:     250000 cpu-clock:
	            1150 leaf+0x10 (/opt/a${esc}[2Jpp)

END
echo "0123456789abcdef0123456789abcdef01234567 /opt/a${esc}[2Jpp" >buildids.txt
"$PMCPROF_BUILD/tests/bench/perf2pmcp" -m "command=$(printf 'evil\033]0;title\007')" \
	script.txt buildids.txt evil.pmcp >/dev/null 2>&1
check "a profile with escape bytes in its names" test -s evil.pmcp
"$PMCPROF" report --header --no-cache evil.pmcp >rep.txt 2>&1
check "report: no escape byte reaches the output" [ "$(tr -d -c '\033\007' <rep.txt | wc -c)" -eq 0 ]
contains "report: the command shown with '?'" "command: evil?]0;title?" rep.txt
"$PMCPROF" diff --no-cache evil.pmcp evil.pmcp >diff.txt 2>&1
check "diff: no escape byte reaches the output" [ "$(tr -d -c '\033\007' <diff.txt | wc -c)" -eq 0 ]
