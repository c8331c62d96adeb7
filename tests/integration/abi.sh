# libpmc's ABI: every symbol libpmc.so exports is named in backend/libpmc.map
# in the node it is exported with (a new function in no node fails here),
# every name in the map is exported, every PMC_API call of the headers is;
# the commands that use libpmc are ELF programs (no libtool wrapper script)
# linked with libpmc.so, finding the tree's own copy by a build-tree-free
# DT_RUNPATH, and call only what it exports;
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
awk '{ print $1 }' exported | sort -u >exported.names
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

# The commands link libpmc.so (docs/libpmc.md, "Who links libpmc.so"): each
# is an ELF program, not libtool's wrapper script (which record_firstlaw's
# env -i and the arm64 guest's busybox cannot have); NEEDED names the
# library's soname; its DT_RUNPATH holds $ORIGIN/backend/.libs and no path
# of the build tree (make install copies the file); run from the tree it
# loads the tree's libpmc.so; and it holds no copy of the core: every pmc_
# call is an undefined symbol bound to an exported version.
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if ! command -v readelf >/dev/null || [ -z "$soname" ]; then
	skip "abi: no readelf, or no soname in $so"
else
	for c in pmcprof pmcprof-record pmcprof-stat pmcprof-list pmcprof-probe; do
		f=$PMCPROF_BUILD/$c
		magic=$(od -An -c -N4 "$f" 2>/dev/null | tr -d ' ')
		check "$c is an ELF program, no wrapper script (starts with '$magic')" \
			[ "$magic" = "177ELF" ]
		readelf -d "$f" >dyn.txt 2>&1
		contains "$c: NEEDED $soname" "(NEEDED).*\\[$soname\\]" dyn.txt
		rp=$(sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' dyn.txt)
		check "$c: DT_RUNPATH \$ORIGIN/backend/.libs first, no build-tree path ($rp)" \
			sh -c 'case "$1:" in "\$ORIGIN/backend/.libs:"*) ;; *) exit 1 ;; esac
				case ":$1:" in *":$2"[/:]*) exit 1 ;; esac' - "$rp" "$PMCPROF_BUILD"
		# which libpmc the dynamic loader maps, with no LD_LIBRARY_PATH
		env -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$f" >ldd.txt 2>&1
		contains "$c: run from the tree, it loads the tree's libpmc" \
			"$soname => $(dirname "$so")/$soname " ldd.txt
		nm -D --undefined-only "$f" 2>/dev/null | awk '$2 ~ /^pmc_/ { print $2 }' | sort -u >dynu
		nm --defined-only "$f" 2>/dev/null | awk '$3 ~ /^pmc_/ { print $3 }' >defd
		bad=$(awk '{ sub(/@.*/, ""); print }' dynu | sort -u | comm -23 - exported.names | tr '\n' ' ')
		unv=$(grep -v '@PMC_' dynu | tr '\n' ' ')
		check "$c: $(wc -l <dynu) pmc_ calls, all exported and versioned${bad:+ (not exported: $bad)}${unv:+ (no version: $unv)}" \
			sh -c '[ -s dynu ] && [ -z "$1" ]' - "$bad$unv"
		check "$c: no copy of the core linked in ($(wc -l <defd) pmc_ definitions)" [ ! -s defd ]
	done
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
