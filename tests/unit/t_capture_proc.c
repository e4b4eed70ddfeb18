/* t_capture_proc.c - /proc parsing of the capture engine, without ptrace:
 * stat lines whose comm holds ')' and spaces, maps lines with deleted
 * files, [vdso] and anonymous mappings, status fields.  Expected values
 * are read off the hand-written lines. */
#include "unit.h"
#include "capture.h"

#include <string.h>

static int stat_of(const char *line, struct sfc_stat *st)
{
	return sfc_parse_stat(line, strlen(line), st);
}

int main(void)
{
	struct sfc_stat st;
	struct sfc_map m;
	const char *l;

	CHECK("stat-plain", !stat_of("1234 (cat) R 1 1234 1234 0 -1", &st));
	CHECK("stat-plain-pid", st.pid == 1234);
	CHECK_STR("stat-plain-comm", "cat", st.comm);
	CHECK("stat-plain-state", st.state == 'R');

	/* a thread may call itself "a) R (b": the comm ends at the LAST ')' */
	CHECK("stat-paren", !stat_of("77 (a) R (b) S 1 77 77 0", &st));
	CHECK_STR("stat-paren-comm", "a) R (b", st.comm);
	CHECK("stat-paren-state", st.state == 'S');
	CHECK("stat-spaces", !stat_of("8 (Web Content) D 1 2 3\n", &st));
	CHECK_STR("stat-spaces-comm", "Web Content", st.comm);
	CHECK("stat-spaces-state", st.state == 'D');
	CHECK("stat-empty-comm", !stat_of("9 () t 1", &st) && st.state == 't' &&
	      !st.comm[0]);
	CHECK("stat-truncated", stat_of("9 (abc", &st) != 0);
	CHECK("stat-no-state", stat_of("9 (abc)", &st) != 0);
	CHECK("stat-no-pid", stat_of("(abc) R 1", &st) != 0);
	CHECK("stat-garbage", stat_of("", &st) != 0);

	CHECK_STR("state-R", "running", sfc_state_name('R'));
	CHECK_STR("state-S", "sleeping", sfc_state_name('S'));
	CHECK_STR("state-D", "disk-wait", sfc_state_name('D'));
	CHECK_STR("state-T", "stopped", sfc_state_name('T'));
	CHECK_STR("state-unknown", "other", sfc_state_name('?'));

	l = "55d0c3a00000-55d0c3a02000 r-xp 00002000 fe:01 1311240                    /usr/bin/cat\n";
	CHECK("maps-file", !sfc_parse_maps_line(l, strlen(l), &m));
	CHECK("maps-file-range", m.start == 0x55d0c3a00000ULL &&
	      m.end == 0x55d0c3a02000ULL && m.offset == 0x2000);
	CHECK_STR("maps-file-perms", "r-xp", m.perms);
	CHECK("maps-file-inode", m.inode == 1311240);
	CHECK("maps-file-path", m.path_len == 12 &&
	      !memcmp(m.path, "/usr/bin/cat", 12) && !m.deleted && !m.special);

	l = "7f0000000000-7f0000001000 r-xp 00000000 00:05 42 /tmp/jit code (deleted)";
	CHECK("maps-deleted", !sfc_parse_maps_line(l, strlen(l), &m));
	CHECK("maps-deleted-flag", m.deleted && m.path_len == 13 &&
	      !memcmp(m.path, "/tmp/jit code", 13));

	l = "7ffd5a1f0000-7ffd5a1f2000 r-xp 00000000 00:00 0                          [vdso]";
	CHECK("maps-vdso", !sfc_parse_maps_line(l, strlen(l), &m));
	CHECK("maps-vdso-special", m.special && m.path_len == 6 &&
	      !memcmp(m.path, "[vdso]", 6) && m.inode == 0);

	l = "7f1c2c000000-7f1c2c021000 rw-p 00000000 00:00 0 \n";
	CHECK("maps-anon", !sfc_parse_maps_line(l, strlen(l), &m) &&
	      m.path_len == 0 && !m.special);
	l = "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";
	CHECK("maps-vsyscall", !sfc_parse_maps_line(l, strlen(l), &m) &&
	      m.start == 0xffffffffff600000ULL && m.special);
	l = "zz-7f r-xp 0 0:0 0";
	CHECK("maps-bad-hex", sfc_parse_maps_line(l, strlen(l), &m) != 0);
	l = "7f1c2c000000-7f1c2c021000 rw-p";
	CHECK("maps-short", sfc_parse_maps_line(l, strlen(l), &m) != 0);
	l = "2000-1000 r-xp 00000000 00:00 0";
	CHECK("maps-reversed", sfc_parse_maps_line(l, strlen(l), &m) != 0);

	const char *status = "Name:\tcat\nState:\tS (sleeping)\nTgid:\t5\n"
			     "TracerPid:\t4321\nUid:\t1000\t1000\t1000\t1000\n";
	CHECK("status-tracer", sfc_status_field(status, "TracerPid") == 4321);
	CHECK("status-uid", sfc_status_field(status, "Uid") == 1000);
	CHECK("status-missing", sfc_status_field(status, "NoSuch") == -1);
	CHECK("status-prefix-only", sfc_status_field(status, "Tracer") == -1);
	return unit_failed;
}
