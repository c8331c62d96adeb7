#!/bin/bash
# pmcprof vm: record a command natively and in throwaway QEMU guests (one
# or several named scenarios, Xen among them), then compare them.  The guest boots Debian's own kernel with a busybox
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
  -S, --scenario=NAME[:KEY=VAL,...]  a guest configuration of its own
                        (repeatable): smp=N, mem=MB, cpu=MODEL (QEMU -cpu),
                        accel=auto|kvm|tcg, xen (a Xen PV dom0: Debian's Xen
                        hypervisor under QEMU, the dom0 on the kernel above).
                        Each is recorded into DIR/NAME/, native once for all
                        of them, and one table compares them all
      --xen             a scenario 'xen' (same as -S xen:xen)
      --min-pct=N       the table: functions with at least N% of the native
                        samples (default 1)
      --format=FMT      the table as text (default), md, csv or json
  -h, --help            show this help

Needs Debian's qemu-system-x86, linux-image-amd64, busybox-static, cpio
and kmod ($PMCPROF_QEMU may name another qemu-system-x86_64); a Xen
scenario also xen-hypervisor-4.17-amd64 (or another /boot/xen-*.gz).  With
--repeats 2 or more, the native repeats split in two (odd against even)
give the noise floor, printed beside the table.  The guest
writes only to DIR/vm: files CMD writes elsewhere are lost (its / is
read-only).  CMD's output and exit status are in cmd.stdout, cmd.stderr
and cmd.status beside each side's profiles, the guest's console in
DIR/vm/console.txt (DIR/NAME/ for scenarios).  `pmcprof view DIR/native
DIR/vm` compares them.
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

out= smp=2 mem=1024 repeats=1 accel=auto kernel= tmo=600 minpct=1 fmt=text
events=() qargs=() dargs=() scen=()
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
	-S | --scenario) need_arg "$@"; scen+=("$2"); shift 2 ;;
	--xen) scen+=(xen:xen); shift ;;
	--min-pct) need_arg "$@"; minpct=$2; shift 2 ;;
	--format) need_arg "$@"; fmt=$2; shift 2 ;;
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
case $fmt in text | md | csv | json) ;; *) usage_err "--format is text, md, csv or json, not '$fmt'" ;; esac
case $minpct in '' | *[!0-9.]* | *.*.*) usage_err "--min-pct wants a percentage, not '$minpct'" ;; esac

# ---- the scenarios: NAME, vCPUs, MiB, -cpu, accelerator, xen (0/1) ----
# Without -S, one scenario "vm" from -s, -m and -a (DIR/vm, as always).
sc_name=() sc_smp=() sc_mem=() sc_cpu=() sc_accel=() sc_xen=()
table=yes
if [ ${#scen[@]} -eq 0 ]; then
	scen=(vm)
	table=no
fi
for spec in "${scen[@]}"; do
	name=${spec%%:*} rest=
	case $spec in *:*) rest=${spec#*:} ;; esac
	case $name in
	'' | *[!A-Za-z0-9_-]*) usage_err "--scenario: a name of letters, digits, _ and -, not '$name'" ;;
	native) usage_err "--scenario: 'native' is the native side's name" ;;
	esac
	for n in "${sc_name[@]}"; do
		[ "$n" = "$name" ] && usage_err "--scenario: '$name' given twice"
	done
	s_smp=$smp s_mem=$mem s_cpu= s_accel=$accel s_xen=0
	IFS=, read -r -a kvs <<<"$rest"
	for kv in "${kvs[@]}"; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		smp) isnum "$v" 1 || usage_err "--scenario $name: smp wants a number >= 1, not '$v'"; s_smp=$v ;;
		mem) isnum "$v" 128 || usage_err "--scenario $name: mem wants MiB >= 128, not '$v'"; s_mem=$v ;;
		cpu) case $v in '' | *[!A-Za-z0-9_.,+=-]*) usage_err "--scenario $name: cpu '$v'" ;; esac; s_cpu=$v ;;
		accel) case $v in auto | kvm | tcg) s_accel=$v ;; *) usage_err "--scenario $name: accel is auto, kvm or tcg, not '$v'" ;; esac ;;
		xen) s_xen=1 ;;
		'') ;;
		*) usage_err "--scenario $name: unknown key '$k' (smp, mem, cpu, accel, xen)" ;;
		esac
	done
	sc_name+=("$name") sc_smp+=("$s_smp") sc_mem+=("$s_mem") sc_cpu+=("$s_cpu")
	sc_accel+=("$s_accel") sc_xen+=("$s_xen")
done
nsc=${#sc_name[@]}

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
xen_gz=
for x in "${sc_xen[@]}"; do
	[ "$x" = 1 ] || continue
	xen_gz=$(ls -1 /boot/xen-*.gz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$xen_gz" ] && [ -r "$xen_gz" ] ||
		die "no Xen hypervisor in /boot/xen-*.gz: install Debian's xen-hypervisor-4.17-amd64 package"
	need gzip gzip
done
for t in pmcprof-record pmcprof-diff pmcprof-probe pmcprof-list; do
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
for d in native "${sc_name[@]}"; do
	[ -e "$out/$d" ] && die "$out/$d exists: give a new --output directory"
	mkdir -p "$out/$d" || die "cannot create $out/$d"
done
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
# Xen's dom0 also needs xenfs (/proc/xen) and privcmd: loaded only there.
xmods=$(for m in xenfs; do
	"$modprobe" -S "$kver" --show-depends "$m" 2>/dev/null
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
ir=$work/initramfs
mkdir -p "$ir/bin" "$ir/mod" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root"
cp "$busybox" "$ir/bin/busybox" || die "cannot copy $busybox"
copy_mods() {	# copy_mods MODULE...: into the initramfs; prints their paths there
	local m b
	for m in "$@"; do
		b=${m##*/}
		case $m in
		*.ko) cp "$m" "$ir/mod/" ;;
		*.ko.xz) b=${b%.xz}; xz -dc "$m" >"$ir/mod/$b" ;;
		*.ko.zst) b=${b%.zst}; zstd -qdc "$m" >"$ir/mod/$b" ;;
		*.ko.gz) b=${b%.gz}; gzip -dc "$m" >"$ir/mod/$b" ;;
		*) die "cannot load module $m" ;;
		esac || die "cannot copy module $m"
		printf ' /mod/%s' "$b"
	done
}
# shellcheck disable=SC2086
loads=$(copy_mods $mods) || exit 2
# shellcheck disable=SC2086
xloads=$(copy_mods $xmods) || exit 2

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
xen=
if [ "\$(cat /sys/hypervisor/type 2>/dev/null)" = xen ]; then
	xen=1
	for m in $xloads; do insmod \$m || echo "PMCPROF-VM-FAIL insmod \$m"; done
fi
sc=\$(sed -n 's/.*pmcprof_sc=\([A-Za-z0-9_-]*\).*/\1/p' /proc/cmdline)
o=trans=virtio,version=9p2000.L,msize=262144
if ! mount -t 9p -o \$o,ro,cache=loose hostroot /root; then
	echo "PMCPROF-VM-FAIL mount of the host's / over 9p"; poweroff -f
fi
if grep -q pmcprof_probe /proc/cmdline; then
	echo "PMCPROF-VM-PROBE-OK"; poweroff -f
fi
mount -t proc proc /root/proc
[ -n "\$xen" ] && mount -t xenfs xenfs /root/proc/xen
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev 2>/dev/null
[ "$tmp_tmpfs" = yes ] && mount -t tmpfs tmpfs /root/tmp
mount -t tmpfs tmpfs /root/run 2>/dev/null
mount -t tmpfs tmpfs /root/dev/shm 2>/dev/null
mount -t 9p -o \$o pmcprofout /root$out/\$sc || echo "PMCPROF-VM-FAIL mount of the output share"
hostname pmcprof-guest
t mounted
chroot /root /bin/sh $out/\$sc/.job.sh
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
for i in "${!sc_name[@]}"; do
	[ "${sc_smp[$i]}" -le "$maxcpu" ] || say "note: ${sc_name[$i]}: ${sc_smp[$i]} vCPUs on $maxcpu host CPUs"
done

# qemu_run ACCEL SECONDS LOG APPEND-EXTRA SCENARIO-INDEX
qemu_run() {
	local a=$1 secs=$2 log=$3 extra=$4 i=$5 cpu=() boot=()
	local name=${sc_name[$i]} n=${sc_smp[$i]} m=${sc_mem[$i]} model=${sc_cpu[$i]}
	# The guest's CPU: the host's own under KVM (same features, so libc
	# picks the same string functions as natively), every feature TCG
	# emulates under TCG.  A -cpu in --qemu-args comes later and wins
	# (-cpu host,pmu=on for a vPMU).
	[ -n "$model" ] || { [ "$a" = tcg ] && model=max || model=host; }
	if [ "${sc_xen[$i]}" = 1 ]; then
		# Xen 4.17 faults on QEMU's emulated SMAP (smap=0 on Xen's line
		# works too); the dom0 kernel and the initramfs are its
		# multiboot modules, its console is Xen's serial line.
		case $model in *smap*) ;; *) model=$model,-smap ;; esac
		boot=(-kernel "$work/xen"
			-initrd "$kernel console=hvc0 panic=-1 quiet rdinit=/init pmcprof_sc=$name $extra,$work/initramfs.gz"
			-append "console=com1 com1=115200,8n1 dom0_mem=$((m - 128))M,max:$((m - 128))M dom0_max_vcpus=$n noreboot")
	else
		boot=(-kernel "$boot_kernel" -initrd "$work/initramfs.gz"
			-append "console=ttyS0 panic=-1 quiet rdinit=/init pmcprof_sc=$name $extra")
	fi
	timeout -k 5 "$secs" "$qemu" -accel "$a" -cpu "$model" -smp "$n" -m "$m" \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "file:$log" "${boot[@]}" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$out/$name,mount_tag=pmcprofout,security_model=none,multidevs=remap" \
		"${qargs[@]}" </dev/null >"$log.qemu" 2>&1
}
if [ -n "$xen_gz" ]; then
	gzip -dc "$xen_gz" >"$work/xen" || die "cannot decompress $xen_gz"
fi

# KVM is usable only if it boots this kernel far enough to mount the 9p root:
# a nested or software /dev/kvm (kvm_pvm) may open fine and never boot.
kvm_ok= accel_why= want_kvm=
for a in "${sc_accel[@]}"; do
	[ "$a" != tcg ] && want_kvm=1
done
if [ -n "$want_kvm" ]; then
	if [ ! -c /dev/kvm ]; then
		accel_why="no /dev/kvm"
	elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		accel_why="/dev/kvm is not readable and writable by this user"
	else
		# earlyprintk: a booting kernel says "Linux version" at once.
		sc_xen_0=${sc_xen[0]}
		sc_xen[0]=0
		qemu_run kvm 30 "$work/kvm-probe.log" "pmcprof_probe earlyprintk=ttyS0" 0 &
		qpid=$!
		sc_xen[0]=$sc_xen_0
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
			kvm_ok=1
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
fi
sc_used=()
for i in "${!sc_name[@]}"; do
	a=${sc_accel[$i]} who=
	[ "$nsc" -gt 1 ] || [ "$table" = yes ] && who="${sc_name[$i]}: "
	[ "$a" = kvm ] && [ -z "$kvm_ok" ] && die "${who}--accel kvm: $accel_why"
	if [ "$a" != tcg ] && [ -n "$kvm_ok" ]; then
		sc_used+=(kvm)
		say "guest: ${who}QEMU KVM (hardware virtualization)"
	elif [ "$a" = tcg ]; then
		sc_used+=(tcg)
		say "guest: ${who}QEMU TCG (emulation), as asked with --accel tcg"
	else
		sc_used+=(tcg)
		say "guest: ${who}QEMU TCG (emulation, not hardware virtualization): $accel_why"
	fi
	echo "${sc_used[$i]}" >"$out/${sc_name[$i]}/accel"
done
accel_used=${sc_used[0]}
echo "$accel_used" >"$out/accel"

# ---- the job: same command, directory, environment and event both sides ----
q() { printf '%q ' "$@"; }
write_job() {	# write_job DIR: the guest's job, recording into DIR
	local d=$1
	shift
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
	echo "$(q "$here/pmcprof-probe") >$(q "$d/probe.txt") 2>&1"
	echo "$(q "$here/pmcprof-list") >$(q "$d/list.txt") 2>&1"
	echo "t probed"
	echo 'st=0'
	echo "i=1; while [ \$i -le $repeats ]; do"
	echo "  d=$(printf %q "$d")/\$i; [ $repeats -eq 1 ] && d=$(printf %q "$d")"
	echo "  mkdir -p \"\$d\" || exit 125"
	echo "  $(q "$here/pmcprof-record" "${ev_args[@]}") -o \"\$d/profiles\" -- $(q "$@") </dev/null" \
		">\"\$d/cmd.stdout\" 2>\"\$d/cmd.stderr\"; st=\$?; echo \$st >\"\$d/cmd.status\""
	echo '  t "recorded $i"; i=$((i + 1)); done'
	echo 'sync; exit $st'
}
for name in "${sc_name[@]}"; do
	write_job "$out/$name" "$@" >"$out/$name/.job.sh"
done

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

# ---- guests, one after the other ----
run_guest() {	# run_guest INDEX: 0, or 1 with the reason said
	local i=$1 name=${sc_name[$i]} a=${sc_used[$i]} dir=$out/${sc_name[$i]} t0 t1 qst what
	what="booting $kernel$([ "$boot_kernel" != "$kernel" ] && echo ' (unpacked: PVH boot)')"
	[ "${sc_xen[$i]}" = 1 ] && what="booting Xen ($xen_gz) with a PV dom0 on $kernel"
	say "$name: $what with ${sc_smp[$i]} vCPUs, ${sc_mem[$i]} MiB ($a${sc_cpu[$i]:+, -cpu ${sc_cpu[$i]}})"
	t0=$(date +%s)
	qemu_run "$a" "$tmo" "$dir/console.log" "" "$i" &
	qpid=$!
	wait "$qpid"
	qst=$?
	qpid=
	t1=$(date +%s)
	tr -d '\r' <"$dir/console.log" >"$dir/console.txt" 2>/dev/null
	rm -f "$dir/console.log"
	mv -f "$dir/console.log.qemu" "$dir/qemu.log" 2>/dev/null
	local done_line steps why
	done_line=$(grep -a '^PMCPROF-VM-DONE' "$dir/console.txt" | tail -n 1)
	# guest uptime at each step, for the curious: "booted 3.1 s, mounted 3.4 s, ..."
	steps=$(awk '$1 == "PMCPROF-VM-T" { $1 = ""; t = $2; $2 = ""; sub(/^ +/, ""); printf "%s%s %.1f s", sep, $0, t; sep = ", " }' "$dir/console.txt")
	if [ -z "$done_line" ]; then
		why=$(grep -a '^PMCPROF-VM-FAIL' "$dir/console.txt" | head -n 1)
		[ $qst -eq 124 ] && why="timed out after $tmo s (--timeout)${why:+; $why}"
		[ -n "$why" ] || why="QEMU exited with status $qst; $(tail -n 2 "$dir/qemu.log" 2>/dev/null | tr '\n' ' ')"
		echo "the guest did not finish: $why (see $dir/console.txt)" >"$dir/failed"
		return 1
	fi
	say "$name: guest ran for $((t1 - t0)) s (guest uptime at: $steps)"
	echo "$((t1 - t0))" >"$dir/seconds"
	rm -f "$dir/.job.sh"
	if [ -z "$(find "$dir" -name '*.pmcp' -print -quit)" ]; then
		echo "the guest left no profile: $(cat "$dir/"cmd.stderr "$dir/"*/cmd.stderr 2>/dev/null | tail -n 3)" >"$dir/failed"
		return 1
	fi
	return 0
}
ok=()
for i in "${!sc_name[@]}"; do
	if run_guest "$i"; then
		ok+=("$i")
	elif [ "$nsc" -eq 1 ]; then
		die "$(cat "$out/${sc_name[$i]}/failed")"
	else
		say "${sc_name[$i]}: $(cat "$out/${sc_name[$i]}/failed"); left out of the table"
	fi
done
[ ${#ok[@]} -gt 0 ] || die "no guest finished"
# CMD's own exit status on each side, when it was not 0
for side in native "${sc_name[@]}"; do
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
# The noise floor: native's repeats against each other (diff --noise-floor).
nf=()
[ "$repeats" -ge 2 ] && nf=(--noise-floor)
if [ "$table" = no ]; then
	"$here/pmcprof-diff" --header "${nf[@]}" --label native --label "vm-$accel_used" "${dargs[@]}" \
		"$(join native)" "$(join vm)" >"$out/diff.txt" 2>"$out/diff.stderr"
	dst=$?
	cat "$out/diff.stderr" >&2
	[ $dst -eq 0 ] || die "pmcprof diff failed (status $dst)"
	# The headers, the first 40 rows and the footer; diff.txt has them all.
	awk '/^#/ { print; next } { if (++n <= 41) print; else cut++ }
	     END { if (cut) printf "# ... %d more rows in diff.txt\n", cut }' "$out/diff.txt"
	say "native/ and vm/ profiles and diff.txt are in $out"
	say "guest: QEMU $(echo "$accel_used" | tr a-z A-Z)$([ "$accel_used" = tcg ] && echo ' (emulation, not hardware virtualization)')"
	exit 0
fi
# One table: native and every guest that finished, as columns.
labels=(--label native) runs=("$(join native)")
for i in "${ok[@]}"; do
	labels+=(--label "${sc_name[$i]}")
	runs+=("$(join "${sc_name[$i]}")")
done
fa=()
case $fmt in md) fa=(--markdown) ;; csv) fa=(--csv) ;; json) fa=(--json) ;; esac
ext=$fmt
[ "$fmt" = text ] && ext=txt
{
	if [ "$fmt" = text ] || [ "$fmt" = md ]; then
		p='# '
		[ "$fmt" = md ] && p='- '
		for i in "${!sc_name[@]}"; do
			d=$out/${sc_name[$i]}
			echo "${p}scenario ${sc_name[$i]}: QEMU ${sc_used[$i]}, ${sc_smp[$i]} vCPUs, ${sc_mem[$i]} MiB, -cpu ${sc_cpu[$i]:-$([ "${sc_used[$i]}" = tcg ] && echo max || echo host)}$([ "${sc_xen[$i]}" = 1 ] && echo ", Xen PV dom0 ($(basename "$xen_gz"))")$([ -r "$d/seconds" ] && echo ", $(cat "$d/seconds") s")$([ -r "$d/failed" ] && echo ": FAILED, $(cat "$d/failed")")"
		done
	fi
	"$here/pmcprof-diff" --table "${fa[@]}" "${nf[@]}" --min-pct "$minpct" "${labels[@]}" \
		"${dargs[@]}" "${runs[@]}" 2>"$out/diff.stderr"
} >"$out/table.$ext"
dst=$?
grep -v '^pmcprof diff: warning: .*: collector counter' "$out/diff.stderr" >&2
[ $dst -eq 0 ] || die "pmcprof diff failed (status $dst)"
cat "$out/table.$ext"
say "the profiles (native/ and one directory per scenario) and table.$ext are in $out"
exit 0
