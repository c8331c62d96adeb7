#!/bin/sh
# pmcprof on arm64 with a real (emulated) PMU: scripts/arm64.sh cross-builds
# pmcprof for aarch64 into $PMCPROF_BUILD/arm64 and runs the hardware-event
# suite (tests/arm64/guest.sh) in QEMU's -machine virt -cpu max
# -icount shift=0; the guest's PASS:/FAIL:/SKIP: lines are this test's.
# About 3-4 minutes here (the cross build about 100 s on 2 busy cores, the
# guest about 90 s); SKIPs naming what is missing.
. "$PMCPROF_SRC/tests/lib.sh"
no_guests

[ "$(uname -m)" = x86_64 ] || { skip "the arm64 cross build runs on x86-64 hosts"; exit 77; }
command -v qemu-system-aarch64 >/dev/null 2>&1 ||
	{ skip "qemu-system-aarch64 is not installed (Debian: qemu-system-arm; scripts/arm64.sh setup)"; exit 77; }
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
	{ skip "no aarch64 cross compiler (Debian: gcc-aarch64-linux-gnu; scripts/arm64.sh setup)"; exit 77; }
missing=
for p in libc6-dev-arm64-cross libpfm4-dev:arm64 libunwind-dev:arm64 libdw-dev:arm64 \
	libzstd-dev:arm64 libprotobuf-c-dev:arm64 libncurses-dev:arm64 libiberty-dev:arm64; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] || { skip "arm64 packages missing:$missing (scripts/arm64.sh setup)"; exit 77; }

PMCPROF_ARM64_BUILD=${PMCPROF_ARM64_BUILD:-$PMCPROF_BUILD/arm64}
export PMCPROF_ARM64_BUILD
a64=$PMCPROF_SRC/scripts/arm64.sh
# With the packages there, setup only downloads the arm64 kernel and
# busybox (apt-get download, no root) once into $PMCPROF_ARM64_BUILD/guest.
if ! timeout 300 sh "$a64" setup >setup.txt 2>&1; then
	skip "cannot fetch the arm64 kernel and busybox: $(tail -n 1 setup.txt)"; exit 77
fi
t0=$(date +%s)
if ! timeout 1200 sh "$a64" build >build.txt 2>&1; then
	fail "the arm64 cross build failed"; sed 's/^/    | /' build.txt | tail -n 20; exit 1
fi
t1=$(date +%s)
PMCPROF_ARM64_TIMEOUT=400 timeout 450 sh "$a64" run >run.txt 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP|INFO): ' run.txt
grep -q '^arm64 guest: ' run.txt && echo "INFO: $(grep '^arm64 guest: ' run.txt); cross build $((t1 - t0)) s"
if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' run.txt; then
	fail "the arm64 guest suite did not finish (exit $rc)"; sed 's/^/    | /' run.txt | tail -n 25
fi
