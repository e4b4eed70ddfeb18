# bench/rows-capture.sh - sourced by bench/run.sh (make bench): the capture
# engine's costs to its target, bench/capture.sh, after the format rows.
# CAPTURE_SECS sets the length of each capture (default 3 s).
echo
echo "== sfcapture: sh bench/capture.sh ${CAPTURE_SECS:-3}"
sh "$top/bench/capture.sh" "${CAPTURE_SECS:-3}"
echo
echo "== sfcapture following children: sh bench/capture-children.sh ${CAPTURE_ROUNDS:-3}"
sh "$top/bench/capture-children.sh" "${CAPTURE_ROUNDS:-3}"
