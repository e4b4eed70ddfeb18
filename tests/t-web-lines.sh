# Every error of the web JSON readers (cpuprofile, Chrome trace,
# speedscope, Firefox) names the line of the offending value: the line
# where an array or object starts, a bulk element's own line, or the last
# line for what a document lacks.  Inputs are hand-made, the lines counted
# by hand.
. "$TOP/tests/lib.sh"

# refuse NAME FILE 'LINE: MESSAGE-RE' [OPTION...]: sfconv refuses FILE with
# one message "sfconv: FILE:LINE: ..." and writes nothing
refuse() {
	name=$1 file=$2 re=$3
	shift 3
	expect_error "$name" 1 "^sfconv: $(printf %s "$file" |
		sed 's/\./\\./g'):$re" $SFCONV "$@" "$file" -o never.folded
}

# ----- cpuprofile -----

# nodes[2] (line 4) has no "id"
printf '{"nodes":[\n{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},\n{"id":2,"callFrame":{"functionName":"a"}},\n{"callFrame":{"functionName":"b"}}\n],\n"samples":[2],"timeDeltas":[1],"startTime":0,"endTime":1}\n' > noid.cpuprofile
refuse cpuprofile-line-node noid.cpuprofile '4: nodes\[2\]: expected an object with an integer "id"'

# node 2 again on line 4
printf '{"nodes":[\n{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},\n{"id":2,"callFrame":{"functionName":"a"}},\n{"id":2,"callFrame":{"functionName":"b"}}],\n"samples":[2],"timeDeltas":[1],"startTime":0,"endTime":1}\n' > twice.cpuprofile
refuse cpuprofile-line-twice twice.cpuprofile '4: CPU profile node id 2 appears twice$'

# samples[2], the 7 on line 6, names no node
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},\n{"id":2,"callFrame":{"functionName":"a"}}],\n"startTime":0,"endTime":3,\n"samples":[2,\n2,\n7],\n"timeDeltas":[1,1,1]}\n' > unknown.cpuprofile
refuse cpuprofile-line-sample unknown.cpuprofile '6: sample refers to unknown node id 7$'

# node 3 is only named, in the children list that starts on line 3
printf '{"nodes":[\n{"id":1,"callFrame":{"functionName":"(root)"},\n"children":[2,3]},\n{"id":2,"callFrame":{"functionName":"a"}}],\n"samples":[3],"timeDeltas":[1],"startTime":0,"endTime":1}\n' > named.cpuprofile
refuse cpuprofile-line-undefined named.cpuprofile '3: a sample refers to CPU profile node 3, which is never defined$'

# no "nodes": the last line (3; the final newline opens no line)
printf '{"samples":[],\n"timeDeltas":[]\n}\n' > nonodes.cpuprofile
refuse cpuprofile-line-missing nonodes.cpuprofile '3: not a CPU profile: no "nodes" array$'

# ----- speedscope -----

ss='{"$schema":"https://www.speedscope.app/file-format-schema.json",\n'

# events[2] (line 6) goes back in time
printf "$ss"'"shared":{"frames":[{"name":"a"}]},\n"profiles":[{"type":"evented","name":"p","unit":"none","startValue":0,"endValue":9,\n"events":[{"type":"O","frame":0,"at":5},\n{"type":"C","frame":0,"at":6},\n{"type":"O","frame":0,"at":2},\n{"type":"C","frame":0,"at":9}]}]}\n' > back.speedscope.json
refuse speedscope-line-event back.speedscope.json '6: profiles\[0\]\.events\[2\]: events go back in time$'

# samples[1] (line 5) names frame 4 of 1
printf "$ss"'"shared":{"frames":[{"name":"a"}]},\n"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":2,\n"samples":[[0],\n[0,4]],\n"weights":[1,1]}]}\n' > range.speedscope.json
refuse speedscope-line-sample range.speedscope.json '5: profiles\[0\]\.samples\[1\]: frame index out of range$'

# the profile of line 4 has a unit that is not one
printf "$ss"'"shared":{"frames":[{"name":"a"}]},\n"profiles":[\n{"type":"sampled","name":"p","unit":"parsecs","startValue":0,"endValue":2,\n"samples":[[0]],"weights":[1]}]}\n' > unit.speedscope.json
refuse speedscope-line-unit unit.speedscope.json "4: unknown speedscope unit 'parsecs'\$"

# shared.frames[1] (line 3) has no name
printf "$ss"'"shared":{"frames":[{"name":"a"},\n{"file":"x.js"}]},\n"profiles":[]}\n' > noname.speedscope.json
refuse speedscope-line-frame noname.speedscope.json '3: shared\.frames\[1\]: expected an object with a "name"$'

# ----- Chrome trace -----

# traceEvents[2] (line 3) has no ts
printf '[{"ph":"B","pid":1,"tid":1,"name":"a","ts":1},\n{"ph":"E","pid":1,"tid":1,"name":"a","ts":2},\n{"ph":"B","pid":1,"tid":1,"name":"b"}]\n' > nots.trace.json
refuse chrome-line-event nots.trace.json '3: traceEvents\[2\]: "B" event without a numeric "ts"$' --from chrome-trace

# the sample of line 4 names frame 5, which stackFrames lacks
printf '{"traceEvents":[],\n"stackFrames":{"1":{"name":"a"}},\n"samples":[{"sf":1,"ts":1},\n{"sf":5,"ts":2}]}\n' > nosf.trace.json
refuse chrome-line-frame nosf.trace.json "4: stackFrames: no frame '5'\$" --from chrome-trace

# ----- Firefox -----

# frameTable.func (line 4) names function 5 of 1
printf '{"meta":{},\n"threads":[{"stringArray":["a"],\n"funcTable":{"name":[0]},\n"frameTable":{"func":[5]},\n"stackTable":{"prefix":[null],"frame":[0]},\n"samples":{"stack":[0]}}]}\n' > func.firefox.json
refuse firefox-line-func func.firefox.json '4: threads\[0\]: frameTable\.func: not a function with a name$' --from firefox

# the thread of line 3 lacks its tables
printf '{"meta":{},\n"threads":[\n{"name":"x","stringArray":["a"]}]}\n' > bare.firefox.json
refuse firefox-line-thread bare.firefox.json '3: threads\[0\]: expected a processed-format thread' --from firefox

# ----- a key twice -----

# json-c keeps the last of two "shared" members, so the tree has fewer
# containers than the scanner met and its lines are not trusted; the
# profiles are diverted, so the profile keeps its own line (4), and the
# bulk elements theirs: samples[1] is still on line 5 of
# range.speedscope.json
printf "$ss"'"shared":{"frames":[]},"shared":{"frames":[{"name":"a"}]},\n"profiles":[\n{"type":"sampled","name":"p","unit":"parsecs","startValue":0,"endValue":2,\n"samples":[[0]],"weights":[1]}]}\n' > dup.speedscope.json
refuse speedscope-line-dup dup.speedscope.json "4: unknown speedscope unit 'parsecs'\$"
[ -e never.folded ] && fail web-lines-no-output "an output was written" ||
	pass web-lines-no-output
