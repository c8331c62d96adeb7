# libpmc's ABI: every symbol libpmc.so exports is named in backend/libpmc.map
# in the node it is exported with (a new function in no node fails here),
# every name in the map is exported, every PMC_API call of the headers is;
# the commands linked with the static core call only what libpmc.so exports;
# and a program built against 0.1 (its caller-allocated plan, bound to
# pmc_plan_make@PMC_0.1) still runs, while new code cannot link that symbol.
. "$PMCPROF_SRC/tests/lib.sh"
so=$PMCPROF_BUILD/backend/.libs/libpmc.so
map=$PMCPROF_SRC/backend/libpmc.map
command -v nm >/dev/null || { skip "abi: no nm"; exit 0; }
[ -f "$so" ] || { skip "abi: no $so (a static build?)"; exit 0; }

# NAME VERSION per line, from the library and from the map.
nm -D --defined-only "$so" | awk '$2 != "A" { split($3, p, "@"); print p[1], p[length(p)] }' |
	sort >exported
awk '/^[A-Za-z_0-9.]+ *\{/ { node = $1 } /^[ \t]+pmc_[a-z0-9_]+;/ { s = $1; sub(/;.*/, "", s); print s, node }' \
	"$map" | sort >mapped
check "libpmc.so exports symbols ($(wc -l <exported))" [ -s exported ]
check "the map names symbols ($(wc -l <mapped))" [ -s mapped ]
if cmp -s exported mapped; then
	pass "every exported symbol is in the map, in the node it is exported with, and the map names no other"
else
	fail "exported symbols and the map differ (< exported, > map)"
	diff exported mapped | grep '^[<>]' | sed 's/^/    | /' | head -20
fi
check "no glob in the map's global lists" sh -c "! grep -E '^[[:space:]]+[a-z_0-9]*\\*[a-z_0-9]*;' '$map' | grep -v 'local' | grep -vq '^[[:space:]]*\\*;'"
cat "$PMCPROF_SRC"/backend/pmc/*.h | tr '\n' ' ' | grep -oE 'PMC_API[^;]*;' |
	grep -oE 'pmc_[a-z_0-9]+\)? *\(' | tr -d '() ' | sort -u >declared
missing=$(awk '{print $1}' exported | sort -u | comm -13 - declared)
check "every PMC_API call of the headers is exported${missing:+ (missing: $missing)}" [ -z "$missing" ]

# The commands link the static core (docs/libpmc.md): the libpmc calls
# their objects make are exported ones all the same.
objs=
for o in cli/pmcprof.o cli/record.o cli/stat.o cli/attach.o cli/exe.o cli/list.o cli/probe.o \
	collector/settings.o \
	attach/.libs/libattach_la-*.o; do
	for f in "$PMCPROF_BUILD"/$o; do [ -f "$f" ] && objs="$objs $f"; done
done
if [ -n "$objs" ]; then
	nm -u $objs 2>/dev/null | awk '$1 == "U" && $2 ~ /^pmc_/ { print $2 }' | sort -u >used
	internal=$(awk '{print $1}' exported | sort -u | comm -23 used -)
	check "the commands (front-end, record, stat, list, probe) call $(wc -l <used) libpmc functions, all exported${internal:+ (not:$internal)}" \
		[ -s used ] && [ -z "$internal" ]
else
	skip "abi: no command objects in the build tree"
fi

# A 0.1 program: its own struct pmc_plan, pmc_plan_make bound to PMC_0.1.
cat >old.c <<'EOC'
#include <stdio.h>
#include <string.h>
#include "pmc.h"
struct plan01 {
	struct pmc_backend *be;
	size_t n;
	struct pmc_event ev[PMC_MAX_EVENTS], req[PMC_MAX_EVENTS];
	_Bool fell_back;
	char why[512];
};
int make01(const char *const *, size_t, const char *, unsigned, struct plan01 *,
	   struct pmc_diag *, char *, size_t);
void release01(struct plan01 *);
__asm__(".symver make01, pmc_plan_make@PMC_0.1");
__asm__(".symver release01, pmc_plan_release@PMC_0.1");
int main(void)
{
	static const char *const spec[] = { "CPUTIME@2000" };
	struct {
		struct plan01 p;
		unsigned char guard[64];	/* what follows the 0.1 struct */
	} w;
	struct plan01 *p = &w.p;
	char err[256];
	int ret;

	memset(w.guard, 0x5a, sizeof(w.guard));
	ret = make01(spec, 1, NULL, 0, p, NULL, err, sizeof(err));
	if (ret < 0) {
		printf("error %d %s\n", ret, err);
		return 1;
	}
	printf("%zu %s %s %llu guard %s\n", p->n, p->ev[0].name, pmc_backend_name(p->be),
	       (unsigned long long)p->ev[0].period,
	       w.guard[0] == 0x5a && w.guard[63] == 0x5a ? "ok" : "overrun");
	release01(p);
	return 0;
}
EOC
if ${CC:-cc} -I"$PMCPROF_SRC/backend" old.c "$so" -Wl,-rpath,"$(dirname "$so")" -o old 2>cc.log; then
	./old >old.out 2>&1
	contains "a 0.1 program's pmc_plan_make@PMC_0.1 fills its own struct, no more" \
		"^1 CPUTIME cputimer 2000 guard ok" old.out
else
	fail "the 0.1 program builds"; sed 's/^/    | /' cc.log | head
fi
printf '#include "pmc.h"\nint pmc_plan_make(void);\nint main(void) { return pmc_plan_make(); }\n' >new.c
check "new code cannot link the 0.1 pmc_plan_make (no default version)" \
	sh -c "! ${CC:-cc} -I'$PMCPROF_SRC/backend' new.c '$so' -o new 2>/dev/null"
