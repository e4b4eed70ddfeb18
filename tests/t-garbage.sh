# Every reader, forced with --from, rejects garbage with exit 1 and one
# message line naming the input (never a crash, never a silent success).
. "$TOP/tests/lib.sh"

head -c 3000 /dev/zero | tr '\0' 'x' > text-garbage
printf '\001\002\003\377\376 garbage \n\000\000\033[0m\n' > bin-garbage
python3 -c 'import random,sys; r=random.Random(9); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' > rand-garbage
for fmt in $($SFCONV --list-formats | awk '$2 ~ /^r/ {print $1}'); do
	for g in text-garbage bin-garbage rand-garbage; do
		expect_error "garbage-$fmt-$g" 1 "^sfconv: $g" $SFCONV --from "$fmt" "$g" -o out.json
		[ -e out.json ] && { fail "garbage-$fmt-$g-no-output" "output left behind"; rm -f out.json; }
	done
done
exit 0
