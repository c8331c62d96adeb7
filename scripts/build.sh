#!/bin/sh
# Builds pmcprof in ./build (or $1), warnings as errors.  Extra arguments go
# to configure (e.g. --enable-sanitizers).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}; [ $# -gt 0 ] && shift
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$dir" && cd "$dir"
[ -f Makefile ] || "$top/configure" -q --enable-werror "$@"
make -s -j"$(nproc)" >/dev/null
make -s -j"$(nproc)" check-build >/dev/null
