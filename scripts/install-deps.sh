#!/bin/sh
# Installs what pmcprof needs to build, test and benchmark on Debian 12 (as root).
# PMCPROF_DEPS_BUILD_ONLY=1 installs only what the build needs.
set -e
BUILD="build-essential autoconf automake libtool pkg-config
  libpfm4-dev libunwind-dev libdw-dev libelf-dev libzstd-dev libncurses-dev scdoc"
# Tests and benchmarks: peers (perf, PAPI, OpenMPI), the fuzzer, tmux for the viewer.
TEST="python3 python3-jsonschema tmux clang libclang-rt-14-dev valgrind linux-perf libpapi-dev
  openmpi-bin libopenmpi-dev"
pkgs=$BUILD
[ -n "${PMCPROF_DEPS_BUILD_ONLY:-}" ] || pkgs="$pkgs $TEST"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
