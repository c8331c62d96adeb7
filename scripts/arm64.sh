#!/bin/sh
# pmcprof on arm64, with a real (emulated) PMU: cross-compiles pmcprof for
# aarch64 with Debian's multiarch -dev packages, boots Debian's arm64
# kernel in QEMU (-machine virt -cpu max -icount shift=0: Arm's PMUv3,
# exact counts) with a busybox initramfs and this machine's / over 9p
# (where the arm64 libraries live in /usr/lib/aarch64-linux-gnu), and runs
# the hardware-event suite tests/arm64/guest.sh there.
#
#   scripts/arm64.sh [setup|build|run|all]     (default: all)
#
#   setup  dpkg --add-architecture arm64; apt-get install the cross compiler,
#          QEMU and the arm64 -dev packages; apt-get download the arm64
#          kernel and busybox-static into $B/guest (root; about a minute once)
#   build  configure --host=aarch64-linux-gnu into $B, make, the suite's
#          programs (PMCPROF_ARM64_CHECK_BUILD=1: make check-build)
#   run    build the initramfs, boot, run the suite; prints its PASS:/FAIL:/
#          SKIP: lines and "arm64 guest: N s"; exit 1 on a FAIL or no result
#
# PMCPROF_ARM64_UNIT=1 (build and run): the unit-test programs that build
# on arm64 run in the guest too, one PASS:/FAIL: line each (minutes more).
#
# $B is $PMCPROF_ARM64_BUILD or ./build-arm64.  PMCPROF_ARM64_TESTS (a
# pattern) runs only the guest tests whose names match.  docs/virtualization.md
# ("arm64 under QEMU") says what the suite proves and what it cannot.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${PMCPROF_ARM64_BUILD:-$top/build-arm64}
G=$B/guest
KFLAVOR=arm64
# What the cross build needs, by Debian name (arm64 libraries are
# multiarch: they install beside the amd64 ones).
PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm kmod cpio
  libpfm4-dev:arm64 libunwind-dev:arm64 libdw-dev:arm64 libelf-dev:arm64
  libzstd-dev:arm64 libncurses-dev:arm64 libprotobuf-c-dev:arm64 zlib1g-dev:arm64
  libiberty-dev:arm64 libdebuginfod-dev:arm64 libcapstone-dev:arm64 liburing-dev:arm64 libyajl-dev:arm64"

say() { echo "arm64.sh: $*" >&2; }
die() { say "$*"; exit 2; }

missing_pkgs() {
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
	done
}

setup() {
	m=$(missing_pkgs | tr '\n' ' ')
	if [ -n "$m" ]; then
		[ "$(id -u)" -eq 0 ] || die "needs root to install:$m"
		dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
		apt-get update -qq
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $m \
			>/dev/null || die "apt-get install failed:$m"
	fi
	# install-deps.sh: the packages only (no build directory yet)
	[ -z "${PMCPROF_ARM64_PACKAGES_ONLY:-}" ] || return 0
	mkdir -p "$G/debs"
	if ! ls "$G"/debs/linux-image-*.deb >/dev/null 2>&1; then
		# the kernel the metapackage points at, e.g. linux-image-6.1.0-56-arm64
		k=$(apt-cache depends "linux-image-$KFLAVOR:arm64" 2>/dev/null |
			awk '/Depends: linux-image-/ { sub(/:arm64$/, "", $2); print $2; exit }')
		[ -n "$k" ] || die "no linux-image-$KFLAVOR:arm64 in apt's lists (apt-get update?)"
		(cd "$G/debs" && apt-get download -q "$k:arm64" busybox-static:arm64 >/dev/null 2>&1) ||
			die "apt-get download $k:arm64 busybox-static:arm64 failed"
	fi
	if [ ! -d "$G/root/boot" ]; then
		rm -rf "$G/root.tmp" && mkdir -p "$G/root.tmp"
		for d in "$G"/debs/*.deb; do dpkg -x "$d" "$G/root.tmp"; done
		mv "$G/root.tmp" "$G/root"
	fi
	kver=$(ls "$G/root/lib/modules" | head -n 1)
	[ -f "$G/root/lib/modules/$kver/modules.dep" ] || depmod -b "$G/root" "$kver"
}

# Debian's arm64 perf, the peer on the same emulated PMU: linux-perf:arm64
# cannot be installed beside the amd64 one (same /usr/bin/perf), so it and
# the arm64 libraries it needs that are not installed are downloaded and
# unpacked into $G/perf; the guest runs $G/perf/usr/bin/perf_* with
# LD_LIBRARY_PATH there.  Optional: without it the comparison skips.
perf_setup() {
	[ -d "$G/perf/usr/bin" ] && return 0
	pk=$(apt-get install --dry-run -qq --no-install-recommends linux-perf:arm64 2>/dev/null |
		awk '$1 == "Inst" && $2 ~ /:arm64$/ { print $2 }')
	[ -n "$pk" ] || return 1
	rm -rf "$G/perf.debs" "$G/perf.tmp" && mkdir -p "$G/perf.debs" "$G/perf.tmp"
	# shellcheck disable=SC2086
	(cd "$G/perf.debs" && apt-get download -q $pk >/dev/null 2>&1) || return 1
	for d in "$G"/perf.debs/*.deb; do dpkg -x "$d" "$G/perf.tmp" || return 1; done
	rm -rf "$G/perf.debs"
	mv "$G/perf.tmp" "$G/perf"
}

build() {
	cd "$top"
	[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 ||
		autoreconf -fi
	mkdir -p "$B" && cd "$B"
	[ -f Makefile ] || PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		"$top/configure" -q --host=aarch64-linux-gnu --enable-werror 2>&1 |
		grep -v 'cross tools not prefixed' >&2 || true
	[ -f Makefile ] || die "configure failed"
	make -s -j"$(nproc)" >/dev/null
	# the guest suite's programs; PMCPROF_ARM64_CHECK_BUILD=1: every test
	# program and benchmark (a compile check, not run)
	if [ -n "${PMCPROF_ARM64_CHECK_BUILD:-}${PMCPROF_ARM64_UNIT:-}" ]; then
		make -s -j"$(nproc)" check-build >/dev/null
	else
		make -s -j"$(nproc)" tests/progs/hw_loop tests/progs/hw_selfread tests/progs/vdso_loop >/dev/null
	fi
}

initramfs() {
	kver=$(ls "$G/root/lib/modules" | head -n 1)
	ir=$G/initramfs
	rm -rf "$ir" && mkdir -p "$ir/bin" "$ir/mod" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root"
	cp "$G/root/bin/busybox" "$ir/bin/busybox"
	loads=
	# Debian's arm64 kernel has virtio-pci and 9p as modules: load them
	# in the order modprobe gives.
	for m in $(for n in virtio_pci 9pnet_virtio 9p; do
		modprobe -d "$G/root" -S "$kver" --show-depends "$n"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		b=${m##*/}
		case $m in
		*.ko) cp "$m" "$ir/mod/" ;;
		*.ko.xz) b=${b%.xz}; xz -dc "$m" >"$ir/mod/$b" ;;
		*) die "cannot load module $m" ;;
		esac
		loads="$loads /mod/$b"
	done
	[ -n "$loads" ] || die "no virtio/9p modules in $G/root for $kver"
	mkdir -p "$G/out"
	# /init: the host's / read-only at /root, $G/out writable over it, a
	# tmpfs /tmp holding busybox's applets (the host's /bin is amd64),
	# then the suite in a chroot.  ASLR off: the same instruction count
	# on every run (the dynamic loader's string loops depend on alignment).
	cat >"$ir/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
for m in $loads; do insmod \$m || echo "ARM64-GUEST-FAIL insmod \$m"; done
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o \$o,ro,cache=loose hostroot /root || { echo "ARM64-GUEST-FAIL 9p"; poweroff -f; }
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev
# A checkout or build under the host's /tmp, which the tmpfs hides (CI's
# clean clone may be there): the host's directory, bound back from a
# second view of the share (a 9p channel takes one mount).
mkdir /host && mount --bind /root /host
mount -t tmpfs tmpfs /root/tmp
for d in $top $B; do
	case \$d in /tmp/*)
		mountpoint -q /root\$d || { mkdir -p /root\$d && mount --bind /host\$d /root\$d; } ;;
	esac
done
mount -t 9p -o \$o out /root$G/out || echo "ARM64-GUEST-FAIL mount of the output share"
mkdir /root/tmp/bb && cp /bin/busybox /root/tmp/bb/busybox
for a in \$(/bin/busybox --list); do ln -s busybox /root/tmp/bb/\$a 2>/dev/null; done
# system() and the tests exec /bin/sh and /bin/true by path: the host's
# are amd64, so busybox stands in for them (it runs as its argv[0])
for f in /root/usr/bin/sh /root/usr/bin/true; do mount --bind /root/tmp/bb/busybox \$f; done
echo 0 >/proc/sys/kernel/randomize_va_space
hostname pmcprof-arm64
echo "ARM64-GUEST-START \$(cut -d' ' -f1 /proc/uptime)"
chroot /root /tmp/bb/sh -c 'PATH=/tmp/bb; export PATH; cd /tmp && sh $top/tests/arm64/guest.sh $B $top'
echo "ARM64-GUEST-DONE \$? \$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
EOF
	chmod +x "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1 >"$G/initramfs.gz")
}

# boot CPU TESTS LOG: one guest run of the suite on QEMU's CPU model CPU
boot() {
	# -icount shift=0: one instruction is one ns of guest time, so
	# instructions and cycles count exactly (and equal); a single vCPU.
	timeout -k 5 "${PMCPROF_ARM64_TIMEOUT:-300}" qemu-system-aarch64 \
		-machine virt -cpu "$1" -icount shift=0 -smp 1 -m 1024 \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "file:$3" -kernel "$kernel" -initrd "$G/initramfs.gz" \
		-append "console=ttyAMA0 panic=-1 quiet loglevel=1 rdinit=/init pmcprof_cpu=$1 pmcprof_tests=$2" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$G/out,mount_tag=out,security_model=none" \
		</dev/null >"$3.qemu" 2>&1 || true
	tr -d '\r' <"$3" | grep -aE '^(PASS|FAIL|SKIP|INFO): ' || true
	if ! tr -d '\r' <"$3" | grep -aq '^ARM64-GUEST-DONE 0'; then
		tr -d '\r' <"$3" | grep -a 'ARM64-GUEST' >&2 || true
		say "the guest suite did not finish on -cpu $1 (console: $3, QEMU: $3.qemu)"
		tail -n 20 "$3" >&2
		return 1
	fi
	! tr -d '\r' <"$3" | grep -aq '^FAIL: '
}

run() {
	command -v qemu-system-aarch64 >/dev/null || die "no qemu-system-aarch64 (Debian's qemu-system-arm)"
	[ -x "$B/pmcprof" ] || die "no arm64 build in $B (scripts/arm64.sh build)"
	initramfs
	kernel=$(ls "$G"/root/boot/vmlinuz-* | head -n 1)
	# PMCPROF_ARM64_UNIT=1: the unit-test programs too (built by build)
	: >"$G/out/unit-tests.txt"
	[ -z "${PMCPROF_ARM64_UNIT:-}" ] || make -s -C "$B" print-unit-tests >"$G/out/unit-tests.txt"
	t0=$(date +%s)
	ok=0
	[ "${PMCPROF_ARM64_TESTS:-}" = pfm ] || boot max "${PMCPROF_ARM64_TESTS:-}" "$G/console.txt" || ok=1
	# A second, short boot on a CPU model libpfm4 knows (implementer ARM,
	# Cortex-A57): its event names, which QEMU's max CPU (implementer 0)
	# has none of.
	if [ -z "${PMCPROF_ARM64_TESTS:-}" ] || echo pfm | grep -q -- "$PMCPROF_ARM64_TESTS"; then
		boot cortex-a57 pfm "$G/console-a57.txt" || ok=1
	fi
	t1=$(date +%s)
	echo "arm64 guest: $((t1 - t0)) s (QEMU TCG, icount shift=0)"
	return $ok
}

case ${1:-all} in
setup) setup && { perf_setup || say "Debian's arm64 perf could not be fetched: the guest skips the comparison"; } ;;
build) build ;;
run) run ;;
all) setup && { perf_setup || say "no arm64 perf: the comparison skips"; } && build && run ;;
*) die "usage: scripts/arm64.sh [setup|build|run|all]" ;;
esac
