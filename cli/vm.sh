#!/bin/bash
# pmcprof vm: record a command natively and in a throwaway QEMU guest, then
# compare the two.  The guest boots Debian's own kernel with a busybox
# initramfs built here, sees this machine's root file system read-only over
# 9p (so it runs the very same binaries on the very same input) and writes
# its profiles to a second, writable 9p share.  KVM is used when /dev/kvm can
# boot a stock kernel, TCG (emulation) otherwise; the output says which.
# docs/vm-vs-native.md has the details and real runs.
set -u
set -o pipefail

prog=pmcprof-vm
here=$(cd "$(dirname "$0")" && pwd)

usage() {
	cat <<'EOF'
usage: pmcprof vm [OPTIONS] [--] CMD [ARGS]

Record CMD natively and in a throwaway QEMU guest with the same binary,
input (stdin is /dev/null on both sides), event and period, then compare
the two with `pmcprof diff`.  The guest sees this machine's / read-only
(over 9p) and runs CMD in the same directory with the same environment.

  -o, --output=DIR      write the profiles into DIR/native/profiles/ and
                        DIR/vm/profiles/ (DIR/native/1..N/profiles/ with
                        repeats), the comparison into
                        DIR/diff.txt.  Default: ./pmcprof-vm-CMD-PID
  -e, --event=EVENT[@PERIOD]  event to sample, on both sides (repeatable;
                        default cpu-clock, whose default period is 1 ms)
  -s, --smp=N           guest vCPUs (default 2)
  -m, --memory=MB       guest memory in MiB (default 1024)
  -r, --repeats=N       record each side N times (diff merges the repeats
                        and shows their spread).  Default 1
  -a, --accel=MODE      auto (default: KVM if /dev/kvm boots a stock kernel,
                        else TCG), kvm, or tcg
  -q, --qemu-args=ARGS  extra QEMU arguments, split at spaces (repeatable),
                        e.g. a vPMU where the host has one:
                        -q '-cpu host,pmu=on'
  -k, --kernel=PATH     guest kernel (default: newest /boot/vmlinuz-*; its
                        modules must be in /lib/modules/VERSION)
  -t, --timeout=SEC     give up on a guest after SEC seconds (default 600)
      --diff-arg=ARG    extra `pmcprof diff` argument (repeatable), e.g. --lines
  -h, --help            show this help

Needs Debian's qemu-system-x86, linux-image-amd64, busybox-static, cpio
and kmod ($PMCPROF_QEMU may name another qemu-system-x86_64).  The guest
writes only to DIR/vm: files CMD writes elsewhere are lost (its / is
read-only).  CMD's output and exit status are in cmd.stdout, cmd.stderr
and cmd.status beside each side's profiles, the guest's console in
DIR/vm/console.txt.  `pmcprof view DIR/native DIR/vm` compares them.
Exit status: 0 when both sides ran, 1 usage error, 2 runtime error.
EOF
}

die() {
	echo "$prog: $*" >&2
	exit 2
}
usage_err() {
	echo "$prog: $*" >&2
	echo "Try 'pmcprof vm --help'." >&2
	exit 1
}
say() {
	echo "pmcprof vm: $*" >&2
}

out= smp=2 mem=1024 repeats=1 accel=auto kernel= tmo=600
events=() qargs=() dargs=()
need_arg() {
	[ $# -ge 2 ] || usage_err "option $1 needs an argument"
}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	--*=*) opt=${1%%=*} val=${1#*=}; shift; set -- "$opt" "$val" "$@"; continue ;;
	-o | --output) need_arg "$@"; out=$2; shift 2 ;;
	-e | --event) need_arg "$@"; events+=("$2"); shift 2 ;;
	-s | --smp) need_arg "$@"; smp=$2; shift 2 ;;
	-m | --memory) need_arg "$@"; mem=$2; shift 2 ;;
	-r | --repeats) need_arg "$@"; repeats=$2; shift 2 ;;
	-a | --accel) need_arg "$@"; accel=$2; shift 2 ;;
	-q | --qemu-args | --qemu-arg) need_arg "$@"; set -f; qargs+=($2); set +f; shift 2 ;;
	-k | --kernel) need_arg "$@"; kernel=$2; shift 2 ;;
	-t | --timeout) need_arg "$@"; tmo=$2; shift 2 ;;
	--diff-arg) need_arg "$@"; dargs+=("$2"); shift 2 ;;
	-?*) usage_err "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage_err "no command given"
isnum() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	[ "$1" -ge "$2" ]
}
isnum "$smp" 1 || usage_err "--smp wants a number >= 1, not '$smp'"
isnum "$mem" 128 || usage_err "--memory wants MiB >= 128, not '$mem'"
isnum "$repeats" 1 || usage_err "--repeats wants a number >= 1, not '$repeats'"
isnum "$tmo" 10 || usage_err "--timeout wants seconds >= 10, not '$tmo'"
case $accel in auto | kvm | tcg) ;; *) usage_err "--accel is auto, kvm or tcg, not '$accel'" ;; esac
[ ${#events[@]} -gt 0 ] || events=(cpu-clock)

# ---- what the guest needs, with the Debian package that has it ----
need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	[ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ] && return 0
	die "'$1' not found: install Debian's $2 package (apt-get install $2)"
}
qemu=${PMCPROF_QEMU:-qemu-system-x86_64}
need "$qemu" qemu-system-x86
need cpio cpio
need modprobe kmod
need timeout coreutils
busybox=
for b in /bin/busybox /usr/bin/busybox; do
	[ -x "$b" ] && { busybox=$b; break; }
done
[ -n "$busybox" ] || die "busybox not found: install Debian's busybox-static package"
# A dynamically linked busybox would need the host's libc in the initramfs.
if ! LC_ALL=C file -L "$busybox" 2>/dev/null | grep -q 'statically linked' &&
	ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked: install Debian's busybox-static package"
fi
modprobe=$(command -v modprobe || echo /usr/sbin/modprobe)
if [ -z "$kernel" ]; then
	kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
	[ -n "$kernel" ] || die "no kernel in /boot/vmlinuz-*: install Debian's linux-image-amd64 package"
fi
[ -r "$kernel" ] || die "cannot read kernel $kernel (are you root? install linux-image-amd64)"
kver=${kernel##*/vmlinuz-}
[ -d "/lib/modules/$kver" ] || die "no /lib/modules/$kver for $kernel: install Debian's linux-image-amd64 package"
for t in pmcprof-record pmcprof-diff pmcprof-probe; do
	[ -x "$here/$t" ] || die "$here/$t missing (is pmcprof installed completely?)"
done

# ---- the output directory ----
cmdname=${1##*/}
[ -n "$out" ] || out=./pmcprof-vm-$cmdname-$$
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd) || die "cannot enter $out"
# The path goes into QEMU's -virtfs (commas) and the guest's init script.
case $out in
*[!A-Za-z0-9._/+@%:=-]*) die "output directory '$out': use a path of letters, digits and ._/+@%:=- only" ;;
esac
for d in native vm; do
	[ -e "$out/$d" ] && die "$out/$d exists: give a new --output directory"
done
mkdir -p "$out/native" "$out/vm" || die "cannot create $out/native, $out/vm"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmcprof-vm.XXXXXX") || die "cannot create a temporary directory"
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ev_args=()
for e in "${events[@]}"; do
	ev_args+=(-e "$e")
done

# ---- the guest's initramfs ----
# Debian's kernel has virtio-pci and 9p as modules: load them in the order
# modprobe gives for this kernel version.
mods=$(for m in virtio_pci 9pnet_virtio 9p; do
	"$modprobe" -S "$kver" --show-depends "$m" 2>/dev/null
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
for m in virtio_pci 9pnet_virtio 9p; do
	if ! "$modprobe" -S "$kver" --show-depends "$m" >/dev/null 2>&1 &&
		! grep -qE "^CONFIG_$(echo "$m" | tr a-z A-Z | sed 's/9PNET_VIRTIO/NET_9P_VIRTIO/;s/^9P$/9P_FS/')=y" \
			"/boot/config-$kver" 2>/dev/null; then
		die "kernel $kver has no module '$m' (modprobe -S $kver --show-depends $m failed)"
	fi
done
ir=$work/initramfs
mkdir -p "$ir/bin" "$ir/mod" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root"
cp "$busybox" "$ir/bin/busybox" || die "cannot copy $busybox"
loads=
for m in $mods; do
	b=${m##*/}
	case $m in
	*.ko) cp "$m" "$ir/mod/" ;;
	*.ko.xz) b=${b%.xz}; xz -dc "$m" >"$ir/mod/$b" ;;
	*.ko.zst) b=${b%.zst}; zstd -qdc "$m" >"$ir/mod/$b" ;;
	*.ko.gz) b=${b%.gz}; gzip -dc "$m" >"$ir/mod/$b" ;;
	*) die "cannot load module $m" ;;
	esac || die "cannot copy module $m"
	loads="$loads /mod/$b"
done

# A tmpfs /tmp for the guest, unless it would hide the command, its
# directory or the output (then the guest's /tmp is the host's, read-only).
tmp_tmpfs=yes
for p in "$PWD" "$out" "$(command -v "$1" 2>/dev/null)"; do
	case $p in /tmp | /tmp/*) tmp_tmpfs=no ;; esac
done
# The guest's /init: mount the host's / read-only and the output share
# writable at the same path as on the host, then run the job in a chroot.
# Markers on the serial console tell the host how far it got.
cat >"$ir/init" <<EOF
#!/bin/busybox sh
tmp_tmpfs=$tmp_tmpfs
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
t() { echo "PMCPROF-VM-T \$(cut -d' ' -f1 /proc/uptime) \$*"; }
t booted
for m in $loads; do insmod \$m || echo "PMCPROF-VM-FAIL insmod \$m"; done
o=trans=virtio,version=9p2000.L,msize=262144
if ! mount -t 9p -o \$o,ro,cache=loose hostroot /root; then
	echo "PMCPROF-VM-FAIL mount of the host's / over 9p"; poweroff -f
fi
if grep -q pmcprof_probe /proc/cmdline; then
	echo "PMCPROF-VM-PROBE-OK"; poweroff -f
fi
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev 2>/dev/null
[ "$tmp_tmpfs" = yes ] && mount -t tmpfs tmpfs /root/tmp
mount -t tmpfs tmpfs /root/run 2>/dev/null
mount -t tmpfs tmpfs /root/dev/shm 2>/dev/null
mount -t 9p -o \$o pmcprofout /root$out/vm || echo "PMCPROF-VM-FAIL mount of the output share"
hostname pmcprof-guest
t mounted
chroot /root /bin/sh $out/vm/.job.sh
echo "PMCPROF-VM-DONE \$?"
poweroff -f
EOF
chmod +x "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1 >"$work/initramfs.gz") ||
	die "cannot build the initramfs (cpio)"

# ---- the kernel QEMU loads ----
# Under TCG the bzImage's own decompressor is emulated too: 10-15 s on a
# busy host before the first kernel message.  A kernel with PVH support
# boots as a plain ELF instead, so decompress it here (about 1 s); fall
# back to the bzImage when that is not possible.
boot_kernel=$kernel
unpack() {	# unpack MAGIC TOOL...: decompress the payload after MAGIC
	local magic=$1 pos
	shift
	command -v "$1" >/dev/null 2>&1 || return 1
	pos=$(LC_ALL=C grep -aboP "$magic" "$kernel" 2>/dev/null | head -n 1 | cut -d: -f1)
	[ -n "$pos" ] || return 1
	tail -c +$((pos + 1)) "$kernel" | "$@" >"$work/vmlinux" 2>/dev/null
	[ "$(head -c 4 "$work/vmlinux" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}
if grep -q '^CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null; then
	if unpack '\xfd7zXZ\x00' xz -dc --single-stream || unpack '\x28\xb5\x2f\xfd' zstd -dcq ||
		unpack '\x1f\x8b\x08' gzip -dc; then
		boot_kernel=$work/vmlinux
	fi
	[ "$boot_kernel" = "$kernel" ] && rm -f "$work/vmlinux"
fi

# ---- QEMU ----
maxcpu=$(nproc 2>/dev/null || echo 1)
[ "$smp" -le "$maxcpu" ] || say "note: $smp vCPUs on $maxcpu host CPUs"

qemu_run() {	# qemu_run ACCEL SECONDS LOG APPEND-EXTRA
	local a=$1 secs=$2 log=$3 extra=$4 cpu=()
	# The guest's CPU: the host's own under KVM (same features, so libc
	# picks the same string functions as natively), every feature TCG
	# emulates under TCG.  A -cpu in --qemu-args comes later and wins
	# (-cpu host,pmu=on for a vPMU).
	if [ "$a" = tcg ]; then cpu=(-cpu max); else cpu=(-cpu host); fi
	timeout -k 5 "$secs" "$qemu" -accel "$a" "${cpu[@]}" -smp "$smp" -m "$mem" \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "file:$log" \
		-kernel "$boot_kernel" -initrd "$work/initramfs.gz" \
		-append "console=ttyS0 panic=-1 quiet rdinit=/init $extra" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$out/vm,mount_tag=pmcprofout,security_model=none,multidevs=remap" \
		"${qargs[@]}" </dev/null >"$log.qemu" 2>&1
}

# KVM is usable only if it boots this kernel far enough to mount the 9p root:
# a nested or software /dev/kvm (kvm_pvm) may open fine and never boot.
accel_used= accel_why=
if [ "$accel" != tcg ]; then
	if [ ! -c /dev/kvm ]; then
		accel_why="no /dev/kvm"
	elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		accel_why="/dev/kvm is not readable and writable by this user"
	else
		# earlyprintk: a booting kernel says "Linux version" at once.
		qemu_run kvm 30 "$work/kvm-probe.log" "pmcprof_probe earlyprintk=ttyS0" &
		qpid=$!
		t=0 started=
		while kill -0 "$qpid" 2>/dev/null && [ $t -lt 300 ]; do
			grep -aq '^PMCPROF-VM-PROBE-OK' "$work/kvm-probe.log" 2>/dev/null && break
			grep -aq 'Linux version' "$work/kvm-probe.log" 2>/dev/null && started=1
			# No kernel message after 5 s: this /dev/kvm does not run it.
			[ -z "$started" ] && [ $t -ge 50 ] && break
			sleep 0.1
			t=$((t + 1))
		done
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
		qpid=
		if grep -aq '^PMCPROF-VM-PROBE-OK' "$work/kvm-probe.log" 2>/dev/null; then
			accel_used=kvm
		else
			if [ -z "$started" ]; then
				accel_why="/dev/kvm did not start $kernel (no kernel message in 5 s)"
			else
				accel_why="/dev/kvm started $kernel but it did not finish booting in 30 s"
			fi
			# QEMU's own complaint, if it gave up (not its warnings)
			qerr=$(grep -v -e 'warning:' -e 'terminating on signal' "$work/kvm-probe.log.qemu" 2>/dev/null | head -n 1)
			[ -n "$qerr" ] && accel_why="$accel_why; QEMU: $qerr"
			# Name the KVM module: kvm_pvm is a software nested hypervisor.
			kmods=$(ls -d /sys/module/kvm_* 2>/dev/null | sed 's|.*/||' | tr '\n' ' ')
			[ -n "$kmods" ] && accel_why="$accel_why; KVM modules: ${kmods% }"
		fi
	fi
	if [ -z "$accel_used" ] && [ "$accel" = kvm ]; then
		die "--accel kvm: $accel_why"
	fi
fi
if [ -z "$accel_used" ]; then
	accel_used=tcg
	if [ "$accel" = tcg ]; then
		say "guest: QEMU TCG (emulation), as asked with --accel tcg"
	else
		say "guest: QEMU TCG (emulation, not hardware virtualization): $accel_why"
	fi
else
	say "guest: QEMU KVM (hardware virtualization)"
fi
echo "$accel_used" >"$out/accel"

# ---- the job: same command, directory, environment and event both sides ----
q() { printf '%q ' "$@"; }
{
	echo "# run by the guest's /init, in a chroot of the host's / (read-only)"
	# The environment, minus what belongs to this shell or this terminal.
	env -0 | while IFS= read -r -d '' kv; do
		k=${kv%%=*}
		case $k in
		'' | *[!A-Za-z0-9_]* | [0-9]*) continue ;;
		PWD | OLDPWD | SHLVL | _ | TERM | DISPLAY | SSH_* | TMUX*) continue ;;
		esac
		printf 'export %s=%q\n' "$k" "${kv#*=}"
	done
	printf 'cd %q || exit 125\n' "$PWD"
	echo "t() { echo \"PMCPROF-VM-T \$(cut -d' ' -f1 /proc/uptime) \$*\"; }"
	echo "$(q "$here/pmcprof-probe") >$(q "$out/vm/probe.txt") 2>&1"
	echo "t probed"
	echo 'st=0'
	echo "i=1; while [ \$i -le $repeats ]; do"
	echo "  d=$(printf %q "$out/vm")/\$i; [ $repeats -eq 1 ] && d=$(printf %q "$out/vm")"
	echo "  mkdir -p \"\$d\" || exit 125"
	echo "  $(q "$here/pmcprof-record" "${ev_args[@]}") -o \"\$d/profiles\" -- $(q "$@") </dev/null" \
		">\"\$d/cmd.stdout\" 2>\"\$d/cmd.stderr\"; st=\$?; echo \$st >\"\$d/cmd.status\""
	echo '  t "recorded $i"; i=$((i + 1)); done'
	echo 'sync; exit $st'
} >"$out/vm/.job.sh"

# ---- native ----
"$here/pmcprof-probe" >"$out/native/probe.txt" 2>&1
say "native: recording $(q "$@")(x$repeats)"
for i in $(seq 1 "$repeats"); do
	d=$out/native/$i
	[ "$repeats" -eq 1 ] && d=$out/native
	mkdir -p "$d" || die "cannot create $d"
	# the profiles apart from what the side keeps beside them (record
	# refuses a directory holding anything but profiles)
	"$here/pmcprof-record" "${ev_args[@]}" -o "$d/profiles" -- "$@" </dev/null >"$d/cmd.stdout" 2>"$d/cmd.stderr"
	echo $? >"$d/cmd.status"
done
[ -n "$(find "$out/native" -name '*.pmcp' -print -quit)" ] ||
	die "native recording left no profile: $(cat "$out/native/"cmd.stderr "$out/native/"*/cmd.stderr 2>/dev/null | tail -n 3)"

# ---- guest ----
say "vm: booting $kernel$([ "$boot_kernel" != "$kernel" ] && echo ' (unpacked: PVH boot)') with $smp vCPUs, $mem MiB ($accel_used)"
t0=$(date +%s)
qemu_run "$accel_used" "$tmo" "$out/vm/console.log" ""
qst=$?
t1=$(date +%s)
tr -d '\r' <"$out/vm/console.log" >"$out/vm/console.txt" 2>/dev/null
rm -f "$out/vm/console.log"
mv -f "$out/vm/console.log.qemu" "$out/vm/qemu.log" 2>/dev/null
done_line=$(grep -a '^PMCPROF-VM-DONE' "$out/vm/console.txt" | tail -n 1)
# guest uptime at each step, for the curious: "booted 3.1 s, mounted 3.4 s, ..."
steps=$(awk '$1 == "PMCPROF-VM-T" { $1 = ""; t = $2; $2 = ""; sub(/^ +/, ""); printf "%s%s %.1f s", sep, $0, t; sep = ", " }' "$out/vm/console.txt")
if [ -z "$done_line" ]; then
	why=$(grep -a '^PMCPROF-VM-FAIL' "$out/vm/console.txt" | head -n 1)
	[ $qst -eq 124 ] && why="timed out after $tmo s (--timeout)${why:+; $why}"
	[ -n "$why" ] || why="QEMU exited with status $qst; $(tail -n 2 "$out/vm/qemu.log" 2>/dev/null | tr '\n' ' ')"
	die "the guest did not finish: $why (see $out/vm/console.txt)"
fi
say "vm: guest ran for $((t1 - t0)) s (guest uptime at: $steps)"
rm -f "$out/vm/.job.sh"
[ -n "$(find "$out/vm" -name '*.pmcp' -print -quit)" ] ||
	die "the guest left no profile: $(cat "$out/vm/"cmd.stderr "$out/vm/"*/cmd.stderr 2>/dev/null | tail -n 3)"
# CMD's own exit status on each side, when it was not 0
for side in native vm; do
	for f in "$out/$side/cmd.status" "$out/$side/"*/cmd.status; do
		[ -r "$f" ] && [ "$(cat "$f")" != 0 ] &&
			say "note: CMD exited with status $(cat "$f") ($side${f#"$out/$side"}; its stderr is beside it)"
	done
done

# ---- compare ----
join() {	# join SIDE: the side's runs, comma-separated, for diff
	local s=$1 r=
	if [ "$repeats" -eq 1 ]; then
		echo "$out/$s"
		return
	fi
	for i in $(seq 1 "$repeats"); do
		r="$r${r:+,}$out/$s/$i"
	done
	echo "$r"
}
"$here/pmcprof-diff" --header --label native --label "vm-$accel_used" "${dargs[@]}" "$(join native)" "$(join vm)" \
	>"$out/diff.txt" 2>"$out/diff.stderr"
dst=$?
cat "$out/diff.stderr" >&2
[ $dst -eq 0 ] || die "pmcprof diff failed (status $dst)"
# The headers, the first 40 rows and the footer; diff.txt has them all.
awk '/^#/ { print; next } { if (++n <= 41) print; else cut++ }
     END { if (cut) printf "# ... %d more rows in diff.txt\n", cut }' "$out/diff.txt"
say "native/ and vm/ profiles and diff.txt are in $out"
say "guest: QEMU $(echo "$accel_used" | tr a-z A-Z)$([ "$accel_used" = tcg ] && echo ' (emulation, not hardware virtualization)')"
exit 0
