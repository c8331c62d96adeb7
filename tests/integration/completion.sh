# Bash completion: subcommands, event names from `pmcprof list --names`, options.
. "$PMCPROF_SRC/tests/lib.sh"
command -v bash >/dev/null || { skip "no bash"; exit 0; }

complete_words() {	# words... -> the completions, one per line
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_pmcprof; printf "%s\n" "${COMPREPLY[@]}"' _ "$PMCPROF_SRC/scripts/pmcprof.bash-completion" "$@"
}
complete_words "$PMCPROF" rec >c1.txt
contains "subcommand completes" "^record$" c1.txt
complete_words "$PMCPROF" record -e cpu-c >c2.txt
contains "event names complete after -e" "^cpu-clock$" c2.txt
complete_words "$PMCPROF" stat -e CPUT >c3.txt
contains "backend events complete" "^CPUTIME$" c3.txt
complete_words "$PMCPROF" stat --no >c4.txt
contains "options come from --help" "^--no-fallback$" c4.txt
complete_words "$PMCPROF" stat -b cpu >c5.txt
contains "backends complete" "^cputimer$" c5.txt
complete_words "$PMCPROF" record -e cpu-clock,task-c >c6.txt
contains "-e a,b: the list's last element completes" "^cpu-clock,task-clock$" c6.txt
complete_words "$PMCPROF" record --call-graph dw >c7.txt
contains "--call-graph values complete" "^dwarf$" c7.txt
complete_words "$PMCPROF" report --sort ds >c8.txt
contains "report --sort keys complete (perf's too)" "^dso$" c8.txt
complete_words "$PMCPROF" report --perc >c9.txt
contains "new options come from --help" "^--percent-limit$" c9.txt
complete_words "$PMCPROF" ann >c20.txt
contains "annotate completes" "^annotate$" c20.txt
complete_words "$PMCPROF" report -g cal >c21.txt
contains "report -g completes perf's orders" "^caller$" c21.txt
complete_words "$PMCPROF" report --sort co >c22.txt
contains "report --sort completes comm" "^comm$" c22.txt
complete_words "$PMCPROF" diff --ti >c23.txt
contains "diff --time completes" "^--time$" c23.txt
complete_words "$PMCPROF" view --ti >c24.txt
contains "view --time completes" "^--time$" c24.txt
mkdir -p 10dir
complete_words "$PMCPROF" diff --time 1 >c25.txt
lacks "diff --time SPEC: no file names offered" "10dir" c25.txt
