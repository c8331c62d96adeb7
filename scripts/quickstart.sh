#!/bin/sh
# README's main job: set up, build, profile the bundled example, show its report.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
b=$top/build
out=${1:-$top/hotspots-profile}
rm -rf "$out"
echo "== pmcprof probe"
"$b/pmcprof" probe
echo
echo "== pmcprof record -o $out -- examples/hotspots 2"
"$b/pmcprof" record -o "$out" -- "$b/examples/hotspots" 2
echo
echo "== pmcprof report $out"
"$b/pmcprof" report --top 15 "$out"
