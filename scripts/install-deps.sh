#!/bin/sh
# Installs what pmcprof needs to build, test and benchmark on Debian 12 (as root).
# PMCPROF_DEPS_BUILD_ONLY=1 installs only what the build needs.
set -e
BUILD="build-essential autoconf automake libtool pkg-config
  libpfm4-dev libunwind-dev libdw-dev libelf-dev libdebuginfod-dev libzstd-dev libncurses-dev libiberty-dev
  protobuf-c-compiler libprotobuf-c-dev zlib1g-dev scdoc libcapstone-dev libyajl-dev"
# Tests and benchmarks: peers (perf, PAPI, OpenMPI), the fuzzer, tmux for the viewer;
# the readers of the exports: go tool pprof, a browser, speedscope's schema
# (npm fetches the schema itself; node and npm are not Debian's here);
# the Debian programs the overhead benchmark profiles (lua5.4, zstd);
# strace for record_syscalls; liburing-dev for record_intr's io_uring case; programs we did not write for record_hostile
# (Go with cgo, libseccomp, xz, sqlite3, Lua);
# programs in other languages (Node for JIT maps, Rust, C++); `pmcprof vm`
# and its test: QEMU, a stock kernel, a static busybox for the initramfs,
# cpio to pack it, kmod for the module order; Debian's debuginfod server
# for tests/integration/debuginfod.sh; Debian's Xen hypervisor for
# `pmcprof vm --xen` (a Xen PV dom0 under QEMU) and its test.
TEST="python3 tmux clang libclang-rt-14-dev valgrind linux-perf libpapi-dev
  openmpi-bin libopenmpi-dev golang-go chromium python3-jsonschema nodejs rustc g++
  qemu-system-x86 linux-image-amd64 busybox-static cpio kmod xen-hypervisor-4.17-amd64
  lua5.4 zstd strace libseccomp-dev xz-utils sqlite3 liburing-dev debuginfod"
pkgs=$BUILD
[ -n "${PMCPROF_DEPS_BUILD_ONLY:-}" ] || pkgs="$pkgs $TEST"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The arm64 guest suite (tests/integration/arm64_guest.sh): the cross
# compiler, QEMU's aarch64 system emulator and the arm64 -dev packages
# (multiarch), installed by scripts/arm64.sh setup.  Not fatal: without
# them that test skips, naming what is missing.
if [ -z "${PMCPROF_DEPS_BUILD_ONLY:-}" ] && [ "$(id -u)" -eq 0 ]; then
	PMCPROF_ARM64_PACKAGES_ONLY=1 sh "$(dirname "$0")/arm64.sh" setup ||
		echo "install-deps: the arm64 packages did not install; tests/integration/arm64_guest.sh will skip"
fi
