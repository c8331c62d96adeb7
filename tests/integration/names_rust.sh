#!/bin/sh
# Rust names as perf shows them, with their path (names_rs::r::hashy, not
# hashy), for legacy and v0 symbol mangling; the hash of legacy names is
# not shown (perf's spelling, libiberty's demangler).  A release build with
# debug info, and one stripped of it (the names then come from the ELF
# symbol table alone).
. "$PMCPROF_SRC/tests/lib.sh"
export PMCPROF_CACHE_DIR="$TMP/symbols"
need_cmd rustc
need_record
for mangling in legacy v0; do
	flag=; [ $mangling = v0 ] && flag="-C symbol-mangling-version=v0"	# legacy: the default
	# shellcheck disable=SC2086
	rustc -g -C opt-level=2 -C force-frame-pointers=yes $flag \
		-o "rs_$mangling" "$PMCPROF_SRC/tests/progs/names_rs.rs" 2>rustc.err ||
		{ fail "$mangling: rustc failed"; sed 's/^/    | /' rustc.err | head; continue; }
	nm "rs_$mangling" | grep -q "$([ $mangling = v0 ] && echo _RNv || echo _ZN).*hashy" ||
		fail "$mangling: the symbol is not mangled as asked"
	objcopy --strip-debug "rs_$mangling" "rs_${mangling}_nodebug"
	for bin in "rs_$mangling" "rs_${mangling}_nodebug"; do
		"$PMCPROF" record -e cpu-clock@200000 -o "rec_$bin" -- "./$bin" 5 >/dev/null 2>rec.err ||
			{ fail "$bin: record failed"; sed 's/^/    | /' rec.err; continue; }
		# --no-cache: the stripped copy has the same build-id, and the
		# cache would answer for it with DWARF
		"$PMCPROF" report --no-cache --csv "rec_$bin" >"$bin.csv" 2>/dev/null
		cut -d, -f2 "$bin.csv" >"$bin.txt"
		# v0 shows an inherent impl's method as <path::Type>::method
		for want in 'names_rs::r::hashy' '<\{0,1\}names_rs::r::Table>\{0,1\}::fill'; do
			if grep -qx "$want" "$bin.txt"; then
				pass "$bin: a row '$want'"
			else
				fail "$bin: no row '$want'"; sed 's/^/    | /' "$bin.txt" | head
			fi
		done
		if grep -Eq '(_ZN|_RNv|::h[0-9a-f]{16})' "$bin.txt"; then
			fail "$bin: mangled names or hashes are left"; grep -E '(_ZN|_RNv|::h[0-9a-f]{16})' "$bin.txt" | head -3
		else
			pass "$bin: no mangled names, no hashes"
		fi
	done
done
