# Honest differential flame graphs: a calling context present in one run
# only is not a ratio: its own colour, said in the hover and the legend
# (with how many and how much of each run); each frame also gives its
# function's ratio as the text diff matches functions; runs unwound
# differently (fp against dwarf) get a warning in the picture and from
# diff.  Checked in the file and in headless Chromium.
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
MK="$PROGS/ana_mkprofile"
W="$PROGS/ana_work"

# base unwound with frame pointers, run with DWARF: work_b's caller
# appears only in the run (as a frame-pointer unwind can lose a frame)
"$MK" -o base.pmcp -b "$W" -m command=ana_work -m call_graph=fp "main;work_a=600" "main;work_b=300"
"$MK" -o run.pmcp -b "$W" -m command=ana_work -m call_graph=libunwind "main;work_a=600" \
	"main;inline_caller;work_b=300" "main;work_c=100"
"$MK" -o same.pmcp -b "$W" -m command=ana_work -m call_graph=fp "main;work_a=600" "main;work_b=600"

"$PMCPROF" diff --flamegraph d.svg base.pmcp run.pmcp >/dev/null 2>err.txt
check "diff --flamegraph: exit 0" [ $? -eq 0 ]
contains "diff warns that the runs were unwound differently" "call_graph differs: 'fp' in base.pmcp, 'libunwind' in run.pmcp" err.txt
"$PMCPROF" diff --incl --csv base.pmcp run.pmcp >d.csv 2>/dev/null

cat >frames.py <<'PY'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.frames = []; self.cur = None; self.intitle = False; self.text = {}; self.tid = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'g' and 'f' in (a.get('class') or '').split(): self.cur = a; self.frames.append(a)
        elif tag == 'rect' and self.cur is not None and 'rect' not in self.cur: self.cur['rect'] = a
        elif tag == 'title' and self.cur is not None: self.intitle = True; self.cur['title'] = ''
        if tag == 'text' and a.get('id'): self.tid = a['id']; self.text[self.tid] = ''
    handle_startendtag = handle_starttag
    def handle_endtag(self, tag):
        if tag == 'title': self.intitle = False
        if tag == 'text': self.tid = None
    def handle_data(self, d):
        if self.intitle and self.cur is not None: self.cur['title'] += d
        if self.tid: self.text[self.tid] += d
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
json.dump({'frames': p.frames, 'text': p.text}, sys.stdout)
PY
judge() {	# FILE: the checks on a file as written or as Chromium left it
	python3 frames.py "$1" >"$1.json" && python3 - "$1.json" d.csv <<'PY'
import csv, json, re, sys
d = json.load(open(sys.argv[1])); fr = d['frames']; text = d['text']
rows = {r['function']: r for r in csv.DictReader(open(sys.argv[2], newline=''))}
bad = []
def fill(f): return tuple(int(v) for v in re.findall(r'\d+', f['rect']['fill']))
only = [f for f in fr if f.get('data-pr') == 'new']
names = sorted(f['data-n'] for f in only)
if names != ['inline_caller', 'work_b', 'work_c']: bad.append('one-side frames: %s' % names)
colours = {fill(f) for f in only}
if len(colours) != 1: bad.append('one-side frames in several colours %s' % colours)
both = [f for f in fr if f.get('data-pr') == 'both']
if colours & {fill(f) for f in both}: bad.append('one-side colour also used for a ratio')
c = next(iter(colours)) if colours else (0, 0, 0)
if not (c[2] > c[0] > c[1]): bad.append('one-side colour %s is not its own hue (violet)' % (c,))
for f in only:
    if 'only in this run' not in f.get('title', ''): bad.append('%s: hover does not say one side' % f['data-n'])
# each frame's function-level ratio is the text diff's
for f in fr:
    n = f['data-n']
    if n in rows and rows[n]['ratio'] == 'inf' and f.get('data-fr') != 'new': bad.append(n + ': not new')
    if n in rows and rows[n]['ratio'] not in ('new', 'gone', '', 'inf', 'nan'):
        want = float(rows[n]['ratio'])
        got = re.match(r'([0-9.e+-]+)', f.get('data-fr', 'x'))
        if not got or abs(float(got.group(1)) - want) > 1e-3 * want: bad.append('%s: function ratio %s, diff says %s' % (n, f.get('data-fr'), want))
legend = text.get('only', '')
if 'only in run.pmcp: 2 contexts, 40.0% of it (no ratio)' not in legend: bad.append('legend: ' + legend)
if 'only in base.pmcp: 1 context, 33.3% of it (not drawn)' not in legend: bad.append('legend: ' + legend)
if 'unwound differently (fp in the base, libunwind in the run)' not in text.get('warning', ''): bad.append('no unwinder warning')
print(bad); sys.exit(bool(bad))
PY
}
judge d.svg >file.out
check "the file: one-side contexts violet, said in hover and legend; function ratios as diff's; the warning ($(cat file.out))" test $? -eq 0

"$PMCPROF" diff -q --flamegraph s.svg base.pmcp same.pmcp 2>/dev/null
check "runs unwound alike: no unwinder warning" sh -c '! grep -q "id=\"warning\"" s.svg'
check "  ... and no one-side frame" sh -c '! grep -q "data-pr=\"new\"" s.svg'

BROWSER=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$BROWSER" ]; then
	skip "in a browser: chromium is not installed (scripts/install-deps.sh)"
else
	id=$(python3 -c "
import json; print([f['id'] for f in json.load(open('d.svg.json'))['frames'] if f['data-n'] == 'work_b'][0])")
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chrome" \
		--dump-dom "file://$TMP/d.svg#h=$id" >dom.svg 2>/dev/null
	check "chromium: the script ran" grep -q 'data-js="ready"' dom.svg
	judge dom.svg >dom.out
	check "chromium: the same colours, legend and warning ($(cat dom.out))" test $? -eq 0
	check "chromium: work_b's details (as on hover) say one side only, and its function's ratio" \
		grep -q 'id="details"[^>]*>work_b (ana_work).*only in this run: the base has no such calling context.*as a function (pmcprof diff): 0.9' dom.svg
fi
