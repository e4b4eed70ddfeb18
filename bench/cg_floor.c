/* cg_floor.c - measurement only (bench/cg-floor.sh): the least CPU time
 * writing the lines of a `sfanalyze --callgraph` text report can take.
 *
 *     cg_floor REPORT MODE > /dev/null
 *
 * reads the report, keeps each edge line ("   caller [12]  ...  NAME") as
 * numbers (its direction, the other end's index, its time, its
 * percentage in tenths) and every other line as text, the names by index
 * in one compact table, then times writing all the lines again, in order,
 * into a 1 MiB buffer written to standard output:
 *
 *     copy     the report's own bytes, line by line (memory bandwidth)
 *     digits   each edge line formatted from its numbers by hand
 *     printf   the same with snprintf of the report's format
 *
 * and prints the CPU time on standard error, per line and in MB/s.  The
 * edge lines' times and percentages are not computed here (sfanalyze
 * divides each line's time by the node's total): what is left is the
 * formatting and the copies alone.  digits and printf write the input's
 * bytes (bench/cg-floor.sh checks it with cmp). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* an edge line as numbers */
struct eline {
	uint64_t t;           /* the time's digits, or UINT64_MAX: text at ts */
	uint32_t other;       /* the other end's index, 0 for * */
	uint32_t pct;         /* tenths */
	uint32_t ts;
	uint8_t callee;
};

/* a line: edge line e - 1, or (e == 0) text */
struct rec {
	uint32_t e, off, len;
};

/* a growing text */
struct arena {
	char *b;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n))) {
		perror("cg_floor");
		exit(2);
	}
	return p;
}

static uint32_t keep(struct arena *a, const char *s, size_t n)
{
	if (a->len + n > a->cap) {
		a->cap = (a->len + n) * 2;
		a->b = xrealloc(a->b, a->cap);
	}
	memcpy(a->b + a->len, s, n);
	a->len += n;
	return (uint32_t)(a->len - n);
}

static double cpu_now(void)
{
	struct timespec c;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	return c.tv_sec + c.tv_nsec / 1e9;
}

static char obuf[1 << 20];
static size_t olen;
static uint64_t written;

/* room for `need` more bytes in obuf, writing it out if full */
static inline void room(size_t need)
{
	if (olen + need <= sizeof(obuf))
		return;
	if (write(1, obuf, olen) != (ssize_t)olen) {
		perror("cg_floor: write");
		exit(2);
	}
	written += olen;
	olen = 0;
}

/* the digits of u ending at `end`; returns where they begin */
static char *digits(char *end, uint64_t u)
{
	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return end;
}

/* An edge line of the report as numbers */
static struct eline parse_edge(const char *line, struct arena *text)
{
	struct eline x = { 0 };
	const char *p = line + 10, *q, *te;
	size_t tl, k;

	x.callee = line[8] == 'e';        /* "   callee" / "   caller" */
	if (*p == '[')
		x.other = (uint32_t)strtoul(p + 1, NULL, 10);
	p += 9;                           /* "%-8s " */
	for (q = p; *q == ' '; q++)
		;
	for (te = q; *te != ' '; te++)
		;
	tl = (size_t)(te - q);
	for (k = 0; k < tl && q[k] >= '0' && q[k] <= '9'; k++)
		;
	if (k == tl) {
		x.t = strtoull(q, NULL, 10);
	} else {
		x.t = UINT64_MAX;
		x.ts = keep(text, q, tl);
		keep(text, "", 1);
	}
	p += 15;                          /* "%14s " */
	x.pct = (uint32_t)(strtod(p, NULL) * 10 + 0.5);
	return x;
}

/* "   %-6s %-8s %14s %6.1f%%  " of x by hand; returns the end */
static char *put_digits_line(char *p, const struct eline *x,
			     const struct arena *text)
{
	char b[24], *d, *e = b + sizeof(b);
	size_t l;

	memcpy(p, x->callee ? "   callee " : "   caller ", 10);
	p += 10;
	memset(p, ' ', 24);
	if (x->other) {
		*--e = ']';
		d = digits(e, x->other);
		*--d = '[';
		memcpy(p, d, (size_t)(b + sizeof(b) - d));
	} else {
		*p = '*';
	}
	p += 9;
	if (x->t != UINT64_MAX) {
		e = b + sizeof(b);
		d = digits(e, x->t);
		l = (size_t)(e - d);
	} else {
		d = text->b + x->ts;
		l = strlen(d);
	}
	memcpy(p + 14 - l, d, l);
	p += 14;
	*p++ = ' ';
	memset(p, ' ', 6);
	e = p + 6;
	*--e = (char)('0' + x->pct % 10);
	*--e = '.';
	digits(e, x->pct / 10);
	p += 6;
	memcpy(p, "%  ", 3);
	return p + 3;
}

/* the same with snprintf */
static char *put_printf_line(char *p, const struct eline *x,
			     const struct arena *text)
{
	char idx[16], tb[32];

	if (x->other)
		snprintf(idx, sizeof(idx), "[%u]", x->other);
	else
		strcpy(idx, "*");
	if (x->t != UINT64_MAX)
		snprintf(tb, sizeof(tb), "%llu", (unsigned long long)x->t);
	else
		snprintf(tb, sizeof(tb), "%s", text->b + x->ts);
	return p + sprintf(p, "   %-6s %-8s %14s %6.1f%%  ",
			   x->callee ? "callee" : "caller", idx, tb,
			   x->pct / 10.0);
}

int main(int argc, char **argv)
{
	static const char star[2][16] = { "(stack root)\n", "(self time)\n" };
	FILE *f = argc == 3 ? fopen(argv[1], "r") : NULL;
	const char *mode = argc == 3 ? argv[2] : "";
	struct arena text = { 0 }, names = { 0 };
	struct rec *recs = NULL;
	struct eline *el = NULL;
	uint32_t *name_off = NULL, *name_len = NULL;
	size_t nrec = 0, caprec = 0, ne = 0, cape = 0, capn = 0, cap = 0;
	char *line = NULL;
	ssize_t n;
	double c0, c1;

	if (!f || (strcmp(mode, "copy") && strcmp(mode, "digits") &&
		   strcmp(mode, "printf"))) {
		fprintf(stderr, "usage: cg_floor REPORT copy|digits|printf\n");
		return 2;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (nrec == caprec)
			recs = xrealloc(recs, (caprec = caprec * 2 + 1024) *
						      sizeof(*recs));
		/* copy keeps every line as text */
		if (mode[0] != 'c' && (!strncmp(line, "   caller ", 10) ||
				       !strncmp(line, "   callee ", 10))) {
			if (ne == cape)
				el = xrealloc(el, (cape = cape * 2 + 1024) *
							  sizeof(*el));
			el[ne++] = parse_edge(line, &text);
			recs[nrec++] = (struct rec){ (uint32_t)ne, 0, 0 };
			continue;
		}
		/* a node's line " [i]  ...  NAME": its name for the table */
		if (line[0] == ' ' && line[1] == '[') {
			uint32_t i = (uint32_t)strtoul(line + 2, NULL, 10);
			char *nm = n > 40 ? strstr(line + 40, "%)  ") : NULL;
			if (nm) {
				nm += 4;
				while (i >= capn) {
					capn = capn * 2 + 1024;
					name_off = xrealloc(name_off, capn * 4);
					name_len = xrealloc(name_len, capn * 4);
				}
				name_len[i] = (uint32_t)(line + n - nm);
				name_off[i] = keep(&names, nm, name_len[i]);
			}
		}
		recs[nrec++] = (struct rec){ 0, keep(&text, line, (size_t)n),
					     (uint32_t)n };
	}
	fclose(f);
	free(line);

	c0 = cpu_now();
	for (size_t r = 0; r < nrec; r++) {
		const struct eline *x;
		const char *nm;
		size_t nl;
		char *p;

		if (!recs[r].e) {
			room(recs[r].len);
			memcpy(obuf + olen, text.b + recs[r].off, recs[r].len);
			olen += recs[r].len;
			continue;
		}
		x = &el[recs[r].e - 1];
		if (r + 8 < nrec && recs[r + 8].e)
			__builtin_prefetch(names.b +
				name_off[el[recs[r + 8].e - 1].other]);
		nm = x->other ? names.b + name_off[x->other] : star[x->callee];
		nl = x->other ? name_len[x->other] : strlen(star[x->callee]);
		room(nl + 128);
		p = obuf + olen;
		p = mode[0] == 'p' ? put_printf_line(p, x, &text) :
				     put_digits_line(p, x, &text);
		memcpy(p, nm, nl);
		olen = (size_t)(p + nl - obuf);
	}
	room(sizeof(obuf));
	c1 = cpu_now();
	fprintf(stderr, "%s: %zu lines (%zu edge lines), %.0f ms CPU, "
		"%.1f ns a line, %.0f MB/s\n", mode, nrec, ne,
		(c1 - c0) * 1e3, (c1 - c0) * 1e9 / (double)nrec,
		(double)written / 1e6 / (c1 - c0));
	return 0;
}
