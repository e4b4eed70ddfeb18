# sampler-core's files call one another in one direction only
# (sampler-core/README.md): over the built objects, "A uses a symbol B
# defines" is an edge A -> B, and the edges must form no cycle, so no two
# files call each other and a low-level file (read.c at the bottom) never
# reaches back up.  The symbols of the real build, not the sources' text:
# a call through the source table counts at the table (source.c).
. "$TOP/tests/lib.sh"

obj=$TOP/build/sampler-core
if ! have nm || ! have tsort; then skip capture-calls "nm and tsort are needed"; exit 0; fi
if ! ls "$obj"/*.o >/dev/null 2>&1; then skip capture-calls "no build in $obj"; exit 0; fi

: > defs
: > uses
for o in "$obj"/*.o; do
	b=$(basename "$o" .o)
	nm --defined-only "$o" | awk -v b="$b" '$2 ~ /^[TDBR]$/ { print $3, b }' >> defs
	nm -u "$o" | awk -v b="$b" '{ print $2, b }' >> uses
done
sort -k1,1 defs > defs.s
sort -k1,1 uses > uses.s
# "user definer symbol", for the message
join uses.s defs.s | awk '$2 != $3 { print $2, $3, $1 }' | sort -u > edges
awk '{ print $1, $2 }' edges | sort -u > pairs
[ -s pairs ] || { fail capture-calls "no calls found between the objects of $obj"; exit 0; }

# mutual calls first: they name both symbols
mutual=$(awk '{ print $2, $1 }' pairs | sort | comm -12 - pairs)
if [ -n "$mutual" ]; then
	fail capture-calls-mutual "files calling each other: $(echo "$mutual" | head -n 1)"
	echo "$mutual" | head -n 4 | while read -r a b; do
		grep "^$a $b " edges | head -n 2
	done
else
	pass capture-calls-mutual
fi
if tsort pairs > order 2> loop.err; then
	pass capture-calls-acyclic
else
	fail capture-calls-acyclic "a cycle: $(grep -v 'input contains a loop' loop.err | sed 's/^tsort: //' | tr '\n' ' ')"
fi
# the bottom file calls nothing above it (procfs.c's parsers are below it)
if awk '$1 == "read" && $2 != "procfs"' pairs | grep -q .; then
	fail capture-calls-bottom "read.c calls $(awk '$1 == "read" && $2 != "procfs" { print $2 }' pairs | head -n 1).c"
else
	pass capture-calls-bottom
fi
