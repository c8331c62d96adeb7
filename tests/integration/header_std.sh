# backend/pmc.h, the umbrella header, compiles cleanly as strict ISO
# C99, C11 and C17 (-pedantic -Wall -Wextra -Werror, no feature macros) and
# as C++17, with gcc and with clang when present; and a signal handler that
# passes its siginfo_t * to pmc_group_overflow compiles in both languages.
# Each object's header (backend/pmc/NAME.h) compiles alone, first and only.
. "$PMCPROF_SRC/tests/lib.sh"

cat >use.c <<'EOC'
#include "pmc.h"
int main(void)
{
	struct pmc_count c;
	PMC_GROUP_OPTS(opts, .pid = 0, .sample = false);
	c.value = 0;
	return (int)c.value + (int)opts.pid + (pmc_strerror(-PMC_EEVENT) ? 0 : 1);
}
EOC
# A POSIX program's handler, the header's real use.
cat >handler.c <<'EOC'
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include "pmc.h"
static struct pmc_group *g;
static void on_sig(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)uc;
	if (pmc_group_overflow(g, si) >= 0)
		pmc_group_rearm(g, 0, 0);
}
int main(void)
{
	struct sigaction sa;
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR1, &sa, 0);
}
EOC
# C++17 has no designated initializers: PMC_GROUP_OPTS is for C (and C++20).
sed 's/PMC_GROUP_OPTS(opts, .pid = 0, .sample = false);/struct pmc_group_opts opts = {}; opts.sz = sizeof(opts);/' use.c >use.cc
cp handler.c handler.cc
W="-pedantic -Wall -Wextra -Werror -I$PMCPROF_SRC/backend -fsyntax-only"

ccs="${CC:-cc}"
cxxs="${CXX:-c++}"
command -v clang >/dev/null && ccs="$ccs clang"
command -v clang++ >/dev/null && cxxs="$cxxs clang++"
for cc in $ccs; do
	command -v "$cc" >/dev/null || { skip "pmc.h: no $cc"; continue; }
	for std in c99 c11 c17; do
		for f in use.c handler.c; do
			compiles "pmc.h: $f as $std with $cc -pedantic -Wall -Wextra -Werror" $cc -std=$std $W "$f"
		done
	done
done
for cxx in $cxxs; do
	command -v "$cxx" >/dev/null || { skip "pmc.h: no $cxx"; continue; }
	for f in use.cc handler.cc; do
		compiles "pmc.h: $f as C++17 with $cxx -pedantic -Wall -Wextra -Werror" $cxx -std=c++17 $W "$f"
	done
done
for h in "$PMCPROF_SRC"/backend/pmc/*.h; do
	header_alone "pmc/$(basename "$h")" $W
done
