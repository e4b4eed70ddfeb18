# The collapsed writer on several threads: an output of more than two
# chunks of runs (formats/collapsed/collapsed_levels.c, make_chunks:
# 32 k runs a chunk) is written in chunks, each from the walk's state where it
# begins, and must be the same bytes at -j1, -j2 and -j3 as the stack
# texts summed and ordered by sort(1).  Five shapes: three root frames
# (the cuts fall at level 2, below a root), one root over two frames
# (the cuts fall at level 3, two ancestors to rebuild), one root over
# two to six frames of a thousand names, a hundred thousand root
# names over up to two frames, and 600 stacks 61 to 301 deep (deeper
# than the 64 levels each part's count of nodes per level starts with,
# in both parts); with names one of which is a proper
# prefix of another ("a" < "a-x" < "a;..."), lines that end above the
# deepest level and the empty stack.  From -j2 on, the records of a
# tree of 64 k stack nodes or more are made, and a level of as many is
# counted, placed, sorted and made into runs, in two parts (struct
# lpart) on two threads, where -j1 makes them in one: shapes 1 and 2
# have one such level, shape 3 three (115 k, 96 k and 72 k nodes),
# shape 4 its roots (with the empty stack's line among them).
. "$TOP/tests/lib.sh"

export LC_ALL=C
for shape in 1 2 3 4 5; do
	awk -v shape="$shape" 'BEGIN {
		srand(shape)
		split("a|a-x|b", root, "|")
		split("x|x-y", mid, "|")
		for (i = 0; i < (shape == 5 ? 600 : 120000); i++) {
			if (shape == 1) s = root[1 + int(rand() * 3)]
			else if (shape == 2) s = "main;" mid[1 + int(rand() * 2)]
			else if (shape == 3 || shape == 5) s = "r"
			else s = "g" int(rand() * 100000) (rand() < 0.1 ? "-x" : "")
			d = shape == 3 ? 2 + int(rand() * 5) :
			    shape == 4 ? int(rand() * 3) :
			    shape == 5 ? 60 + int(rand() * 241) : int(rand() * 5)
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

# A write error while the chunks are written (a full disk, a reader
# that went away) is the output's, told at its end as for any writer:
# "write error" with status 3, a closed pipe quietly; never "out of
# memory", at any number of jobs.
for j in 1 2; do
	expect_error collapsed-jobs-full-j$j 3 \
		'^sfconv: -: write error: No space left on device$' \
		sh -c "exec $SFCONV -j$j --from collapsed in1.folded > /dev/full"
	{ $SFCONV -j$j --from collapsed in1.folded 2> pipe.err
	  echo $? > pipe.st; } | head -n 1 > /dev/null
	st=$(cat pipe.st)
	if [ "$st" -eq 0 ] && [ ! -s pipe.err ]; then
		pass collapsed-jobs-epipe-j$j
	else
		fail collapsed-jobs-epipe-j$j "status $st: $(head -n 1 pipe.err)"
	fi
done
