#!/bin/sh
# The man pages (docs/man/*.scd): every section, every option of the
# command's --help, and scdoc renders them.
. "$PMCPROF_SRC/tests/lib.sh"
MAN="$PMCPROF_SRC/docs/man"

for page in pmcprof record report script diff view annotate stat list probe dump vm archive; do
	if [ "$page" = pmcprof ]; then src=$MAN/pmcprof.1.scd; else src=$MAN/pmcprof-$page.1.scd; fi
	[ -f "$src" ] || { fail "$page: no $src"; continue; }
	missing=
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
		grep -q "^# $sec\$" "$src" || missing="$missing '$sec'"
	done
	check "$page: every section${missing:+ (missing$missing)}" test -z "$missing"
	[ "$page" = pmcprof ] && continue
	# each --help option, long and short, is in OPTIONS as *--name* / *-x*
	"$PMCPROF" "$page" --help >help.txt 2>&1
	missing=
	for o in $(grep -oE '^ +(-[a-zA-Z], )?--[a-z][-a-z]*|^ +-[a-zA-Z]\b' help.txt | grep -oE -- '--?[a-zA-Z][-a-z]*'); do
		grep -qF -- "*$o*" "$src" || missing="$missing $o"
	done
	check "$page: every --help option is in the man page${missing:+ (missing:$missing)}" test -z "$missing"
done
if command -v scdoc >/dev/null; then
	bad=
	for f in "$MAN"/*.scd; do scdoc <"$f" >/dev/null 2>err.txt || bad="$bad $(basename "$f")"; done
	check "scdoc renders every page${bad:+ (not:$bad)}" test -z "$bad"
else
	fail "scdoc is not installed (scripts/install-deps.sh)"
fi
