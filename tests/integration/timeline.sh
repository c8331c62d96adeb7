#!/bin/sh
# The timeline: record keeps each sample's time and context per thread;
# script prints them (perf script's fields), report --time slices them, and
# the trace and speedscope exports show them in time order.  The trace is
# parsed by Chrome DevTools' own trace engine (npm @paulirish/trace_engine,
# run in node; SKIP when npm cannot fetch it), the speedscope file checked
# against the schema of the speedscope npm package.  About 20 s.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"
T="timeout 120"

$T "$PMCPROF" record -q -e cpu-clock@1000000 -o out -- "$PROGS/rec_threads" 4 150 >threads.txt 2>err.txt
check "record 4 threads: exit 0" test $? -eq 0
# ---- the profiles ----
total=0 same=0 nf=0
for f in out/*.pmcp; do
	nf=$((nf + 1))
	"$PMCPROF" dump "$f" >dump.txt
	n=$(sed -n 's/^timeline: \([0-9]*\) samples, \([0-9]*\) lost.*/\1 \2/p' dump.txt)
	s=$("$INSPECT" counter "$f" samples)
	total=$((total + s))
	# every CCT sample is in the timeline (nothing lost with the default buffer)
	[ "$n" = "$s 0" ] && same=$((same + 1))
done
check "every profile's timeline holds its samples, none lost ($same of $nf)" test "$same" -eq "$nf" -a "$nf" -eq 5

# ---- script ----
$T "$PMCPROF" script out >script.txt 2>script.err
check "script: exit 0" test $? -eq 0
heads=$(grep -c '^ *rec_threads ' script.txt)
check "script: one sample line per sample ($heads of $total)" test "$heads" -eq "$total"
$T "$PMCPROF" script -G -F tid,time,sym out >leaf.txt
check "script -G -F tid,time,sym: one line per sample" test "$(wc -l <leaf.txt)" -eq "$total"
check "script: times never go back (across threads)" awk '
	{ t = $2 + 0; if (t < last) bad = 1; last = t } END { exit bad }' leaf.txt
wrong=0
while read -r line; do
	tid=${line#tid=}; tid=${tid%% *}; hot=${line##*hot=}
	[ "$hot" = main ] && hot=main_hot
	top=$(awk -v t="$tid" '$1 == t { n[$3]++ } END { for (k in n) if (n[k] > m) { m = n[k]; b = k } print b }' leaf.txt)
	[ "$top" = "$hot" ] || { wrong=$((wrong + 1)); echo "    | tid $tid: most samples in '$top', not $hot"; }
done <threads.txt
check "script: each thread's samples are mostly in its own hot function (wrong: $wrong)" test "$wrong" -eq 0
# (a sample taken before the collector started, in the loader or a
# constructor, has its pc and kernel frames only: counted as early_samples)
early=0
for f in out/*.pmcp; do early=$((early + $("$PROGS/rec_inspect" counter "$f" early_samples 2>/dev/null || echo 0))); done
check "script: a sample is a header line and a stack, leaf first, then main ($early early)" awk -v early="$early" '
	/^ *rec_threads / { h = 1; next } h && /^\t/ { last = $0; next } /^$/ && h { if (last !~ / (main|start_thread|clone3?|__clone|_start) /) bad++; h = 0 }
	END { exit bad > early }' script.txt
"$PMCPROF" script -F comm,tid -G out | head -1 >f.txt
check "script -F comm,tid: just those ($(cat f.txt))" grep -qE '^ +rec_threads +[0-9]+$' f.txt
"$PMCPROF" script -F +srcline out | grep -m1 'rec_threads.c:' >/dev/null
check "script -F +srcline: source lines" test $? -eq 0
"$PMCPROF" script -F comm,bogus out >/dev/null 2>bad.txt
check "script -F bogus: usage error" test $? -eq 1
contains "script -F bogus: names the fields" "no field 'bogus'" bad.txt
tid=$(sed -n '1s/tid=\([0-9]*\).*/\1/p' threads.txt)
"$PMCPROF" script --tid "$tid" -G -F tid out >one.txt
check "script --tid: only that thread" awk -v t="$tid" '$1 != t { bad = 1 } END { exit bad || NR == 0 }' one.txt

# ---- report --time ----
span=$(awk '{ t = $2 + 0 } END { printf "%.6f", t }' leaf.txt)
a=$(awk -v s="$span" 'BEGIN { printf "%.6f", s / 3 }')
b=$(awk -v s="$span" 'BEGIN { printf "%.6f", 2 * s / 3 }')
want=$(awk -v a="$a" -v b="$b" '{ t = $2 + 0 } t >= a && t <= b { n++ } END { print n + 0 }' leaf.txt)
"$PMCPROF" script -G -F time --time "$a,$b" out >slice.txt
check "script --time $a,$b: the samples in range ($(wc -l <slice.txt) of $want)" test "$(wc -l <slice.txt)" -eq "$want"
got=$("$PMCPROF" report --csv --time "$a,$b" out | awk -F, 'NR > 1 { n += $6 } END { print n + 0 }')
check "report --time $a,$b: the same samples as script ($got of $want)" test "$got" -eq "$want"
all=$("$PMCPROF" report --csv --time 0, out | awk -F, 'NR > 1 { n += $6 } END { print n + 0 }')
check "report --time 0,: every sample ($all of $total)" test "$all" -eq "$total"
q1=$("$PMCPROF" report --csv --time 25%/1 out | awk -F, 'NR > 1 { n += $6 } END { print n + 0 }')
q234=$("$PMCPROF" report --csv --time 25%/2,25%/3,25%/4 out | awk -F, 'NR > 1 { n += $6 } END { print n + 0 }')
check "report --time 25%/1 + 25%/2,25%/3,25%/4 = all ($q1 + $q234 of $total, a sample on a boundary counts twice)" \
	test "$((q1 + q234))" -ge "$total" -a "$((q1 + q234))" -le "$((total + 3))"
for bad in 2,1 abc 10%/11 0%-101% 5%; do
	"$PMCPROF" report --time "$bad" out >/dev/null 2>bad.txt
	check "report --time $bad: usage error" test $? -eq 1
done

# ---- two events: each sample keeps its event ----
$T "$PMCPROF" record -q -e cpu-clock@1000000 -e task-clock@1000000 -o two -- "$PROGS/rec_threads" 1 100 \
	>/dev/null 2>&1
"$PMCPROF" script -G -F event two | sort | uniq -c >two.txt
"$PMCPROF" report --csv two | awk -F, 'NR > 1 { n[$1] += $6 } END { for (e in n) print e, n[e] }' >two.csv
cpu=$(awk '$1 == "perf::CPU-CLOCK" { print $2 }' two.csv) task=$(awk '$1 == "perf::TASK-CLOCK" { print $2 }' two.csv)
check "two events: script's samples of each are the report's ($(tr -s ' \n' ' ' <two.txt); csv: $cpu, $task)" \
	awk -v c="$cpu" -v t="$task" '$2 == "CPU-CLOCK:" { a = $1 } $2 == "TASK-CLOCK:" { b = $1 } END { exit !(a == c && b == t && a > 0 && b > 0) }' two.txt
"$PMCPROF" script -G -F event -e task-clock two | sort -u >task.txt
check "script -e task-clock: only its samples" test "$(cat task.txt)" = "TASK-CLOCK:"

# ---- without a timeline, and with a full buffer ----
$T "$PMCPROF" record -q --no-timeline -e cpu-clock@1000000 -o none -- "$PROGS/rec_threads" 1 50 >/dev/null 2>&1
"$PMCPROF" dump none/*.pmcp | grep -q '^timeline: none'
check "record --no-timeline: no timeline section" test $? -eq 0
"$PMCPROF" script none >/dev/null 2>none.txt
check "script without timelines: exit 2" test $? -eq 2
contains "script without timelines: says why" "no profile holds a timeline" none.txt
PMCPROF_TIMELINE_BYTES=4K $T "$PMCPROF" record -q -e cpu-clock@200000 -o small -- "$PROGS/rec_threads" 1 600 \
	>/dev/null 2>&1
lost=0 kept=0 all=0
for f in small/*.pmcp; do
	set -- $("$PMCPROF" dump "$f" | sed -n 's/^timeline: \([0-9]*\) samples, \([0-9]*\) lost.*/\1 \2/p')
	kept=$((kept + $1)) lost=$((lost + $2)) all=$((all + $("$INSPECT" counter "$f" samples)))
done
check "a 4K buffer: what does not fit is counted ($kept kept + $lost lost = $all samples)" \
	test "$lost" -gt 0 -a "$((kept + lost))" -eq "$all"
"$PMCPROF" script small 2>&1 >/dev/null | grep -q 'samples are not in its timeline'
check "script: says samples are not in the timeline" test $? -eq 0

# ---- one time axis for the whole run: forks, exec, posix_spawn, system() ----
$T "$PMCPROF" record -q -e cpu-clock@1000000 -o procs -- "$PROGS/rec_fork" "$PROGS/rec_exit" \
	>procs.txt 2>&1
for f in procs/*.pmcp; do
	"$PMCPROF" dump "$f" | sed -n 's/^timeline: .* origin \([0-9]*\) ns, start \([0-9]*\), end \([0-9]*\)$/\1 \2 \3/p'
done >origins.txt
check "every process of the run has the same origin ($(wc -l <origins.txt) profiles, $(cut -d' ' -f1 origins.txt | sort -u | wc -l) origin)" \
	test "$(cut -d' ' -f1 origins.txt | sort -u | wc -l)" -eq 1 -a "$(ls procs/*.pmcp | wc -l)" -eq "$(wc -l <origins.txt)"
check "every thread starts after the origin and ends after it starts" awk '$2 < 1 || $3 < $2 { bad = 1 } END { exit bad }' origins.txt
$T "$PMCPROF" script -G -F pid,time,sym procs >procs-script.txt 2>/dev/null
child=$(sed -n 's/^pid=\([0-9]*\) how=fork$/\1/p' procs.txt)
check "script: the fork child's child_work samples, on the run's axis" awk -v c="$child" '
	$1 == c && $3 == "child_work" { n++ } END { exit !n }' procs-script.txt

# ---- the trace (Trace Event JSON) ----
"$PMCPROF" report -q --trace trace.json out
check "report --trace: exit 0" test $? -eq 0
check "trace: JSON object, B/E nested per thread, times in order, names as recorded" python3 -c "
import json, sys
d = json.load(open('trace.json')); ev = d['traceEvents']
stk, last, bs, names = {}, {}, {}, {}
for e in ev:
    for k in ('ph', 'name', 'pid', 'tid'):
        assert k in e, e
    if e['ph'] == 'M':
        names[(e['pid'], e['tid'], e['name'])] = e['args']['name']; continue
    key = (e['pid'], e['tid'])
    assert e['ts'] >= last.get(key, 0), e
    last[key] = e['ts']
    s = stk.setdefault(key, [])
    if e['ph'] == 'B':
        s.append(e['name']); bs[key] = bs.get(key, 0) + 1
    else:
        assert e['ph'] == 'E' and s and s.pop() == e['name'], e
assert all(not s for s in stk.values()), 'unclosed slices'
assert len(bs) == 5, bs
assert all(k[1] in [t for (p, t, n) in names if n == 'thread_name'] for k in bs)
open('trace.counts', 'w').write(' '.join('%d:%d' % (k[1], v) for k, v in sorted(bs.items())))
"
mkdir npm
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	skip "trace in Chrome's trace engine: node or npm is not installed"
elif (cd npm && npm_config_cache="$TMP/npm-cache" npm_config_update_notifier=false \
	timeout 180 npm install --no-audit --no-fund --ignore-scripts @paulirish/trace_engine@0.0.65 \
	>npm.log 2>&1); then
	cat >npm/check.mjs <<'EOF'
// Chrome DevTools' trace engine (the Performance panel's model) on our file:
// B/E slices it accepts per thread, as "pid:tid:entries" lines.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
globalThis.DOMRect ??= class { constructor(x = 0, y = 0, w = 0, h = 0) { Object.assign(this, { x, y, width: w, height: h }); } };
const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const r = model.parsedTrace().data.Renderer;
const out = [];
for (const [pid, p] of r.processes)
	for (const [tid, t] of p.threads)
		if (t.entries.length) out.push(`${tid}:${t.entries.length}`);
console.log(out.sort().join(' '));
EOF
	(cd npm && timeout 120 node check.mjs ../trace.json) >engine.txt 2>engine.err
	check "trace: Chrome's trace engine (@paulirish/trace_engine 0.0.65) reads it: one track per thread with every slice ($(cat engine.txt))" \
		test "$(tr ' ' '\n' <engine.txt | sort | tr '\n' ' ')" = "$(tr ' ' '\n' <trace.counts | sort | tr '\n' ' ')"
	sed 's/^/    | /' engine.err | head -5
	# the engine can fail: an E without its name (the format requires one)
	python3 -c "
import json; d = json.load(open('trace.json'))
for e in d['traceEvents']:
    if e['ph'] == 'E': del e['name']; break
json.dump(d, open('broken.json', 'w'))"
	(cd npm && timeout 120 node check.mjs ../broken.json) >/dev/null 2>&1
	check "trace: the engine refuses an E event without a name" test $? -ne 0
else
	skip "trace in Chrome's trace engine: npm could not fetch @paulirish/trace_engine (offline?): $(grep -m2 -i 'err' npm/npm.log 2>/dev/null | tr '\n' ' ')"
fi

# ---- speedscope: evented, per thread, in time order ----
"$PMCPROF" report -q --speedscope ss.json out
check "speedscope: exit 0" test $? -eq 0
check "speedscope: one evented profile per thread, O/C nested, in time order, within its span" python3 -c "
import json
d = json.load(open('ss.json')); p = d['profiles']; nf = len(d['shared']['frames'])
assert len(p) == 5 and all(x['type'] == 'evented' and x['unit'] == 'nanoseconds' for x in p)
for x in p:
    s, last = [], x['startValue']
    for e in x['events']:
        assert last <= e['at'] <= x['endValue'] and 0 <= e['frame'] < nf, e
        last = e['at']
        if e['type'] == 'O': s.append(e['frame'])
        else: assert s.pop() == e['frame']
    assert not s
"
if [ -d npm ] && (cd npm && npm_config_cache="$TMP/npm-cache" npm_config_update_notifier=false \
	timeout 120 npm pack speedscope >pack.log 2>&1) && tar xzf npm/speedscope-*.tgz -C npm 2>/dev/null &&
	schema=$(find npm/package -name file-format-schema.json | head -1) && [ -n "$schema" ]; then
	check "speedscope: valid against $(basename "$schema") of $(ls npm/speedscope-*.tgz | xargs -n1 basename)" \
		python3 -c "
import json, jsonschema
jsonschema.validate(json.load(open('ss.json')), json.load(open('$schema')))"
else
	skip "speedscope schema: npm could not fetch the speedscope package (offline?)"
fi
