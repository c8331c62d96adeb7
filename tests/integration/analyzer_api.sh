# The analyzer's public interface (docs/analyzer.md, "Library API in
# brief"): each object's header (analyzer/ana/NAME.h) compiles alone, first
# and only, as C99 and as C++17; the umbrella analyzer/analyzer.h compiles
# as strict C99, C11, C17 and C++17; and ANA_API means something although
# the library is static: every analyzer function the commands (cli/,
# viewer-tui/) call is declared ANA_API in a public header, every ANA_API
# function is defined by the library, and the commands include no private
# analyzer header.  The ANA_API check is run once more on headers with one
# mark taken away, where it must fail.
. "$PMCPROF_SRC/tests/lib.sh"

ana=$PMCPROF_SRC/analyzer
# The public headers: ana/*.h, the column model (table.h) and the JSON
# writer the commands share (json.h) among them.
public="$ana/ana/*.h"
W="-pedantic -Wall -Wextra -Werror -I$PMCPROF_SRC -fsyntax-only"

n=0
for h in "$ana"/ana/*.h; do
	n=$((n + 1))
	header_alone "analyzer/ana/$(basename "$h")" $W
done
check "analyzer/ana holds the object headers ($n)" [ "$n" -ge 10 ]
check "analyzer/analyzer.h is an umbrella (no declaration of its own)" \
	sh -c "! grep -qE '^(ANA_API|struct|enum|typedef)' '$ana/analyzer.h'"

cat >use.c <<'EOC'
#include "analyzer/analyzer.h"
int main(void)
{
	ANA_OPTS(o, .weighted = true);
	ANA_QUERY(q, .view = ANA_VIEW_FUNCS, .top = 10);
	struct ana_set *s = ana_set_new(&o);
	return (int)q.top + (s ? 0 : 1) + (ana_strerror(-ANA_ESTATE) ? 0 : 1);
}
EOC
# C++17 has no designated initializers: ANA_OPTS and ANA_QUERY are for C.
cat >use.cc <<'EOC'
#include "analyzer/analyzer.h"
int main(void)
{
	struct ana_opts o = {};
	struct ana_query q = {};
	o.sz = sizeof(o);
	q.sz = sizeof(q);
	q.base = -1;
	struct ana_set *s = ana_set_new(&o);
	return (int)q.top + (s ? 0 : 1) + (ana_strerror(-ANA_ESTATE) ? 0 : 1);
}
EOC
ccs="${CC:-cc}"
cxxs="${CXX:-c++}"
command -v clang >/dev/null && ccs="$ccs clang"
command -v clang++ >/dev/null && cxxs="$cxxs clang++"
for cc in $ccs; do
	command -v "$cc" >/dev/null || { skip "analyzer.h: no $cc"; continue; }
	for std in c99 c11 c17; do
		compiles "analyzer.h as $std with $cc -pedantic -Wall -Wextra -Werror" $cc -std=$std $W use.c
	done
done
for cxx in $cxxs; do
	command -v "$cxx" >/dev/null || { skip "analyzer.h: no $cxx"; continue; }
	compiles "analyzer.h as C++17 with $cxx -pedantic -Wall -Wextra -Werror" $cxx -std=c++17 $W use.cc
done

# What the commands include of the analyzer: public headers only.
private=$(cd "$PMCPROF_SRC" && cat cli/*.c cli/*.h viewer-tui/*.c viewer-tui/*.h 2>/dev/null |
	sed -n 's/^#include "\(analyzer\/[^"]*\)".*/\1/p' | sort -u |
	grep -vxE 'analyzer/analyzer\.h|analyzer/ana/[a-z_]+\.h|analyzer/table\.h|analyzer/json\.h')
check "the commands include no private analyzer header${private:+ (they do: $private)}" [ -z "$private" ]

# ANA_API: the names declared with it in the headers of $1 (comments and
# preprocessor lines left out).
declared() {
	cat $1 | grep -v '^#' | tr '\n' ' ' | sed -E 's#/\*([^*]|\*+[^*/])*\*+/# #g' |
		grep -oE 'ANA_API [^;]*;' |
		sed -E 's/^ANA_API[^(]*[^a-z_0-9]([a-z_][a-z_0-9]*) *\(.*/\1/' | sort -u
}
lib=$PMCPROF_BUILD/analyzer/.libs
objs=
for o in "$PMCPROF_BUILD"/cli/*.o "$PMCPROF_BUILD"/viewer-tui/*.o; do
	[ -f "$o" ] && objs="$objs $o"
done
if ! command -v nm >/dev/null; then
	skip "ANA_API: no nm"
elif [ -z "$objs" ] || ! ls "$lib"/libpmcprof_analyzer_la-*.o >/dev/null 2>&1; then
	skip "ANA_API: no command or analyzer objects in the build tree"
else
	# The analyzer's own functions (not the profile library folded into
	# the archive, nor the generated protobuf code).
	ls "$lib"/libpmcprof_analyzer_la-*.o | grep -v 'profile\.pb-c' >libobjs
	nm --defined-only $(cat libobjs) | awk '$2 == "T" { print $3 }' | sort -u >defined
	nm -u $objs | awk '$1 == "U" { print $2 }' | sort -u | comm -12 - defined >used
	check "the library defines functions ($(wc -l <defined))" [ -s defined ]
	check "the commands call analyzer functions ($(wc -l <used))" [ -s used ]
	declared "$public" >marked
	missing=$(comm -23 used marked | tr '\n' ' ')
	check "every analyzer function the commands call is ANA_API in a public header${missing:+ (not: $missing)}" \
		[ -z "$missing" ]
	stale=$(comm -13 defined marked | tr '\n' ' ')
	check "every ANA_API function ($(wc -l <marked)) is defined by the library${stale:+ (not: $stale)}" \
		[ -z "$stale" ]
	# The check bites: take the mark off one used function's declaration.
	victim=$(grep '^ana_' used | head -1)
	mkdir -p copy
	for h in $public; do cp "$h" copy/; done
	sed -i "s/^ANA_API \(.*[^a-z_0-9]$victim(\)/\1/" copy/*.h
	declared "copy/*.h" >marked2
	check "the check fails when $victim loses its ANA_API" \
		sh -c "[ -n '$victim' ] && comm -23 used marked2 | grep -qx '$victim'"
fi
