#!/bin/sh
# The house's law, read from the built objects' symbol tables (nm), which
# also see the calls made through the format table that the Makefile's
# per-folder -I rule cannot see:
#   - each room calls only the rooms beneath it (formats/README.md):
#       base      -> base
#       model     -> base model
#       analyze   -> base model analyze
#       capture   -> base model capture            (sampler-core/)
#       util      -> base model util               (formats/util/)
#       format    -> base model util analyze format
#                    (formats/fmt_*.c and formats/DIR/)
#       table     -> base model util format table  (format.c load.c save.c
#                    parallel.c: the format table and what uses it)
#       cmd       -> everything
#     so only formats/ and cmd/ reach the format table;
#   - no two library files call each other (A uses a symbol B defines and
#     B one A defines), and more: the library's calls between files form
#     no cycle at all (tsort), so every room's files stack one way;
#   - every global symbol the library defines starts with sf_ (sfc_ in
#     sampler-core), so a program linking libsftools.a meets no clash
#     (names from "__", which the compiler reserves, aside: ASan adds
#     __odr_asan.NAME beside each global);
#   - no library .c over 1300 lines, no program's main file over 300.
# The checker is first run on a made-up symbol list with known breaches,
# so a checker that finds nothing cannot pass.
. "$TOP/tests/lib.sh"

obj=${SF_BUILD:-$TOP/build}

room() { # OBJECT PATH (relative to the build dir) -> room name
	case $1 in
	formats/base/*) echo base ;;
	formats/model/*) echo model ;;
	formats/util/*) echo util ;;
	formats/format|formats/load|formats/save|formats/parallel) echo table ;;
	formats/*) echo format ;;
	analyze/*) echo analyze ;;
	sampler-core/*) echo capture ;;
	cmd/*) echo cmd ;;
	*) echo other ;;
	esac
}

# check EDGES: EDGES has lines "CALLER CALLEE SYMBOL" (object paths);
# prints one line per breach
check() {
	while read -r from to sym; do
		echo "$from $(room "$from") $to $(room "$to") $sym"
	done < "$1" | awk '
	BEGIN {
		ok["base"] = " base "
		ok["model"] = " base model "
		ok["analyze"] = " base model analyze "
		ok["capture"] = " base model capture "
		ok["util"] = " base model util "
		ok["format"] = " base model util analyze format "
		ok["table"] = " base model util format table "
	}
	$1 == $3 { next }
	{
		if ($2 != "cmd" && index(ok[$2], " " $4 " ") == 0)
			print "room: " $1 " (" $2 ") calls " $3 " (" $4 "): " $5
		pair[$1 " " $3] = $5
	}
	END {
		for (k in pair) {
			split(k, f, " ")
			if (f[1] < f[2] && ((f[2] " " f[1]) in pair))
				print "mutual: " f[1] " and " f[2] " call each other (" \
				      pair[k] ", " pair[f[2] " " f[1]] ")"
		}
	}' | LC_ALL=C sort
	# no cycle among the library's files (a call through a table counts
	# at the table)
	awk '$1 !~ /^cmd\// && $1 != $2 { print $1, $2 }' "$1" |
		LC_ALL=C sort -u > "$1.pairs"
	tsort "$1.pairs" > /dev/null 2> "$1.loop" ||
		echo "cycle: $(grep -v 'input contains a loop' "$1.loop" |
			sed 's/^tsort: //' | tr '\n' ' ')"
}

# the checker on made-up lists: one with a room breach (the model calling
# the table), a mutual pair (two formats), an allowed call and a call
# within a file; one whose only breach is a cycle of three
cat > fake <<'EOF'
formats/model/profile formats/format sf_format_by_name
formats/fmt_a formats/fmt_b sf_b
formats/fmt_b formats/fmt_a sf_a
formats/fmt_a formats/base/io sf_input_line
formats/fmt_a formats/fmt_a sf_self
EOF
cat > fake3 <<'EOF'
formats/fmt_c formats/fmt_d sf_d
formats/fmt_d formats/fmt_e sf_e
formats/fmt_e formats/fmt_c sf_c
formats/fmt_c formats/util/text sf_probe_prefix
EOF
check fake > fake.out
check fake3 > fake3.out
if [ "$(grep -c '^room: formats/model/profile (model) calls formats/format (table)' fake.out)" = 1 ] &&
   [ "$(grep -c '^mutual: formats/fmt_a and formats/fmt_b' fake.out)" = 1 ] &&
   [ "$(grep -c '^cycle: ' fake.out)" = 1 ] &&
   [ "$(wc -l < fake.out)" = 3 ] &&
   [ "$(grep -c '^cycle: .*formats/fmt_[cde]' fake3.out)" = 1 ] &&
   [ "$(wc -l < fake3.out)" = 1 ]; then
	pass layers-checker
else
	fail layers-checker "the checker missed a made-up breach: $(cat fake.out fake3.out | tr '\n' ' ')"
fi

# the real objects
if ! have nm || ! have tsort; then
	skip layers-nm "nm or tsort is missing (binutils, coreutils)"
elif [ ! -f "$obj/formats/format.o" ]; then
	skip layers-nm "no objects under $obj (build first)"
else
	(cd "$obj" && find formats analyze sampler-core cmd -name '*.o') |
		LC_ALL=C sort > objs
	: > def; : > und
	while read -r o; do
		f=${o%.o}
		nm --defined-only -g "$obj/$o" |
			awk -v f="$f" 'NF == 3 { print $3, f }' >> def
		nm -u "$obj/$o" | awk -v f="$f" '{ print $NF, f }' >> und
	done < objs
	LC_ALL=C sort def > def.s; LC_ALL=C sort und > und.s
	LC_ALL=C join und.s def.s | awk '{ print $2, $3, $1 }' > edges
	awk '$2 !~ /^cmd\// && $1 !~ /^sfc?_/ && $1 !~ /^__/ { print $2 ": " $1 }' def.s \
		> unprefixed
	if [ -s unprefixed ]; then
		fail layers-prefix "global symbols without the sf_ prefix: $(head -n 5 unprefixed | tr '\n' ' ')"
	else
		pass layers-prefix
	fi
	if [ ! -s edges ]; then
		fail layers-nm "no call between objects found: nm output unread"
	else
		check edges > breaches
		if [ -s breaches ]; then
			fail layers-nm "$(wc -l < breaches) breach(es)"
			cat breaches
		else
			pass layers-nm
		fi
	fi
fi

# the sizes
big=$(cd "$TOP" && for f in formats/*.c formats/*/*.c analyze/*.c \
	sampler-core/*.c; do
	n=$(wc -l < "$f"); [ "$n" -gt 1300 ] && echo "$f:$n"; done | tr '\n' ' ')
if [ -z "$big" ]; then pass layers-file-size; else
	fail layers-file-size "library files over 1300 lines: $big"; fi
big=$(cd "$TOP" && for f in cmd/sf*.c; do
	n=$(wc -l < "$f"); [ "$n" -gt 300 ] && echo "$f:$n"; done | tr '\n' ' ')
if [ -z "$big" ]; then pass layers-main-size; else
	fail layers-main-size "program mains over 300 lines: $big"; fi
