#!/bin/sh
# debuginfod (docs/analyzer.md, "debuginfod"): a program whose debug info
# was split off (objcopy --only-keep-debug) and stripped is named with its
# source lines through Debian's debuginfod server, started here on
# 127.0.0.1 serving the split debug file, when DEBUGINFOD_URLS is set: the
# same rows, lines and shares as the report made before it was stripped,
# with the binary present and with it gone.  A server that refuses says so
# on one line; one that never answers is given up after DEBUGINFOD_TIMEOUT
# seconds, once for the whole report.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
export DEBUGINFOD_CACHE_PATH="$TMP/dcache"
unset DEBUGINFOD_URLS
for t in debuginfod gcc objcopy python3; do
	command -v $t >/dev/null 2>&1 || { skip "$t is not installed (Debian: debuginfod, gcc, binutils)"; exit 0; }
done
gcc -O2 -g -o hot "$PMCPROF_SRC/examples/hotspots.c" -lpthread ||
	{ fail "gcc could not build the program"; exit 0; }
"$PMCPROF" record --no-archive -e cpu-clock@1000000 -o rec -- ./hot 0.4 >/dev/null 2>rec.err ||
	{ fail "record failed"; sed 's/^/    | /' rec.err; exit 0; }
cat >rows.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if int(r['self_samples']) and r['module'].endswith('/hot'):
        print('|'.join((r['function'], r['file'] + ':' + r['line'], r['self_samples'])))
PY
snap() {	# snap NAME: the program's rows and lines
	"$PMCPROF" report --csv rec >"$1.csv" 2>"$1.err"
	"$PMCPROF" report --lines --csv rec >"$1-lines.csv" 2>>"$1.err"
	{ python3 rows.py "$1.csv"; python3 rows.py "$1-lines.csv"; } | sort >"$1.rows"
}
snap before
check "before: the program's functions with source lines" grep -q '^matmul[^|]*|[^|]*hotspots.c:[0-9]' before.rows

mkdir srv
objcopy --only-keep-debug hot srv/hot.debug && strip hot || { fail "objcopy/strip failed"; exit 0; }
bid=$(readelf -n hot | awk '/Build ID/ { print $3 }')
snap stripped
lacks "stripped, no server: no source lines" 'hotspots.c' stripped.rows

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 300 debuginfod -F -p "$port" -d "$TMP/db.sqlite" -t 0 -g 0 "$TMP/srv" >srv.log 2>&1 &
srv=$!
# up when it serves the debug file (it scans the directory first)
if ! python3 - "$port" "$bid" <<'PY'
import sys, time, urllib.request
url = "http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], sys.argv[2])
end = time.time() + 30
while time.time() < end:
    try:
        if urllib.request.urlopen(url, timeout=2).status == 200:
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.3)
sys.exit(1)
PY
then
	skip "debuginfod did not start or serve the file within 30 s: $(tail -2 srv.log | tr '\n' ' ')"
	kill "$srv" 2>/dev/null
	exit 0
fi
export DEBUGINFOD_URLS="http://127.0.0.1:$port"
snap served
same_files "debuginfod: the same functions, lines and shares as before stripping" before.rows served.rows
"$PMCPROF" report --header rec >served.txt 2>&1
contains "debuginfod: the report says where the debug info came from" "debug info from debuginfod" served.txt

# the binary gone: debuginfod's debug file names its addresses all the same
rm -rf "$DEBUGINFOD_CACHE_PATH"
mv hot hot.away
snap gone
same_files "debuginfod, binary gone: the same rows as before" before.rows gone.rows
mv hot.away hot

# a server that refuses: one clear line, and the report goes on
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
rm -rf "$DEBUGINFOD_CACHE_PATH"
r0=$(date +%s)
"$PMCPROF" report rec >refused.txt 2>&1
r1=$(date +%s)
check "refused: the report still runs" grep -q 'matmul\|hot+0x' refused.txt
contains "refused: says the server did not answer" "debuginfod (http://127.0.0.1:$port) did not answer" refused.txt

# a server that never answers (accepts, says nothing): given up in time
python3 - "$port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
time.sleep(60)
PY
mute=$!
# wait until it listens (a loaded machine may take seconds to start python)
for _ in $(seq 1 100); do
	python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()" \
		"$port" 2>/dev/null && break
	sleep 0.1
done
t0=$(date +%s)
DEBUGINFOD_TIMEOUT=2 timeout 60 "$PMCPROF" report rec >mute.txt 2>&1
t1=$(date +%s)
kill "$mute" 2>/dev/null
# Against the same report with a refusing server (the machine's load
# stretches both), not a fixed 12 s: the timeout and a margin on top.
check "silent server: the report ends within the timeout and a margin ($((t1 - t0)) s; refused: $((r1 - r0)) s)" \
	test $((t1 - t0)) -le $((r1 - r0 + 10))
contains "silent server: says so, with the timeout" "did not answer within 2 s" mute.txt
