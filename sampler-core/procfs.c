/* procfs.c - parsing /proc/PID/{stat,maps,status} text for the capture
 * engine.  Pure functions over buffers, so the unit tests need no process. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>

int sfc_parse_stat(const char *buf, size_t len, struct sfc_stat *out)
{
	const char *open, *close = NULL;
	char *end;
	long pid;

	memset(out, 0, sizeof(*out));
	open = memchr(buf, '(', len);
	if (!open)
		return -1;
	/* the comm is whatever lies between the first '(' and the LAST ')':
	 * a thread may name itself "a) R (b" */
	for (const char *q = buf + len; q > open; q--) {
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	}
	if (!close)
		return -1;
	pid = strtol(buf, &end, 10);
	if (end == buf || pid <= 0 || end > open)
		return -1;
	out->pid = (pid_t)pid;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = 0;
	if ((size_t)(close - buf) + 3 > len || close[1] != ' ')
		return -1;
	out->state = close[2];
	return out->state ? 0 : -1;
}

const char *sfc_state_name(char state)
{
	switch (state) {
	case 'R': return "running";
	case 'S': return "sleeping";
	case 'D': return "disk-wait";
	case 'T': return "stopped";
	case 't': return "traced";
	case 'Z': case 'X': return "zombie";
	case 'I': return "idle";
	default: return "other";
	}
}

static const char *hex(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = p;

	while (p < e) {
		int c = (unsigned char)*p, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		x = x << 4 | (uint64_t)d;
		p++;
	}
	*v = x;
	return p == s ? NULL : p;
}

static const char *skip_sp(const char *p, const char *e)
{
	while (p < e && *p == ' ')
		p++;
	return p;
}

/* "START-END PERMS OFFSET MAJ:MIN INODE   PATH" */
int sfc_parse_maps_line(const char *line, size_t len, struct sfc_map *out)
{
	const char *p = line, *e = line + len;
	uint64_t dev;

	memset(out, 0, sizeof(*out));
	if (len && e[-1] == '\n')
		e--;
	if (!(p = hex(p, e, &out->start)) || p >= e || *p++ != '-')
		return -1;
	if (!(p = hex(p, e, &out->end)) || p >= e || *p++ != ' ')
		return -1;
	if (e - p < 5 || p[4] != ' ')
		return -1;
	memcpy(out->perms, p, 4);
	out->perms[4] = 0;
	p += 5;
	if (!(p = hex(p, e, &out->offset)) || p >= e || *p++ != ' ')
		return -1;
	if (!(p = hex(p, e, &dev)) || p >= e || *p++ != ':')
		return -1;
	if (!(p = hex(p, e, &dev)) || p >= e || *p++ != ' ')
		return -1;
	uint64_t ino = 0;
	const char *s = p;
	while (p < e && *p >= '0' && *p <= '9')
		ino = ino * 10 + (uint64_t)(*p++ - '0');
	if (p == s || out->end < out->start)
		return -1;
	out->inode = ino;
	p = skip_sp(p, e);
	out->path = p;
	out->path_len = (size_t)(e - p);
	static const char del[] = " (deleted)";
	if (out->path_len >= sizeof(del) - 1 &&
	    !memcmp(e - (sizeof(del) - 1), del, sizeof(del) - 1)) {
		out->deleted = true;
		out->path_len -= sizeof(del) - 1;
	}
	out->special = out->path_len && out->path[0] == '[';
	return 0;
}

long sfc_status_field(const char *status, const char *field)
{
	size_t n = strlen(field);

	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (!strncmp(p, field, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	}
	return -1;
}
