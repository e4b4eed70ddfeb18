# Collapsed output order against an independent tool: `LC_ALL=C sort` on
# the stack text alone (FlameGraph sorts the stack text bytewise; the count
# is not part of the key).  Random inputs with adversarial names: one name a
# proper prefix of another ("a" / "a-x" / "a;b"), bytes below and above ';'
# and ' ', spaces inside names, UTF-8 and invalid bytes.
. "$TOP/tests/lib.sh"

export LC_ALL=C
tab=$(printf '\t')
for seed in 1 2 3 4 5; do
	# 2000 lines of 0-5 frames; a frame is 0-3 pieces from the list
	awk -v seed="$seed" 'BEGIN {
		srand(seed)
		np = split("a|a-x|-|!|:|<|~|b|a b|\001|\037|\177|\303\251|\377|ab|0|z", piece, "|")
		for (i = 0; i < 2000; i++) {
			d = int(rand() * 6); s = ""
			for (k = 0; k < d; k++) {
				f = ""; m = int(rand() * 4)
				for (j = 0; j < m; j++) f = f piece[1 + int(rand() * np)]
				s = s (k ? ";" : "") f
			}
			print s, int(rand() * 10)
		}
	}' > in$seed.folded
	$SFCONV --from collapsed in$seed.folded > out$seed 2>err$seed
	# expected: sum the counts per stack text (counts are never negative:
	# a sum of 0 is a stack of zero samples only, which is left out, see
	# docs/formats.md "All-zero samples"), then order the texts with
	# sort(1) through a hex image of each (hex digits keep byte order, and
	# the key holds no blanks, so names with spaces cannot confuse sort)
	awk '
		BEGIN { for (i = 1; i < 256; i++) hex[sprintf("%c", i)] = sprintf("%02x", i) }
		{
			c = $NF; t = $0; sub(/ [^ ]*$/, "", t)
			if (!(t in w)) w[t] = 0
			w[t] += c
		}
		END {
			for (t in w) {
				if (w[t] == 0)
					continue
				h = "x"   # not empty, so that -k1,1 sees a field
				for (i = 1; i <= length(t); i++) h = h hex[substr(t, i, 1)]
				printf "%s\t%s %d\n", h, t, w[t]
			}
		}' in$seed.folded | sort -t "$tab" -k1,1 | cut -f2- > want$seed
	expect_same "collapsed-order-vs-sort-$seed" want$seed out$seed
done

# the example of the issue, by hand: "a" < "a-x" < "a;b" though "a;b"
# walks through "a"
printf 'a;b 1\na-x 2\na 3\n' | $SFCONV --from collapsed > ex.out
printf 'a 3\na-x 2\na;b 1\n' > ex.want
expect_same collapsed-order-prefix-sibling ex.want ex.out
