# speedscope writer output against speedscope's own file-format schema
# (dist/release/file-format-schema.json in the `speedscope` npm package),
# validated by ajv.  The packages are cached in $TOP/build/npm.
. "$TOP/tests/lib.sh"

NPMDIR=$TOP/build/npm
NM=$NPMDIR/node_modules
if ! have node || ! have npm; then
	skip speedscope-schema "node or npm not installed (scripts/install-deps.sh test)"
	exit 0
fi
if [ ! -f "$NM/speedscope/dist/release/file-format-schema.json" ] || [ ! -d "$NM/ajv" ]; then
	mkdir -p "$NPMDIR"
	if ! (cd "$NPMDIR" && timeout 300 npm install --no-audit --no-fund --prefix "$NPMDIR" speedscope ajv) >npm.log 2>&1; then
		skip speedscope-schema "npm install speedscope ajv failed: $(tail -n 1 npm.log)"
		exit 0
	fi
fi
VALIDATE="node $TOP/tests/web/validate-speedscope.js $NM"

# the validator must reject a broken file, or its passes mean nothing
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"nam":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"parsecs","startValue":0,"endValue":1,"samples":[[0]],"weights":[1]}]}\n' > broken.json
if $VALIDATE broken.json >v.out 2>&1; then fail speedscope-schema-rejects-broken "a broken file validated"
else pass speedscope-schema-rejects-broken; fi

check() { # NAME FILE
	if $VALIDATE "$2" >v.out 2>&1; then pass "$1"; else fail "$1" "$(head -c 400 v.out)"; fi
}

printf 'main;a;b 3\nmain;a 1\nother 5\n' > s.folded
$SFCONV s.folded -o s.speedscope.json 2>/dev/null
check speedscope-schema-collapsed s.speedscope.json
printf '1:main\t1\ta;b\n2:worker\t3\ta;c\n' > t.lines
$SFCONV --from lines t.lines -o t.speedscope.json 2>/dev/null
check speedscope-schema-threads t.speedscope.json
cat > f.cpuprofile <<'J'
{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
 {"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":4}}],
 "startTime":0,"endTime":10,"samples":[2],"timeDeltas":[0]}
J
$SFCONV f.cpuprofile -o f.speedscope.json 2>/dev/null
check speedscope-schema-file-line f.speedscope.json
if have_peers; then
	for f in "$PEERS/speedscope/speedscope/0.6.0/two-sampled.speedscope.json" \
		 "$PEERS/speedscope/speedscope/0.0.1/simple.speedscope.json" \
		 "$PEERS/speedscope/trace-event/multiprocess.json" \
		 "$PEERS/samply/ls-linux/ls-profile.json"; do
		n=$(basename "$f" .json)
		$SFCONV "$f" -o "p-$n.speedscope.json" 2>/dev/null
		check "speedscope-schema-from-$n" "p-$n.speedscope.json"
	done
fi
