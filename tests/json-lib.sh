# tests/json-lib.sh - a helper for the native JSON reader's tests of its
# paths (sourced after tests/lib.sh by tests/t-json-ahead.sh and
# tests/t-json-chain.sh).

# json_same NAME FILE ARGS...: stdout, stderr and status of `sfconv FILE
# ARGS...` at -j1, -j2, -j2 waiting for the thread that reads ahead
# (SF_JSON_AHEAD=wait), and yajl only (SF_JSON_SLOW=1) agree: PASS, or
# FAIL and status 1.  -j1's are left in j1.out and j1.err.
json_same() {
	name=$1; f=$2; shift 2
	$SFCONV -q -j1 "$f" "$@" > j1.out 2> j1.err; st1=$?
	for how in j2 wait slow; do
		case $how in
		j2) $SFCONV -q -j2 "$f" "$@" ;;
		wait) SF_JSON_AHEAD=wait $SFCONV -q -j2 "$f" "$@" ;;
		slow) SF_JSON_SLOW=1 $SFCONV -q -j2 "$f" "$@" ;;
		esac > $how.out 2> $how.err
		s=$?
		if [ $s -ne $st1 ]; then
			fail "$name" "exit status $s ($how), -j1 $st1"
			head -n 2 j1.err $how.err; return 1
		fi
		if ! cmp -s j1.out $how.out || ! cmp -s j1.err $how.err; then
			fail "$name" "$how differs from -j1"
			diff j1.err $how.err | head -n 4; return 1
		fi
	done
	pass "$name"
}
