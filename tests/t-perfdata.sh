#!/bin/sh
# perf.data read directly (formats/perf/fmt_perfdata.c).
#
# 1. Files written by hand from the documented layout (tests/gen_perfdata.py,
#    expected stacks derived by hand there): file and pipe mode, gzip,
#    time order, corrupt callchains, truncation at a known record offset,
#    the other byte order.  LBR call stacks (perf record --call-graph lbr,
#    which this machine cannot record): tests/fixtures/perfdata-lbr-gen.c
#    writes such files for a program built here; stacks derived by hand
#    there, and compared with perf script's.
# 2. Real recordings made here (perf record -g of a C program built with
#    frame pointers, gzip, python3; several events; pipe mode; perf
#    record --call-graph dwarf of a C program without frame pointers,
#    gzip, perl, a bash script and a shell starting perl): collapsed
#    output equals `perf script | sfconv --from perf` of the same file,
#    every sample (so no test depends on what was sampled);
#    and the dwarf ones equal what libdw alone gives (SF_PERFDATA_SLOW=1).
#    FlameGraph's stackcollapse-perf.pl has no Debian package: sftools' perf script
#    reader stands in for it (t-peers.sh and t-perf.sh hold that reader
#    byte-identical to stackcollapse-perf.pl), and the script itself is
#    compared too where FLAMEGRAPH_DIR or PATH has it.
. "$TOP/tests/lib.sh"

# same_as_script NAME DATA [OPTIONS...]: sfconv DATA = perf script | sfconv
# (perf script reads $REF when set: perf cannot read a gzipped file; and
# takes the options $PS_ARGS)
same_as_script() {
	n=$1; d=$2; shift 2
	perf script ${PS_ARGS:-} -i "${REF:-$d}" 2>/dev/null |
		$SFCONV -q --from perf "$@" --to collapsed -o "$n.want" -
	if ! $SFCONV -q "$@" "$d" -o "$n.folded" 2> "$n.err"; then
		fail "$n" "sfconv failed: $(head -n 1 "$n.err")"
	elif [ ! -s "$n.want" ]; then
		fail "$n" "perf script gave no stacks"
	elif ! cmp -s "$n.want" "$n.folded" &&
	     perf script --show-lost-events -i "${REF:-$d}" 2>/dev/null |
	     grep -q PERF_RECORD_LOST; then
		# perf lost records (its buffer overflowed: a busy machine):
		# a process whose FORK, COMM or MMAP records were lost is
		# rebuilt otherwise by perf and by the reader (docs/
		# formats.md, perfdata, "Not done"); only such a recording
		skip "$n" "perf lost records while recording (PERF_RECORD_LOST), and the outputs differ"
	else
		expect_same "$n" "$n.want" "$n.folded"
	fi
}

# ----- hand-made files -----
if have python3; then
	printf ':42;[libdemo.so] 500\ndemo 300\ndemo;[unknown];[libdemo.so] 1000\n' > syn.want
	python3 "$TOP/tests/gen_perfdata.py" file syn.data > syn.offs
	python3 "$TOP/tests/gen_perfdata.py" pipe synp.data > synp.offs
	$SFCONV -q syn.data -o syn.folded
	expect_same perfdata-handmade-file syn.want syn.folded
	$SFCONV -q synp.data -o synp.folded
	expect_same perfdata-handmade-pipe syn.want synp.folded
	gzip -c syn.data > syngz
	$SFCONV -q syngz --to collapsed -o syngz.folded
	expect_same perfdata-handmade-gzip syn.want syngz.folded
	# memory of no file: code named after the JIT's map file, data
	# keeps its name "//anon" (hand-derived in gen_perfdata.py; perf
	# script prints the same where it is installed)
	if [ -e /tmp/perf-42.map ]; then
		skip perfdata-handmade-anon "/tmp/perf-42.map exists here"
	else
		python3 "$TOP/tests/gen_perfdata.py" anon syna.data > /dev/null
		{ cat syn.want
		  printf 'demo;[anon];[libdemo.so] 700\ndemo;[perf-42.map];[libdemo.so] 900\n'
		} | LC_ALL=C sort > syna.want
		$SFCONV -q syna.data -o syna.folded
		expect_same perfdata-handmade-anon syna.want syna.folded
		if have perf; then
			same_as_script perfdata-handmade-anon-script syna.data
		fi
	fi
	# cpu-clock: nanoseconds, from the attr (type 1, config 0)
	if $SFCONV -q syn.data --to json -o - |
	   grep -q '"sample_types":\[{"type":"cpu-clock","unit":"nanoseconds"}\]'; then
		pass perfdata-handmade-type
	else
		fail perfdata-handmade-type "sample type is not cpu-clock in nanoseconds"
	fi
	# a pipe file cut inside its fourth record (the t=50 sample): the
	# message names that record's offset
	off=$(sed -n 4p synp.offs)
	head -c $((off + 12)) synp.data > synp-cut.data
	expect_error perfdata-truncated-record 1 \
		"^sfconv: synp-cut.data: byte $off: perf.data truncated: a record runs past the end" \
		$SFCONV synp-cut.data -o never.folded
	[ -e never.folded ] && fail perfdata-truncated-no-output "never.folded was written"
	# the other byte order: perf's magic read backwards
	{ printf '2ELIFREP'; tail -c +9 syn.data; } > swapped.data
	expect_error perfdata-foreign-endian 1 \
		'^sfconv: swapped.data: byte 0: perf.data written on a machine of the other byte order' \
		$SFCONV swapped.data -o never.folded
	# a header that names more data than the file holds (byte 40: the
	# data section's offset and size)
	head -c 300 syn.data > syn-cut.data
	expect_error perfdata-truncated-data 1 \
		'^sfconv: syn-cut.data: byte 40: perf.data truncated: the data section' \
		$SFCONV syn-cut.data -o never.folded
	[ -e never.folded ] && fail perfdata-truncated-no-output "never.folded was written"
	# perf record killed before it wrote the header's data size
	cp syn.data killed.data
	printf '\000\000\000\000\000\000\000\000' |
		dd of=killed.data bs=1 seek=48 conv=notrunc 2>/dev/null
	expect_error perfdata-killed 1 \
		'^sfconv: killed.data: byte 48: perf.data with a data size of 0' \
		$SFCONV killed.data -o never.folded
else
	skip perfdata-handmade "python3 is missing"
fi

# ----- --call-graph lbr, written here -----
# No CPU here has the last branch records perf record --call-graph lbr
# reads: tests/fixtures/perfdata-lbr-gen.c writes the file it would
# write, for a program built here (its functions' addresses from nm).
# The stacks below are derived by hand from the samples listed in the
# generator's comment; then perf script, where installed, is the peer.
if ! have cc || ! have nm; then
	skip perfdata-lbr "cc or nm is missing"
elif ! cc -O1 -g -fno-omit-frame-pointer -o lbrprog "$FIX/perfdata-prog.c" ||
     ! cc -O1 -o lbrgen "$FIX/perfdata-lbr-gen.c"; then
	fail perfdata-lbr "cannot compile the test programs"
else
	fn_addr() { nm lbrprog | awk -v f="$1" '$3 == f { print $1 }'; }
	lbr_args="$PWD/lbrprog $(fn_addr main) $(fn_addr pd_b) $(fn_addr pd_a) $(fn_addr pd_leaf)"
	unknowns() { # N: ";[unknown]" N times
		i=0; while [ $i -lt $1 ]; do printf ';[unknown]'; i=$((i + 1)); done
	}
	{
		echo 'lbrprog 9'
		echo 'lbrprog;[unknown] 10'
		echo 'lbrprog;[unknown];[unknown] 6'
		echo 'lbrprog;main;[unknown] 1'
		echo 'lbrprog;main;pd_b;pd_a;pd_leaf 4000'
		echo 'lbrprog;main;pd_b;pd_leaf;[unknown];[unknown] 100'
		echo "lbrprog;main;pd_b;pd_leaf$(unknowns 125) 7"
		echo 'lbrprog;pd_a;pd_leaf 2'
		echo 'lbrprog;pd_leaf 5'
		echo "lbrprog;pd_leaf$(unknowns 126) 8"
	} > lbr.want
	# a pipe has no sample with an empty stack (periods 5 and 6)
	grep -v ' [56]$' lbr.want > lbrp.want
	for v in "lbr:" "lbr-hwidx:-i" "lbr-pipe:-p" "lbr-pipe-hwidx:-p -i"; do
		n=${v%%:*}
		case $n in *pipe*) w=lbrp.want ;; *) w=lbr.want ;; esac
		# shellcheck disable=SC2086 # the options and addresses split
		if ! ./lbrgen ${v#*:} $n.data $lbr_args; then
			fail perfdata-$n "perfdata-lbr-gen failed"
		elif ! $SFCONV -q $n.data -o $n.folded 2> $n.err; then
			fail perfdata-$n "sfconv failed: $(head -n 1 $n.err)"
		else
			expect_same perfdata-$n $w $n.folded
		fi
	done
	$SFCONV -q -j1 lbr.data -o lj1.folded && $SFCONV -q -j2 lbr.data -o lj2.folded
	expect_same perfdata-lbr-jobs lj1.folded lj2.folded
	if ! have perf; then
		skip perfdata-lbr-script "perf is not installed (scripts/install-deps.sh test installs linux-perf)"
	else
		for n in lbr lbr-hwidx lbr-pipe lbr-pipe-hwidx; do
			same_as_script perfdata-$n-script $n.data
		done
		same_as_script perfdata-lbr-script-kernel lbr.data --kernel
		PS_ARGS="-F +pid" same_as_script perfdata-lbr-script-pid lbr.data --pid
	fi
fi

# ----- real recordings -----
if ! have perf || ! have cc; then
	skip perfdata-real "perf or cc not installed (scripts/install-deps.sh test installs linux-perf)"
	exit 0
fi
if ! cc -O1 -g -fno-omit-frame-pointer -o prog "$TOP/tests/fixtures/perfdata-prog.c"; then
	fail perfdata-real "cannot compile the test program"; exit 0
fi
if ! perf record -q -g -o prog.data ./prog > /dev/null 2> rec.err ||
   ! perf script -i prog.data > prog.perf 2> script.err || [ ! -s prog.perf ]; then
	skip perfdata-real "perf record/script not allowed here: $(head -n 1 rec.err)"
	exit 0
fi

same_as_script perfdata-real-c prog.data
if grep -Eq '^prog;(.*;)?main;pd_b;(pd_a;)?pd_leaf [0-9]+$' perfdata-real-c.folded; then
	pass perfdata-real-chain
else
	fail perfdata-real-chain "no prog;...;main;pd_b;pd_leaf line"
fi
# perf script prints the pid only when asked (-F +pid), else perl's
# root frame is "prog-?"
# FlameGraph's own script, where the user has it (FLAMEGRAPH_DIR or PATH)
scp=
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	scp=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
elif have stackcollapse-perf.pl; then
	scp=$(command -v stackcollapse-perf.pl)
fi
if [ -z "$scp" ] || ! have perl; then
	skip perfdata-real-vs-stackcollapse "stackcollapse-perf.pl not in FLAMEGRAPH_DIR nor on PATH (compared with sfconv --from perf above)"
elif ! grep -q 'period' "$scp"; then
	# FlameGraph's script of 2016 counts one per event; since then it
	# weighs each by the period perf prints, as sfconv does
	skip perfdata-real-vs-stackcollapse "$scp counts events, not perf's periods (a FlameGraph from before its period weights; the peer fixtures' is 41fee1f)"
else
	perf script -i prog.data 2>/dev/null | perl "$scp" > pl.folded
	expect_same perfdata-real-vs-stackcollapse pl.folded perfdata-real-c.folded
fi
PS_ARGS="-F +pid" same_as_script perfdata-real-c-pid prog.data --pid
PS_ARGS="-F +pid" same_as_script perfdata-real-c-tid prog.data --tid
same_as_script perfdata-real-c-kernel prog.data --kernel
gzip -c prog.data > prog.data.gz
REF=prog.data same_as_script perfdata-real-gzipped prog.data.gz
# -j1 and -j2 agree
$SFCONV -q -j1 prog.data -o j1.folded && $SFCONV -q -j2 prog.data -o j2.folded
expect_same perfdata-real-jobs j1.folded j2.folded

head -c 3000000 /dev/zero > zeros
if perf record -q -g -o gzip.data gzip -c zeros > /dev/null 2>&1; then
	same_as_script perfdata-real-gzip gzip.data
fi
if have python3 &&
   perf record -q -g -o py.data python3 -c 'import json
print(sum(len(json.dumps({"a": i, "b": [i] * 8})) for i in range(30000)))' > /dev/null 2>&1; then
	same_as_script perfdata-real-python py.data
fi
# two events: the first one's samples are kept, as stackcollapse-perf.pl
# keeps them; --event-filter picks the other
if perf record -q -g -e cpu-clock,task-clock -o two.data ./prog > /dev/null 2>&1; then
	same_as_script perfdata-real-two-events two.data
	same_as_script perfdata-real-event-filter two.data --event-filter task-clock
fi
# pipe mode
if perf record -q -g -o - ./prog 2>/dev/null > pipe.data; then
	same_as_script perfdata-real-pipe pipe.data
	# and from standard input, as in perf record -o - | sfconv -
	$SFCONV -q - --to collapsed -o stdin.folded < pipe.data
	expect_same perfdata-real-pipe-stdin perfdata-real-pipe.folded stdin.folded
fi

# JIT code: a Python with perf trampolines (-X perf, 3.12 and later)
# writes /tmp/perf-PID.map, which perf script reads for anonymous maps
# (on PATH, else a pyenv build of one)
jitpy=
pys="python3.13 python3.12"
if have pyenv; then
	for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.1[2-9]'); do
		pys="$pys $(pyenv prefix "$v" 2>/dev/null)/bin/python3"
	done
fi
for p in $pys; do
	if have $p && $p -X perf -c 'import sys; sys.exit(not sys.is_stack_trampoline_active())' 2>/dev/null; then
		jitpy=$p; break
	fi
done
if [ -z "$jitpy" ]; then
	skip perfdata-real-jit "no python3.12 or later with -X perf on PATH"
elif perf record -q -g -o jit.data $jitpy -X perf -c '
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(27)' > /dev/null 2>&1; then
	same_as_script perfdata-real-jit jit.data
	same_as_script perfdata-real-jit-option jit.data --jit
	# perf script resolved some frames in the JIT's map (how many is up
	# to sampling): those are py:: frames marked _[j] here too
	perf script -i jit.data 2>/dev/null > jit.perf
	if ! grep -q ' py::[^ ]* (/tmp/perf-[0-9]*\.map)$' jit.perf; then
		skip perfdata-real-jit-names "no sample fell in JIT code"
	elif grep -q ';py::[^;]*_\[j\]' perfdata-real-jit-option.folded; then
		pass perfdata-real-jit-names
	else
		fail perfdata-real-jit-names "no py::..._[j] frame"
	fi
	grep -o '/tmp/perf-[0-9]*\.map' jit.perf | sort -u | xargs rm -f
fi

# a real recording cut anywhere: one line naming a byte, exit 1, no output
size=$(wc -c < prog.data)
for cut in 50 104 500 $((size / 2)) $((size - 9)); do
	head -c $cut prog.data > cut.data
	expect_error perfdata-real-cut-$cut 1 '^sfconv: cut.data: byte [0-9]+: ' \
		$SFCONV cut.data -o never.folded
	[ -e never.folded ] && fail perfdata-real-cut-$cut-output "never.folded was written"
done

# --call-graph dwarf: the user stacks are unwound here from the sampled
# registers and stack copy (libdwfl, the CFI of the mapped files), with
# the inlined functions perf script adds to unwound entries.  A program
# without frame pointers, whose inlined function is hand-known
if ! cc -O2 -g -fomit-frame-pointer -o dprog "$TOP/tests/fixtures/perfdata-inline.c"; then
	fail perfdata-dwarf "cannot compile the test program"
elif ! perf record -q --call-graph dwarf -o dwarf.data ./dprog > /dev/null 2> dwarf.err; then
	skip perfdata-dwarf "perf record --call-graph dwarf refused: $(head -n 1 dwarf.err)"
else
	same_as_script perfdata-dwarf-c dwarf.data
	if grep -Eq '^dprog;(.*;)?main;pd_outer;pd_inner [0-9]+$' perfdata-dwarf-c.folded; then
		pass perfdata-dwarf-inline
	else
		fail perfdata-dwarf-inline "no dprog;...;main;pd_outer;pd_inner line"
	fi
	same_as_script perfdata-dwarf-c-kernel dwarf.data --kernel
	$SFCONV -q -j1 dwarf.data -o dj1.folded && $SFCONV -q -j2 dwarf.data -o dj2.folded
	expect_same perfdata-dwarf-jobs dj1.folded dj2.folded
	# Debian programs: their own CFI and that of the libraries they map
	if perf record -q --call-graph dwarf -o dgzip.data gzip -c zeros > /dev/null 2>&1; then
		same_as_script perfdata-dwarf-gzip dgzip.data
	fi
	if have perl &&
	   perf record -q --call-graph dwarf -o dperl.data perl -e '$s = 0; $s += $_ * $_ for 1 .. 2000000' > /dev/null 2>&1; then
		same_as_script perfdata-dwarf-perl dperl.data
	fi
	# a shell script: bash's own code and the programs it starts (a
	# fork, then an exec: the child keeps bash's libc maps beside its
	# own, so perf's libunwind finds no unwind entry for its libc
	# frames and guesses, as the reader does then)
	if have bash &&
	   perf record -q --call-graph dwarf -o dbash.data bash -c '
		for i in $(seq 1 20); do
			s=0; for j in $(seq 1 300); do s=$((s + j)); done
			readlink /proc/self/exe > /dev/null
		done' > /dev/null 2>&1; then
		same_as_script perfdata-dwarf-bash dbash.data
	fi
	# perl started by a shell, again and again at a high rate: its
	# start-up through ld.so and its locale set-up, where perf's
	# guesses read return addresses from wrong slots
	if have perl &&
	   perf record -q --call-graph dwarf -F 10000 -o dfork.data sh -c '
		for i in 1 2 3 4 5 6 7 8 9 10; do perl -e "print 1"; done' > /dev/null 2>&1; then
		same_as_script perfdata-dwarf-fork-exec dfork.data
	fi
	# a stack deeper than the 8 KB copy perf keeps of it
	if perf record -q --call-graph dwarf -o ddeep.data ./dprog 300 deep > /dev/null 2>&1; then
		same_as_script perfdata-dwarf-deep ddeep.data
	fi
	# pipe mode
	if perf record -q --call-graph dwarf -o - ./dprog 2>/dev/null > dpipe.data; then
		same_as_script perfdata-dwarf-pipe dpipe.data
	fi
	# the reader's own trees and caches (perfdata_inline.c,
	# perfdata_unwind.c) against libdw and libdwfl doing all the work
	# (SF_PERFDATA_SLOW=1): the same stacks, on every recording above
	# and on a Python's (large units, many inlined functions)
	if have python3; then
		perf record -q --call-graph dwarf -o dpy.data python3 -c 'import json
print(sum(len(json.dumps({"a": i, "b": [i] * 8})) for i in range(20000)))' > /dev/null 2>&1
	fi
	# $PERF_BUILDID_DIR naming the default ~/.debug (perf sets it for
	# what it runs: perf stat sfconv ...) finds the same files
	if [ -n "${HOME:-}" ] && [ -s dgzip.data ]; then
		PERF_BUILDID_DIR=$HOME/.debug $SFCONV -q dgzip.data -o dgzip-env.folded
		$SFCONV -q dgzip.data -o dgzip-noenv.folded
		expect_same perfdata-buildid-dir-env dgzip-noenv.folded dgzip-env.folded
	fi
	for d in dwarf dgzip dperl dbash dfork ddeep dpipe dpy; do
		[ -s $d.data ] || continue
		SF_PERFDATA_SLOW=1 $SFCONV -q $d.data -o $d-slow.folded
		$SFCONV -q $d.data -o $d-fast.folded
		if [ ! -s $d-slow.folded ]; then
			fail perfdata-dwarf-slow-$d "no stacks from SF_PERFDATA_SLOW=1"
		else
			expect_same perfdata-dwarf-slow-$d $d-slow.folded $d-fast.folded
		fi
	done
fi

# --call-graph lbr needs the CPU's last branch records (files written
# here stand in above, where it has none)
if perf record -q --call-graph lbr -o rlbr.data ./prog 10 > /dev/null 2> rlbr.err; then
	same_as_script perfdata-real-lbr rlbr.data
else
	skip perfdata-real-lbr "perf record --call-graph lbr refused here: $(grep . rlbr.err | tail -n 1)"
fi
