#!/bin/sh
# pmcprof dump: the raw contents of a known profile, and the exit status and
# message for bad files and bad usage.
. "$PMCPROF_SRC/tests/lib.sh"
DUMP=$PMCPROF_BUILD/pmcprof-dump

# A known profile: three samples of canned `perf script` text, through the
# same converter the size benchmark uses.  The kernel leaf frame is dropped;
# callers are stored as return address - 1.
cat >script.txt <<'END'
app 100 1.000000: PERF_RECORD_MMAP2 100/100: [0x555555555000(0x1000) @ 0x1000 fe:00 1 0]: r-xp /opt/app/bin/app
app 100 1.000000: PERF_RECORD_MMAP2 100/100: [0x7f0000026000(0x100000) @ 0x26000 fe:00 2 0]: r-xp /lib/libc.so.6
app 100 1.000000:     250000 cpu-clock:
	            1150 leaf+0x10 (/opt/app/bin/app)
	            1201 caller+0x11 (/opt/app/bin/app)
	           27249 __libc_start_call_main+0x79 (/lib/libc.so.6)

app 100 1.000250:     250000 cpu-clock:
	            1150 leaf+0x10 (/opt/app/bin/app)
	            1201 caller+0x11 (/opt/app/bin/app)
	           27249 __libc_start_call_main+0x79 (/lib/libc.so.6)

app 100 1.000500:     250000 cpu-clock:
	ffffffff81000130 entry_SYSCALL_64+0x76 ([kernel.kallsyms])
	            1160 leaf+0x20 (/opt/app/bin/app)
	            1201 caller+0x11 (/opt/app/bin/app)
	           27249 __libc_start_call_main+0x79 (/lib/libc.so.6)
END
echo "0123456789abcdef0123456789abcdef01234567 /opt/app/bin/app" >buildids.txt
"$PMCPROF_BUILD/tests/bench/perf2pmcp" -m command=app -m "argv=app --fast" \
	script.txt buildids.txt known.pmcp >/dev/null
check "known profile written" test -s known.pmcp

"$DUMP" known.pmcp >out 2>err
check "dump: exit 0" [ $? -eq 0 ]
contains "dump: header" "^header: format 1, flags 0x0, header 40 bytes" out
contains "dump: meta" "^  argv = app --fast$" out
contains "dump: event" "^  0: perf::CPU-CLOCK requested=\"cpu-clock\" unit=ns period=0 freq=4000 random_mask=0x0 weight=750000$" out
contains "dump: module with hex build-id" \
	"^  0: /opt/app/bin/app \[0x555555555000, 0x555555556000) bias=0x555555554000 load_seq=1 unload_seq=0 build-id=0123456789abcdef0123456789abcdef01234567$" out
contains "dump: module without build-id" "^  1: /lib/libc.so.6 .* build-id=none$" out
contains "dump: counters" "^  samples = 3$" out
# The tree, exactly: indentation is depth, counts are exclusive.
sed -n '/^cct/,$p' out >tree
cat >tree.expected <<'END'
cct (5 nodes, 1 events; counts are exclusive):
  #0 [no module] 0x0  [0]
    #1 libc.so.6+0x27248  [0]
      #2 app+0x1200  [0]
        #3 app+0x1150  [2]
        #4 app+0x1160  [1]
END
if cmp -s tree tree.expected; then
	pass "dump: the CCT as an indented tree"
else
	fail "dump: the CCT as an indented tree"
	diff tree.expected tree | sed 's/^/    | /'
fi
check "dump: nothing on stderr" test ! -s err

# Strings from a file are shown, not obeyed: no raw control bytes on stdout.
"$PMCPROF_BUILD/tests/bench/perf2pmcp" -m "evil=$(printf 'a\033[2Jb\nc')" \
	script.txt buildids.txt evil.pmcp >/dev/null
"$DUMP" evil.pmcp >out 2>&1
contains "dump: control bytes escaped" '^  evil = a\\x1b\[2Jb\\x0ac$' out
check "dump: no escape byte in the output" [ "$(tr -d -c '\033' <out | wc -c)" -eq 0 ]

"$DUMP" "$PMCPROF_SRC/tests/fuzz/corpus/profile/seed-2.pmcp" >out 2>&1
contains "dump: partial flag shown" "^header: format 1, flags 0x1 (partial)" out

"$DUMP" known.pmcp known.pmcp >out 2>&1
rc=$?
check "dump: two files, exit 0" [ $rc -eq 0 ]
check "dump: two files, two dumps" [ "$(grep -c '^file: ' out)" -eq 2 ]

# Bad files: exit 2 and the reader's one-line message, "pmcprof dump: FILE: ...".
head -c 60 known.pmcp >trunc.pmcp
cp /bin/sh foreign.pmcp
cp known.pmcp future.pmcp
printf '\002' | dd of=future.pmcp bs=1 seek=8 conv=notrunc 2>/dev/null
cp known.pmcp flipped.pmcp
size=$(stat -c %s flipped.pmcp)
printf '\377' | dd of=flipped.pmcp bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
for c in "trunc.pmcp:pmcprof dump: trunc.pmcp: truncated: header says" \
	 "foreign.pmcp:pmcprof dump: foreign.pmcp: not a pmcprof profile" \
	 "future.pmcp:pmcprof dump: future.pmcp: written by a newer pmcprof (format 2" \
	 "flipped.pmcp:pmcprof dump: flipped.pmcp: corrupt: " \
	 "missing.pmcp:pmcprof dump: missing.pmcp: No such file"; do
	f=${c%%:*} want=${c#*:}
	"$DUMP" "$f" >out 2>err
	rc=$?
	check "dump $f: exit 2 (got $rc)" [ $rc -eq 2 ]
	contains "dump $f: message" "^$want" err
	check "dump $f: one line" [ "$(wc -l <err)" -eq 1 ]
done
"$DUMP" trunc.pmcp known.pmcp >out 2>err
check "dump: a bad file among good ones: exit 2" [ $? -eq 2 ]
contains "dump: the good file is still dumped" "^file: known.pmcp" out

# Usage.
"$DUMP" >out 2>err
check "dump without files: exit 1" [ $? -eq 1 ]
contains "dump without files: says why" "no profile given" err
"$DUMP" --bogus known.pmcp >out 2>err
check "dump --bogus: exit 1" [ $? -eq 1 ]
"$DUMP" --help >out 2>err
check "dump --help: exit 0" [ $? -eq 0 ]
contains "dump --help: usage" "^Usage: pmcprof dump" out
"$DUMP" -- known.pmcp >out 2>err
check "dump -- FILE" [ $? -eq 0 ]

# Through the front-end, once it exists.
if [ -x "$PMCPROF" ]; then
	"$PMCPROF" dump known.pmcp >out 2>err
	check "pmcprof dump (front-end): exit 0" [ $? -eq 0 ]
	contains "pmcprof dump (front-end): output" "^  samples = 3$" out
else
	skip "pmcprof front-end not built"
fi

# A directory is named as one, with what to do instead (not "Cannot
# allocate memory" from reading it as a file)
mkdir -p adir && cp "$(ls *.pmcp | head -1)" adir/
"$PMCPROF" dump adir >out 2>err
check "dump DIR: exit 2" [ $? -eq 2 ]
contains "dump DIR: says it is a directory of profiles" "adir is a directory (of 1 profile): dump reads profile files" err
