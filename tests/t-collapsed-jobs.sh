# The collapsed writer on several threads: an output of more than two
# chunks of runs (formats/collapsed/collapsed_levels.c, make_chunks:
# 32 k runs a chunk) is written in chunks, each from the walk's state where it
# begins, and must be the same bytes at -j1, -j2 and -j3 as the stack
# texts summed and ordered by sort(1).  Two shapes: three root frames
# (the cuts fall at level 2, below a root) and one root over two frames
# (the cuts fall at level 3, two ancestors to rebuild), with names one of
# which is a proper prefix of another ("a" < "a-x" < "a;..."), lines
# that end above the deepest level and the empty stack.
. "$TOP/tests/lib.sh"

export LC_ALL=C
for shape in 1 2; do
	awk -v shape="$shape" 'BEGIN {
		srand(shape)
		split("a|a-x|b", root, "|")
		split("x|x-y", mid, "|")
		for (i = 0; i < 120000; i++) {
			if (shape == 1) s = root[1 + int(rand() * 3)]
			else s = "main;" mid[1 + int(rand() * 2)]
			d = int(rand() * 5)
			for (k = 0; k < d; k++)
				s = s ";f" int(rand() * 1000) (rand() < 0.1 ? "-x" : "")
			print s, 1 + int(rand() * 9)
		}
	}' > in$shape.folded
	# expected: counts summed per stack text, ordered bytewise by the
	# text (no name holds a blank, so field 1 is the whole text); the
	# empty stack's line comes first, its text is empty
	awk '{ w[$1] += $2 } END { for (t in w) print t, w[t] }' \
		in$shape.folded | sort -k1,1 > want$shape
	echo ' 5' >> in$shape.folded
	{ echo ' 5'; cat want$shape; } > want$shape.x
	mv want$shape.x want$shape
	for j in 1 2 3; do
		$SFCONV -j$j --from collapsed in$shape.folded \
			> out$shape-j$j 2>err$shape-j$j
		expect_same "collapsed-jobs-shape$shape-j$j" want$shape \
			out$shape-j$j
	done
done
