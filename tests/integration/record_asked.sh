# What record was asked for, and nothing else: a period in events of an
# event that falls back to a clock is refused (or converted when asked,
# saying exactly what became what); -o refuses a directory that holds
# files that are not pmcprof profiles.
. "$PMCPROF_SRC/tests/lib.sh"

if "$PMCPROF" probe | grep -q 'hardware events do not open'; then
	timeout 30 "$PMCPROF" record -c 100000 -o c1 -- true 2>c1.txt
	check "no PMU: -c 100000 without -e (cycles) is refused (2)" [ $? -eq 2 ]
	contains "  ... says cycles fell back to cpu-clock, counted in ns" \
		"cycles@100000 asks for a sample every 100000 cycles events.*cpu-clock counts nanoseconds" c1.txt
	contains "  ... names the option that converts, and the other ways" "(-F), or --convert-period" c1.txt
	check "  ... and writes nothing" [ ! -e c1 ]
	timeout 30 "$PMCPROF" record -e cycles@200000 -o c2 -- true 2>c2.txt
	check "no PMU: -e cycles@200000 is refused the same way (2)" [ $? -eq 2 ]
	timeout 30 "$PMCPROF" record -e cpu-clock,cycles -c 100000 -o c6 -- true 2>c6.txt
	check "no PMU: -e cpu-clock,cycles -c: the cycles period refused too (merged into cpu-clock)" [ $? -eq 2 ]
	timeout 30 "$PMCPROF" record -e instructions -c 100000 -o c7 -- true 2>c7.txt
	check "no PMU: -e instructions -c 100000: refused (2)" [ $? -eq 2 ]
	lacks "  ... and no 'same rate' claimed for instructions" "same rate" c7.txt
	timeout 30 "$PMCPROF" record --convert-period -c 100000 -o c3 -- "$PROGS/busy" 1 0.1 >/dev/null 2>c3.txt
	check "--convert-period: recorded (0)" [ $? -eq 0 ]
	contains "  ... says exactly what became what" \
		"period converted (--convert-period): cycles@100000 (cycles events) -> cpu-clock@[0-9]* (ns)" c3.txt
	ns=$(sed -n 's/.*-> cpu-clock@\([0-9]*\) (ns).*/\1/p' c3.txt)
	"$PMCPROF" report --header c3 >c3r.txt 2>&1
	contains "  ... and the profile holds that period ($ns ns)" "CPU-CLOCK.*period $ns" c3r.txt
	timeout 30 "$PMCPROF" record -F 500 -o c4 -- true 2>c4.txt
	check "no PMU: -F (a rate, the same on any event) still falls back (0)" [ $? -eq 0 ]
else
	skip "a hardware PMU works here: cycles does not fall back"
fi
timeout 30 "$PMCPROF" record -e cpu-clock -c 250000 -o c5 -- true 2>c5.txt
check "-e cpu-clock -c 250000: a clock's own period is taken as is (0)" [ $? -eq 0 ]
lacks "  ... and nothing is converted" "converted" c5.txt

mkdir mixed && echo notes >mixed/notes.txt
timeout 30 "$PMCPROF" record -e cpu-clock -o mixed -- true 2>m.txt
check "-o DIR holding a file that is not a profile: refused (2)" [ $? -eq 2 ]
contains "  ... names it" "mixed holds 1 file that is not a pmcprof profile ('notes.txt')" m.txt
check "  ... and writes nothing there" [ "$(ls mixed)" = notes.txt ]
mkdir fake && echo 'not a profile' >fake/x.pmcp
timeout 30 "$PMCPROF" record -e cpu-clock --append -o fake -- true 2>f.txt
check "-o DIR with a *.pmcp that is no profile: refused, even with --append" [ $? -eq 2 ]
mkdir sub && mkdir sub/old
timeout 30 "$PMCPROF" record -e cpu-clock -o sub -- true 2>s.txt
check "-o DIR holding a subdirectory: refused (2)" [ $? -eq 2 ]
mkdir empty
timeout 30 "$PMCPROF" record -q -e cpu-clock -o empty -- true 2>e.txt
check "-o an empty existing directory: accepted (0)" [ $? -eq 0 ]
timeout 30 "$PMCPROF" record -q -e cpu-clock --append -o empty -- true 2>e2.txt
check "--append into a directory of profiles only: accepted (0)" [ $? -eq 0 ]
