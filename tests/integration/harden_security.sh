# Security: how profiles are created (modes, O_EXCL, no symbolic link
# followed, never in another user's directory), hostile PMCPROF_* values
# (a clear line, the program runs unprofiled and unchanged), metadata that
# stays one line, profiles as untrusted input to report/dump/view (no
# path traversal, no format strings), and perf_event_paranoid untouched.
. "$PMCPROF_SRC/tests/lib.sh"
EV=cpu-clock@1000000
W="$PROGS/stress_threads"
COLL="$PMCPROF_BUILD/collector/.libs/libpmcprof-collector.so"
host=$(hostname | cut -c1-63 | tr -c 'A-Za-z0-9._+\n' '_')
root=0; [ "$(id -u)" = 0 ] && root=1

# ---- file modes: 0644 minus umask, 0600 with --private ----
# umask, option, directory mode, file mode
while read -r um opt dmode fmode; do
	rm -rf m
	[ "$opt" = - ] && opt=
	# shellcheck disable=SC2086
	( umask "$um"; "$PMCPROF" record -e $EV $opt -o m -- "$W" work 1 20 >/dev/null 2>&1 )
	d=$(stat -c %a m); f=$(stat -c %a m/*.pmcp | sort -u | tr '\n' ' ')
	check "umask $um $opt: directory $d (expected $dmode), files $f(expected $fmode)" \
		[ "$d $f" = "$dmode $fmode " ]
done <<EOF
022 - 755 644
077 - 700 600
000 - 755 644
000 --private 700 600
EOF

# ---- planted symbolic links: at the final name and at the next temp names ----
mkdir plant
echo precious >target
# The program execs itself from sh, keeping the pid: its main thread's
# file is plant/stress_threads-HOST-PID-PID.pmcp, written through the
# temp name .NAME.tmp.PID.SEQ with SEQ counting from 0 in the new image.
"$PMCPROF" record -e $EV -o plant -- sh -c '
	n=stress_threads-'"$host"'-$$-$$.pmcp
	ln -s ../target plant/$n
	for s in 0 1 2 3; do ln -s ../target plant/.$n.tmp.$$.$s; done
	exec "$0" work 1 20' "$W" >/dev/null 2>err.txt
check "planted links: the program ran (status $?)" [ $? -eq 0 ]
check "  ... the link target is untouched" [ "$(cat target)" = precious ]
n=$(find plant -name 'stress_threads-*.pmcp' -type l | wc -l)
check "  ... the planted link is still a link ($n)" [ "$n" -eq 1 ]
n=$(find plant -name 'stress_threads-*.1.pmcp' -type f | wc -l)
check "  ... the profile went to the next free name, NAME.1 ($n)" [ "$n" -eq 1 ]

# The output directory itself replaced by a link mid-run.
mkdir elsewhere
"$PMCPROF" record -e $EV -o swapped -- sh -c 'mv swapped swapped.old; ln -s elsewhere swapped
	exec "$0" work 1 20' "$W" >/dev/null 2>err.txt
check "output directory swapped for a link: nothing written through it" \
	[ -z "$(ls -A elsewhere)" ]
contains "  ... and the collector says why" "swapped: it is a symbolic link (not followed)" err.txt

# ---- another user's directory ----
if [ $root = 1 ]; then
	mkdir theirs && chown 65534 theirs
	other=theirs
else
	other=/tmp	# root's, not ours
fi
"$PMCPROF" record -e $EV -o "$other" -- "$W" work 1 20 >/dev/null 2>err.txt
check "record -o another user's directory: refused (2)" [ $? -eq 2 ]
contains "  ... says whose it is" "belongs to uid" err.txt
if [ $root = 1 ]; then
	check "  ... nothing written" [ -z "$(ls -A theirs)" ]
	# Given to the collector directly; and a directory that changes hands mid-run.
	"$W" work 2 20 >plain.txt 2>/dev/null
	PMCPROF_OUTDIR=$PWD/theirs PMCPROF_BACKEND=perf_event PMCPROF_EVENTS=$EV LD_PRELOAD="$COLL" \
		"$W" work 2 20 >out.txt 2>err.txt
	check "PMCPROF_OUTDIR of another user: the program runs (status $?)" [ $? -eq 0 ]
	check "  ... unchanged" cmp -s plain.txt out.txt
	contains "  ... unprofiled, and says why" "theirs: it belongs to another user; the program runs unprofiled" err.txt
	check "  ... nothing written" [ -z "$(ls -A theirs)" ]
	"$PMCPROF" record -e $EV -o given -- sh -c 'chown 65534 given; exec "$0" work 1 20' "$W" \
		>/dev/null 2>err.txt
	check "a directory given away mid-run: nothing written" [ -z "$(ls -A given)" ]
	contains "  ... and the collector says why" "given: it belongs to another user" err.txt
fi

# ---- hostile PMCPROF_* values: one line, the program runs unprofiled ----
"$W" work 2 20 >plain.txt 2>/dev/null
big=$(head -c 100000 /dev/zero | tr '\0' 7)
mkdir hv
# variable, value ("NL" stands for a newline, "BIG" for 100 kB of digits:
# the kernel passes at most 128 KiB per environment string, the unit test
# test-settings feeds 1 MiB to the parsers), what the line says
while read -r var val says; do
	case $val in
	NL*) val="/tmp/a
b" ;;
	BIG) val=$big ;;
	/BIG) val=/$big ;;
	esac
	rm -f hv/*
	env PMCPROF_OUTDIR="$PWD/hv" PMCPROF_BACKEND=perf_event PMCPROF_EVENTS=$EV \
		"$var=$val" LD_PRELOAD="$COLL" "$W" work 2 20 >out.txt 2>err.txt
	rc=$?
	# The program's own stderr says cpu_ms=; everything else is ours.
	if [ $rc -eq 0 ] && cmp -s plain.txt out.txt && [ "$(grep -vc '^cpu_ms=' err.txt)" -eq 1 ] &&
	   grep -q "^pmcprof: $var: .*$says.*; the program runs unprofiled$" err.txt &&
	   [ -z "$(ls -A hv)" ]; then
		pass "$var=$(echo "$val" | cut -c1-24 | tr '\n' '?'): one line, unprofiled, same output"
	else
		fail "$var=$(echo "$val" | cut -c1-24 | tr '\n' '?'): status $rc, $(wc -l <err.txt) lines: $(head -c 300 err.txt)"
	fi
done <<EOF
PMCPROF_EVENTS cpu-clock@99999999999999999999999 period
PMCPROF_EVENTS cpu-clock@18446744073709551615 period
PMCPROF_EVENTS cpu-clock@-5 period
PMCPROF_EVENTS cpu-clock@0 period
PMCPROF_EVENTS %n%s%n%s@1000 unknown event
PMCPROF_EVENTS BIG too long
PMCPROF_SIGNAL SIGUSR1 not a signal number
PMCPROF_SIGNAL -1 not a signal number
PMCPROF_SIGNAL RTMIN+99 beyond SIGRTMAX
PMCPROF_SIGNAL BIG not a signal number
PMCPROF_OUTDIR NL control character
PMCPROF_OUTDIR /BIG too long
PMCPROF_OUTDIR relative/dir not an absolute path
PMCPROF_BACKEND ../../tmp/evil not a backend name
PMCPROF_CCT_BYTES -1 not a size
PMCPROF_CCT_BYTES 99999999999999999999G not a size
PMCPROF_RANDOM_BITS 64 bit count
PMCPROF_SEED -1 unsigned 64-bit
PMCPROF_FALLBACK NL control character
PMCPROF_FALLBACK BIG longer than
PMCPROF_CALL_GRAPH BIG not one of
PMCPROF_PRIVATE yes not 0 or 1
EOF
"$PMCPROF" record -e $EV -o 'nl
dir' -- "$W" work 1 20 >/dev/null 2>err.txt
check "record -o with a newline: refused (2)" [ $? -eq 2 ]
contains "  ... on one line" "-o: '.*nl?dir' has a control character" err.txt

# ---- metadata from outside stays one line ----
"$PMCPROF" record -e $EV -o meta -- sh -c 'exit 0' "$(printf 'x\ny\033[2J')" "it's" \
	>/dev/null 2>&1
f=$(ls meta/*.pmcp)
v=$("$PROGS/rec_inspect" meta "$f" argv)
check "argv with control characters is quoted on one line" \
	[ "$v" = "sh -c 'exit 0' \$'x\\ny\\x1b[2J' 'it'\\''s'" ]
if command -v python3 >/dev/null; then
	# python3 may be a wrapper script: look at every process's name.
	"$PMCPROF" record -e $EV -o tname -- python3 -c '
import ctypes; ctypes.CDLL(None).prctl(15, b"a\x1b[2J\nb", 0, 0, 0)' >/dev/null 2>&1
	for f in tname/*.pmcp; do "$PROGS/rec_inspect" meta "$f" thread_name; done >names.txt
	check "a thread name with control characters is recorded as 'a?[2J?b'" \
		grep -qx 'a?\[2J?b' names.txt
else
	skip "thread name with control characters (no python3)"
fi

# ---- profiles are untrusted input to the analyzer ----
# A library whose symbols are format strings, in a file named like one.
printf 'void f1(void) { for (volatile int i = 0; i < 9; i++); }\nvoid f2(void) { f1(); }\n' >lib.c
if cc -O1 -fPIC -c lib.c -o lib.o 2>/dev/null &&
   objcopy --redefine-sym f1='evil_%n%s%n%s' --redefine-sym f2='call_%x%x%x%n' lib.o lib2.o &&
   cc -shared -o "$PWD/lib%n%s.so" lib2.o 2>/dev/null; then
	lib="$PWD/lib%n%s.so"
	a1=$(nm "$lib" | awk '$3 == "evil_%n%s%n%s" { print "0x" $1 }')
	a2=$(nm "$lib" | awk '$3 == "call_%x%x%x%n" { print "0x" $1 }')
	mk="$PROGS/ana_mkprofile"
	mkdir -p untrusted/a/b
	"$mk" -o untrusted/fmt.pmcp -b "$lib" -m 'command=%n%s%n%s' -m 'host=%s%s%s%s' \
		"$a2;$a1=50" "$a2=20"
	"$mk" -o untrusted/trav.pmcp -b "$lib" -P ../../etc/passwd "$a2;$a1=30"
	export PMCPROF_CACHE_DIR=
	for how in "report" "report --csv" "report --tree" "report --json" "dump" \
		"view --snapshot 120x40"; do
		# shellcheck disable=SC2086
		(cd untrusted/a/b && "$PMCPROF" $how ../../fmt.pmcp >../../out.txt 2>../../err.txt)
		rc=$?
		if [ $rc -eq 0 ] && grep -q 'evil_%n%s%n%s\|lib%n%s.so' untrusted/out.txt &&
		   ! grep -q 'AddressSanitizer\|Segmentation' untrusted/err.txt; then
			pass "$how: format-string names shown literally"
		else
			fail "$how: status $rc"; head -5 untrusted/err.txt
		fi
	done
	(cd untrusted/a/b && "$PMCPROF" report --header ../../fmt.pmcp >../../out.txt 2>&1)
	contains "report: a %n metadata value shown as is" "command: %n%s%n%s" untrusted/out.txt
	if command -v strace >/dev/null; then
		(cd untrusted/a/b && strace -f -e trace=open,openat -o ../../st.txt \
			"$PMCPROF" report ../../trav.pmcp >../../out.txt 2>&1)
		check "a module named ../../etc/passwd is not opened (status $?)" \
			sh -c "! grep -q 'passwd' untrusted/st.txt"
		contains "  ... its frames stay unresolved" "\[passwd+0x" untrusted/out.txt
	else
		skip "path traversal (no strace)"
	fi
else
	skip "untrusted names (no cc/objcopy)"
fi

# ---- perf_event_paranoid is read, never written ----
p0=$(cat /proc/sys/kernel/perf_event_paranoid)
if command -v strace >/dev/null; then
	strace -f -e trace=open,openat -o st.txt "$PMCPROF" record -e $EV -o par -- "$W" work 1 20 \
		>/dev/null 2>&1
	n=$(grep '/proc/sys/' st.txt | grep -c 'O_WRONLY\|O_RDWR')
	check "record opens nothing under /proc/sys for writing ($n)" [ "$n" -eq 0 ]
	check "  ... though it reads perf_event_paranoid" grep -q 'perf_event_paranoid' st.txt
fi
check "perf_event_paranoid unchanged ($p0)" [ "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$p0" ]

# ---- plugins load only from trusted files and directories ----
PLUG="$PMCPROF_BUILD/plugins/.libs/pmc-cputimer.so"
plug_case() {	# name, then the setup of directory pl/ (holding pmc-cputimer.so)
	_name=$1; shift
	rm -rf pl; mkdir pl; cp "$PLUG" pl/; chmod 755 pl; chmod 644 pl/pmc-cputimer.so
	"$@"
	PMCPROF_PLUGIN_PATH=$PWD/pl "$PMCPROF" record -e CPUTIME@1000 -o plr.$$ -- "$W" work 1 20 \
		>/dev/null 2>err.txt
	rc=$?
	# an event only that plugin names: unknown (1), with the reason
	check "plugin $_name: refused (status $rc)" [ $rc -eq 1 ] || [ $rc -eq 2 ]
	contains "  ... says why" "refusing to load $PWD/pl/pmc-cputimer.so" err.txt
	PMCPROF_PLUGIN_PATH=$PWD/pl "$PMCPROF" list >list.txt 2>&1
	contains "  ... list shows it refused" "cputimer *refused: refusing" list.txt
}
plug_case "in a world-writable directory" chmod 777 pl
plug_case "world-writable file" chmod 666 pl/pmc-cputimer.so
if [ $root = 1 ]; then
	plug_case "in another user's directory" chown 65534 pl
	plug_case "file of another user" chown 65534 pl/pmc-cputimer.so
fi
rm -rf pl; mkdir pl; cp "$PLUG" pl/; chmod 755 pl; chmod 644 pl/pmc-cputimer.so
PMCPROF_PLUGIN_PATH=$PWD/pl "$PMCPROF" record -e CPUTIME@1000 -o plok -- "$W" work 1 20 >/dev/null 2>&1
check "plugin in our own 0755 directory: loads (status $?)" [ $? -eq 0 ]

# ---- -o through a symbolic link another user planted, whatever protected_symlinks says ----
if [ $root = 1 ] && [ -w /proc/sys/fs/protected_symlinks ]; then
	ps0=$(cat /proc/sys/fs/protected_symlinks)
	mkdir -m 1777 sticky victim
	ln -s "$PWD/victim" sticky/out && chown -h 65534 sticky/out
	for ps in 0 1; do
		echo $ps >/proc/sys/fs/protected_symlinks
		for o in sticky/out sticky/out/sub; do
			"$PMCPROF" record -e $EV -o "$o" -- "$W" work 1 20 >/dev/null 2>err.txt
			rc=$?
			check "protected_symlinks=$ps: -o $o through another user's link refused ($rc)" \
				[ $rc -eq 2 ]
			contains "  ... says why" "symbolic link $PWD/sticky/out, which belongs to another user" err.txt
		done
		check "  ... nothing written through it" [ -z "$(ls -A victim)" ]
	done
	echo "$ps0" >/proc/sys/fs/protected_symlinks
	ln -s "$PWD/victim" mine
	"$PMCPROF" record -e $EV -o mine -- "$W" work 1 20 >/dev/null 2>&1
	check "-o through our own link: followed (status $?)" [ $? -eq 0 ]
else
	skip "foreign symbolic links (needs root to set fs.protected_symlinks)"
fi
