# Every process is profiled: fork, fork+exec, vfork+exec, posix_spawn with
# an environment of its own, system(), and a shell running a chain.
. "$PMCPROF_SRC/tests/lib.sh"
INSPECT="$PROGS/rec_inspect"

has() {	# file function: is function anywhere in file's stacks?
	"$INSPECT" stacks "$1" | grep -q ":$2\( \|;\|\$\)"
}

"$PMCPROF" record -e cpu-clock@1000000 -o out -- "$PROGS/rec_fork" "$PROGS/rec_exit" >procs.txt 2>err.txt
check "rec_fork: exit 0" [ $? -eq 0 ]
for how in fork fork-exec vfork-exec posix_spawn parent; do
	pid=$(sed -n "s/^pid=\([0-9]*\) how=$how\$/\1/p" procs.txt)
	case $how in
	fork) prog=rec_fork fn=child_work ;;
	parent) prog=rec_fork fn=parent_work ;;
	*) prog=rec_exit fn=burn_main ;;
	esac
	f=$(ls out/$prog-*-"$pid"-"$pid".pmcp 2>/dev/null)
	check "$how: process $pid profiled as $prog" [ -n "$f" ]
	[ -n "$f" ] && check "$how: $fn in its profile" has "$f" $fn
done
pid=$(sed -n 's/^pid=\([0-9]*\) how=fork-exec$/\1/p' procs.txt)
f=$(ls out/rec_fork-*-"$pid"-"$pid".pmcp 2>/dev/null)
check "fork-exec: the image before exec wrote its own profile" [ -n "$f" ]
[ -n "$f" ] && check "fork-exec: child_work before the exec is in it" has "$f" child_work
n=$(ls out/rec_exit-*.pmcp | wc -l)
check "rec_exit ran 4 times (fork-exec, vfork, posix_spawn, system): $n profiles" [ "$n" -eq 4 ]
check "system()'s shell was profiled" [ -n "$(ls out/sh-*.pmcp 2>/dev/null)" ]
ppid=$("$INSPECT" meta "$(ls out/rec_fork-*-"$pid"-"$pid".pmcp)" ppid)
parent=$(sed -n 's/^pid=\([0-9]*\) how=parent$/\1/p' procs.txt)
check "a child records its parent's pid ($ppid)" [ "$ppid" = "$parent" ]

"$PMCPROF" record -e cpu-clock@1000000 -o chain -- sh -c "$PROGS/rec_exit return 40; $PROGS/rec_exit exit3 40; exit 0" 2>err.txt
check "sh -c chain: exit 0" [ $? -eq 0 ]
n=$(ls chain/rec_exit-*.pmcp | wc -l)
check "sh -c chain: both commands profiled ($n)" [ "$n" -eq 2 ]
check "sh -c chain: the shell too" [ -n "$(ls chain/sh-*.pmcp 2>/dev/null)" ]
for f in chain/rec_exit-*.pmcp; do
	check "sh -c chain: $(basename "$f") has burn_main" has "$f" burn_main
done
