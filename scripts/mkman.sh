#!/bin/sh
# mkman.sh PROGRAM NAME SUMMARY VERSION > NAME.1
# Turns a command's --help text into a man page, so the two never disagree.
prog=$1 name=$2 summary=$3 version=$4
help=$("$prog" --help) || { echo "mkman: $prog --help failed" >&2; exit 1; }
upper=$(echo "$name" | tr 'a-z-' 'A-Z-')
# roff: escape backslashes and leading dots/quotes.
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
printf '.TH %s 1 "" "pmcprof %s" "pmcprof manual"\n' "$upper" "$version"
printf '.SH NAME\n%s \\- %s\n' "$name" "$summary"
printf '.SH SYNOPSIS\n.nf\n'
echo "$help" | sed -n '1,/^$/p' | sed 's/^usage: //' | esc
printf '.fi\n.SH DESCRIPTION\n.nf\n'
echo "$help" | sed '1,/^$/d' | esc
printf '.fi\n.SH SEE ALSO\npmcprof(1), pmcprof-record(1), pmcprof-report(1), pmcprof-diff(1),\n'
printf 'pmcprof-view(1), pmcprof-stat(1), pmcprof-list(1), pmcprof-probe(1), pmcprof-dump(1)\n'
