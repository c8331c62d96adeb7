# When profiles cannot be written: a clear message, the program still runs
# to its end with its own status, and no corrupt or half-written file.
. "$PMCPROF_SRC/tests/lib.sh"
EV=cpu-clock@1000000

no_files() {	# dir: nothing at all, temp files included
	[ -z "$(ls -A "$1" 2>/dev/null)" ]
}

"$PMCPROF" record -e $EV -o /proc/pmcprof-nope -- "$PROGS/rec_exit" exit3 10 >out.txt 2>err.txt
check "an output directory that cannot be made: runtime error (2)" [ $? -eq 2 ]
contains "  ... says which and why" "cannot create output directory /proc/pmcprof-nope" err.txt

# The directory disappears while the program runs.
"$PMCPROF" record -e $EV -o gone -- sh -c "rm -rf gone; exec '$PROGS/rec_exit' exit3 30" >out.txt 2>err.txt
check "output directory removed mid-run: the program's status (3)" [ $? -eq 3 ]
contains "  ... a clear message" "pmcprof: cannot write profiles into $PWD/gone: No such file or directory" err.txt
contains "  ... and the launcher's summary" "no profiles were written" err.txt

# A directory we may not write to (as another user when run as root).
mkdir ro && chmod 0555 ro
if [ "$(id -u)" = 0 ]; then
	# Its own directory: another user's is refused for that reason.
	chown 65534 ro
	chmod 0755 . && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	as=""
fi
if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null; then
	skip "unwritable directory (root without setpriv)"
elif ! $as "$PMCPROF_BUILD/pmcprof-record" --help >/dev/null 2>&1; then
	skip "unwritable directory (the build tree is not readable by uid 65534)"
else
	$as "$PMCPROF" record -e $EV -o ro -- "$PROGS/rec_exit" exit3 10 >out.txt 2>err.txt
	check "unwritable -o DIR: refused before running (2)" [ $? -eq 2 ]
	contains "  ... says why" "cannot write profiles into $PWD/ro: Permission denied" err.txt
	check "  ... and leaves nothing behind" no_files ro
fi

# A file-size limit: write() fails with EFBIG instead of SIGXFSZ killing us.
mkdir fsz
( ulimit -f 0; "$PMCPROF" record -e $EV -o fsz -- "$PROGS/rec_exit" exit3 30 2>&1; echo "status=$?" ) | cat >fsz.txt
contains "ulimit -f 0: the program ends with its own status" "status=3" fsz.txt
contains "  ... the collector says why" "cannot write profile .*: File too large" fsz.txt
check "  ... no file, not even a temporary one" no_files fsz
