# record -p on a Debian daemon started here: busybox's httpd on 127.0.0.1,
# which forks a child per request and execs a CGI shell script in it.
# Followed through fork and exec, and it serves the same before, during
# and after.
. "$PMCPROF_SRC/tests/lib.sh"

if ! command -v busybox >/dev/null || ! busybox --list | grep -qx httpd; then
	skip "attach daemon: busybox (Debian's busybox or busybox-static) with httpd is missing"; exit 0
fi
if ! "$PMCPROF" stat -e cpu-clock -- true >/dev/null 2>&1; then
	skip "attach daemon: perf_event cannot count here"; exit 0
fi
mkdir -p www/cgi-bin
printf '#!/bin/sh\ni=0\nwhile [ $i -lt 20000 ]; do i=$((i+1)); done\necho "Content-type: text/plain"\necho\necho "n=$i"\n' >www/cgi-bin/work
chmod +x www/cgi-bin/work
echo hello >www/index.html
# A free port: try a few.  Ours once it serves and still runs (a port
# taken makes it exit, maybe later than a fixed sleep on a loaded machine).
get() { timeout 10 busybox wget -q -O - "http://127.0.0.1:$port/$1" 2>/dev/null; }
for port in 18931 28931 38931 48931; do
	busybox httpd -f -p 127.0.0.1:$port -h www &
	H=$!
	up=
	for i in $(seq 200); do
		kill -0 "$H" 2>/dev/null || break
		[ "$(get index.html)" = hello ] && kill -0 "$H" 2>/dev/null && up=1 && break
		sleep 0.05
	done
	[ -n "$up" ] && break
	kill "$H" 2>/dev/null
done
trap 'kill "$H" 2>/dev/null; rm -rf "$TMP"' EXIT
check "daemon: serves before attach" [ "$(get cgi-bin/work)" = "n=20000" ]
fds_before=$(ls /proc/"$H"/fd | wc -l)

# Attached from before the first request to after the last (it says so as
# it starts its counters; SIGINT detaches): a fixed sleep and --duration
# 2.5 saw 3 of the 15 requests on a loaded machine.
timeout 120 "$PMCPROF" record -p "$H" -o d 2>d.err &
R=$!
for i in $(seq 400); do grep -q "profiling process" d.err && break; sleep 0.05; done
ok=0
for i in $(seq 15); do [ "$(get cgi-bin/work)" = "n=20000" ] && ok=$((ok + 1)); done
kill -INT "$R"
wait "$R"; rc=$?
check "daemon: record exits 0 ($rc)" [ "$rc" -eq 0 ]
check "daemon: every request answered right while attached ($ok of 15)" [ "$ok" -eq 15 ]
check "daemon: still runs after detach" kill -0 "$H"
check "daemon: serves after detach" [ "$(get index.html)" = hello ]
check "daemon: its descriptors unchanged ($fds_before, $(ls /proc/"$H"/fd | wc -l))" \
	[ "$(ls /proc/"$H"/fd | wc -l)" -eq "$fds_before" ]
n=$(ls d/*.pmcp 2>/dev/null | wc -l)
check "daemon: a profile per request process ($n)" [ "$n" -ge 5 ]
"$PMCPROF" report --csv d >d.csv 2>d.rerr
check "daemon: report reads it" [ -s d.csv ]
contains "daemon: the exec'd shell's code (dash or busybox sh)" "\(dash\|busybox\|libc\.so\.6\)," d.csv
"$PMCPROF" report --header d >h.txt 2>&1
contains "daemon: the run's commands include the CGI shell" "work" h.txt
