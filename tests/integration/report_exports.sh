#!/bin/sh
# The files other tools read, each checked by the tool it is for:
#   flame graphs (report and diff --flamegraph): opened in headless
#     Chromium; the frames, their widths, zoom and search read back from the
#     DOM the page's own script leaves, against report's and diff's numbers;
#   pprof: `go tool pprof -top` must agree with report on the top functions,
#     inlined frames must be pprof lines of one location;
#   speedscope: validated against the JSON schema published in the
#     speedscope npm package (fetched with npm; SKIP when offline).
# Synthetic profiles give exact counts; a real run of examples/hotspots
# checks the same on a recording.  No check uses the network but the npm
# fetch of the schema.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"	# not the user's cache
MK="$PROGS/ana_mkprofile"
W="$PROGS/ana_work"

# ---- profiles: base 6:3:1 plus an inlined frame; run with work_b x3 ----
"$MK" -o base.pmcp -b "$W" -m command=ana_work "main;work_a=600" "main;work_b=300" \
	"main;work_c=100" "main;inline_caller;inl:hot_inline=50"
"$MK" -o run.pmcp -b "$W" -m command=ana_work "main;work_a=600" "main;work_b=900" "main;work_c=100" \
	"main;inline_caller;inl:hot_inline=50"
mkdir threads
"$MK" -o threads -b "$W" -F 3 -D "main;work_a=600" "main;work_b=300" "main;work_c=100"
"$PMCPROF" report --csv base.pmcp >base.csv
"$PMCPROF" diff --incl --csv base.pmcp run.pmcp >diff.csv

# ---- usage ----
"$PMCPROF" report --flamegraph x.svg --csv base.pmcp 2>err.txt
check "--flamegraph with --csv: usage error" test $? -eq 1
"$PMCPROF" report --flamegraph 2>err.txt
check "--flamegraph without a file: usage error" test $? -eq 1
"$PMCPROF" report --metric 'X=perf::CPU-CLOCK*2' -e X --pprof x.pb.gz base.pmcp 2>err.txt
check "--pprof of a metric: usage error" test $? -eq 1
"$PMCPROF" diff --flamegraph x.svg base.pmcp run.pmcp run.pmcp 2>err.txt
check "diff --flamegraph with two RUNs: usage error" test $? -eq 1
"$PMCPROF" report -q --pprof /nonexistent/dir/x.pb.gz base.pmcp 2>err.txt
check "--pprof into a missing directory: exit 2" test $? -eq 2

# ---- the files ----
"$PMCPROF" report -q --flamegraph flame.svg --pprof base.pb.gz --speedscope base.json base.pmcp
check "report --flamegraph --pprof --speedscope: exit 0" test $? -eq 0
"$PMCPROF" report -q --flamegraph flame.html base.pmcp
check "report --flamegraph FILE.html: exit 0" test $? -eq 0
"$PMCPROF" diff -q --flamegraph diff.svg base.pmcp run.pmcp
check "diff --flamegraph: exit 0" test $? -eq 0
"$PMCPROF" report -q --speedscope threads.json threads
check "report --speedscope of a 3-thread run: exit 0" test $? -eq 0

# Frames of a flame graph file or dumped DOM as JSON lines: the <g class="f">
# attributes and its first <rect>'s, plus the root <svg>'s.
cat >frames.py <<'EOF'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.frames = []; self.svg = None; self.cur = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and self.svg is None: self.svg = a
        elif tag == 'g' and 'f' in (a.get('class') or '').split(): self.cur = a; self.frames.append(a)
        elif tag == 'rect' and self.cur is not None and 'rect' not in self.cur: self.cur['rect'] = a
    handle_startendtag = handle_starttag
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
json.dump({'svg': p.svg, 'frames': p.frames}, sys.stdout)
EOF

# check_widths LABEL FILE(svg/html/dom) CSV [ZOOMED_NAME]: every drawn frame
# is as wide as its value (1180 px for the whole, or for the zoomed frame),
# and each function's outermost frames hold report's inclusive samples
# (exactly; $SLACK of the total where frames under 0.1 px are left out).
check_widths() {
	python3 frames.py "$2" >"$1.frames" && python3 - "$1.frames" "$3" "${4:-}" "${SLACK:-0}" <<'EOF'
import csv, json, sys
d = json.load(open(sys.argv[1])); zoom = sys.argv[3]
svg, fr = d['svg'], d['frames']
total = float(svg['data-total']); full = float(svg['data-w']) - 2 * float(svg['data-pad'])
incl = {r['function']: int(r['incl_samples']) for r in csv.DictReader(open(sys.argv[2], newline=''))}
bad = []
if not fr: bad.append('no frames')
z = [f for f in fr if f['data-n'] == zoom] if zoom else []
x0, w0 = (float(z[0]['data-x']), float(z[0]['data-v'])) if z else (0.0, total)
shown = 0
for f in fr:
    if 'display: none' in (f.get('style') or ''): continue
    shown += 1
    v, x = float(f['data-v']), float(f['data-x'])
    w = float(f['rect']['width'])
    if 'parent' in (f.get('class') or '').split():
        want = full
    else:
        want = v * full / w0
        if abs(float(f['rect']['x']) - (10 + (x - x0) * full / w0)) > 0.02:
            bad.append('%s: x %s' % (f['data-n'], f['rect']['x']))
    if abs(w - want) > 0.02: bad.append('%s: width %.2f, want %.2f' % (f['data-n'], w, want))
sums = {}
for f in fr:
    n, x, v, dep = f['data-n'], float(f['data-x']), float(f['data-v']), int(f['data-d'])
    if n not in incl or 'inl' in f['class'].split(): continue
    # outermost occurrences only: a function counts once per path
    if any(g['data-n'] == n and int(g['data-d']) < dep and float(g['data-x']) <= x and
           x + v <= float(g['data-x']) + float(g['data-v']) for g in fr): continue
    sums[n] = sums.get(n, 0) + int(f['data-s'])
for n, c in sums.items():
    if abs(c - incl[n]) > float(sys.argv[4]) * total:
        bad.append('%s: %d samples in frames, report says %d' % (n, c, incl[n]))
if zoom and not z: bad.append('no frame ' + zoom)
if zoom and any(f['data-n'] == 'work_a' and 'display: none' not in (f.get('style') or '') for f in fr):
    bad.append('work_a still shown after zooming into ' + zoom)
print('%d frames shown' % shown)
if bad: print('\n'.join(bad)); sys.exit(1)
EOF
}

# The file itself, as written (no browser): layout computed by pmcprof.
check_widths file flame.svg base.csv >file.out
check "flame.svg: frames as wide as their samples, report's counts ($(head -1 file.out))" test $? -eq 0
check "flame.svg: hot_inline marked inlined" \
	python3 -c "
import json; d = json.load(open('file.frames'))
raise SystemExit(not [f for f in d['frames'] if f['data-n'] == 'hot_inline' and 'inl' in f['class'].split()])"
check "flame.svg: no external references" sh -c '! grep -Eq "(href|src)=\"(https?:)?//" flame.svg'
# --by thread: a root frame per thread under "all", the functions' frames
# adding up to the merged run's samples
"$PMCPROF" report -q --by thread --flamegraph threads.svg threads
"$PMCPROF" report --csv threads >threads.csv
check_widths threads threads.svg threads.csv >threads.out
check "--by thread flame graph: frames as wide as their samples, functions as merged" test $? -eq 0
check "--by thread flame graph: a root frame per thread" python3 -c "
import json; d = json.load(open('threads.frames'))['frames']
raise SystemExit(sorted(f['data-n'] for f in d if f['data-d'] == '1') != ['tid=1000', 'tid=1001', 'tid=1002'])"

BROWSER=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
dom() {	# URL OUT
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chrome" \
		--dump-dom "$1" >"$2" 2>/dev/null
}
if [ -z "$BROWSER" ]; then
	skip "flame graphs in a browser: chromium is not installed (scripts/install-deps.sh)"
else
	dom "file://$TMP/flame.svg" dom.svg
	check "chromium: the SVG's script ran" grep -q 'data-js="ready"' dom.svg
	check_widths dom dom.svg base.csv >dom.out
	check "chromium: frames as wide as their samples ($(head -1 dom.out))" test $? -eq 0
	dom "file://$TMP/flame.html" dom.html
	check "chromium: the HTML page's script ran" grep -q 'data-js="ready"' dom.html
	check_widths domhtml dom.html base.csv >domhtml.out
	check "chromium: HTML frames as wide as their samples" test $? -eq 0
	# zoom: #x=ID of work_b's frame
	id=$(python3 -c "
import json; print([f['id'] for f in json.load(open('file.frames'))['frames'] if f['data-n'] == 'work_b'][0])")
	dom "file://$TMP/flame.svg#x=$id" zoom.svg
	check "chromium: zoomed into work_b ($id)" grep -q "data-zoom=\"$id\"" zoom.svg
	check_widths zoom zoom.svg base.csv work_b >zoom.out
	check "chromium: after zooming, work_b spans the width, its parents too, work_a hidden" \
		test $? -eq 0
	# search: the matched share is what report says of the matched functions
	dom "file://$TMP/flame.svg#s=^work_[ab]\$" search.svg
	check "chromium: search ^work_[ab]\$ matches report's 57.14% + 28.57%" python3 -c "
import re, csv
m = re.search(r'data-matched=\"([0-9.]+)\"', open('search.svg').read())
want = sum(float(r['incl_pct']) for r in csv.DictReader(open('base.csv', newline='')) if r['function'] in ('work_a', 'work_b'))
raise SystemExit(not m or abs(float(m.group(1)) - want) > 0.01)"
	# differential: widths from RUN, ratio and interval from diff's statistics
	dom "file://$TMP/diff.svg" dom-diff.svg
	check "chromium: the differential graph's script ran" grep -q 'data-js="ready"' dom-diff.svg
	"$PMCPROF" report --csv run.pmcp >run.csv
	check_widths diff dom-diff.svg run.csv >diff.out
	check "chromium: differential frames as wide as RUN's samples" test $? -eq 0
	check "differential: ratio, interval and significance as diff --incl --csv, red up, blue down" \
		python3 - <<'EOF'
import csv, json, re, subprocess, sys
fr = json.loads(subprocess.run(['python3', 'frames.py', 'dom-diff.svg'], capture_output=True, text=True).stdout)['frames']
rows = {r['function']: r for r in csv.DictReader(open('diff.csv', newline=''))}
bad = []
for name in ('work_a', 'work_b', 'work_c'):
    f = [x for x in fr if x['data-n'] == name][0]; r = rows[name]
    for a, c in (('data-r', 'ratio'), ('data-lo', 'ci_low'), ('data-hi', 'ci_high')):
        if abs(float(f[a]) - float(r[c])) > 1e-3 * abs(float(r[c])): bad.append('%s %s %s vs %s' % (name, a, f[a], r[c]))
    if f['data-sig'] != r['significant']: bad.append(name + ' significance')
    rgb = [int(v) for v in re.findall(r'\d+', f['rect']['fill'])]
    up = float(r['ratio']) > 1
    if r['significant'] == '1' and (rgb[0] - rgb[2] if up else rgb[2] - rgb[0]) < 100:
        bad.append('%s: %s is not strongly %s' % (name, f['rect']['fill'], 'red' if up else 'blue'))
    if r['significant'] == '0' and max(rgb) - min(rgb) > 40:
        bad.append('%s: not significant but %s' % (name, f['rect']['fill']))
print(bad); sys.exit(bool(bad))
EOF
	check "differential: a legend with the ratio scale" grep -q 'id="legend".*run / base' dom-diff.svg
fi

# ---- pprof ----
check "pprof: gzip-compressed profile.proto" python3 -c "
import gzip; raise SystemExit(not len(gzip.open('base.pb.gz').read()))"
if ! command -v go >/dev/null 2>&1; then
	skip "pprof: go is not installed (golang-go; scripts/install-deps.sh)"
else
	gopp() {	# go tool pprof ARGS..., offline, its state in $TMP
		HOME="$TMP/home" GOPATH="$TMP/go" GOCACHE="$TMP/gocache" GOFLAGS= GOPROXY=off \
			GOTOOLCHAIN=local GOTELEMETRY=off PPROF_TMPDIR="$TMP/pprof" \
			timeout 120 go tool pprof "$@" 2>&1
	}
	# top N by flat: "name pct" lines from pprof and from report's CSV
	pp_top() {	# FILE N
		gopp -top -nodecount=50 "$1" | awk -v n="$2" '
			f && NF >= 6 && $1 != "0" { sub("%", "", $2); print $6, $2; if (++k == n) exit }
			/flat%/ { f = 1 }'
	}
	report_top() {	# PROFILE N
		"$PMCPROF" report --csv "$1" | python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if int(r['self_samples'])]
rows.sort(key=lambda r: -int(r['self_samples']))
for r in rows[:$2]: print(r['function'], '%.2f' % float(r['self_pct']))"
	}
	# the same by source line: pprof's lines are the analyzer's
	pp_lines() {	# FILE N
		gopp -top -lines -nodecount=50 "$1" | awk -v n="$2" '
			f && NF >= 7 && $1 != "0" { sub("%", "", $2); k2 = split($7, p, "/");
				print $6, p[k2], $2; if (++k == n) exit }
			/flat%/ { f = 1 }'
	}
	report_lines() {	# PROFILE N
		"$PMCPROF" report --lines --csv "$1" | python3 -c "
import csv, os, sys
rows = [r for r in csv.DictReader(sys.stdin) if int(r['self_samples'])]
rows.sort(key=lambda r: -int(r['self_samples']))
for r in rows[:$2]: print(r['function'], '%s:%s' % (os.path.basename(r['file']), r['line']), '%.2f' % float(r['self_pct']))"
	}
	# same_rows A B: the same rows, in order, their percentages within
	# 0.01 (the CSV's is rounded to 4 decimals before the 2 printed here,
	# pprof's is not: 27.475 reads 27.47 here and 27.48 there).
	same_rows() {
		python3 -c "
import sys
a, b = (open(f).read().split('\\n') for f in sys.argv[1:3])
ok = len(a) == len(b) and all(x.rsplit(' ', 1)[0] == y.rsplit(' ', 1)[0] and
	abs(float(x.rsplit(' ', 1)[1]) - float(y.rsplit(' ', 1)[1])) <= 0.0101
	for x, y in zip(a, b) if x or y)
sys.exit(not ok)" "$1" "$2"
	}
	pp_top base.pb.gz 4 >pp.top
	report_top base.pmcp 4 >rep.top
	if same_rows pp.top rep.top; then
		pass "go tool pprof -top agrees with report: $(tr '\n' ' ' <pp.top)"
	else
		fail "go tool pprof -top disagrees with report"
		paste pp.top rep.top | sed 's/^/    | /'
		gopp -top base.pb.gz | sed 's/^/    | /' | head -20
	fi
	pp_lines base.pb.gz 4 >pp.lines
	report_lines base.pmcp 4 >rep.lines
	if [ -s pp.lines ] && same_rows pp.lines rep.lines; then
		pass "go tool pprof -top -lines agrees with report --lines: $(tr '\n' ' ' <pp.lines)"
	else
		fail "go tool pprof -top -lines disagrees with report --lines"
		paste pp.lines rep.lines | sed 's/^/    | /'
	fi
	gopp -raw base.pb.gz >raw.txt
	check "pprof: one sample type per event, with its unit" grep -q 'perf::CPU-CLOCK/nanoseconds\[dflt\]' raw.txt
	check "pprof: the period" grep -q '^Period: 1000000$' raw.txt
	check "pprof: run metadata as comments" grep -q '^Comment: command: ana_work$' raw.txt
	check "pprof: hot_inline is a line of the location of inline_caller" \
		awk '/ hot_inline / { h = NR } h && NR == h + 1 && /^ +inline_caller / { ok = 1 } END { exit !ok }' raw.txt
	check "pprof: values are samples x period (600 x 1000000 ns)" grep -q '^ *600000000: ' raw.txt
	# hot_inline's location: its own line, then the line in inline_caller it was inlined at
	CALL=$(grep -n 'hot_inline(x, n)\|= hot_inline(' "$PMCPROF_SRC/tests/progs/ana_work.c" | head -1 | cut -d: -f1)
	check "pprof: the inlined call site is inline_caller's line (ana_work.c:$CALL)" \
		awk -v c="ana_work.c:$CALL" '/ hot_inline / { h = NR } h && NR == h + 1 && /^ +inline_caller / && index($0, c) { ok = 1 } END { exit !ok }' raw.txt
fi

# ---- speedscope ----
check "speedscope: one profile per thread, weights add up to its total" python3 -c "
import json
d = json.load(open('threads.json')); p = d['profiles']
ok = len(p) == 3 and all(x['type'] == 'sampled' and sum(x['weights']) == x['endValue'] and
	len(x['weights']) == len(x['samples']) for x in p)
raise SystemExit(not ok)"
mkdir npm
if ! command -v npm >/dev/null 2>&1; then
	skip "speedscope schema: npm is not installed (node and npm fetch the speedscope package)"
elif (cd npm && npm_config_cache="$TMP/npm-cache" npm_config_update_notifier=false \
	timeout 120 npm pack speedscope >npm.log 2>&1) && tar xzf npm/speedscope-*.tgz -C npm 2>/dev/null; then
	schema=$(find npm/package -name file-format-schema.json | head -1)
	if [ -z "$schema" ]; then
		fail "speedscope: the npm package has no file-format-schema.json"
	else
		for f in base.json threads.json; do
			check "speedscope: $f is valid against $(basename "$schema") of $(ls npm/*.tgz | xargs -n1 basename)" \
				python3 -c "
import json, jsonschema, sys
jsonschema.validate(json.load(open('$f')), json.load(open('$schema')))"
		done
		# the validation can fail: a unit speedscope does not know
		check "speedscope: the schema refuses a bad unit" python3 -c "
import json, jsonschema
d = json.load(open('base.json')); d['profiles'][0]['unit'] = 'furlongs'
try:
    jsonschema.validate(d, json.load(open('$schema')))
except jsonschema.ValidationError:
    raise SystemExit(0)
raise SystemExit(1)"
	fi
else
	skip "speedscope schema: npm could not fetch the speedscope package (offline?): $(grep -m2 -i 'err' npm/npm.log 2>/dev/null | tr '\n' ' ')"
fi

# ---- a real run of examples/hotspots ----
HOT="$PMCPROF_BUILD/examples/hotspots"
if "$PMCPROF" record -o hot -e cpu-clock -- "$HOT" 0.3 >hot.log 2>&1; then
	"$PMCPROF" report -q --flamegraph hot.svg --pprof hot.pb.gz --speedscope hot.json hot
	check "hotspots: all three files written" test -s hot.svg -a -s hot.pb.gz -a -s hot.json
	"$PMCPROF" report --csv hot >hot.csv
	SLACK=0.002 check_widths hot hot.svg hot.csv >hot.out
	check "hotspots: flame graph frames as wide as their samples" test $? -eq 0
	check "hotspots: matmul, sort_pass, checksum are frames" python3 -c "
import json; n = {f['data-n'].split('.')[0] for f in json.load(open('hot.frames'))['frames']}
raise SystemExit(not {'matmul', 'sort_pass', 'checksum'} <= n)"
	if command -v go >/dev/null 2>&1; then
		pp_top hot.pb.gz 3 >hot-pp.top
		report_top hot 3 >hot-rep.top
		if same_rows hot-pp.top hot-rep.top; then
			pass "hotspots: go tool pprof -top agrees with report: $(tr '\n' ' ' <hot-pp.top)"
		else
			fail "hotspots: go tool pprof -top disagrees with report"
			paste hot-pp.top hot-rep.top | sed 's/^/    | /'
		fi
		pp_lines hot.pb.gz 3 >hot-pp.lines
		report_lines hot 3 >hot-rep.lines
		if [ -s hot-pp.lines ] && same_rows hot-pp.lines hot-rep.lines; then
			pass "hotspots: go tool pprof -top -lines agrees with report --lines: $(tr '\n' ' ' <hot-pp.lines)"
		else
			fail "hotspots: go tool pprof -top -lines disagrees with report --lines"
			paste hot-pp.lines hot-rep.lines | sed 's/^/    | /'
		fi
	fi
	if [ -n "${schema:-}" ]; then
		check "hotspots: speedscope file valid" python3 -c "
import json, jsonschema
jsonschema.validate(json.load(open('hot.json')), json.load(open('$schema')))"
	fi
else
	fail "hotspots: record failed"
	sed 's/^/    | /' hot.log | head
fi
