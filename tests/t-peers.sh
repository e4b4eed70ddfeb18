# Conformance with peer tools: every pair of PAIRS.tsv (input -> the peer
# tool's own expected output) whose format sfconv reads is converted with
# the matching sfconv options and compared with the expectation.  Pairs of
# formats sfconv does not read (yet) are SKIPped with the reason, so the
# same test covers them once a reader is merged.  One PASS/FAIL/SKIP per
# pair, then "peers: TOOL matched/total" per peer tool.
. "$TOP/tests/lib.sh"

if ! have_peers || [ ! -f "$PEERS/PAIRS.tsv" ]; then
	skip peers "no peer fixtures ($PEERS)"
	exit 0
fi

# Does sfconv read format $1?  Asked with --from (its message on stderr)
# rather than --list-formats, whose stdout a leak checker's exit can lose.
known=; unknown=
has_format() {
	case " $known " in *" $1 "*) return 0 ;; esac
	case " $unknown " in *" $1 "*) return 1 ;; esac
	if $SFCONV -q --from "$1" /dev/null 2>&1 | grep -q "unknown input format\|cannot be read"; then
		unknown="$unknown $1"; return 1
	fi
	known="$known $1"; return 0
}

# The mapping from the peer tool and its options (column 3 of PAIRS.tsv)
# to sfconv: PATTERN (a shell case pattern) | FORMAT sfconv must read |
# sfconv options | comparison.  Comparisons: "sorted" = the collapsed
# output equals the expected file line for line after sorting both
# bytewise (peers sort the same way); "none:WHY" = no comparison possible.
# First match wins.
map_table() {
	cat <<'EOF'
stackcollapse-perf.pl --*|perf|--from perf $OPTS|sorted
inferno-collapse-perf (defaults)*|perf|--from perf --inferno|sorted
inferno-collapse-perf --*|perf|--from perf --inferno $OPTS|sorted
inferno-collapse-dtrace (defaults)*|dtrace|--from dtrace|sorted
inferno-collapse-dtrace --*|dtrace|--from dtrace $OPTS|sorted
inferno-collapse-sample (defaults)*|sample|--from sample --inferno|sorted
inferno-collapse-sample --*|sample|--from sample --inferno $OPTS|sorted
inferno-collapse-xctrace*|xctrace|--from xctrace|sorted
inferno-collapse-vtune --*|vtune|--from vtune $OPTS|sorted
inferno-collapse-vtune*|vtune|--from vtune|sorted
inferno-collapse-vsprof*|vsprof|--from vsprof|sorted
inferno-collapse-ghcprof --*|ghcprof|--from ghcprof $OPTS|sorted
inferno-collapse-ghcprof*|ghcprof|--from ghcprof|sorted
inferno-collapse-recursive*|collapsed|--from collapsed|none:folding recursion is an analysis (sfanalyze), not a conversion
inferno-diff-folded*|collapsed|--from collapsed|none:differential folded output is not a conversion
pprof profile.Parse*|pprof|--from pprof|none:pprof's Profile.String() dump has no sfconv writer
EOF
}

# The options of column 3: the words starting with "--" (the peers' option
# names are sfconv's).
peer_opts() {
	printf '%s\n' "$1" | tr ' ' '\n' | grep -- '^--' | tr '\n' ' '
}

cat_maybe_gz() {
	case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac
}

tools=
tab=$(printf '\t')
while IFS="$tab" read -r inputs expected tool note; do
	[ "$inputs" = inputs ] && continue
	name="peers:$(basename "$expected")"
	key=$(printf '%s\n' "$tool" | awk '{print $1}')
	case " $tools " in *" $key "*) ;; *) tools="$tools $key" ;; esac
	# a pair may have several inputs ("a + b"): none of ours do
	case $inputs in *" + "*)
		skip "$name" "several inputs ($tool)"
		echo "$key skip" >> peers.tally
		continue ;; esac
	row=
	while IFS='|' read -r pat fmt opts cmp; do
		# shellcheck disable=SC2254
		case $tool in $pat) row="$fmt|$opts|$cmp"; break ;; esac
	done <<EOF
$(map_table)
EOF
	if [ -z "$row" ]; then
		skip "$name" "no mapping for '$tool'"
		echo "$key skip" >> peers.tally
		continue
	fi
	fmt=${row%%|*}; rest=${row#*|}; opts=${rest%%|*}; cmp=${rest#*|}
	if ! has_format "$fmt"; then
		skip "$name" "sfconv does not read '$fmt' yet"
		echo "$key skip" >> peers.tally
		continue
	fi
	case $cmp in none:*)
		skip "$name" "${cmp#none:}"
		echo "$key skip" >> peers.tally
		continue ;; esac
	OPTS=$(peer_opts "$tool")
	args=$(eval "echo $opts")
	# shellcheck disable=SC2086
	if ! $SFCONV -q $args --to collapsed "$PEERS/$inputs" > got.txt 2> err.txt; then
		fail "$name" "sfconv $args failed: $(head -n 1 err.txt)"
		echo "$key fail" >> peers.tally
		continue
	fi
	cat_maybe_gz "$PEERS/$expected" | LC_ALL=C sort > want.sorted
	LC_ALL=C sort got.txt > got.sorted
	if cmp -s want.sorted got.sorted; then
		pass "$name"
		echo "$key pass" >> peers.tally
	else
		fail "$name" "sfconv $args $inputs differs from $expected ($tool)"
		diff want.sorted got.sorted | head -n 6 | cut -c1-200
		echo "$key fail" >> peers.tally
	fi
done < "$PEERS/PAIRS.tsv"

for t in $tools; do
	p=$(grep -c "^$t pass" peers.tally)
	f=$(grep -c "^$t fail" peers.tally)
	s=$(grep -c "^$t skip" peers.tally)
	echo "peers: $t $p/$((p + f)) matched, $s skipped"
done

# Detection: every peer fixture of a format sfconv reads must be detected
# as that format without --from (MANIFEST.tsv column 2 names the format;
# the table maps its names to sfconv's).  A file the reader itself finds
# nothing in (an empty file, a header only) or rejects (malformed lines) is
# skipped; a reader error is accepted when --from gives the same error
# (detection picked the reader).
manifest_format() {
	case $1 in
	perf-script*) echo perf ;;
	dtrace-ustack*) echo dtrace ;;
	macos-sample*) echo sample ;;
	xctrace-xml*) echo xctrace ;;
	collapsed-diff*) echo difffolded ;;
	collapsed*) echo collapsed ;;   # UTF-16 with a BOM included
	pprof-proto*) echo pprof ;;
	chrome-cpuprofile*) echo cpuprofile ;;
	chrome-trace-event-json*) echo chrome-trace ;;
	speedscope-json*) echo speedscope ;;
	firefox-gecko-json* | firefox-processed-json*) echo firefox ;;
	*) echo "" ;;
	esac
}
det_pass=0; det_total=0
while IFS="$tab" read -r path mfmt _rest; do
	[ "$path" = path ] && continue
	want=$(manifest_format "$mfmt")
	[ -n "$want" ] && has_format "$want" || continue
	name="detect:$path"
	if $SFCONV -q "$PEERS/$path" --to json > det.json 2> det.err; then
		got=$(grep -o '"source_format":"[a-z0-9_-]*"' det.json | head -n 1 | cut -d'"' -f4)
		det_total=$((det_total + 1))
		if [ "$got" = "$want" ]; then
			pass "$name"; det_pass=$((det_pass + 1))
		else
			fail "$name" "detected as '$got', expected '$want'"
		fi
		continue
	fi
	$SFCONV -q --from "$want" "$PEERS/$path" > det.out 2> det.err2
	frc=$?
	if [ $frc -eq 0 ] && [ ! -s det.out ] || grep -Eq 'empty input' det.err2; then
		skip "$name" "the $want reader finds no samples in it"
		continue
	fi
	if [ $frc -ne 0 ] && grep -q 'unrecognised input format' det.err; then
		# invalid for its own reader too: not detecting it is right
		skip "$name" "not valid $want input either: $(head -n 1 det.err2 | sed 's/^[^:]*: [^:]*: *//')"
		continue
	fi
	det_total=$((det_total + 1))
	# the same error message with --from: the right reader was chosen
	if cmp -s det.err det.err2; then
		pass "$name"; det_pass=$((det_pass + 1))
	else
		fail "$name" "not detected as $want: $(head -n 1 det.err)"
	fi
done < "$PEERS/MANIFEST.tsv"
echo "peers: detection $det_pass/$det_total"
