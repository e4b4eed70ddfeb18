# make install into a temporary prefix, then build docs/example/count.c
# against the installed headers and library with pkg-config only (as a
# user of the library would) and run it on a profile whose answer is
# computed by hand below.
. "$TOP/tests/lib.sh"

if ! have pkg-config || ! have make || ! have cc; then
	skip install "pkg-config, make or cc missing"
	exit 0
fi
prefix=$SF_TMP/prefix
if ! make -s -C "$TOP" install PREFIX="$prefix" >install.log 2>&1; then
	fail install "make install failed: $(tail -n 3 install.log)"
	exit 0
fi
pass install
# programs and man pages where PREFIX says (t-cli.sh ran this once; the
# install is done here alone, once)
for f in bin/sfconv bin/sfanalyze bin/sfcapture share/man/man1/sfconv.1 \
	share/man/man1/sfanalyze.1 share/man/man1/sfcapture.1 lib/libsftools.a; do
	[ -s "$prefix/$f" ] || fail "install-file-$f" "not installed"
done
[ -x "$prefix/bin/sfconv" ] && "$prefix/bin/sfconv" --version >/dev/null 2>&1 &&
	pass install-programs-run || fail install-programs-run "installed sfconv does not run"
for h in sf.h profile.h io.h format.h diff.h analyze.h capture.h; do
	[ -f "$prefix/include/sftools/$h" ] || fail "install-header-$h" "not installed"
done
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --static --cflags --libs sftools 2>&1) ||
	{ fail install-pkgconfig "pkg-config sftools: $flags"; exit 0; }
case " $flags " in
*" -lsftools "*) pass install-pkgconfig ;;
*) fail install-pkgconfig "no -lsftools in: $flags" ;;
esac
# the example: no -I or -L into the source tree, only pkg-config's flags
if cc -std=c11 -Wall -Wextra -Werror -o count "$TOP/docs/example/count.c" \
	$flags >cc.log 2>&1; then
	pass install-example-builds
else
	fail install-example-builds "$(head -n 5 cc.log)"
	exit 0
fi

# leaf self weights: b = 4 + 3 = 7, a = 2, main = 1; total 10.  The
# same leaf name under two callers is one frame.
printf 'main;a;b 4\nmain;a 2\nmain;c;b 3\nmain 1\n' > in.folded
printf 'samples: 10\n7 b\n2 a\n1 main\n' > want.txt
./count in.folded > got.txt 2>count.err
expect_same install-example-output want.txt got.txt
# the same profile through another format gives the same answer
$SFCONV in.folded -o in.pb.gz 2>/dev/null
./count in.pb.gz > got2.txt 2>&1
expect_same install-example-pprof want.txt got2.txt
# a bad input: one message naming the file and line, status 2
printf 'main;a x\n' > bad.folded
./count bad.folded > /dev/null 2>bad.err
st=$?
if [ $st -eq 2 ] && grep -q '^count: bad.folded' bad.err; then
	pass install-example-error
else
	fail install-example-error "status $st: $(cat bad.err)"
fi
