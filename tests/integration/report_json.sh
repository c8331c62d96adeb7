#!/bin/sh
# report --json and diff --json validate against docs/report-schema.json
# (python3-jsonschema), and say what the schema promises: tree rows name
# their parent, runs carry their metadata with lists as lists, and
# "inlined" agrees with "inlined_into".
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR=
python3 -c 'import jsonschema' 2>/dev/null || { fail "python3-jsonschema is not installed (scripts/install-deps.sh)"; exit 1; }
SCHEMA="$PMCPROF_SRC/docs/report-schema.json"
MK="$PROGS/ana_mkprofile"

mkdir run
"$MK" -o run/t1.pmcp -b "$PROGS/ana_work" -m tid=101 -m argv='ana_work inline' \
	"main;inline_caller;inl:hot_inline=500" "main;work_a=300" "main;work_b=100"
"$MK" -o run/t2.pmcp -b "$PROGS/ana_work" -m tid=102 -m argv='ana_work inline' \
	"main;work_a=200" "main;work_c=50"
"$MK" -o base.pmcp -b "$PROGS/ana_work" "main;work_a=300" "main;work_b=300"

# valid NAME ARGS...: the command's JSON validates
valid() {
	_n=$1; shift
	"$PMCPROF" "$@" >"$_n.json" 2>err.txt
	if [ $? -ne 0 ]; then fail "$_n: exit status"; sed 's/^/    | /' err.txt | head -5; return; fi
	if python3 - "$SCHEMA" "$_n.json" >val.txt 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
PY
	then pass "$_n: valid against the schema"
	else fail "$_n: not valid against the schema"; tail -5 val.txt | sed 's/^/    | /'; fi
}
valid flat report --json run
valid tree report --json --tree run
valid bottomup report --json --tree=bottom-up run
valid lines report --json --lines run
valid modules report --json --modules run
valid callers report --json --callers work_a run
valid by report --json --by thread run
valid metric report --json --metric 'X=perf::CPU-CLOCK/2' run
valid diff diff --json base.pmcp run
valid diff_repeats diff --json --ratio raw base.pmcp,base.pmcp run

check "tree: every row's parent is the row one level up" python3 - tree.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert any(r["parent"] is not None for r in rows)
for r in rows:
    if r["depth"] == 1:
        assert r["parent"] is None, r
    else:
        p = rows[r["parent"]]
        assert p["id"] == r["parent"] and p["depth"] == r["depth"] - 1 and r["parent"] < r["id"], r
names = {r["id"]: r["name"] for r in rows}
kids = {names[r["parent"]] + ">" + r["name"] for r in rows if r["parent"] is not None}
assert "main>work_a" in kids and "main>inline_caller" in kids, kids
PY
check "runs: metadata with lists as lists" python3 - by.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["label"] for r in d["runs"]] == ["tid=101", "tid=102"], d["runs"]
flat = json.load(open("flat.json"))
run = flat["runs"][0]
assert run["files"] == 2 and run["meta"]["tid"] == ["101", "102"], run["meta"]
assert run["meta"]["argv"] == ["ana_work inline"]
assert run["events"][0]["samples"] == 1150, run["events"]
PY
check "flat rows: inlined agrees with inlined_into (a list)" python3 - flat.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by = {r["name"]: r for r in d["rows"]}
assert by["hot_inline"]["inlined_into"] == ["inline_caller"] and by["hot_inline"]["inlined"] is True, by["hot_inline"]
for r in d["rows"]:
    assert r["inlined"] == bool(r["inlined_into"]), r
    assert r["parent"] is None
PY
